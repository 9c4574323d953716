"""Who holds a permission on content: roles, removals, invitations (GrantEditor, PermissionEditor).

:class:`GrantEditor` does the work for any content whose permissions the client keeps the
same way; :class:`PermissionEditor` (a space) and
:class:`~docsapi.widgets.collection_permissions.CollectionPermissionEditor` (a collection)
only name their target.
"""

from __future__ import annotations

import functools
from html import escape
from typing import Any, ClassVar

import ipywidgets as widgets

from docsapi.core.checks import check_entity_id
from docsapi.errors import DocsAPIError, ValidationError
from docsapi.widgets._base import (
    LABEL_STYLE,
    ROLE_CHOICES,
    FormBase,
    clean,
    coloured,
    describe_error,
    error_label,
    person_label,
    role_label,
    role_value,
    set_error,
)

__all__ = ["GrantEditor", "PermissionEditor", "PermissionRow"]

_KINDS = ("users", "teams")


class PermissionRow(widgets.HBox):
    """One user or team holding a permission: name, role picker, remove button, status.

    Parameters
    ----------
    kind : {"users", "teams"}
        What the row grants access to.
    member_id : str
        The user's or team's id.
    name : str
        What to show (display name and email, or team title).
    role : str or None
        The current role (``None`` for guest).

    Attributes
    ----------
    name_html : ipywidgets.HTML
    role_dropdown : ipywidgets.Dropdown
        The role; ``"guest"`` stands for ``None``.
    remove_button : ipywidgets.Button
    status_html : ipywidgets.HTML
        The outcome of the row's last action.
    status : str
        The same outcome as plain text.
    """

    def __init__(self, kind: str, member_id: str, name: str, role: str | None) -> None:
        super().__init__()
        self.kind = kind
        self.member_id = member_id
        self.role = role
        self.status = ""
        self.name_html = widgets.HTML(
            value=escape(name), layout=widgets.Layout(width="300px", overflow="hidden")
        )
        self.role_dropdown = widgets.Dropdown(
            options=ROLE_CHOICES, value=role_label(role), layout=widgets.Layout(width="110px")
        )
        self.remove_button = widgets.Button(
            description="Remove", icon="trash", layout=widgets.Layout(width="100px")
        )
        self.status_html = widgets.HTML()
        self.children = (self.name_html, self.role_dropdown, self.remove_button, self.status_html)

    @property
    def chosen_role(self) -> str | None:
        """The role picked in the dropdown, as the API takes it."""
        return role_value(self.role_dropdown.value)

    @property
    def changed(self) -> bool:
        """Whether the picked role differs from the role held now."""
        return self.chosen_role != self.role

    def say(self, message: str, level: str = "info") -> None:
        """Show the outcome of an action on this row."""
        self.status = message
        self.status_html.value = coloured(message, level)


class GrantEditor(FormBase):
    """Edit who holds a permission on one piece of content: roles, removals, invitations.

    The shared base of :class:`PermissionEditor` (a space) and
    :class:`~docsapi.widgets.collection_permissions.CollectionPermissionEditor` (a
    collection): both keep their permissions the same way, through a resource group with
    ``users``, ``teams``, ``invite``, ``set_user_role``, ``set_team_role``, ``remove_user``
    and ``remove_team`` taking the content's id first. A subclass names the content
    (:attr:`noun`, :attr:`heading`), its resource group (:meth:`_grants`) and how to find
    its organization (:meth:`_organization`).

    Parameters
    ----------
    client : DocsClient
        The client to call (the resource group, ``client.orgs.members`` and ``.teams``).
    target_id : str
        The id of the content whose permissions to edit (checked by the subclass).
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Attributes
    ----------
    user_rows, team_rows : dict[str, PermissionRow]
        One row per user / team with access, by id.
    users_box, teams_box : ipywidgets.VBox
        The rows as shown.
    invite_users_select, invite_teams_select : ipywidgets.SelectMultiple
        Members and teams of the content's organization who have no access yet.
    invite_role_dropdown : ipywidgets.Dropdown
        The role to give (``"guest"`` is sent as ``None``).
    invite_button : ipywidgets.Button
        Sends the invitation; disabled until someone is picked. Problems in ``invite_error``.
    save_button : ipywidgets.Button
        Applies the pending role changes.
    org_id : str or None
        The content's organization (known once loaded).
    reload_button, status_output, heading_html
        As in every form.

    Notes
    -----
    ``.value`` holds the pending role changes, ``{"users": {user_id: role},
    "teams": {team_id: role}}``, with only the rows whose role was changed (and only the
    kinds that have some). ``.save()`` applies them with ``set_user_role`` /
    ``set_team_role``, one request each, reporting on each row; it returns the changes
    that were applied, or ``None`` if there was nothing to apply or none succeeded.
    Removing (:meth:`remove`) and inviting (:meth:`invite`) act at once.
    """

    #: What the content is called in status lines ("space", "collection").
    noun: ClassVar[str] = ""

    def __init__(self, client: Any, target_id: str, **kwargs: Any) -> None:
        self.target_id = target_id
        self.user_rows: dict[str, PermissionRow] = {}
        self.team_rows: dict[str, PermissionRow] = {}
        self.org_id: str | None = None
        super().__init__(client, **kwargs)

    # -- to implement -------------------------------------------------------------------
    def _grants(self) -> Any:
        """The client's resource group holding the content's permissions."""
        raise NotImplementedError

    def _organization(self) -> str:
        """Read the content and return its organization's id."""
        raise NotImplementedError

    # -- shared behaviour ---------------------------------------------------------------
    def _build(self) -> None:
        self.users_box = widgets.VBox()
        self.teams_box = widgets.VBox()
        picker = widgets.Layout(width="330px")
        self.invite_users_select = widgets.SelectMultiple(
            description="Users", style=LABEL_STYLE, rows=6, layout=picker
        )
        self.invite_teams_select = widgets.SelectMultiple(
            description="Teams", style=LABEL_STYLE, rows=6, layout=picker
        )
        self.invite_role_dropdown = widgets.Dropdown(
            options=ROLE_CHOICES, value="read", description="Role", style=LABEL_STYLE
        )
        self.invite_button = widgets.Button(description="Invite", icon="user-plus", disabled=True)
        self.invite_error = error_label()
        self.save_button = widgets.Button(
            description="Apply role changes", button_style="primary", icon="check", disabled=True
        )

    def _wire(self) -> None:
        self.save_button.on_click(lambda _button: self.save())
        self.invite_button.on_click(lambda _button: self.invite())
        for picker in (self.invite_users_select, self.invite_teams_select):
            picker.observe(self._refresh_invite, names="value")

    def _rows(self) -> tuple[widgets.Widget, ...]:
        return (
            widgets.HTML("<b>Users</b>"),
            self.users_box,
            widgets.HTML("<b>Teams</b>"),
            self.teams_box,
            widgets.HBox([self.save_button, self.reload_button]),
            widgets.HTML("<b>Invite</b> members or teams of the organization"),
            widgets.HBox([self.invite_users_select, self.invite_teams_select]),
            widgets.HBox([self.invite_role_dropdown, self.invite_button]),
            self.invite_error,
        )

    # -- loading --------------------------------------------------------------------------------
    def load(self, *, raise_errors: bool = False) -> bool:
        """Read the content's users and teams, and the organization's, dropping pending changes.

        The editor loads by itself when it is first displayed.

        Parameters
        ----------
        raise_errors : bool
            Raise an API error after showing it.

        Returns
        -------
        bool
            Whether everything loaded (otherwise the error is in ``.status``).

        Examples
        --------
        >>> editor = PermissionEditor(client, space_id)
        >>> editor.load()
        True
        """
        return super().load(raise_errors=raise_errors) is not None

    def _show_loaded(self, frames: tuple[Any, Any, Any, Any]) -> str:
        users, teams, members, org_teams = frames
        self.user_rows = {
            row.user_id: self._row("users", row.user_id, person_label(row), clean(row.role))
            for row in users.itertuples()
        }
        self.team_rows = {
            row.team_id: self._row("teams", row.team_id, _team(row), clean(row.role))
            for row in teams.itertuples()
        }
        self.users_box.children = tuple(self.user_rows.values())
        self.teams_box.children = tuple(self.team_rows.values())
        self.invite_users_select.value = ()
        self.invite_teams_select.value = ()
        self.invite_users_select.options = [
            (person_label(row), row.user_id)
            for row in members.itertuples()
            if row.user_id not in self.user_rows
        ]
        self.invite_teams_select.options = [
            (_team(row), row.id) for row in org_teams.itertuples() if row.id not in self.team_rows
        ]
        return f"Loaded {len(self.user_rows)} users and {len(self.team_rows)} teams."

    def _fetch(self) -> tuple[Any, Any, Any, Any]:
        self.org_id = self._organization()
        users = self._grants().users(self.target_id)
        teams = self._grants().teams(self.target_id)
        members = self.client.orgs.members(self.org_id)
        org_teams = self.client.orgs.teams(self.org_id)
        return users, teams, members, org_teams

    def _rows_of(self, kind: str) -> dict[str, PermissionRow]:
        return self.user_rows if kind == "users" else self.team_rows

    def _row(self, kind: str, member_id: str, name: str, role: str | None) -> PermissionRow:
        row = PermissionRow(kind, member_id, name, role)
        row.role_dropdown.observe(self._refresh, names="value")
        row.remove_button.on_click(lambda _button: self.remove(kind, member_id))
        return row

    def _refresh(self, _change: Any = None) -> None:
        self.save_button.disabled = not self.value

    def _refresh_invite(self, _change: Any = None) -> None:
        picked = self.invite_users_select.value or self.invite_teams_select.value
        self.invite_button.disabled = not picked
        if picked:
            set_error(self.invite_error, "")

    # -- role changes ---------------------------------------------------------------------------
    @property
    def value(self) -> dict[str, dict[str, str | None]]:
        """The pending role changes: ``{"users": {id: role}, "teams": {id: role}}``."""
        pending = {}
        for kind, rows in (("users", self.user_rows), ("teams", self.team_rows)):
            changed = {key: row.chosen_role for key, row in rows.items() if row.changed}
            if changed:
                pending[kind] = changed
        return pending

    def save(self, *, raise_errors: bool = False) -> dict[str, dict[str, str | None]] | None:
        """Apply the pending role changes, one request per changed row; what Save does.

        Parameters
        ----------
        raise_errors : bool
            Raise the first API error (after showing it) instead of going on with the
            other rows.

        Returns
        -------
        dict or None
            The changes that were applied, shaped like ``.value``; ``None`` if nothing
            was pending or every change failed.

        Examples
        --------
        >>> editor = PermissionEditor(client, space_id)
        >>> editor.load()
        True
        >>> team = next(iter(editor.team_rows))  # a team holding a permission on the space
        >>> editor.team_rows[team].role_dropdown.value = "guest"  # no access through it
        >>> editor.save() == {"teams": {team: None}}
        True
        """
        pending = self.value
        if not pending:
            self._report("Nothing to apply: no role was changed.")
            return None
        applied: dict[str, dict[str, str | None]] = {}
        errors: list[DocsAPIError] = []
        for kind, changes in pending.items():
            rows = self._rows_of(kind)
            grants = self._grants()
            set_role = grants.set_user_role if kind == "users" else grants.set_team_role
            for member_id, role in changes.items():
                row = rows[member_id]
                ok, _ = self._run(
                    functools.partial(set_role, self.target_id, member_id, role),
                    doing=f"Setting the role of {member_id}",
                )
                if not ok and self.error is not None:
                    errors.append(self.error)
                    row.say(f"not changed: {describe_error(self.error)}", "error")
                    if raise_errors:
                        raise self.error
                    continue
                row.role = role
                row.say(f"role set to {role_label(role)}", "success")
                applied.setdefault(kind, {})[member_id] = role
        self._refresh()
        self.error = errors[0] if errors else None
        done = sum(len(changes) for changes in applied.values())
        if errors:
            self._report(
                f"{done} role change(s) applied, {len(errors)} failed: see the rows.", "error"
            )
        else:
            self._report(f"{done} role change(s) applied.", "success")
        return applied or None

    # -- removal ----------------------------------------------------------------------------------
    def remove(self, kind: str, member_id: str, *, raise_errors: bool = False) -> bool | None:
        """Take a user's or team's permission away; what a row's Remove button does.

        Parameters
        ----------
        kind : {"users", "teams"}
            Whether ``member_id`` is a user or a team.
        member_id : str
            The user's or team's id.
        raise_errors : bool
            Raise an API error after showing it.

        Returns
        -------
        bool or None
            True if the permission was removed now, False if they held none (the API's
            205 and 204), None if the API refused.

        Raises
        ------
        ValidationError
            ``kind`` is not ``"users"`` or ``"teams"``.

        Examples
        --------
        >>> client.permissions.set_user_role(space_id, user_id, "read")
        >>> editor = PermissionEditor(client, space_id)
        >>> editor.load()
        True
        >>> editor.remove("users", user_id)
        True
        >>> editor.user_rows[user_id].status
        'removed'
        """
        if kind not in _KINDS:
            raise ValidationError("kind", f"must be 'users' or 'teams', got {kind!r}")
        grants = self._grants()
        remove = grants.remove_user if kind == "users" else grants.remove_team
        row = self._rows_of(kind).get(member_id)
        ok, removed = self._run(
            lambda: remove(self.target_id, member_id), doing="Removing", raise_errors=raise_errors
        )
        if not ok:
            if row is not None and self.error is not None:
                row.say(f"not removed: {describe_error(self.error)}", "error")
            return None
        outcome = "removed" if removed else f"was not in the {self.noun}"
        if row is not None:
            row.say(outcome, "success" if removed else "info")
            row.role_dropdown.disabled = row.remove_button.disabled = True
            row.role = row.chosen_role
        self._report(f"{kind[:-1].capitalize()} {member_id}: {outcome}.", "success")
        self._refresh()
        return removed

    # -- invitations ------------------------------------------------------------------------------
    def invite(self, *, raise_errors: bool = False) -> dict[str, Any] | None:
        """Give the picked users and teams the picked role; what the Invite button does.

        Parameters
        ----------
        raise_errors : bool
            Raise a :class:`~docsapi.errors.ValidationError` when nobody is picked, or the
            API's error, after showing it.

        Returns
        -------
        dict or None
            ``{"role": ..., "users": [...], "teams": [...]}`` as sent, or ``None`` if
            nothing was sent or the API refused. The lists are read again afterwards.

        Examples
        --------
        >>> editor = PermissionEditor(client, space_id)
        >>> editor.load()
        True
        >>> editor.invite_users_select.value = (user_id,)
        >>> editor.invite_role_dropdown.value = "edit"
        >>> editor.invite() == {"role": "edit", "users": [user_id], "teams": []}
        True
        """
        users = list(self.invite_users_select.value)
        teams = list(self.invite_teams_select.value)
        if not users and not teams:
            problem = "pick at least one user or team to invite"
            set_error(self.invite_error, problem)
            self.invite_button.disabled = True
            self._report(f"Not invited: {problem}.", "error")
            if raise_errors:
                raise ValidationError("users, teams", problem)
            return None
        role = role_value(self.invite_role_dropdown.value)
        ok, _ = self._run(
            lambda: self._grants().invite(self.target_id, role=role, users=users, teams=teams),
            doing="Inviting",
            raise_errors=raise_errors,
        )
        if not ok:
            return None
        sent = {"role": role, "users": users, "teams": teams}
        self.load(raise_errors=raise_errors)
        who = ", ".join(filter(None, [_count(users, "user"), _count(teams, "team")]))
        self._report(f"Invited {who} as {role_label(role)}.", "success")
        return sent


class PermissionEditor(GrantEditor):
    """Edit who can access a space: change roles, remove access, invite users and teams.

    Everything but the target is :class:`GrantEditor`'s (attributes, ``.value``,
    :meth:`~GrantEditor.save`, :meth:`~GrantEditor.remove`, :meth:`~GrantEditor.invite`).

    Parameters
    ----------
    client : DocsClient
        The client to call (``client.permissions``, ``client.orgs``, ``client.spaces.get``).
    space_id : str
        The space whose permissions to edit.
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Examples
    --------
    >>> from docsapi.widgets import PermissionEditor
    >>> editor = PermissionEditor(client, space_id)
    >>> editor.load()  # or display(editor): it loads when shown
    True
    >>> editor.user_rows[guest_id].role_dropdown.value = "read"  # a guest should only read
    >>> editor.save() == {"users": {guest_id: "read"}}
    True
    """

    heading = "Space permissions"
    noun = "space"

    def __init__(self, client: Any, space_id: str, **kwargs: Any) -> None:
        self.space_id = check_entity_id(space_id, "space_id")
        super().__init__(client, self.space_id, **kwargs)

    def _grants(self) -> Any:
        return self.client.permissions

    def _organization(self) -> str:
        return self.client.spaces.get(self.space_id).organization


def _team(row: Any) -> str:
    title = clean(row.title) or ""
    members = clean(row.members)
    return f"{title} ({members} members)" if members is not None else title


def _count(ids: list[str], noun: str) -> str:
    if not ids:
        return ""
    return f"{len(ids)} {noun}{'s' if len(ids) != 1 else ''}"
