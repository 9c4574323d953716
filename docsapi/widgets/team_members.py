"""TeamMembersEditor: a team's members (add, set their role, remove) and its title."""

from __future__ import annotations

import functools
from typing import Any

import ipywidgets as widgets

from docsapi.core.checks import check_entity_id, check_text
from docsapi.errors import DocsAPIError, ValidationError
from docsapi.resources._org_teams import MAX_TEAM_TITLE, TEAM_MEMBER_ROLES
from docsapi.widgets._base import (
    LABEL_STYLE,
    FormBase,
    clean,
    error_label,
    person_label,
    set_error,
    text_input,
)

__all__ = ["TeamMembersEditor"]


class TeamMembersEditor(FormBase):
    """Edit a team: add organization members (or change their team role), remove, rename.

    Whoever is in a team holds every permission the team holds, on spaces, collections
    and sites: taking someone out of a team is how the access it gave them ends.

    Parameters
    ----------
    client : DocsClient
        The client to call (``client.orgs.team``, ``.team_members``, ``.members``,
        ``.add_team_member``, ``.remove_team_member``, ``.update_team``).
    org_id, team_id : str
        The organization and the team.
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Attributes
    ----------
    members : pandas.DataFrame or None
        The team's members as last read (``client.orgs.team_members``): user_id,
        display_name, email, role (``owner`` or ``member``).
    members_select : ipywidgets.SelectMultiple
        The members, to pick those to remove.
    remove_button : ipywidgets.Button
        Takes the picked members out of the team.
    add_combobox : ipywidgets.Combobox
        The user id or email of an organization member; suggests the emails of those
        not in the team. Problems in ``add_error``.
    add_role_dropdown : ipywidgets.Dropdown
        Their role in the team, ``member`` or ``owner``.
    add_button : ipywidgets.Button
        Adds them, or gives a current member the picked role.
    title_text, rename_button : ipywidgets.Text, ipywidgets.Button
        The team's title (1 to 64 characters; problems in ``title_error``) and Rename.
    team : Team or None
        The team as last read or renamed.
    reload_button, status_output, heading_html
        As in every form.

    Raises
    ------
    ValidationError
        ``org_id`` or ``team_id`` is not an id (nothing is sent).

    Examples
    --------
    >>> from docsapi.widgets import TeamMembersEditor
    >>> editor = TeamMembersEditor(client, org_id, team_id)
    >>> _ = editor.load()  # or display(editor): it loads when shown
    >>> email = client.orgs.member(org_id, user_id).email
    >>> editor.add_combobox.value = email  # an id, an email or a name
    >>> editor.add_button.click()
    >>> user_id in set(editor.members.user_id)
    True
    >>> editor.members_select.value = (user_id,)
    >>> editor.remove_button.click()
    >>> user_id in set(editor.members.user_id)
    False
    """

    heading = "Team members"

    def __init__(self, client: Any, org_id: str, team_id: str, **kwargs: Any) -> None:
        self.org_id = check_entity_id(org_id, "org_id")
        self.team_id = check_entity_id(team_id, "team_id")
        self.team: Any = None
        self.members: Any = None
        self._org_members: Any = None
        super().__init__(client, **kwargs)

    def _build(self) -> None:
        self.title_text = text_input("Title", placeholder=f"1 to {MAX_TEAM_TITLE} characters")
        self.title_error = error_label()
        self.rename_button = widgets.Button(description="Rename", icon="pencil", disabled=True)
        self.members_select = widgets.SelectMultiple(
            description="Members", style=LABEL_STYLE, rows=8, layout=widgets.Layout(width="520px")
        )
        self.remove_button = widgets.Button(
            description="Remove selected",
            icon="user-times",
            disabled=True,
            layout=widgets.Layout(width="auto"),
        )
        self.add_combobox = widgets.Combobox(
            description="Add",
            placeholder="user id or email of an organization member",
            ensure_option=False,
            style=LABEL_STYLE,
            layout=widgets.Layout(width="420px"),
        )
        self.add_role_dropdown = widgets.Dropdown(
            options=TEAM_MEMBER_ROLES[::-1], value="member", layout=widgets.Layout(width="110px")
        )
        self.add_button = widgets.Button(description="Add", icon="user-plus", disabled=True)
        self.add_error = error_label()

    def _wire(self) -> None:
        self.rename_button.on_click(lambda _button: self.rename())
        self.remove_button.on_click(lambda _button: self.remove_selected())
        self.add_button.on_click(lambda _button: self.add())
        for widget in (self.title_text, self.members_select, self.add_combobox):
            widget.observe(self._refresh, names="value")

    def _rows(self) -> tuple[widgets.Widget, ...]:
        return (
            widgets.HBox([self.title_text, self.rename_button]),
            self.title_error,
            self.members_select,
            widgets.HBox([self.remove_button, self.reload_button]),
            widgets.HBox([self.add_combobox, self.add_role_dropdown, self.add_button]),
            self.add_error,
        )

    # -- loading --------------------------------------------------------------------------------
    def _fetch(self) -> tuple[Any, Any, Any]:
        team = self.client.orgs.team(self.org_id, self.team_id)
        members = self.client.orgs.team_members(self.org_id, self.team_id)
        org_members = self.client.orgs.members(self.org_id)
        return team, members, org_members

    def _show_loaded(self, loaded: tuple[Any, Any, Any]) -> str:
        self.team, self.members, self._org_members = loaded
        self.title_text.value = self.team.title or ""
        set_error(self.title_error, "")
        self.members_select.value = ()
        self.members_select.options = [
            (f"{person_label(row)} ({row.role})", row.user_id) for row in self.members.itertuples()
        ]
        in_team = set(self.members.user_id)
        self.add_combobox.options = [
            email
            for row in self._org_members.itertuples()
            if row.user_id not in in_team and (email := clean(row.email))
        ]
        set_error(self.add_error, "")
        return f"Loaded {self.team.title}: {len(self.members)} members."

    def _refresh(self, _change: Any = None) -> None:
        loaded = self.team is not None
        self.rename_button.disabled = not loaded or self.title_text.value == self.team.title
        self.remove_button.disabled = not loaded or not self.members_select.value
        self.add_button.disabled = not loaded or not self.add_combobox.value.strip()

    # -- members --------------------------------------------------------------------------------
    def _member_of_org(self, entry: str) -> Any:
        """The organization member whose user id or email is ``entry`` (case-insensitive)."""
        wanted = entry.strip()
        if not wanted:
            raise ValidationError("user", "enter the user id or email of an organization member")
        for row in self._org_members.itertuples():
            email = clean(row.email) or ""
            if row.user_id == wanted or email.casefold() == wanted.casefold():
                return row
        raise ValidationError(
            "user", f"no member of the organization has the id or email {wanted!r}"
        )

    def add(self, *, raise_errors: bool = False) -> str | None:
        """Add the entered member to the team with the picked role; what Add does.

        A current member of the team gets the picked role instead.

        Parameters
        ----------
        raise_errors : bool
            Raise a :class:`~docsapi.errors.ValidationError` for an entry that names no
            member of the organization, or the API's error, after showing it.

        Returns
        -------
        str or None
            The user id added (or whose role was set); ``None`` if nothing was sent or
            the API refused. The lists are read again afterwards.

        Examples
        --------
        >>> editor = TeamMembersEditor(client, org_id, team_id)
        >>> _ = editor.load()
        >>> editor.add_combobox.value = user_id
        >>> editor.add_role_dropdown.value = "owner"
        >>> editor.add() == user_id
        True
        """
        if self._org_members is None:
            self._report("Not added: nothing is loaded (press Reload).")
            return None
        try:
            person = self._member_of_org(self.add_combobox.value)
        except ValidationError as exc:
            self._invalid(
                exc, not_done="Not added", label=self.add_error, raise_errors=raise_errors
            )
            return None
        set_error(self.add_error, "")
        role = self.add_role_dropdown.value
        current = self._team_role(person.user_id)
        name = person_label(person)
        if current == role:
            self._report(f"Nothing to change: {name} is in the team as {role}.")
            return None
        ok, _ = self._run(
            lambda: self.client.orgs.add_team_member(
                self.org_id, self.team_id, person.user_id, role=role
            ),
            doing="Adding",
            raise_errors=raise_errors,
        )
        if not ok:
            return None
        self.load(raise_errors=raise_errors)
        self.add_combobox.value = ""
        if current is None:
            self._report(f"Added {name} to the team as {role}.", "success")
        else:
            self._report(f"{name} is now {role} of the team (was {current}).", "success")
        return person.user_id

    def _team_role(self, user_id: str) -> str | None:
        rows = self.members[self.members.user_id == user_id]
        return None if rows.empty else clean(rows.role.iloc[0])

    def remove_selected(self, *, raise_errors: bool = False) -> list[str] | None:
        """Take the members picked in ``members_select`` out of the team; what Remove does.

        Parameters
        ----------
        raise_errors : bool
            Raise a :class:`~docsapi.errors.ValidationError` when nobody is picked, or the
            first API error, after showing it.

        Returns
        -------
        list of str or None
            The user ids removed now; ``None`` if nobody was picked or none was removed.
            The lists are read again afterwards.

        Examples
        --------
        >>> client.orgs.add_team_member(org_id, team_id, user_id)
        >>> editor = TeamMembersEditor(client, org_id, team_id)
        >>> _ = editor.load()
        >>> editor.members_select.value = (user_id,)
        >>> editor.remove_selected() == [user_id]
        True
        """
        picked = list(self.members_select.value)
        if not picked:
            problem = ValidationError("members", "pick at least one member to remove")
            self._invalid(problem, not_done="Nobody removed", raise_errors=raise_errors)
            return None
        removed: list[str] = []
        failed: list[DocsAPIError] = []
        for user_id in picked:
            ok, done = self._run(
                functools.partial(
                    self.client.orgs.remove_team_member, self.org_id, self.team_id, user_id
                ),
                doing=f"Removing {user_id}",
                raise_errors=raise_errors,
            )
            if not ok and self.error is not None:
                failed.append(self.error)
            elif done:
                removed.append(user_id)
        self.load()
        self.error = failed[0] if failed else None
        if failed:
            self._report(
                f"Removed {len(removed)} of {len(picked)} from the team; the others failed: "
                f"{failed[0]}",
                "error",
            )
        else:
            gone = len(picked) - len(removed)
            note = f" ({gone} had already left)" if gone else ""
            self._report(f"Removed {len(removed)} member(s) from the team{note}.", "success")
        return removed or None

    # -- the title ------------------------------------------------------------------------------
    def rename(self, *, raise_errors: bool = False) -> Any:
        """Give the team the title entered in ``title_text``; what Rename does.

        Parameters
        ----------
        raise_errors : bool
            Raise a :class:`~docsapi.errors.ValidationError` for a title breaking its
            rule, or the API's error, after showing it.

        Returns
        -------
        Team or None
            The renamed team; ``None`` if nothing was sent or the API refused.

        Examples
        --------
        >>> team = client.orgs.create_team(org_id, title="Review board")
        >>> editor = TeamMembersEditor(client, org_id, team.id)
        >>> _ = editor.load()
        >>> editor.title_text.value = "Reviewers"
        >>> editor.rename().title
        'Reviewers'
        """
        try:
            title = check_text(
                self.title_text.value, "title", min_length=1, max_length=MAX_TEAM_TITLE
            )
        except ValidationError as exc:
            self._invalid(
                exc, not_done="Not renamed", label=self.title_error, raise_errors=raise_errors
            )
            return None
        set_error(self.title_error, "")
        if self.team is None or title == self.team.title:
            self._report("Nothing to rename: the title is unchanged (or nothing is loaded).")
            return None
        before = self.team.title
        ok, team = self._run(
            lambda: self.client.orgs.update_team(self.org_id, self.team_id, title=title),
            doing="Renaming",
            raise_errors=raise_errors,
        )
        if not ok or team is None:
            return None
        self.team = team
        self._refresh()
        self._report(f"Renamed the team from {before!r} to {team.title!r}.", "success")
        return team
