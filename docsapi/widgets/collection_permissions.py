"""CollectionPermissionEditor: who holds a permission on a collection (and so on its spaces)."""

from __future__ import annotations

from typing import Any

from docsapi.core.checks import check_entity_id
from docsapi.widgets.permissions import GrantEditor

__all__ = ["CollectionPermissionEditor"]


class CollectionPermissionEditor(GrantEditor):
    """Edit who holds a permission on a collection: change roles, remove, invite.

    A role on a collection reaches every space inside it, at any depth, so one change
    here can open or close many spaces at once. Everything but the target is
    :class:`~docsapi.widgets.permissions.GrantEditor`'s (attributes, ``.value``,
    ``save()``, ``remove(kind, id)``, ``invite()``), as in
    :class:`~docsapi.widgets.PermissionEditor`.

    Parameters
    ----------
    client : DocsClient
        The client to call (``client.collections``, ``client.orgs``).
    collection_id : str
        The collection whose permissions to edit.
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Raises
    ------
    ValidationError
        ``collection_id`` is not an id (nothing is sent).

    Examples
    --------
    >>> from docsapi.widgets import CollectionPermissionEditor
    >>> editor = CollectionPermissionEditor(client, collection_id)
    >>> editor.load()  # or display(editor): it loads when shown
    True
    >>> team = next(iter(editor.team_rows))  # a team holding a permission on it
    >>> editor.team_rows[team].role_dropdown.value = "read"
    >>> editor.save() == {"teams": {team: "read"}}
    True
    """

    heading = "Collection permissions"
    noun = "collection"

    def __init__(self, client: Any, collection_id: str, **kwargs: Any) -> None:
        self.collection_id = check_entity_id(collection_id, "collection_id")
        super().__init__(client, self.collection_id, **kwargs)

    def _grants(self) -> Any:
        return self.client.collections

    def _organization(self) -> str:
        return self.client.collections.get(self.collection_id).organization
