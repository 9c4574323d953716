"""Finding the resource a request names and checking the caller may act on it."""

from __future__ import annotations

from docsapi.sandbox.core._errors import ApiError, forbidden, not_found
from docsapi.sandbox.core._permission_model import site_role
from docsapi.sandbox.core._roles import at_least
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._web import Ctx
from docsapi.sandbox.routes._render import viewer_role


def space_for(ctx: Ctx, space_id: str, need: str = "read") -> Record:
    """The active space ``space_id``, if the caller holds at least ``need`` on it.

    Raises
    ------
    ApiError
        404 when no active space has this id; 403 when the caller's role is too weak.
    """
    record = ctx.state.spaces.get(space_id)
    if record is None:
        raise not_found(f"Space {space_id!r} not found (it may have been deleted).")
    role = viewer_role(ctx.store, ctx.credential, record["organization"], space_id)
    if not at_least(role, need):
        held = f"you have {role!r}" if role else "you have no access to it"
        raise forbidden(f"This operation needs the {need!r} role on space {space_id!r}; {held}.")
    return record


def collection_for(ctx: Ctx, collection_id: str, need: str = "read") -> Record:
    """The collection ``collection_id``, if the caller holds at least ``need`` on it.

    Raises
    ------
    ApiError
        404 when no collection has this id; 403 when the caller's role is too weak.
    """
    record = ctx.state.collections.get(collection_id)
    if record is None:
        raise not_found(f"Collection {collection_id!r} not found.")
    role = viewer_role(
        ctx.store, ctx.credential, record["organization"], collection_id, "collection"
    )
    if not at_least(role, need):
        held = f"you have {role!r}" if role else "you have no access to it"
        raise forbidden(
            f"This operation needs the {need!r} role on collection {collection_id!r}; {held}."
        )
    return record


def site_for(ctx: Ctx, org_id: str, site_id: str, need: str | None = None) -> Record:
    """The site ``site_id`` of organization ``org_id``, for a member (with ``need`` if given).

    Raises
    ------
    ApiError
        404 for an unknown organization or site; 403 for a non-member or a role below ``need``
        on the site.
    """
    org_for(ctx, org_id)
    record = ctx.state.sites.get(site_id)
    if record is None or record["organization"] != org_id:
        raise not_found(f"Site {site_id!r} not found in organization {org_id!r}.")
    if need is not None and ctx.credential.user_id is not None:
        role = site_role(ctx.state, ctx.credential.user_id, site_id)
        if not at_least(role, need):
            raise forbidden(f"This operation needs the {need!r} role on site {site_id!r}.")
    return record


def org_for(ctx: Ctx, org_id: str, need: str | None = None) -> Record:
    """The organization ``org_id``, if the caller belongs to it (with at least ``need`` if given).

    Raises
    ------
    ApiError
        404 for an unknown organization; 403 for a non-member or a role below ``need``.
    """
    record = ctx.state.orgs.get(org_id)
    if record is None:
        raise not_found(f"Organization {org_id!r} not found.")
    user_id = ctx.credential.user_id
    if user_id is not None and ctx.store.member(org_id, user_id) is None:
        raise forbidden(f"You are not a member of organization {org_id!r}.")
    if need is not None and not at_least(viewer_role(ctx.store, ctx.credential, org_id), need):
        raise forbidden(f"This operation needs the {need!r} role in organization {org_id!r}.")
    return record


def user_for(ctx: Ctx, user_id: str) -> Record:
    """The user ``user_id`` (404 if unknown)."""
    record = ctx.state.users.get(user_id)
    if record is None:
        raise not_found(f"User {user_id!r} not found.")
    return record


def team_for(ctx: Ctx, org_id: str, team_id: str) -> Record:
    """The team ``team_id`` of organization ``org_id`` (404 if it is not one of its teams)."""
    record = ctx.state.teams.get(team_id)
    if record is None or record["organization"] != org_id:
        raise not_found(f"Team {team_id!r} not found in organization {org_id!r}.")
    return record


def caller_id(ctx: Ctx) -> str:
    """The id of the user behind the token (403 for integration tokens)."""
    if ctx.credential.user_id is None:
        raise ApiError(403, "This operation acts as a user; integration tokens cannot call it.")
    return ctx.credential.user_id
