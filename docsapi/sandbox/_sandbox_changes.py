"""Changes a demo or a test makes happen in the sandbox, without going through the API.

Each one goes through the same code as the API's writes (indexes and the audit log stay
right; the log names the sandbox's controls as the actor), so two audits taken around it
differ exactly by that change. Inside ``with sandbox.unlogged():`` changes record no audit
event, as a change made behind the platform's back would not: what an audit of history must
flag as unexplained.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from docsapi.sandbox.core import _access_changes as changes
from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core._roles import MEMBER_ROLES
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._store import Store

#: A share link's name: ``ShareLinkName`` (at most 50 characters).
_MAX_SHARE_LINK_NAME = 50


class ChangeControls:
    """Methods of :class:`~docsapi.sandbox.Sandbox` that change access in the demo."""

    _store: Store

    # -- lookups --------------------------------------------------------------------------
    def _target(self, target_id: str) -> tuple[changes.TargetKind, Record]:
        state = self._store.state
        for kind, records in (
            ("space", state.spaces),
            ("collection", state.collections),
            ("site", state.sites),
        ):
            if target_id in records:
                return kind, records[target_id]  # type: ignore[return-value]
        raise ValueError(f"{target_id!r} is not an active space, a collection or a site")

    def _principal(self, principal_id: str) -> changes.PrincipalKind:
        state = self._store.state
        if principal_id in state.users:
            return "user"
        if principal_id in state.teams:
            return "team"
        raise ValueError(f"{principal_id!r} is neither a user nor a team")

    def _site(self, site_id: str) -> Record:
        site = self._store.state.sites.get(site_id)
        if site is None:
            raise ValueError(f"{site_id!r} is not a site")
        return site

    # -- access ---------------------------------------------------------------------------
    @contextmanager
    def unlogged(self) -> Iterator[None]:
        """Make changes that record no audit event, inside a ``with`` block.

        Every change made inside, through these controls or through the API, leaves the audit
        log untouched; the log records again when the block ends.

        Examples
        --------
        >>> with Sandbox() as sb, sb.unlogged():           # doctest: +SKIP
        ...     sb.grant(sb.demo["space_ids"][0], sb.demo["guest_ids"][1], "edit")
        """
        store = self._store
        store.log_events = False
        try:
            yield
        finally:
            store.log_events = True

    def grant(self, target_id: str, principal_id: str, role: str | None) -> str | None:
        """Give a user or team ``role`` on a space, collection or site (None revokes).

        Parameters
        ----------
        target_id
            A space, collection or site id.
        principal_id
            A user or team id.
        role
            ``"read"`` ... ``"admin"``, or None to remove the grant.

        Returns
        -------
        str or None
            The role held before.

        Raises
        ------
        ValueError
            For an unknown target, principal or role.

        Examples
        --------
        >>> sandbox.grant(space_id, user_id, "edit")  # returns the role held before: none
        >>> client.permissions.users(space_id).set_index("user_id").role[user_id]
        'edit'
        >>> sandbox.grant(space_id, user_id, "read")
        'edit'
        """
        if role is not None and role not in MEMBER_ROLES:
            raise ValueError(f"role must be one of {', '.join(MEMBER_ROLES)} or None; got {role!r}")
        with self._store.lock:
            kind, _ = self._target(target_id)
            principal = self._principal(principal_id)
            return changes.set_grant(
                self._store, None, kind, target_id, principal, principal_id, role
            )

    def revoke(self, target_id: str, principal_id: str) -> bool:
        """Remove a user's or team's grant on a space, collection or site; False if none."""
        return self.grant(target_id, principal_id, None) is not None

    def set_default_level(self, target_id: str, level: str | None) -> None:
        """Set the default level of a space, collection or site (``"inherit"``, a role, None)."""
        if level is not None and level != "inherit" and level not in MEMBER_ROLES:
            raise ValueError(f"level must be inherit, a role or None; got {level!r}")
        with self._store.lock:
            kind, record = self._target(target_id)
            if record["defaultLevel"] != level:
                record["defaultLevel"] = level
                label = f"{record['title']}: default level -> {level or 'no access'}"
                events.record(
                    self._store,
                    record["organization"],
                    None,
                    f"{kind}.default-level.updated",
                    (kind, target_id, label),
                )

    def set_member(
        self, user_id: str, *, role: Any = ..., disabled: bool | None = None
    ) -> dict[str, Any]:
        """Change a demo member's organization role (None: guest) and/or disable them.

        Returns
        -------
        dict
            The membership record after the change (a copy).
        """
        org_id = self._demo["org_id"]  # type: ignore[attr-defined]
        with self._store.lock:
            member = self._store.member(org_id, user_id)
            if member is None:
                raise ValueError(f"{user_id!r} is not a member of the demo organization")
            name = events.principal_label(self._store, "user", user_id)
            if role is not ... and role != member["role"]:
                if role is not None and role not in MEMBER_ROLES:
                    raise ValueError(f"role must be a member role or None; got {role!r}")
                member["role"] = role
                label = f"{name} -> {role or 'guest'}"
                events.record(
                    self._store,
                    org_id,
                    None,
                    "organization.member.updated",
                    ("user", user_id, label),
                )
            if disabled is not None and not isinstance(disabled, bool):
                raise ValueError(f"disabled must be true, false or None; got {disabled!r}")
            if disabled is not None and disabled != member["disabled"]:
                member["disabled"] = bool(disabled)
                action = (
                    "organization.member.disabled" if disabled else "organization.member.enabled"
                )
                events.record(self._store, org_id, None, action, ("user", user_id, name))
            return dict(member)

    # -- sites ----------------------------------------------------------------------------
    def publish(self, site_id: str) -> None:
        """Publish a site: its spaces reach the site's audience."""
        with self._store.lock:
            changes.set_published(self._store, None, self._site(site_id), True)

    def unpublish(self, site_id: str) -> None:
        """Unpublish a site."""
        with self._store.lock:
            changes.set_published(self._store, None, self._site(site_id), False)

    def create_share_link(self, site_id: str, name: str = "Shared by the sandbox") -> str:
        """Add an active share link, made now, to a site; its id."""
        if not isinstance(name, str) or len(name) > _MAX_SHARE_LINK_NAME:
            raise ValueError(
                f"name must be a string of at most {_MAX_SHARE_LINK_NAME} characters; "
                f"got {type(name).__name__} {str(name)[:60]!r}"
            )
        if not name.isprintable():
            raise ValueError(f"name must not contain control characters; got {name!r}")
        with self._store.lock:
            return changes.create_share_link(self._store, None, self._site(site_id), name)["id"]

    def set_share_link_active(self, site_id: str, link_id: str, active: bool) -> None:
        """Activate or deactivate a share link of a site."""
        if not isinstance(active, bool):
            raise ValueError(f"active must be true or false; got {active!r}")
        with self._store.lock:
            site = self._site(site_id)
            link = self._store.state.share_links[site_id].get(link_id)
            if link is None:
                raise ValueError(f"{link_id!r} is not a share link of site {site_id!r}")
            changes.set_share_link_active(self._store, None, site, link, active)
