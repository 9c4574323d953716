"""A site's settings: ``PATCH /orgs/{organizationId}/sites/{siteId}``.

Title, visibility, basename, adaptive content, default level, the default section and site
space, the proxy origin and the style guide. Every value is checked, references included
(a section or site space of this site, a style guide space of its organization), before any
is stored: a refused request changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from docsapi.sandbox.core import _access_changes as access_changes
from docsapi.sandbox.core._errors import bad_request
from docsapi.sandbox.core._ids import new_hex
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._web import Ctx, Reply
from docsapi.sandbox.routes import _render_access as render_access
from docsapi.sandbox.routes._access import site_for
from docsapi.sandbox.routes._checks import (
    check_bool,
    check_default_level,
    check_enum,
    check_string,
)

SITE_VISIBILITIES = ("public", "unlisted", "share-link", "visitor-auth")
#: What the description lets a PATCH change.
SITE_SETTINGS = (
    "title",
    "visibility",
    "basename",
    "adaptiveContent",
    "defaultLevel",
    "defaultSiteSpace",
    "defaultSiteSection",
    "proxy",
    "styleguide",
)
#: The longest proxy origin (``SiteProxyOrigin``).
MAX_PROXY = 512
#: Settings whose changes have an action of their own (the others: ``site.updated``).
_ACTIONS = {"visibility": "site.visibility.updated", "defaultLevel": "site.default-level.updated"}


@dataclass
class _Defaults:
    """The default section and site space a PATCH chooses (None: unchanged)."""

    section: Record | None = None
    site_space: Record | None = None


def update_site(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """PATCH /orgs/{organizationId}/sites/{siteId} -> the updated Site."""
    record = site_for(ctx, org_id, site_id, "admin")
    body = ctx.object_body(allowed=SITE_SETTINGS)
    values = _values(ctx, record, body)
    defaults = _defaults(ctx, site_id, body)
    for key, value in values.items():
        if record.get(key) != value:
            _event(ctx, record, _ACTIONS.get(key, "site.updated"), f"{key} -> {value}")
            record[key] = value
    if defaults.section is not None and not defaults.section["default"]:
        for section in ctx.state.site_sections[site_id]:
            section["default"] = section is defaults.section
        _event(ctx, record, "site.updated", f"defaultSiteSection -> {defaults.section['id']}")
    if defaults.site_space is not None and not defaults.site_space["default"]:
        wanted = defaults.site_space
        for item in ctx.state.site_spaces[site_id]:
            if item.get("section") == wanted.get("section"):
                item["default"] = item is wanted
        _event(ctx, record, "site.updated", f"defaultSiteSpace -> {wanted['id']}")
    if record["visibility"] == "visitor-auth" and site_id not in ctx.state.site_auth:
        # Visitors authenticate from now on: the site gets its signing key, as on the platform.
        ctx.state.site_auth[site_id] = {
            "backend": "custom",
            "privateKey": new_hex(ctx.state.rng, 64),
        }
    return Reply(200, render_access.site(ctx.store, ctx.credential, record, ctx.api_base))


def _event(ctx: Ctx, record: Record, action: str, change: str) -> None:
    label = f"{record['title']}: {change}"
    access_changes.site_event(ctx.store, ctx.credential, record, action, label)


def _values(ctx: Ctx, record: Record, body: dict[str, Any]) -> dict[str, Any]:
    """The settings stored on the site record, checked."""
    values: dict[str, Any] = {}
    if "title" in body:
        values["title"] = check_string(body["title"], "title", min_length=2, max_length=128)
    if "visibility" in body:
        values["visibility"] = check_enum(body["visibility"], "visibility", SITE_VISIBILITIES)
    if "basename" in body:
        values["basename"] = check_string(
            body["basename"], "basename", min_length=1, max_length=100
        )
    if "defaultLevel" in body:
        values["defaultLevel"] = check_default_level(body["defaultLevel"])
    if "adaptiveContent" in body:
        adaptive = body["adaptiveContent"]
        if not isinstance(adaptive, dict) or "enabled" not in adaptive:
            raise bad_request('adaptiveContent must be an object such as {"enabled": true}.')
        values["adaptiveContent"] = check_bool(adaptive["enabled"], "adaptiveContent.enabled")
    if "proxy" in body:
        proxy = body["proxy"]
        values["proxy"] = (
            None
            if proxy is None
            else check_string(proxy, "proxy", min_length=1, max_length=MAX_PROXY)
        )
    if "styleguide" in body:
        values["styleguide"] = _styleguide(ctx, record, body["styleguide"])
    return values


def _styleguide(ctx: Ctx, record: Record, value: Any) -> str | None:
    """A style guide space of the site's organization (None detaches the current one)."""
    if value is None:
        return None
    space_id = check_string(value, "styleguide", min_length=1)
    space = ctx.state.spaces.get(space_id)
    if (
        space is None
        or space["organization"] != record["organization"]
        or space.get("type") != "styleguide"
    ):
        raise bad_request(
            f"styleguide {space_id!r} is not a style guide space of organization "
            f"{record['organization']!r}: give the id of one (a space whose type is "
            "styleguide), or null to detach the current one."
        )
    return space_id


def _defaults(ctx: Ctx, site_id: str, body: dict[str, Any]) -> _Defaults:
    """The default section and site space the body names, checked against the site."""
    chosen = _Defaults()
    sections = ctx.state.site_sections.get(site_id, [])
    if "defaultSiteSection" in body:
        wanted = check_string(body["defaultSiteSection"], "defaultSiteSection", min_length=1)
        chosen.section = next((s for s in sections if s["id"] == wanted), None)
        if chosen.section is None:
            known = ", ".join(s["id"] for s in sections) or "none: the site has no sections"
            raise bad_request(
                f"defaultSiteSection {wanted!r} is not a section of site {site_id!r} "
                f"(its sections: {known})."
            )
    if "defaultSiteSpace" in body:
        wanted = check_string(body["defaultSiteSpace"], "defaultSiteSpace", min_length=1)
        spaces = ctx.state.site_spaces[site_id]
        chosen.site_space = next((s for s in spaces if s["id"] == wanted), None)
        if chosen.site_space is None:
            raise bad_request(f"defaultSiteSpace {wanted!r} is not a site space of this site.")
        default_section = chosen.section or next((s for s in sections if s["default"]), None)
        section_id = chosen.site_space.get("section")
        if default_section is not None and section_id != default_section["id"]:
            raise bad_request(
                f"defaultSiteSpace {wanted!r} is in section {section_id!r}, not in the "
                f"site's default section {default_section['id']!r}: a site with sections "
                "takes its default site space from its default section (choose that "
                "section with defaultSiteSection, in the same request if you like)."
            )
    return chosen
