"""Spaces: read, list, update, delete and restore, duplicate, move, embed, search."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any

from docsapi.core.checks import (
    EDIT_MODES,
    LANGUAGES,
    MERGE_RULE_KINDS,
    check_choice,
    check_default_level,
    check_emoji,
    check_entity_id,
    check_id,
    check_limit,
    check_mapping,
    check_search_query,
    check_space_title,
    check_url,
)
from docsapi.errors import ResponseFormatError, ValidationError
from docsapi.models import Embed, Space
from docsapi.resources._base import (
    NOT_GIVEN,
    PAGE_SIZE,
    NotGiven,
    ResourceGroup,
    api_path,
    move_body,
    object_of,
    was_removed,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Spaces", "emoji_or_icon_update"]


def _merge_rules(value: Any) -> dict[str, Any]:
    rules = check_mapping(value, "merge_rules")
    if rules.get("type") not in MERGE_RULE_KINDS:
        raise ValidationError(
            "merge_rules", f"needs 'type' set to one of {', '.join(MERGE_RULE_KINDS)}"
        )
    if rules["type"] == "rules" and not isinstance(rules.get("rules"), list):
        raise ValidationError("merge_rules", "with type 'rules' needs a 'rules' list")
    return rules


def emoji_or_icon_update(emoji: Any = NOT_GIVEN, icon: Any = NOT_GIVEN) -> dict[str, Any]:
    """The emoji/icon part of a space update: one of them, or both cleared.

    A space shows an emoji or an icon, never both: setting one replaces the other, and
    ``None`` for either removes both. This is the one statement of that rule, used by
    :meth:`Spaces.update` and by the space settings form.

    Parameters
    ----------
    emoji : str or None, optional
        The emoji to show; ``None`` removes the emoji and the icon.
    icon : str or None, optional
        The URL of the icon to show; ``None`` removes the emoji and the icon.

    Returns
    -------
    dict
        The keyword arguments of the change: ``{}`` (neither given), ``{"emoji": ...}``,
        ``{"icon": ...}`` or ``{"emoji": None, "icon": None}``.

    Raises
    ------
    ValidationError
        Both set, one set and the other ``None``, or a value breaking its rule.

    Examples
    --------
    >>> emoji_or_icon_update(emoji="1f4d8")
    {'emoji': '1f4d8'}
    >>> emoji_or_icon_update(None, None)
    {'emoji': None, 'icon': None}
    """
    if emoji is NOT_GIVEN and icon is NOT_GIVEN:
        return {}
    if emoji is None or icon is None:
        if emoji not in (None, NOT_GIVEN) or icon not in (None, NOT_GIVEN):
            raise ValidationError(
                "emoji, icon", "set exactly one of emoji or icon, or pass None to remove them"
            )
        return {"emoji": None, "icon": None}
    if emoji is not NOT_GIVEN and icon is not NOT_GIVEN:
        raise ValidationError(
            "emoji, icon", "a space shows an emoji or an icon, not both: set only one"
        )
    if emoji is not NOT_GIVEN:
        return {"emoji": check_emoji(emoji)}
    return {"icon": check_url(icon, "icon")}


class Spaces(ResourceGroup):
    """Spaces (containers of pages and files): ``client.spaces``."""

    _name = "spaces"

    def get(self, space_id: str, *, share_key: str | None = None) -> Space:
        """Return a space.

        Parameters
        ----------
        space_id : str
            The space's id.
        share_key : str, optional
            A site share key, to read a space shared by link.

        Returns
        -------
        Space

        Raises
        ------
        ValidationError
            A malformed id.
        NotFoundError
            No such space (or it is in the trash).

        Examples
        --------
        >>> client.spaces.get(space_id).title
        'Onboarding handbook'
        """
        check_entity_id(space_id, "space_id")
        params = {"shareKey": check_id(share_key, "share_key")} if share_key is not None else None
        return Space.from_api(self._get(api_path("spaces", space_id), params))

    def list(self, *, org_id: str | None = None, user_id: str | None = None) -> pd.DataFrame:
        """List every space of an organization, or of a user (all pages are fetched).

        Parameters
        ----------
        org_id : str, optional
            An organization's id (``GET /orgs/{id}/spaces``).
        user_id : str, optional
            A user's id (``GET /users/{id}/spaces``). Give exactly one of the two.

        Returns
        -------
        pandas.DataFrame
            One row per space, columns of ``frames.SCHEMAS["spaces"]``.

        Raises
        ------
        ValidationError
            Neither or both of ``org_id`` and ``user_id`` given.
        NotFoundError
            No such organization or user.

        Examples
        --------
        >>> spaces = client.spaces.list(org_id=org_id)
        >>> spaces.set_index("id").title[space_id]
        'Onboarding handbook'
        >>> mine = client.spaces.list(user_id=admin_id)  # the spaces one user reaches
        """
        from docsapi.data import frames

        if (org_id is None) == (user_id is None):
            raise ValidationError("org_id, user_id", "give exactly one of org_id or user_id")
        if org_id is not None:
            path = api_path("orgs", check_entity_id(org_id, "org_id"), "spaces")
        else:
            path = api_path("users", check_id(user_id, "user_id"), "spaces")
        return frames.spaces(self._items(path))

    def update(
        self,
        space_id: str,
        *,
        title: str | NotGiven = NOT_GIVEN,
        edit_mode: str | NotGiven = NOT_GIVEN,
        default_level: str | NotGiven | None = NOT_GIVEN,
        language: str | NotGiven = NOT_GIVEN,
        merge_rules: Mapping[str, Any] | NotGiven = NOT_GIVEN,
        emoji: str | NotGiven | None = NOT_GIVEN,
        icon: str | NotGiven | None = NOT_GIVEN,
    ) -> Space:
        """Change a space's settings; only the arguments given are sent.

        Parameters
        ----------
        space_id : str
            The space's id.
        title : str, optional
            At most 50 characters.
        edit_mode : {"live", "locked"}, optional
        default_level : str or None, optional
            A member role, ``"inherit"``, or ``None`` (guest).
        language : str, optional
            A ``TranslationLanguage`` code such as ``"en"`` or ``"pt-br"``.
        merge_rules : dict, optional
            ``{"type": "inherit"}``, ``{"type": "none"}`` or ``{"type": "rules", "rules": [...]}``.
        emoji : str or None, optional
            The emoji to show. Set either ``emoji`` or ``icon``, not both.
        icon : str or None, optional
            The URL of an icon to show. ``emoji=None`` or ``icon=None`` (or both) remove
            whichever is set.

        Returns
        -------
        Space
            The updated space.

        Raises
        ------
        ValidationError
            Nothing to change, both emoji and icon set, or a value breaking its rule.
        NotFoundError
            No such space.

        Examples
        --------
        >>> space = client.spaces.update(space_id, title="Handbook", edit_mode="locked")
        >>> space.title, space.edit_mode
        ('Handbook', 'locked')
        >>> not client.spaces.update(space_id, emoji=None).emoji  # remove the emoji
        True
        """
        check_entity_id(space_id, "space_id")
        body: dict[str, Any] = {}
        if title is not NOT_GIVEN:
            body["title"] = check_space_title(title)
        if edit_mode is not NOT_GIVEN:
            body["editMode"] = check_choice(edit_mode, EDIT_MODES, "edit_mode")
        if default_level is not NOT_GIVEN:
            body["defaultLevel"] = check_default_level(default_level)
        if language is not NOT_GIVEN:
            body["language"] = check_choice(language, LANGUAGES, "language")
        if merge_rules is not NOT_GIVEN:
            body["mergeRules"] = _merge_rules(merge_rules)
        body.update(emoji_or_icon_update(emoji, icon))
        if not body:
            raise ValidationError(
                "update",
                "give at least one of title, edit_mode, default_level, language, "
                "merge_rules, emoji or icon",
            )
        return Space.from_api(self._object("PATCH", api_path("spaces", space_id), json=body))

    def delete(self, space_id: str) -> bool:
        """Move a space to the trash; it can be restored for 7 days.

        Parameters
        ----------
        space_id : str
            The space's id.

        Returns
        -------
        bool
            True if the space was deleted now (205), False if it did not exist (204).

        Raises
        ------
        ValidationError
            A malformed id.
        PermissionDeniedError
            The token may not delete spaces.

        Examples
        --------
        >>> copy = client.spaces.duplicate(space_id)
        >>> client.spaces.delete(copy.id)
        True
        """
        check_entity_id(space_id, "space_id")
        return was_removed(self._transport.request("DELETE", api_path("spaces", space_id)))

    def duplicate(self, space_id: str) -> Space:
        """Copy a space within its organization (the copy has no site placement).

        Parameters
        ----------
        space_id : str
            The space to copy.

        Returns
        -------
        Space
            The new space; ``.location`` holds the API URL from the ``Location`` header.

        Raises
        ------
        NotFoundError
            No such space.

        Examples
        --------
        >>> copy = client.spaces.duplicate(space_id)
        >>> copy.title
        'Onboarding handbook (copy)'
        >>> copy.location == f"{client.base_url}/spaces/{copy.id}"
        True
        """
        check_entity_id(space_id, "space_id")
        response = self._transport.request("POST", api_path("spaces", space_id, "duplicate"))
        space = Space.from_api(object_of(response))
        space.location = response.headers.get("Location")
        return space

    def restore(self, space_id: str) -> Space:
        """Bring a deleted space back from the trash (within 7 days of its deletion).

        Parameters
        ----------
        space_id : str
            The deleted space's id.

        Returns
        -------
        Space
            The restored space.

        Raises
        ------
        NotFoundError
            No such space, or it was deleted more than 7 days ago.

        Examples
        --------
        >>> copy = client.spaces.duplicate(space_id)
        >>> client.spaces.delete(copy.id)
        True
        >>> client.spaces.restore(copy.id).title
        'Onboarding handbook (copy)'
        """
        check_entity_id(space_id, "space_id")
        return Space.from_api(self._object("POST", api_path("spaces", space_id, "restore")))

    def move(
        self,
        space_id: str,
        *,
        parent: str | NotGiven | None = NOT_GIVEN,
        position: Mapping[str, Any] | NotGiven = NOT_GIVEN,
    ) -> Space:
        """Move a space into a collection and/or next to another space or collection.

        Parameters
        ----------
        space_id : str
            The space to move.
        parent : str or None, optional
            The id of the collection to move into; ``None`` moves it to the top level.
        position : dict, optional
            Where among its siblings: ``{"before": space_id}`` or ``{"after": space_id}``;
            to point at a collection write ``{"after": {"collection": collection_id}}``.
            Without it the space goes to the end. Give ``parent``, ``position`` or both.

        Returns
        -------
        Space
            The moved space.

        Raises
        ------
        ValidationError
            Neither argument given, or a malformed position.
        BadRequestError
            An invalid position, space or collection.
        NotFoundError
            No such space.
        ConflictError
            The move would change nothing.

        Examples
        --------
        >>> copy = client.spaces.duplicate(space_id)
        >>> client.spaces.move(copy.id, parent=collection_id).parent == collection_id
        True
        >>> client.spaces.move(copy.id, parent=None, position={"after": space_id}).parent is None
        True
        """
        check_entity_id(space_id, "space_id")
        body = move_body(parent, position)
        return Space.from_api(self._object("POST", api_path("spaces", space_id, "move"), json=body))

    def embed(self, space_id: str, url: str) -> Embed:
        """Describe a URL as an embed (oEmbed-style), as the space's editor would show it.

        Parameters
        ----------
        space_id : str
            The space's id.
        url : str
            The http(s) URL to embed.

        Returns
        -------
        Embed

        Raises
        ------
        ValidationError
            ``url`` is not an http(s) URL.
        NotFoundError
            No such space.

        Examples
        --------
        >>> client.spaces.embed(space_id, "https://example.com").type
        'link'
        """
        check_entity_id(space_id, "space_id")
        params = {"url": check_url(url, "url")}
        return Embed.from_api(self._get(api_path("spaces", space_id, "embed"), params))

    def search(self, space_id: str, query: str, *, limit: int | None = None) -> pd.DataFrame:
        """Search a space's content.

        Parameters
        ----------
        space_id : str
            The space's id.
        query : str
            Words to search for: not blank, at most 512 characters.
        limit : int, optional
            The most results to return (1 to 1000); all of them when omitted.

        Returns
        -------
        pandas.DataFrame
            One row per matching page, best first; columns of ``frames.SCHEMAS["search"]``.

        Raises
        ------
        ValidationError
            A blank or too long query, or a limit out of range.
        NotFoundError
            No such space.

        Examples
        --------
        >>> client.spaces.search(space_id, "advanced options", limit=5)[["title", "path"]]
                      title                                             path
        0  Advanced options  getting-started/authentication/advanced-options
        1  Advanced options   reference/data-model/examples/advanced-options
        """
        from docsapi.data import frames

        check_entity_id(space_id, "space_id")
        params = {"query": check_search_query(query)}
        page_size = PAGE_SIZE
        if limit is not None:
            page_size = min(check_limit(limit), PAGE_SIZE)
        path = api_path("spaces", space_id, "search")
        items = self._transport.paginate(path, params=params, limit=page_size, key=("id",))
        results = list(islice(items, limit))
        if not all(isinstance(item, dict) for item in results):
            raise ResponseFormatError(f"GET {path}: a search result is not a JSON object")
        return frames.search(space_id, results)
