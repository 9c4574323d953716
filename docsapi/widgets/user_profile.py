"""UserProfileForm: a user's display name and photo URL."""

from __future__ import annotations

from html import escape
from typing import Any

import ipywidgets as widgets

from docsapi.core.checks import MAX_DISPLAY_NAME, check_display_name, check_id, check_url
from docsapi.errors import ValidationError
from docsapi.widgets._base import EditForm, text_input

__all__ = ["UserProfileForm"]


class UserProfileForm(EditForm):
    """Edit a user's profile (display name, photo URL); Save sends only what changed.

    Parameters
    ----------
    client : DocsClient
        The client to call (``client.users.me``/``get`` and ``client.users.update``).
    user_id : str, optional
        The user to edit; the token's own user (``client.users.me()``) when omitted.
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Attributes
    ----------
    display_name_text : ipywidgets.Text
        1 to 64 characters; problems in ``display_name_error``.
    photo_url_text : ipywidgets.Text
        An http(s) URL; problems in ``photo_url_error``. The API cannot remove a photo,
        so a photo once set can only be replaced.
    photo_html : ipywidgets.HTML
        A preview of the saved photo.
    user_id : str or None
        The user being edited (known once the profile has loaded).
    save_button, reload_button, status_output, heading_html
        As in every form.

    Notes
    -----
    ``.value`` holds the pending edits as keyword arguments of ``client.users.update``,
    e.g. ``{"display_name": "Ada L."}``. ``.save()`` returns the updated
    :class:`~docsapi.models.User`, or ``None`` if nothing was sent or the API refused.

    Examples
    --------
    >>> from docsapi.widgets import UserProfileForm
    >>> form = UserProfileForm(client)
    >>> form.load().id == admin_id  # or display(form): it loads when shown
    True
    >>> form.display_name_text.value = "Ada L."
    >>> form.save().display_name
    'Ada L.'
    """

    heading = "User profile"

    def __init__(self, client: Any, user_id: str | None = None, **kwargs: Any) -> None:
        self.user_id = None if user_id is None else check_id(user_id, "user_id")
        super().__init__(client, **kwargs)

    def _build(self) -> None:
        self.photo_html = widgets.HTML()
        self.display_name_text = text_input(
            "Name", placeholder=f"1 to {MAX_DISPLAY_NAME} characters"
        )
        self.display_name_error = self._field(
            "display_name", self.display_name_text, check=check_display_name
        ).error
        self.photo_url_text = text_input("Photo URL", placeholder="https://…")
        self.photo_url_error = self._field(
            "photo_url", self.photo_url_text, to_api=str.strip, check=self._check_photo
        ).error

    def _rows(self) -> tuple[widgets.Widget, ...]:
        return (self.photo_html, *super()._rows())

    def _check_photo(self, url: str) -> str:
        """An empty URL is fine until a photo is set; the API cannot remove one."""
        if not url and self._original.get("photo_url"):
            raise ValidationError(
                "photo_url", "a photo cannot be removed, only replaced: enter a URL"
            )
        return check_url(url, "photo_url") if url else url

    def _fetch(self) -> Any:
        if self.user_id is None:
            return self.client.users.me()
        return self.client.users.get(self.user_id)

    def _values_of(self, user: Any) -> dict[str, Any]:
        self.user_id = user.id
        return {"display_name": user.display_name or "", "photo_url": user.photo_url or ""}

    def _show(self, values: dict[str, Any]) -> None:
        super()._show(values)
        photo = values["photo_url"]
        self.photo_html.value = (
            f'<img src="{escape(photo)}" alt="photo" style="height: 48px">' if photo else ""
        )

    def _submit(self, changes: dict[str, Any]) -> Any:
        return self.client.users.update(self.user_id, **changes)
