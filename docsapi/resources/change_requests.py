"""Change requests: proposed changes to a space's content."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docsapi.core.checks import CHANGE_REQUEST_STATUSES, check_choice, check_entity_id, check_text
from docsapi.models import ChangeRequest
from docsapi.resources._base import ResourceGroup, api_path

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ChangeRequests"]

MAX_SUBJECT = 100


class ChangeRequests(ResourceGroup):
    """Change requests of spaces: ``client.change_requests``."""

    _name = "change_requests"

    def create(self, space_id: str, *, subject: str | None = None) -> ChangeRequest:
        """Open a change request on a space.

        Parameters
        ----------
        space_id : str
            The space's id.
        subject : str, optional
            A short subject, at most 100 characters.

        Returns
        -------
        ChangeRequest
            The whole change request (the deprecated ``changeRequest`` property the
            API still appends stays in ``.raw``).

        Raises
        ------
        ValidationError
            A subject longer than 100 characters.
        NotFoundError
            No such space.

        Examples
        --------
        >>> change = client.change_requests.create(space_id, subject="Fix typos")
        >>> change.subject, change.status
        ('Fix typos', 'open')
        """
        check_entity_id(space_id, "space_id")
        body: dict[str, Any] = {}
        if subject is not None:
            body["subject"] = check_text(subject, "subject", max_length=MAX_SUBJECT)
        path = api_path("spaces", space_id, "change-requests")
        return ChangeRequest.from_api(self._object("POST", path, json=body))

    def list(self, space_id: str, *, status: str | None = None) -> pd.DataFrame:
        """List the change requests of a space (all pages are fetched).

        Parameters
        ----------
        space_id : str
            The space's id.
        status : {"draft", "open", "archived", "merged"}, optional
            Only change requests in this state (the API's default is ``"open"``).

        Returns
        -------
        pandas.DataFrame
            space_id, id, number, subject, status, created_at, updated_at, url_app.

        Raises
        ------
        ValidationError
            An unknown status.
        NotFoundError
            No such space.

        Examples
        --------
        >>> drafts = client.change_requests.list(space_id, status="draft")
        >>> set(drafts.status)
        {'draft'}
        """
        from docsapi.data import frames

        check_entity_id(space_id, "space_id")
        params = None
        if status is not None:
            params = {"status": check_choice(status, CHANGE_REQUEST_STATUSES, "status")}
        items = self._items(api_path("spaces", space_id, "change-requests"), params)
        return frames.change_requests(space_id, items)
