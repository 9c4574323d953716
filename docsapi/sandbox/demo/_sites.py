"""The demo's sites (what they publish, to whom, their share links and sections), the style
guide space and invite links.

Only the deliberate cases expose content that is private inside the organization, leave an
old share link active or offer admin access through an invite link: every other public or
unlisted site publishes spaces that members can read anyway, and every other active share
link is recent.
"""

from __future__ import annotations

import random
import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from docsapi.sandbox.core._clock import iso
from docsapi.sandbox.core._ids import new_hex, new_id
from docsapi.sandbox.core._permission_model import ancestors, resolve_default
from docsapi.sandbox.core._state import State
from docsapi.sandbox.demo import _names as names
from docsapi.sandbox.demo._plan import (
    S_ENGINEERING,
    S_INTERNAL,
    S_PUBLIC,
    S_STYLEGUIDE,
    SITE_LEVELS,
    SITE_SPACES,
    moment,
)

if TYPE_CHECKING:
    from docsapi.sandbox.demo._builder import Builder

#: The unlisted site's sections (title, path), one per site space, the first the default.
_SECTIONS = (("Handbook", "handbook"), ("Runbooks", "runbooks"))


def slug(title: str) -> str:
    """A URL path segment for a title (``"Payments API"`` -> ``"payments-api"``)."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "site"


def sites(b: Builder) -> None:
    """The fixed sites (one per visibility, and an unpublished one), then more at scale.

    Site permissions reach the spaces a site links that inherit (see ``docs/access-model.md``):
    a guest reads the public site's inheriting spaces through a site permission only, the
    unlisted site's default level (``comment``) takes over from its spaces' collection
    (``read``), and a team's site permission on the unpublished site reaches nothing (its
    only space does not inherit). Every other site permission gives less than the direct
    grants on the spaces it reaches.
    """
    rng, ids = b.rng, b.space_ids
    b.site = {}
    for key, title, visibility, is_published in names.SITES:
        spaces = [ids[position] for position in SITE_SPACES[key]]
        level = SITE_LEVELS.get(key, "inherit")
        b.site[key] = _site(b, title, visibility, is_published, spaces, level)
    links = [
        ("Acme review", True, 200),
        ("Auditors 2024", True, 130),
        ("Beta customers", True, 12),
        ("Agency draft", False, 300),
    ]
    link_ids = [_share_link(b, b.site["share-link"], *link) for link in links]
    b.stale_links = link_ids[:2]
    _visitor_auth(b, b.site["visitor-auth"])
    teams = b.regular_teams[3:] or b.regular_teams
    org, state = b.org_id, b.state
    internal = ids[S_INTERNAL]
    holding = set(state.space_users.on(internal))
    for team_id in state.space_teams.on(internal):
        holding |= b.team_members[team_id]
    pick = [u for u in b.regular if u not in b.admins and u not in holding]
    state.site_users.set(org, b.site["public"], b.site_guest, "read")
    state.site_users.set(org, b.site["visitor-auth"], rng.choice(pick), "create")
    state.site_teams.set(org, b.site["unpublished"], teams[0], "edit")
    state.site_teams.set(org, b.site["unlisted"], teams[-1], "read")

    readable = [
        s for s in ids[S_PUBLIC + 1 :] if resolve_default(state, state.spaces[s]) is not None
    ]
    private = [s for s in ids[S_PUBLIC + 1 :] if s not in set(readable)]
    extra_sites = max(0, b.size.spaces // 40 - len(names.SITES))
    for number in range(extra_sites):
        visibility = rng.choice(["public", "unlisted", "share-link", "visitor-auth"])
        base = names.MORE_SITE_TITLES[number % len(names.MORE_SITE_TITLES)]
        candidates = readable if visibility in ("public", "unlisted") or not private else private
        chosen = rng.sample(candidates, min(len(candidates), rng.randint(2, 4)))
        site_id = _site(b, f"{base} {number + 1}", visibility, True, chosen, "inherit")
        if visibility == "share-link":
            for _ in range(rng.randint(1, 2)):
                _share_link(
                    b, site_id, rng.choice(names.SHARE_LINK_NAMES), True, rng.randint(1, 60)
                )
        elif visibility == "visitor-auth":
            _visitor_auth(b, site_id)
        if rng.random() < 0.5:  # read: below every direct grant on the spaces it reaches
            state.site_teams.set(org, site_id, rng.choice(teams), "read")
    _collection_grant_under_a_site(b)
    b.facts.update(
        site_ids=list(state.sites),
        sites=dict(b.site),
        share_link_ids=dict(zip(("stale", "stale-2", "recent", "inactive"), link_ids, strict=True)),
    )


def _collection_grant_under_a_site(b: Builder) -> None:
    """An ``edit`` grant on the engineering collection for a member with no explicit path to
    its spaces: on the spaces the unlisted site links, the site's ``comment`` overrides it
    under ``precedence`` (it keeps ``edit`` under ``highest``)."""
    state, collection = b.state, b.collection["engineering"]
    under = [s for s, r in state.spaces.items() if collection in ancestors(state, r)]
    holding = set(state.collection_users.on(collection)) | set(
        state.site_users.on(b.site["unlisted"])
    )
    for holder, table in (
        (collection, state.collection_teams),
        (b.site["unlisted"], state.site_teams),
    ):
        for team_id in table.on(holder):
            holding |= b.team_members[team_id]
    for space_id in under:
        holding |= set(state.space_users.on(space_id))
        for team_id in state.space_teams.on(space_id):
            holding |= b.team_members[team_id]
    chosen = next((u for u in b.regular if u not in b.admins and u not in holding), None)
    if chosen is not None:
        state.collection_users.set(b.org_id, collection, chosen, "edit")


def structure(b: Builder) -> None:
    """Sections on the unlisted site (one site space each, the default of its section) and
    the style guide space.

    Their ids come from a Random of their own, so every other id of the demo is the same as
    without them.
    """
    site_id = b.site["unlisted"]
    rng = random.Random(f"sections:{site_id}")
    sections: list[dict[str, object]] = []
    for (title, path), site_space in zip(_SECTIONS, b.state.site_spaces[site_id], strict=True):
        section_id = "sitesc_" + new_id(rng, 16)
        sections.append({"id": section_id, "title": title, "path": path, "default": not sections})
        site_space["section"] = section_id
        site_space["default"] = True
    b.state.site_sections[site_id] = sections
    styleguide = b.space_ids[S_STYLEGUIDE]
    b.state.spaces[styleguide]["type"] = "styleguide"
    b.facts.update(
        site_section_ids={path: s["id"] for (_, path), s in zip(_SECTIONS, sections, strict=True)},
        styleguide_space_id=styleguide,
    )


def shared_spaces(b: Builder) -> None:
    """The ``shared_sites`` seed option: spaces under several sites. A space the public site
    links becomes the space of a new section of the unlisted site (a site space in one, a
    section's space in the other), and the unlisted site's first section space is also linked
    by the share-link site.

    Its ids come from a Random of its own, so every other id of the demo stays the same;
    ``facts["shared_site_spaces"]`` maps each shared space to the sites linking it.
    """
    state = b.state
    rng = random.Random(f"shared-sites:{b.site['unlisted']}")
    public = [item["space"] for item in state.site_spaces[b.site["public"]]]
    unlisted = state.site_spaces[b.site["unlisted"]]
    moved = next(s for s in public if s not in {item["space"] for item in unlisted})
    section_id = "sitesc_" + new_id(rng, 16)
    title = state.spaces[moved]["title"]
    state.site_sections[b.site["unlisted"]].append(
        {"id": section_id, "title": title, "path": slug(title), "default": False}
    )
    unlisted.append(_site_space(rng, state, moved, default=True, section=section_id))
    sectioned = unlisted[0]["space"]
    linking = state.site_spaces[b.site["share-link"]]
    if all(item["space"] != sectioned for item in linking):
        linking.append(_site_space(rng, state, sectioned, default=False))
    b.facts["shared_site_spaces"] = {
        space: sorted(
            site
            for site, items in state.site_spaces.items()
            if any(item["space"] == space for item in items)
        )
        for space in (moved, sectioned)
    }


def _site_space(
    rng: random.Random, state: State, space_id: str, *, default: bool, section: str | None = None
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": "sitesp_" + new_id(rng, 16),
        "space": space_id,
        "path": slug(state.spaces[space_id]["title"]),
        "title": state.spaces[space_id]["title"],
        "draft": False,
        "default": default,
    }
    if section is not None:
        record["section"] = section
    return record


def _site(
    b: Builder,
    title: str,
    visibility: str,
    published: bool,
    spaces: list[str],
    level: str | None,
) -> str:
    site_id = "site_" + new_id(b.rng, 16)
    b.state.sites[site_id] = {
        "id": site_id,
        "title": title,
        "organization": b.org_id,
        "visibility": visibility,
        "published": published,
        "defaultLevel": level,
        "type": "premium" if visibility in ("share-link", "visitor-auth") else "basic",
        "basename": slug(title),
        "createdAt": iso(moment(b.rng, 700)),
    }
    b.state.site_spaces[site_id] = [
        {
            "id": "sitesp_" + new_id(b.rng, 16),
            "space": space_id,
            "path": slug(b.state.spaces[space_id]["title"]),
            "title": b.state.spaces[space_id]["title"],
            "draft": False,
            "default": position == 0,
        }
        for position, space_id in enumerate(spaces)
    ]
    b.state.share_links[site_id] = {}
    return site_id


def _share_link(b: Builder, site_id: str, name: str, active: bool, age_days: int) -> str:
    link_id = "sl_" + new_id(b.rng, 16)
    created = b.now - timedelta(days=age_days, seconds=b.rng.randint(0, 3600))
    b.state.share_links[site_id][link_id] = {
        "id": link_id,
        "name": name,
        "key": new_hex(b.rng, 32),
        "active": active,
        "createdAt": iso(created),
    }
    return link_id


def _visitor_auth(b: Builder, site_id: str) -> None:
    b.state.site_auth[site_id] = {
        "backend": "custom",
        "privateKey": new_hex(b.rng, 64),
        "fallbackURL": f"https://login.{b.domain}/docs",
    }


def invites(b: Builder) -> None:
    """Invite links: to the organization (one granting admin), to a space, to a collection."""
    ids = b.space_ids
    offers = {
        "admin": {"role": "admin"},
        "read": {"role": "read"},
        "space": {"level": "comment", "space": ids[S_ENGINEERING]},
        "collection": {"level": "read", "collection": b.collection["engineering"]},
    }
    b.invite = {}
    records = b.state.invites.setdefault(b.org_id, {})
    for key, offer in offers.items():
        invite_id = new_id(b.rng)
        records[invite_id] = {"id": invite_id, **offer}
        b.invite[key] = invite_id
    b.facts["invite_ids"] = dict(b.invite)
