"""SpaceLifecyclePanel: duplicate a space, delete it after a confirm step, restore it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from html import escape
from typing import Any

import ipywidgets as widgets

from docsapi.core.checks import check_entity_id
from docsapi.errors import NotFoundError
from docsapi.widgets._base import FormBase

__all__ = ["RESTORE_WINDOW", "SpaceLifecyclePanel"]

#: How long a deleted space can be restored.
RESTORE_WINDOW = timedelta(days=7)

_EXPLANATION = (
    "<b>Duplicate</b> copies the space into the same organization (the copy is not placed on "
    "any site). <b>Delete</b> moves the space to the trash: it can be <b>restored within 7 "
    "days</b> of its deletion; after that it is removed for good and cannot be brought back."
)


class SpaceLifecyclePanel(FormBase):
    """Duplicate, delete (with a confirm step) and restore one space.

    Delete first arms: a Confirm button appears, and only Confirm deletes. A deleted
    space can be restored for 7 days, which the panel explains and counts down.

    Parameters
    ----------
    client : DocsClient
        The client to call (``client.spaces.get``, ``.duplicate``, ``.delete``, ``.restore``).
    space_id : str
        The space the panel acts on.
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Attributes
    ----------
    info_html : ipywidgets.HTML
        What each action does, and the 7-day restore window.
    state_html : ipywidgets.HTML
        Whether the space is active or in the trash (and until when it can be restored).
    duplicate_button, delete_button, restore_button : ipywidgets.Button
    confirm_button, cancel_button : ipywidgets.Button
        Shown once Delete has armed the panel.
    armed : bool
        Whether Delete was pressed and waits for Confirm.
    space : Space or None
        The space as last read (``None`` when it could not be read, e.g. in the trash).
    deleted_at : datetime or None
        When this panel deleted the space, to show the end of the restore window.
    reload_button, status_output, heading_html
        As in every form; Reload reads the space again.

    Notes
    -----
    The panel edits no fields, so it has no ``.value``; each action is a method returning
    its result (``None`` if the API refused; the error is shown in the panel, or raised
    with ``raise_errors=True``).

    Examples
    --------
    >>> from docsapi.widgets import SpaceLifecyclePanel
    >>> draft = client.spaces.duplicate(space_id)  # a space to try it on
    >>> panel = SpaceLifecyclePanel(client, draft.id)
    >>> panel.load().title  # or display(panel): it loads when shown
    'Onboarding handbook (copy)'
    >>> copy = panel.duplicate()
    >>> panel.delete_button.click(); panel.confirm_button.click()
    >>> panel.restore().title
    'Onboarding handbook (copy)'
    """

    heading = "Space lifecycle"

    def __init__(self, client: Any, space_id: str, **kwargs: Any) -> None:
        self.space_id = check_entity_id(space_id, "space_id")
        self.space: Any = None
        self.deleted_at: datetime | None = None
        self.armed = False
        super().__init__(client, **kwargs)

    def _build(self) -> None:
        self.info_html = widgets.HTML(value=_EXPLANATION)
        self.state_html = widgets.HTML()
        self.duplicate_button = widgets.Button(description="Duplicate", icon="copy")
        self.delete_button = widgets.Button(
            description="Delete…", icon="trash", button_style="warning"
        )
        self.confirm_button = widgets.Button(
            description="Confirm delete",
            icon="trash",
            button_style="danger",
            layout=widgets.Layout(display="none"),
        )
        self.cancel_button = widgets.Button(
            description="Cancel", layout=widgets.Layout(display="none")
        )
        self.restore_button = widgets.Button(description="Restore", icon="undo")
        # Which actions apply is known once the space has been read.
        self._enable(active=None)

    def _wire(self) -> None:
        self.duplicate_button.on_click(lambda _button: self.duplicate())
        self.delete_button.on_click(lambda _button: self.arm())
        self.confirm_button.on_click(lambda _button: self.delete())
        self.cancel_button.on_click(lambda _button: self.disarm())
        self.restore_button.on_click(lambda _button: self.restore())

    def _rows(self) -> tuple[widgets.Widget, ...]:
        return (
            self.info_html,
            self.state_html,
            widgets.HBox(
                [
                    self.duplicate_button,
                    self.delete_button,
                    self.confirm_button,
                    self.cancel_button,
                    self.restore_button,
                    self.reload_button,
                ]
            ),
        )

    # -- state ----------------------------------------------------------------------------------
    def _fetch(self) -> Any:
        try:
            return self.client.spaces.get(self.space_id)
        except NotFoundError:
            return None  # in the trash, or gone

    def _show_loaded(self, space: Any) -> str:
        if space is not None:
            self._show_active(space)
            return "Ready."
        self._show_absent()
        return (
            "The space cannot be read: it is in the trash (restore it within 7 days of its "
            "deletion) or does not exist."
        )

    def _show_active(self, space: Any) -> None:
        self.space = space
        self.deleted_at = None
        self.state_html.value = f"<b>{escape(space.title or space.id or '')}</b> is active."
        self._enable(active=True)

    def _show_absent(self) -> None:
        self.space = None
        if self.deleted_at is None:
            self.state_html.value = "The space is not active (in the trash, or gone)."
        else:
            until = self.deleted_at + RESTORE_WINDOW
            self.state_html.value = (
                f"The space is in the trash since {self.deleted_at:%Y-%m-%d %H:%M} UTC; "
                f"it can be restored until {until:%Y-%m-%d %H:%M} UTC."
            )
        self._enable(active=False)

    def _enable(self, *, active: bool | None) -> None:
        """Offer the actions that apply to an active space, to a deleted one, or (``None``,
        not read yet) none."""
        self.disarm()
        self.duplicate_button.disabled = self.delete_button.disabled = not active
        self.restore_button.disabled = active is not False

    # -- actions --------------------------------------------------------------------------------
    def duplicate(self, *, raise_errors: bool = False) -> Any:
        """Copy the space within its organization; what Duplicate does.

        Returns
        -------
        Space or None
            The copy (``.location`` is its API URL), or ``None`` if the API refused.

        Examples
        --------
        >>> panel = SpaceLifecyclePanel(client, space_id)
        >>> panel.duplicate().title
        'Onboarding handbook (copy)'
        """
        ok, copy = self._run(
            lambda: self.client.spaces.duplicate(self.space_id),
            doing="Duplicating",
            raise_errors=raise_errors,
        )
        if not ok or copy is None:
            return None
        self._report(f"Duplicated: the copy is {copy.id} ({copy.title}).", "success", details=copy)
        return copy

    def arm(self) -> None:
        """Ask for confirmation before deleting: show Confirm and Cancel; what Delete does.

        Examples
        --------
        >>> panel = SpaceLifecyclePanel(client, client.spaces.duplicate(space_id).id)
        >>> panel.load().title
        'Onboarding handbook (copy)'
        >>> panel.arm()
        >>> panel.confirm_button.click()  # deletes
        >>> panel.status.startswith("Deleted")
        True
        """
        self.armed = True
        self.confirm_button.layout.display = ""
        self.cancel_button.layout.display = ""
        self.delete_button.disabled = True
        title = self.space.title if self.space is not None else self.space_id
        self._report(
            f"Delete {title!r}? Press Confirm delete to move it to the trash "
            "(it can be restored for 7 days), or Cancel.",
            "info",
        )

    def disarm(self) -> None:
        """Hide Confirm and Cancel again without deleting; what Cancel does.

        Examples
        --------
        >>> panel = SpaceLifecyclePanel(client, space_id)
        >>> panel.arm(); panel.disarm()
        >>> panel.armed
        False
        """
        if self.armed:
            self._report("Deletion cancelled.")
        self.armed = False
        self.confirm_button.layout.display = "none"
        self.cancel_button.layout.display = "none"
        self.delete_button.disabled = self.space is None

    def delete(self, *, raise_errors: bool = False) -> bool | None:
        """Move the space to the trash now; what Confirm delete does.

        Called from code, it deletes without the confirm step.

        Returns
        -------
        bool or None
            True if the space was deleted now, False if it did not exist (the API's 205
            and 204), ``None`` if the API refused.

        Examples
        --------
        >>> panel = SpaceLifecyclePanel(client, client.spaces.duplicate(space_id).id)
        >>> panel.delete()
        True
        """
        self.armed = False
        ok, removed = self._run(
            lambda: self.client.spaces.delete(self.space_id),
            doing="Deleting",
            raise_errors=raise_errors,
        )
        if not ok:
            self._enable(active=self.space is not None)
            return None
        if removed:
            self.deleted_at = datetime.now(UTC)
            self._show_absent()
            until = self.deleted_at + RESTORE_WINDOW
            self._report(
                "Deleted: the space is in the trash; "
                f"restore it before {until:%Y-%m-%d %H:%M} UTC.",
                "success",
            )
        else:
            self._show_absent()
            self._report("Nothing deleted: the space did not exist (already deleted?).", "info")
        return removed

    def restore(self, *, raise_errors: bool = False) -> Any:
        """Bring the space back from the trash; what Restore does.

        Returns
        -------
        Space or None
            The restored space, or ``None`` if the API refused (for example more than
            7 days after the deletion).

        Examples
        --------
        >>> panel = SpaceLifecyclePanel(client, client.spaces.duplicate(space_id).id)
        >>> panel.delete()
        True
        >>> panel.restore().title
        'Onboarding handbook (copy)'
        """
        ok, space = self._run(
            lambda: self.client.spaces.restore(self.space_id),
            doing="Restoring",
            raise_errors=raise_errors,
        )
        if not ok or space is None:
            return None
        self._show_active(space)
        self._report(f"Restored {space.title!r}: the space is active again.", "success")
        return space
