"""Invite links of an organization: list, read, create, change the role offered, delete.

An invite link offers an organization role (``role``) or a level on a space or collection
(``level``). As the API describes it, the list holds the links to the organization only;
links to a space or collection are read by id. Only organization admins see and manage them.
"""

from __future__ import annotations

from typing import Any

from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core._auth import security
from docsapi.sandbox.core._errors import bad_request, not_found
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._web import Ctx, Reply, Route, no_content, paginate
from docsapi.sandbox.routes import _render_access as render_access
from docsapi.sandbox.routes._access import org_for
from docsapi.sandbox.routes._checks import check_role, check_string

_READ = security("user", "oauth:organization:members:read")
_WRITE = security("user", "oauth:organization:members:write")


def _live(ctx: Ctx, record: Record) -> bool:
    """False for a link to a space or collection that no longer exists."""
    if "space" in record:
        return record["space"] in ctx.state.spaces
    if "collection" in record:
        return record["collection"] in ctx.state.collections
    return True


def _render(ctx: Ctx, record: Record) -> dict[str, Any]:
    return render_access.invite(ctx.store, ctx.credential, record, ctx.api_base)


def _invite_or_404(ctx: Ctx, org_id: str, invite_id: str) -> Record:
    record = ctx.state.invites.get(org_id, {}).get(invite_id)
    if record is None or not _live(ctx, record):
        raise not_found(f"Invite link {invite_id!r} not found in organization {org_id!r}.")
    return record


def _label(ctx: Ctx, record: Record) -> str:
    if "role" in record:
        return f"organization -> {record['role'] or 'guest'}"
    kind = "space" if "space" in record else "collection"
    target = ctx.state.spaces if kind == "space" else ctx.state.collections
    return f"{kind} {target[record[kind]]['title']} -> {record['level'] or 'guest'}"


def _event(ctx: Ctx, org_id: str, record: Record, action: str) -> None:
    target = ("invite", record["id"], _label(ctx, record))
    events.record(ctx.store, org_id, ctx.credential, action, target)


def list_invites(ctx: Ctx, org_id: str) -> Reply:
    """GET /orgs/{organizationId}/link-invites -> List of InviteLinkToOrganization."""
    org_for(ctx, org_id, "admin")
    records = [r for r in ctx.state.invites.get(org_id, {}).values() if "role" in r]
    return paginate(ctx, records, lambda r: _render(ctx, r))


def get_invite(ctx: Ctx, org_id: str, invite_id: str) -> Reply:
    """GET /orgs/{organizationId}/link-invites/{inviteId} -> OrganizationInviteLink."""
    org_for(ctx, org_id, "admin")
    return Reply(200, _render(ctx, _invite_or_404(ctx, org_id, invite_id)))


def create_invite(ctx: Ctx, org_id: str) -> Reply:
    """POST /orgs/{organizationId}/link-invites: 201 with a link to the organization
    (``{"role"}``), a space (``{"level", "space"}``) or a collection (``{"level",
    "collection"}``)."""
    org_for(ctx, org_id, "admin")
    body = ctx.object_body(allowed=("role", "level", "space", "collection"))
    offer: dict[str, Any]
    if set(body) == {"role"}:
        offer = {"role": check_role(body["role"])}
    elif set(body) in ({"level", "space"}, {"level", "collection"}):
        kind = "space" if "space" in body else "collection"
        target_id = check_string(body[kind], kind, min_length=1)
        found = (ctx.state.spaces if kind == "space" else ctx.state.collections).get(target_id)
        if found is None or found["organization"] != org_id:
            raise not_found(f"No {kind} {target_id!r} in organization {org_id!r}.")
        offer = {"level": check_role(body["level"], "level"), kind: target_id}
    else:
        raise bad_request(
            'Send {"role"} for the organization, {"level", "space"} or {"level", "collection"}.'
        )
    invite_id = ctx.store.new_id()
    record = {"id": invite_id, **offer}
    ctx.state.invites.setdefault(org_id, {})[invite_id] = record
    _event(ctx, org_id, record, "organization.link-invite.created")
    return Reply(201, _render(ctx, record))


def update_invite(ctx: Ctx, org_id: str, invite_id: str) -> Reply:
    """PATCH /orgs/{organizationId}/link-invites/{inviteId}: ``role`` (organization links) or
    ``level`` (space and collection links)."""
    org_for(ctx, org_id, "admin")
    record = _invite_or_404(ctx, org_id, invite_id)
    body = ctx.object_body(allowed=("role", "level"))
    key = "role" if "role" in record else "level"
    if set(body) != {key}:
        raise bad_request(f"This invite link offers a {key}; send exactly {{{key!r}: ...}}.")
    value = check_role(body[key], key)
    if value != record[key]:
        record[key] = value
        _event(ctx, org_id, record, "organization.link-invite.updated")
    return Reply(200, _render(ctx, record))


def delete_invite(ctx: Ctx, org_id: str, invite_id: str) -> Reply:
    """DELETE /orgs/{organizationId}/link-invites/{inviteId}: 205 deleted now, 204 absent."""
    org_for(ctx, org_id, "admin")
    record = ctx.state.invites.get(org_id, {}).get(invite_id)
    if record is None or not _live(ctx, record):
        return no_content(204)
    _event(ctx, org_id, record, "organization.link-invite.deleted")
    del ctx.state.invites[org_id][invite_id]
    return no_content(205)


ROUTES = [
    Route("GET", "/orgs/<org_id>/link-invites", list_invites, _READ),
    Route("POST", "/orgs/<org_id>/link-invites", create_invite, _WRITE),
    Route("GET", "/orgs/<org_id>/link-invites/<invite_id>", get_invite, _READ),
    Route("PATCH", "/orgs/<org_id>/link-invites/<invite_id>", update_invite, _WRITE),
    Route("DELETE", "/orgs/<org_id>/link-invites/<invite_id>", delete_invite, _WRITE),
]
