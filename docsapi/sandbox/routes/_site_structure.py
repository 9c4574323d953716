"""A site's structure and audience: link a space (``addSpaceToSite``), add a section with its
space (``addSectionToSite``) and invite users and teams (``inviteToSite``).

Each needs the ``admin`` role on the site, as the site's other changes do; creating a space
for it (``spaceId: null``) also needs the organization's ``create`` role, as
``createSpace`` does. A space may be linked by several sites (and by several sections of
one site), never twice into the same section, or twice into a site without sections. Each
change is logged with the platform's action IDs: ``site.space.added``,
``site.section.created`` (after ``space.created`` when a space is made for it) and
``site.permission.added`` / ``.updated`` per principal.
"""

from __future__ import annotations

from typing import Any

from docsapi.sandbox.core import _access_changes as changes
from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core._auth import security
from docsapi.sandbox.core._content import slugify
from docsapi.sandbox.core._errors import bad_request, not_found
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._web import Ctx, Reply, Route, no_content
from docsapi.sandbox.routes import _render_access as render_access
from docsapi.sandbox.routes._access import org_for, site_for
from docsapi.sandbox.routes._checks import check_bool, check_string
from docsapi.sandbox.routes._permissions import invite_body
from docsapi.sandbox.routes._spaces import add_space

_SITE = "/orgs/<org_id>/sites/<site_id>"


def _space(ctx: Ctx, org_id: str, body: dict[str, Any], title: str | None) -> Record:
    """The space the body names (``spaceId``), or a new one when it is null."""
    space_id = body.get("spaceId")
    if space_id is None:
        if body.get("pageId") is not None:
            raise bad_request("pageId needs an existing space: it cannot go with spaceId null.")
        org_for(ctx, org_id, "create")
        return add_space(ctx, org_id, title or "Untitled", template=body.get("template"))
    if not isinstance(space_id, str):
        raise bad_request("spaceId must be the id of a space of the organization, or null.")
    if body.get("template") is not None:
        raise bad_request("template is for a new space: give spaceId null, or no template.")
    record = ctx.state.spaces.get(space_id)
    if record is None or record["organization"] != org_id:
        raise not_found(f"Space {space_id!r} not found in organization {org_id!r}.")
    page_id = body.get("pageId")
    if page_id is not None:
        pages = {page.id for page, _, _ in ctx.store.content(space_id).walk()}
        if page_id not in pages:
            raise bad_request(f"pageId {page_id!r} is not a page of space {space_id!r}.")
    return record


def _path(title: str, taken: set[str]) -> str:
    """A path for ``title`` that no site space (or section) of the site uses yet."""
    base = slugify(title)
    path, number = base, 2
    while path in taken:
        path, number = f"{base}-{number}", number + 1
    return path


def _title_and_draft(body: dict[str, Any]) -> tuple[str | None, bool]:
    """The body's ``title`` (None: not given) and ``draft``, checked before anything changes."""
    title = body.get("title")
    if title is not None:
        title = check_string(title, "title", min_length=2, max_length=128)
    return title, check_bool(body.get("draft", False), "draft")


def _refuse_twice(ctx: Ctx, site_id: str, section: Record | None, space_id: object) -> None:
    """400 when the space is already in that section (or in that site without sections)."""
    section_id = None if section is None else section["id"]
    for item in ctx.state.site_spaces.get(site_id, []):
        if item.get("section") == section_id and item["space"] == space_id:
            where = f"section {section_id!r}" if section_id else f"site {site_id!r}"
            raise bad_request(f"Space {space_id!r} is already in {where}.")


def _link(
    ctx: Ctx,
    site: Record,
    space: Record,
    section: Record | None,
    *,
    title: str | None,
    draft: bool,
    page_id: object,
) -> Record:
    """Add ``space`` to ``site`` (in ``section`` when the site has sections)."""
    items = ctx.state.site_spaces.setdefault(site["id"], [])
    section_id = None if section is None else section["id"]
    siblings = [item for item in items if item.get("section") == section_id]
    title = space["title"] if title is None else title
    record: Record = {
        "id": "sitesp_" + ctx.store.new_id(16),
        "space": space["id"],
        "path": _path(title, {item["path"] for item in items}),
        "title": title,
        "default": not any(item["space"] in ctx.state.spaces for item in siblings),
        "draft": draft,
    }
    if section_id is not None:
        record["section"] = section_id
    if page_id is not None:
        record["pageId"] = page_id
    items.append(record)
    return record


def _section_of(ctx: Ctx, site_id: str, wanted: object) -> Record | None:
    """The section ``sectionId`` names (the default one when none is named), or None on a
    site without sections."""
    sections = ctx.state.site_sections.get(site_id, [])
    if wanted is None:
        return next((s for s in sections if s["default"]), sections[0] if sections else None)
    found = next((s for s in sections if s["id"] == wanted), None)
    if found is None:
        known = ", ".join(s["id"] for s in sections) or "none: the site has no sections"
        raise bad_request(
            f"sectionId {wanted!r} is not a section of site {site_id!r} (its sections: {known})."
        )
    return found


def add_space_to_site(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """POST .../site-spaces: 201 with the new SiteSpace (204 with ``Prefer: return=minimal``).

    400 for a section of another site, a space already in that section (or in a site without
    sections), a ``pageId`` that is not a page of the space or goes with ``spaceId: null``;
    404 for a space of another organization.
    """
    site = site_for(ctx, org_id, site_id, "admin")
    body = ctx.object_body(allowed=("spaceId", "template", "sectionId", "draft", "pageId", "title"))
    if "spaceId" not in body:
        raise bad_request("spaceId is required: the id of a space, or null for a new space.")
    section = _section_of(ctx, site_id, body.get("sectionId"))
    title, draft = _title_and_draft(body)
    if body["spaceId"] is not None:
        _refuse_twice(ctx, site_id, section, body["spaceId"])
    space = _space(ctx, org_id, body, title)
    record = _link(ctx, site, space, section, title=title, draft=draft, page_id=body.get("pageId"))
    label = f"{site['title']}: {space['title']}"
    events.record(
        ctx.store, org_id, ctx.credential, "site.space.added", ("site-space", record["id"], label)
    )
    if ctx.request.headers.get("Prefer", "").strip() == "return=minimal":
        return Reply(204, headers={"Preference-Applied": "return=minimal"})
    location = f"{ctx.api_base}/orgs/{org_id}/sites/{site_id}/site-spaces/{record['id']}"
    body_out = render_access.site_space(ctx.store, ctx.credential, site, record, ctx.api_base)
    return Reply(201, body_out, headers={"Location": location})


def add_section_to_site(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """POST .../sections: 201 with the new SiteSection, holding its space as its default
    site space. The site's first section is its default.

    400 for a ``siteSectionGroupId`` (the sandbox has no section groups) or a bad ``pageId``;
    404 for a space of another organization.
    """
    site = site_for(ctx, org_id, site_id, "admin")
    body = ctx.object_body(
        allowed=("spaceId", "template", "title", "icon", "draft", "pageId", "siteSectionGroupId")
    )
    if "spaceId" not in body:
        raise bad_request("spaceId is required: the id of a space, or null for a new space.")
    if body.get("siteSectionGroupId") is not None:
        raise bad_request(
            f"siteSectionGroupId {body['siteSectionGroupId']!r} is not a section group of "
            f"site {site_id!r} (the sandbox's sites have no section groups)."
        )
    title, draft = _title_and_draft(body)
    space = _space(ctx, org_id, body, title)
    sections = ctx.state.site_sections.setdefault(site_id, [])
    section_title = title or space["title"]
    taken = {s["path"] for s in sections}
    section: Record = {
        "id": "sitesc_" + ctx.store.new_id(16),
        "title": section_title,
        "path": _path(section_title, taken),
        "default": not sections,
        "draft": draft,
    }
    if body.get("icon") is not None:
        section["icon"] = body["icon"]
    sections.append(section)
    _link(ctx, site, space, section, title=None, draft=draft, page_id=body.get("pageId"))
    label = f"{site['title']}: {section_title}"
    events.record(
        ctx.store,
        org_id,
        ctx.credential,
        "site.section.created",
        ("site-section", section["id"], label),
    )
    location = f"{ctx.api_base}/orgs/{org_id}/sites/{site_id}/sections/{section['id']}"
    body_out = render_access.site_section(ctx.store, ctx.credential, site, section, ctx.api_base)
    return Reply(201, body_out, headers={"Location": location})


def invite_to_site(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """POST .../permissions: give ``role`` on the site to users and/or teams (204); 404 when
    one is unknown (nothing is changed then). A null role (guest) removes their grants, as on
    spaces and collections."""
    site_for(ctx, org_id, site_id, "admin")
    role, users, teams = invite_body(ctx)
    for team_id in teams:
        team = ctx.state.teams.get(team_id)
        if team is None or team["organization"] != org_id:
            raise not_found(f"Team {team_id!r} not found in organization {org_id!r}.")
    for user_id in users:
        changes.set_grant(ctx.store, ctx.credential, "site", site_id, "user", user_id, role)
    for team_id in teams:
        changes.set_grant(ctx.store, ctx.credential, "site", site_id, "team", team_id, role)
    return no_content()


_WRITE = security("user", "oauth:site:write")
ROUTES = [
    Route("POST", f"{_SITE}/site-spaces", add_space_to_site, _WRITE),
    Route("POST", f"{_SITE}/sections", add_section_to_site, _WRITE),
    Route(
        "POST",
        f"{_SITE}/permissions",
        invite_to_site,
        security("user", "oauth:site:permissions:write"),
    ),
]
