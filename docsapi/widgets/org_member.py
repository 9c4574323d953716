"""OrgMemberForm: one member of an organization; change their role or remove them."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape
from typing import Any

import ipywidgets as widgets

from docsapi.core.checks import check_entity_id, check_id, check_role
from docsapi.errors import ValidationError
from docsapi.resources._base import NOT_GIVEN, NotGiven
from docsapi.resources.admins import check_admin_changes
from docsapi.widgets._base import (
    LABEL_STYLE,
    ROLE_CHOICES,
    ConfirmStep,
    FormBase,
    error_label,
    role_label,
    role_value,
    set_error,
)

__all__ = ["OrgMemberForm"]


class OrgMemberForm(FormBase):
    """Show one organization member; change their organization role, or remove them.

    The member's name, email, role, whether their membership is disabled, when they
    joined and when they were last seen are shown once loaded. The role picker offers the
    organization roles of the API (``"guest"`` is sent as ``None``: no access through
    default levels). Removing first asks for confirmation: Remove arms the form, only
    Confirm removal sends the request.

    Taking the admin role from an admin (a new role, or removal) is checked against the
    organization's admins first (:func:`~docsapi.resources.admins.check_admin_changes`): a
    change that would leave no enabled admin is refused before sending, saying what to do;
    one that takes it from the token's own user shows a warning and waits for Confirm role
    change (or Confirm removal), since the token then answers 401/403 for admin work.

    Parameters
    ----------
    client : DocsClient
        The client to call (``client.orgs.member``, ``.update_member``, ``.remove_member``).
    org_id, user_id : str
        The organization and the member.
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Attributes
    ----------
    member_html : ipywidgets.HTML
        Who the member is and the state of their membership.
    role_dropdown : ipywidgets.Dropdown
        The role to give; problems in ``role_error``.
    change_role_button : ipywidgets.Button
        Sends the picked role; enabled only when it differs from the current one.
    confirm_role_button, cancel_role_button : ipywidgets.Button
        Shown when a role change would take the admin role from the token's own user.
    remove_button : ipywidgets.Button
        Asks for confirmation (see :meth:`arm_removal`).
    confirm_button, cancel_button : ipywidgets.Button
        Shown once Remove has armed the form.
    member : OrganizationMember or None
        The member as last read or changed (``None`` until loaded).
    removed : bool
        Whether this form removed the member.
    reload_button, status_output, heading_html
        As in every form.

    Raises
    ------
    ValidationError
        ``org_id`` or ``user_id`` is not an id (nothing is sent).

    Notes
    -----
    The member's permissions on spaces and collections stay on record after removal and
    still reach content (an audit lists them as a former member's): remove them with
    :class:`~docsapi.widgets.PermissionEditor` and
    :class:`~docsapi.widgets.CollectionPermissionEditor`.

    Examples
    --------
    >>> from docsapi.widgets import OrgMemberForm
    >>> form = OrgMemberForm(client, org_id, user_id)
    >>> form.load().role  # or display(form): it loads when shown
    'read'
    >>> form.role_dropdown.value = "comment"
    >>> form.change_role_button.click()
    >>> form.status  # doctest: +ELLIPSIS
    'Role of ... changed from read to comment.'
    """

    heading = "Organization member"

    def __init__(self, client: Any, org_id: str, user_id: str, **kwargs: Any) -> None:
        self.org_id = check_entity_id(org_id, "org_id")
        self.user_id = check_id(user_id, "user_id")
        self.member: Any = None
        self.removed = False
        super().__init__(client, **kwargs)

    def _build(self) -> None:
        self.member_html = widgets.HTML()
        self.role_dropdown = widgets.Dropdown(
            options=ROLE_CHOICES, description="Role", style=LABEL_STYLE, disabled=True
        )
        self.role_dropdown.add_class("docsapi-member-role")
        self.role_error = error_label()
        self.change_role_button = widgets.Button(
            description="Change role", button_style="primary", icon="check", disabled=True
        )
        self.change_role_button.add_class("docsapi-change-role")
        self.remove_button = widgets.Button(
            description="Remove…", icon="user-times", button_style="warning", disabled=True
        )
        self._confirm = ConfirmStep(
            "Confirm removal",
            on_confirm=lambda: self.remove(confirmed=True),
            on_cancel=self.disarm_removal,
        )
        self.confirm_button, self.cancel_button = self._confirm.buttons
        self._role_confirm = ConfirmStep(
            "Confirm role change",
            on_confirm=self._confirm_role,
            on_cancel=self.disarm_role_change,
            icon="check",
        )
        self.confirm_role_button, self.cancel_role_button = self._role_confirm.buttons
        self._pending_role: str | None = None

    def _wire(self) -> None:
        self.role_dropdown.observe(self._refresh, names="value")
        self.change_role_button.on_click(lambda _button: self.change_role())
        self.remove_button.on_click(lambda _button: self.arm_removal())

    def _rows(self) -> tuple[widgets.Widget, ...]:
        return (
            self.member_html,
            widgets.HBox(
                [self.role_dropdown, self.change_role_button, *self._role_confirm.buttons]
            ),
            self.role_error,
            widgets.HBox(
                [self.remove_button, *self._confirm.buttons, self.reload_button],
            ),
        )

    # -- state ----------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The member's display name (their id until loaded)."""
        if self.member is None:
            return self.user_id
        return self.member.display_name or self.user_id

    def _fetch(self) -> Any:
        return self.client.orgs.member(self.org_id, self.user_id)

    def _show_loaded(self, member: Any) -> str:
        self.removed = False
        self._show_member(member)
        return f"Loaded {self.name}."

    def _show_member(self, member: Any) -> None:
        self.member = member
        self.member_html.value = _describe(member)
        self.role_dropdown.value = role_label(member.role)
        set_error(self.role_error, "")
        self._confirm.disarm()
        self._role_confirm.disarm()
        self._refresh()

    def _refresh(self, _change: Any = None) -> None:
        usable = self.member is not None and not self.removed
        self.role_dropdown.disabled = not usable or self._role_confirm.armed
        self.remove_button.disabled = not usable or self._confirm.armed
        self.change_role_button.disabled = (
            not usable
            or self._role_confirm.armed
            or (role_value(self.role_dropdown.value) == self.member.role)
        )

    def _admin_check(
        self, change: dict[str, Any], *, not_done: str, raise_errors: bool
    ) -> tuple[bool, str | None]:
        """Check a change that takes the admin role from this member: ``(go on, warning)``.

        A change that would leave no enabled admin is shown as refused (nothing is sent);
        ``warning`` says when the member is the token's own user. Members who are not
        admins need no check (nothing is read).
        """
        if self.member.role != "admin":
            return True, None
        ok, check = self._run(
            lambda: check_admin_changes(self.client, self.org_id, **change),
            doing="Checking the organization's admins",
        )
        if ok and check is not None:
            return True, check.warning
        if isinstance(self.error, ValidationError):
            refused, self.error = self.error, None
            self._invalid(
                refused, not_done=not_done, label=self.role_error, raise_errors=raise_errors
            )
        elif raise_errors and self.error is not None:
            raise self.error
        return False, None

    # -- the role -------------------------------------------------------------------------------
    def change_role(
        self,
        role: str | NotGiven | None = NOT_GIVEN,
        *,
        confirmed: bool = False,
        raise_errors: bool = False,
    ) -> Any:
        """Give the member another organization role; what Change role does.

        Taking the admin role away is checked first: a change that would leave the
        organization without an enabled admin is refused (nothing is sent); one that takes
        it from the token's own user is sent only once confirmed, so without ``confirmed``
        it shows the warning and Confirm role change instead.

        Parameters
        ----------
        role : str or None, optional
            The role to give (``None`` for guest); by default the one picked in
            ``role_dropdown``.
        confirmed : bool
            Send a change that demotes the token's own user without asking (what Confirm
            role change does).
        raise_errors : bool
            Raise a :class:`~docsapi.errors.ValidationError` for an unknown role or a change
            that would leave no admin, or the API's error, after showing it.

        Returns
        -------
        OrganizationMember or None
            The member with their new role; ``None`` if nothing was sent (an unknown role,
            the role they have, nothing loaded, the last admin, a confirmation awaited) or
            the API refused.

        Examples
        --------
        >>> form = OrgMemberForm(client, org_id, user_id)
        >>> before = form.load().role
        >>> form.change_role("create").role
        'create'
        >>> form.change_role(before).role == before  # as it was
        True
        """
        wanted = role_value(self.role_dropdown.value) if isinstance(role, NotGiven) else role
        try:
            wanted = check_role(wanted)
        except ValidationError as exc:
            self._invalid(
                exc, not_done="Role not changed", label=self.role_error, raise_errors=raise_errors
            )
            return None
        set_error(self.role_error, "")
        if self.member is None or self.removed:
            self._report("Role not changed: nothing is loaded (press Reload).")
            return None
        before = self.member.role
        if wanted == before:
            self._report(
                f"Nothing to change: {self.name} already has the role {role_label(before)}."
            )
            return None
        go_on, warning = self._admin_check(
            {"roles": {self.user_id: wanted}},
            not_done="Role not changed",
            raise_errors=raise_errors,
        )
        if not go_on:
            return None
        if warning is not None and not confirmed:
            self._pending_role = wanted
            self._role_confirm.arm()
            self._refresh()
            self._report(
                f"Make {self.name} {role_label(wanted)}? Careful: {warning}. Press Confirm "
                "role change, or Cancel.",
                "warning",
            )
            return None
        self._role_confirm.disarm()
        ok, member = self._run(
            lambda: self.client.orgs.update_member(self.org_id, self.user_id, role=wanted),
            doing="Changing the role",
            raise_errors=raise_errors,
        )
        if not ok or member is None:
            return None
        self._show_member(member)
        self._report(
            f"Role of {self.name} changed from {role_label(before)} to {role_label(member.role)}.",
            "success",
        )
        return member

    def _confirm_role(self) -> None:
        """What Confirm role change does: send the role that waited for confirmation."""
        self.change_role(self._pending_role, confirmed=True)

    def disarm_role_change(self) -> None:
        """Hide Confirm role change and Cancel without sending; what their Cancel does."""
        self._role_confirm.disarm()
        self._refresh()
        self._report("Role change cancelled.")

    # -- removal --------------------------------------------------------------------------------
    def arm_removal(self) -> None:
        """Ask for confirmation before removing: show Confirm removal and Cancel; what Remove does.

        Removing the organization's last enabled admin is refused here already; removing
        the token's own user adds a warning.

        Examples
        --------
        >>> form = OrgMemberForm(client, org_id, demo["disabled_member_ids"][0])
        >>> form.load().disabled
        True
        >>> form.arm_removal()
        >>> form.confirm_button.click()  # removes
        >>> form.removed
        True
        """
        go_on, warning = self._admin_check(
            {"removed": [self.user_id]}, not_done="Not removed", raise_errors=False
        )
        if not go_on:
            return
        self._confirm.arm()
        self._refresh()
        careful = "" if warning is None else f" Careful: {warning}."
        self._report(
            f"Remove {self.name} from the organization? They leave its teams; their permissions "
            f"on spaces and collections stay and still reach content, so remove those too.{careful}"
            " Press Confirm removal, or Cancel.",
            "info" if warning is None else "warning",
        )

    def disarm_removal(self) -> None:
        """Hide Confirm removal and Cancel without removing; what Cancel does."""
        self._confirm.disarm()
        self._refresh()
        self._report("Removal cancelled.")

    @property
    def armed(self) -> bool:
        """Whether Remove was pressed and waits for Confirm removal."""
        return self._confirm.armed

    def remove(self, *, confirmed: bool = False, raise_errors: bool = False) -> bool | None:
        """Remove the member from the organization now; what Confirm removal does.

        Called from code, it removes without the confirm step, unless the member is the
        token's own user and an admin: that waits for ``confirmed`` (it shows the warning
        and Confirm removal instead). Removing the last enabled admin is refused.

        Parameters
        ----------
        confirmed : bool
            Remove the token's own user without asking (what Confirm removal does).
        raise_errors : bool
            Raise a :class:`~docsapi.errors.ValidationError` for the last admin, or the
            API's error, after showing it.

        Returns
        -------
        bool or None
            True if they were removed now, False if they were not a member (the API's
            205 or 202, and 204); ``None`` if nothing was sent or the API refused.

        Examples
        --------
        >>> form = OrgMemberForm(client, org_id, demo["former_member_ids"][0])
        >>> form.remove()  # no longer a member: nothing to remove
        False
        """
        self._confirm.disarm()
        if self.member is not None and not self.removed:
            go_on, warning = self._admin_check(
                {"removed": [self.user_id]}, not_done="Not removed", raise_errors=raise_errors
            )
            if not go_on:
                self._refresh()
                return None
            if warning is not None and not confirmed:
                self.arm_removal()
                return None
        ok, removed = self._run(
            lambda: self.client.orgs.remove_member(self.org_id, self.user_id),
            doing="Removing",
            raise_errors=raise_errors,
        )
        if not ok:
            self._refresh()
            return None
        self.removed = True
        self._refresh()
        if removed:
            self.member_html.value += "<p><b>Removed from the organization.</b></p>"
            self._report(f"Removed {self.name} from the organization.", "success")
        else:
            self._report(f"{self.name} was not a member (already removed?).")
        return removed


def _describe(member: Any) -> str:
    """The member as a small HTML table: who, role, state, joined, last seen, holdings."""
    rows = [
        ("Name", member.display_name or member.user_id),
        ("Email", member.email or ""),
        ("Role", role_label(member.role)),
        ("Membership", "disabled" if member.disabled else "active"),
        ("Joined", _date(member.joined_at)),
        ("Last seen", _date(member.last_seen_at, ago=True)),
        ("Holds", _holdings(member)),
    ]
    cells = "".join(
        f"<tr><th style='text-align: left; padding-right: 12px'>{escape(label)}</th>"
        f"<td>{escape(str(value))}</td></tr>"
        for label, value in rows
    )
    return f"<table>{cells}</table>"


def _holdings(member: Any) -> str:
    """What the member holds directly: ``"3 spaces, 1 team, 0 sites"`` (counts the API gave)."""
    counts = [("space", member.spaces), ("team", member.teams), ("site", member.sites)]
    shown = [f"{n} {noun}{'s' * (n != 1)}" for noun, n in counts if n is not None]
    return ", ".join(shown) or "not reported"


def _date(moment: datetime | None, *, ago: bool = False) -> str:
    """``2026-01-31``, with ``(42 days ago)`` when asked; ``never`` for no date."""
    if moment is None:
        return "never"
    shown = f"{moment:%Y-%m-%d}"
    if not ago:
        return shown
    days = (datetime.now(UTC) - moment).days
    if days < 1:
        return f"{shown} (today)"
    return f"{shown} ({days} day{'s' if days != 1 else ''} ago)"
