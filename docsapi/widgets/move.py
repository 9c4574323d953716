"""MoveSpaceForm: put a space into a collection (or at the top level), before or after a sibling."""

from __future__ import annotations

from html import escape
from typing import Any

import ipywidgets as widgets

from docsapi.core.checks import check_entity_id
from docsapi.errors import ConflictError, DocsAPIError, ValidationError
from docsapi.widgets._base import LABEL_STYLE, EditForm, clean

__all__ = ["MoveSpaceForm"]

#: Where among its new siblings the space goes.
PLACES: tuple[str, ...] = ("end", "before", "after")
_TOP_LEVEL = ""


class MoveSpaceForm(EditForm):
    """Move a space to another collection, or to the top level, and place it among its siblings.

    The collections offered are those holding spaces of the space's organization
    (from ``client.spaces.list(org_id=...)``'s ``parent`` column).

    Parameters
    ----------
    client : DocsClient
        The client to call (``client.spaces.get``, ``.list`` and ``.move``).
    space_id : str
        The space to move.
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Attributes
    ----------
    current_html : ipywidgets.HTML
        Where the space is now.
    parent_dropdown : ipywidgets.Dropdown
        The collection to move into; ``""`` is the top level (sent as ``None``).
    place_toggle : ipywidgets.ToggleButtons
        ``"end"``, ``"before"`` or ``"after"`` a sibling.
    sibling_dropdown : ipywidgets.Dropdown
        The sibling space to go before or after; problems in ``sibling_error``.
    save_button : ipywidgets.Button
        Labelled "Move".
    reload_button, status_output, heading_html
        As in every form.

    Notes
    -----
    ``.value`` holds the keyword arguments of ``client.spaces.move``: ``parent`` when it
    differs from the current one (or when no sibling is picked, since a move needs at least
    one argument; without a position the API puts the space at the end) and ``position``
    (``{"before": id}`` / ``{"after": id}``) when a sibling is picked. A move that would
    change nothing is refused by the API (409) and explained as such in the form.
    ``.save()`` returns the moved :class:`~docsapi.models.Space`, or ``None``.

    Examples
    --------
    >>> from docsapi.widgets import MoveSpaceForm
    >>> form = MoveSpaceForm(client, space_id)
    >>> form.load().title  # or display(form): it loads when shown
    'Onboarding handbook'
    >>> form.parent_dropdown.value = collection_id  # into a collection
    >>> form.save().parent == collection_id
    True
    >>> form.parent_dropdown.value = ""  # back to the top level
    >>> form.save().parent is None
    True
    """

    heading = "Move space"

    def __init__(self, client: Any, space_id: str, **kwargs: Any) -> None:
        self.space_id = check_entity_id(space_id, "space_id")
        self.org_spaces: Any = None
        super().__init__(client, **kwargs)

    def _build(self) -> None:
        self.current_html = widgets.HTML()
        self.parent_dropdown = widgets.Dropdown(
            description="Collection", style=LABEL_STYLE, layout=widgets.Layout(width="420px")
        )
        self._field(
            "parent",
            self.parent_dropdown,
            to_api=lambda key: key or None,
            to_widget=lambda parent: parent or _TOP_LEVEL,
        )
        self.place_toggle = widgets.ToggleButtons(
            options=PLACES,
            description="Place",
            style=LABEL_STYLE,
            tooltips=["at the end", "before a sibling space", "after a sibling space"],
        )
        self.sibling_dropdown = widgets.Dropdown(
            description="Sibling",
            style=LABEL_STYLE,
            layout=widgets.Layout(width="420px"),
            disabled=True,
        )
        self.sibling_error = self._field(
            "position",
            self.place_toggle,
            self.sibling_dropdown,
            read=lambda: (self.place_toggle.value, self.sibling_dropdown.value),
            show=self._show_position,
            check=_position,
        ).error
        self.save_button.description = "Move"

    def _wire(self) -> None:
        self.parent_dropdown.observe(self._offer_siblings, names="value")
        self.place_toggle.observe(self._on_place, names="value")

    def _rows(self) -> tuple[widgets.Widget, ...]:
        return (self.current_html, *super()._rows())

    def _on_place(self, change: dict[str, Any]) -> None:
        self.sibling_dropdown.disabled = change["new"] == "end"

    def _show_position(self, _position: Any) -> None:
        """Where the space is has no position to show: the place starts at the end."""
        self.place_toggle.value = "end"

    def _offer_siblings(self, _change: Any = None) -> None:
        """List the spaces of the chosen collection (the space itself left out)."""
        if self.org_spaces is None:
            return
        parent = self.parent_dropdown.value or None
        rows = self.org_spaces[self.org_spaces["id"] != self.space_id]
        options = [
            (clean(row.title) or row.id, row.id)
            for row in rows.itertuples()
            if clean(row.parent) == parent
        ]
        self.sibling_dropdown.options = options
        self.sibling_dropdown.value = options[0][1] if options else None

    # -- EditForm ---------------------------------------------------------------------------
    def _fetch(self) -> Any:
        space = self.client.spaces.get(self.space_id)
        self.org_spaces = self.client.spaces.list(org_id=space.organization)
        return space

    def _values_of(self, space: Any) -> dict[str, Any]:
        return {"parent": space.parent or None, "position": None}

    def _show(self, values: dict[str, Any]) -> None:
        parent = values["parent"]
        counts = self.org_spaces["parent"].dropna().value_counts()
        collections = sorted({*counts.index, *([parent] if parent else [])})
        self.parent_dropdown.options = [("Top level (no collection)", _TOP_LEVEL)] + [
            (f"Collection {key} ({counts.get(key, 0)} spaces)", key) for key in collections
        ]
        super()._show(values)
        self._offer_siblings()
        title = self.resource.title if self.resource is not None else self.space_id
        where = f"in collection {parent}" if parent else "at the top level"
        self.current_html.value = f"<b>{escape(title or '')}</b> is now {where}."

    def _changes(self, values: dict[str, Any]) -> dict[str, Any]:
        # A move needs at least one argument: without a position, the parent is sent even
        # when it is the current one (the API then puts the space at the end).
        changes = super()._changes(values)
        if values.get("position") is None:
            changes.pop("position", None)
            changes["parent"] = values.get("parent")
        return changes

    def _submit(self, changes: dict[str, Any]) -> Any:
        moved = self.client.spaces.move(self.space_id, **changes)
        self.org_spaces = self.client.spaces.list(org_id=moved.organization)
        return moved

    def _saved(self, changes: dict[str, Any]) -> str:
        where = []
        if "parent" in changes:
            parent = changes["parent"]
            where.append(f"into collection {parent}" if parent else "to the top level")
        if "position" in changes:
            ((side, sibling),) = changes["position"].items()
            where.append(f"{side} {self._title_of(sibling)}")
        else:
            where.append("at the end")
        return f"Moved {' '.join(where)}."

    def _title_of(self, space_id: str) -> str:
        titles = dict(zip(self.org_spaces["id"], self.org_spaces["title"], strict=True))
        return clean(titles.get(space_id)) or space_id

    def _failure(self, exc: DocsAPIError, doing: str) -> tuple[str, str]:
        if isinstance(exc, ConflictError):
            return (
                f"Nothing moved ({exc.status}): the space is already there, "
                "so this move would change nothing.",
                "info",
            )
        return super()._failure(exc, doing)


def _position(choice: tuple[str, str | None]) -> dict[str, str] | None:
    """``{"before": id}`` / ``{"after": id}`` for a sibling picked, ``None`` for the end."""
    place, sibling = choice
    if place == "end":
        return None
    if not sibling:
        raise ValidationError(
            "position", f"pick a space to go {place}, or place the space at the end"
        )
    return {place: sibling}
