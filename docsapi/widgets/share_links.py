"""ShareLinkPanel: a site's share links, their age; deactivate or delete the picked ones."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, datetime
from html import escape
from typing import Any

import ipywidgets as widgets

from docsapi.core.checks import check_entity_id, check_id
from docsapi.errors import DocsAPIError, ValidationError
from docsapi.widgets._base import LABEL_STYLE, ConfirmStep, FormBase, clean

__all__ = ["ShareLinkPanel"]


class ShareLinkPanel(FormBase):
    """List a site's share links and close the ones that should no longer work.

    Whoever holds an active share link reads the site without an account. The panel
    lists every link (active or not, with its age); Deactivate stops the picked links
    from working (they stay listed and can be turned on again in the platform); Delete
    removes them for good, after a confirm step. The links' keys are never shown: the
    list comes from ``client.sites.share_links``, which masks them.

    Parameters
    ----------
    client : DocsClient
        The client to call (``client.sites.get``, ``.share_links``,
        ``.deactivate_share_link``, ``.delete_share_link``).
    org_id, site_id : str
        The organization and the site.
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Attributes
    ----------
    site_html : ipywidgets.HTML
        The site, its audience, and how many links are active.
    links : pandas.DataFrame or None
        The links as last read: site_id, id, name, active, created_at, url_published
        (key masked).
    links_select : ipywidgets.SelectMultiple
        One line per link (name, active or not, created, age), to pick links.
    deactivate_button : ipywidgets.Button
        Deactivates the picked active links.
    delete_button : ipywidgets.Button
        Asks for confirmation (see :meth:`arm_delete`), then Confirm delete deletes.
    confirm_button, cancel_button : ipywidgets.Button
        Shown once Delete has armed the panel.
    site : Site or None
        The site as last read.
    reload_button, status_output, heading_html
        As in every form.

    Raises
    ------
    ValidationError
        ``org_id`` or ``site_id`` is not an id (nothing is sent).

    Examples
    --------
    >>> from docsapi.widgets import ShareLinkPanel
    >>> panel = ShareLinkPanel(client, org_id, site_id)
    >>> _ = panel.load()  # or display(panel): it loads when shown
    >>> panel.links_select.value = (share_link_id,)
    >>> panel.deactivate_button.click()
    >>> panel.status  # doctest: +ELLIPSIS
    'Deactivated 1 share link(s): ...'
    """

    heading = "Share links"

    def __init__(self, client: Any, org_id: str, site_id: str, **kwargs: Any) -> None:
        self.org_id = check_entity_id(org_id, "org_id")
        self.site_id = check_id(site_id, "site_id")
        self.site: Any = None
        self.links: Any = None
        super().__init__(client, **kwargs)

    def _build(self) -> None:
        self.site_html = widgets.HTML()
        self.links_select = widgets.SelectMultiple(
            description="Links", style=LABEL_STYLE, rows=8, layout=widgets.Layout(width="620px")
        )
        self.links_select.add_class("docsapi-share-links")
        self.deactivate_button = widgets.Button(
            description="Deactivate selected",
            icon="ban",
            button_style="warning",
            disabled=True,
            layout=widgets.Layout(width="auto"),
        )
        self.deactivate_button.add_class("docsapi-deactivate")
        self.delete_button = widgets.Button(
            description="Delete selected…",
            icon="trash",
            disabled=True,
            layout=widgets.Layout(width="auto"),
        )
        self._confirm = ConfirmStep(
            "Confirm delete", on_confirm=self.delete_selected, on_cancel=self.disarm_delete
        )
        self.confirm_button, self.cancel_button = self._confirm.buttons

    def _wire(self) -> None:
        self.links_select.observe(self._refresh, names="value")
        self.deactivate_button.on_click(lambda _button: self.deactivate_selected())
        self.delete_button.on_click(lambda _button: self.arm_delete())

    def _rows(self) -> tuple[widgets.Widget, ...]:
        return (
            self.site_html,
            self.links_select,
            widgets.HBox(
                [
                    self.deactivate_button,
                    self.delete_button,
                    *self._confirm.buttons,
                    self.reload_button,
                ]
            ),
        )

    # -- loading --------------------------------------------------------------------------------
    def _fetch(self) -> tuple[Any, Any]:
        site = self.client.sites.get(self.org_id, self.site_id)
        links = self.client.sites.share_links(self.org_id, self.site_id)
        return site, links

    def _show_loaded(self, loaded: tuple[Any, Any]) -> str:
        self.site, self.links = loaded
        self._confirm.disarm()
        now = datetime.now(UTC)
        self.links_select.value = ()
        self.links_select.options = [
            (_describe(row, now), row.id) for row in self.links.itertuples()
        ]
        active = int(self.links.active.fillna(False).sum())
        title = self.site.title or self.site_id
        self.site_html.value = (
            f"<b>{escape(title)}</b>: visibility <b>{escape(str(self.site.visibility))}</b>; "
            f"{active} of {len(self.links)} share links active."
        )
        return f"Loaded {len(self.links)} share links ({active} active)."

    def _refresh(self, _change: Any = None) -> None:
        picked = bool(self.links_select.value)
        self.deactivate_button.disabled = not picked
        self.delete_button.disabled = not picked or self._confirm.armed

    def _picked(self, doing: str, raise_errors: bool) -> list[Any] | None:
        """The picked links' rows, or ``None`` after saying that none is picked."""
        picked = set(self.links_select.value)
        if not picked or self.links is None:
            problem = ValidationError("links", "pick at least one share link")
            self._invalid(problem, not_done=f"Nothing {doing}", raise_errors=raise_errors)
            return None
        return [row for row in self.links.itertuples() if row.id in picked]

    def _each(
        self, rows: list[Any], act: Callable[[str, str, str], Any], doing: str, raise_errors: bool
    ) -> tuple[list[Any], list[DocsAPIError]]:
        """Run ``act(link_id)`` for each row: the rows done, and the errors."""
        done: list[Any] = []
        failed: list[DocsAPIError] = []
        for row in rows:
            ok, _ = self._run(
                functools.partial(act, self.org_id, self.site_id, row.id),
                doing=f"{doing} {row.name or row.id}",
                raise_errors=raise_errors,
            )
            if ok:
                done.append(row)
            elif self.error is not None:
                failed.append(self.error)
        return done, failed

    def _outcome(self, done: list[Any], failed: list[DocsAPIError], verb: str, note: str) -> None:
        """Read the links again and say what happened."""
        self.load()
        names = ", ".join(str(clean(row.name) or row.id) for row in done)
        said = f"{verb} {len(done)} share link(s)" + (f": {names}" if names else "") + note
        self.error = failed[0] if failed else None
        if failed:
            self._report(f"{said}; {len(failed)} failed: {failed[0]}", "error")
        else:
            self._report(f"{said}.", "success")

    # -- actions --------------------------------------------------------------------------------
    def deactivate_selected(self, *, raise_errors: bool = False) -> list[str] | None:
        """Stop the picked links from working; what Deactivate selected does.

        Links already inactive are left as they are (nothing is sent for them).

        Parameters
        ----------
        raise_errors : bool
            Raise a :class:`~docsapi.errors.ValidationError` when no link is picked, or
            the first API error, after showing it.

        Returns
        -------
        list of str or None
            The ids of the links deactivated now; ``None`` if none was.

        Examples
        --------
        >>> links = [client.sites.create_share_link(org_id, site_id, name=n).id for n in "AB"]
        >>> panel = ShareLinkPanel(client, org_id, site_id)
        >>> _ = panel.load()
        >>> panel.links_select.value = tuple(links)
        >>> panel.deactivate_selected() == links
        True
        """
        rows = self._picked("deactivated", raise_errors)
        if rows is None:
            return None
        active = [row for row in rows if clean(row.active)]
        skipped = len(rows) - len(active)
        note = f" ({skipped} already inactive)" if skipped else ""
        done, failed = self._each(
            active, self.client.sites.deactivate_share_link, "Deactivating", raise_errors
        )
        self._outcome(done, failed, "Deactivated", note)
        return [row.id for row in done] or None

    def arm_delete(self) -> None:
        """Ask for confirmation before deleting the picked links; what Delete selected does.

        Examples
        --------
        >>> link = client.sites.create_share_link(org_id, site_id, name="One-off")
        >>> panel = ShareLinkPanel(client, org_id, site_id)
        >>> _ = panel.load()
        >>> panel.links_select.value = (link.id,)
        >>> panel.arm_delete()
        >>> panel.confirm_button.click()  # deletes
        >>> link.id in set(client.sites.share_links(org_id, site_id).id)
        False
        """
        if self._picked("deleted", raise_errors=False) is None:
            return
        self._confirm.arm()
        self._refresh()
        count = len(self.links_select.value)
        self._report(
            f"Delete {count} share link(s) for good? Deactivating keeps them listed and lets "
            "them be turned on again. Press Confirm delete, or Cancel."
        )

    def disarm_delete(self) -> None:
        """Hide Confirm delete and Cancel without deleting; what Cancel does."""
        self._confirm.disarm()
        self._refresh()
        self._report("Deletion cancelled.")

    @property
    def armed(self) -> bool:
        """Whether Delete selected was pressed and waits for Confirm delete."""
        return self._confirm.armed

    def delete_selected(self, *, raise_errors: bool = False) -> list[str] | None:
        """Delete the picked links for good; what Confirm delete does.

        Called from code, it deletes without the confirm step.

        Parameters
        ----------
        raise_errors : bool
            Raise a :class:`~docsapi.errors.ValidationError` when no link is picked, or
            the first API error, after showing it.

        Returns
        -------
        list of str or None
            The ids of the links deleted (or already gone); ``None`` if none was.

        Examples
        --------
        >>> link = client.sites.create_share_link(org_id, site_id, name="One-off")
        >>> panel = ShareLinkPanel(client, org_id, site_id)
        >>> _ = panel.load()
        >>> panel.links_select.value = (link.id,)
        >>> panel.delete_selected() == [link.id]
        True
        """
        self._confirm.disarm()
        rows = self._picked("deleted", raise_errors)
        if rows is None:
            return None
        done, failed = self._each(
            rows, self.client.sites.delete_share_link, "Deleting", raise_errors
        )
        self._outcome(done, failed, "Deleted", "")
        return [row.id for row in done] or None


def _describe(row: Any, now: datetime) -> str:
    """One link as the list shows it: name, active or not, created, age."""
    name = clean(row.name) or row.id
    state = "active" if clean(row.active) else "inactive"
    created = clean(row.created_at)
    if created is None:
        return f"{name} — {state}"
    days = max((now - created).days, 0)
    return f"{name} — {state} — created {created:%Y-%m-%d} ({days} day{'s' * (days != 1)} old)"
