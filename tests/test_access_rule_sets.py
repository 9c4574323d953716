"""The access model's two rule sets, each checked twice: by the sandbox and by the audit.

The platform's documentation ("Permissions and inheritance", see ``docs/access-model.md``)
gives examples of how the levels combine; each is built in a small organization inside a
sandbox that follows the rule set the example belongs to, then read back both from the
sandbox's ``permissions/aggregate`` (over HTTP) and from an audit (``audit_permissions``),
which must give the documented roles. A property test builds random organizations
(collections, sites, default levels, grants, teams, creators; sites with sections, whose
spaces come through ``addSectionToSite`` and ``addSpaceToSite`` over HTTP, and spaces under
several sites) and requires the audit, the sandbox's aggregate and the independent reading of
``access_reading`` to agree on every (space, user) pair, under both rule sets.
"""

from __future__ import annotations

import pytest
from access_reading import effective, fetch_all, from_state
from contract import ApiSession
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sandbox_orgs import SmallOrg
from suite_scope import examples

import docsapi

LEVELS = ["inherit", None, "read", "comment", "edit"]
ROLES = ["read", "comment", "edit", "review", "create", "admin"]


def platform(sandbox, space_id: str) -> dict[str, str]:
    """The sandbox's answer for a space: user id -> role."""
    api = ApiSession(sandbox.url, sandbox.token)
    items = fetch_all(api, f"/spaces/{space_id}/permissions/aggregate")
    return {item["user"]["id"]: item["permission"] for item in items}


def audited(sandbox, org: SmallOrg, model: str):
    return docsapi.audit_permissions(sandbox.client(), org.org_id, progress=False, model=model)


def roles_of(audit, space_id: str) -> dict[str, str]:
    rows = audit.effective[(audit.effective["space_id"] == space_id).to_numpy(dtype=bool)]
    return dict(zip(rows["user_id"].astype(str), rows["role"].astype(str), strict=True))


def check(sandbox, org: SmallOrg, model: str, expected: dict[tuple[str, str], str | None]):
    """Each (space, user) has the expected role (None: no access) on the sandbox's aggregate
    and in the audit, and the audit agrees with the aggregate everywhere."""
    audit = audited(sandbox, org, model)
    for (space_id, user_id), role in expected.items():
        assert platform(sandbox, space_id).get(user_id) == role, (space_id, user_id, "sandbox")
        assert roles_of(audit, space_id).get(user_id) == role, (space_id, user_id, "audit")
    assert audit.complete and audit.aggregate_mismatches.empty
    return audit


# -- the documented examples --------------------------------------------------------------------


def test_documented_precedence_examples(sandbox):
    """Since 2026-05-31: site over collection over organization, the space's own first."""
    org = SmallOrg(sandbox)
    creator, reader, carl, eve = org.users[:4]
    org.member(creator, "create")
    org.member(reader, "read")
    org.member(carl, "create")
    org.member(eve, "edit")
    collection = org.collection(level="read")
    linked = org.space(parent=collection)
    own_level = org.space(parent=collection, level="read")
    private = org.space(level=None, by=carl)
    site = org.site(linked, own_level, private, level="comment")
    org.grant(site, creator, "comment")  # the site sets the organization Creator to Commenter
    org.grant(linked, carl, "create")  # a direct Creator grant on the space
    org.grant(collection, eve, "admin")  # a collection grant the site overrides
    check(
        sandbox,
        org,
        "precedence",
        {
            (linked, creator): "comment",  # not Creator: the site decides
            (linked, reader): "comment",  # the collection says Reader, the site Commenter
            (linked, carl): "create",  # the direct grant wins over both
            (linked, eve): "comment",
            (own_level, creator): "read",  # its own level: not inherited, no site
            (own_level, reader): "read",
            (private, carl): "create",  # "No access", but carl created it
            (private, reader): None,
            (private, org.owner): "admin",  # admins see everything
        },
    )


def test_documented_highest_examples(highest_sandbox):
    """2026-04-13 to 2026-05-31: the highest role across all applicable levels."""
    sandbox = highest_sandbox
    org = SmallOrg(sandbox)
    creator, reader, made_creator, other = org.users[:4]
    org.member(creator, "create")
    org.member(reader, "read")
    org.member(made_creator, "read")
    org.member(other, "comment")
    plain = org.space()
    collection = org.collection(level="read")
    in_collection = org.space(parent=collection)
    private = org.space(level=None, by=other)
    site = org.site(plain, in_collection, private, level="comment")
    org.grant(collection, made_creator, "create")  # a member explicitly set as Creator
    check(
        sandbox,
        org,
        "highest",
        {
            (plain, creator): "create",  # a Creator keeps Creator under a Commenter site
            (plain, reader): "comment",  # Readers are bumped up to Commenter
            (in_collection, reader): "comment",  # the collection's Reader is upgraded
            (in_collection, made_creator): "create",  # the explicit Creator keeps it
            (in_collection, creator): "comment",  # the collection's level replaces the org's
            (private, other): "comment",  # "No access", but they created it
            (private, reader): None,
        },
    )
    assert site in set(audited(sandbox, org, "highest").paths["site_id"].astype(str))


@pytest.mark.parametrize(
    ("fixture", "used", "matching"),
    [("sandbox", "highest", "precedence"), ("highest_sandbox", "precedence", "highest")],
)
def test_the_other_rule_set_reports_the_mismatch_and_names_the_matching_one(
    request, fixture, used, matching
):
    sandbox = request.getfixturevalue(fixture)
    audit = docsapi.audit_permissions(sandbox.client(), sandbox.org_id, progress=False, model=used)
    assert audit.model == used and not audit.aggregate_mismatches.empty
    assert "aggregate_mismatch" in set(audit.findings["rule"])
    matches = audit.rule_set_matches
    assert len(matches) == 30 and set(matches["matches"]).issubset({"both", matching})
    assert (matches["matches"] == matching).any()
    assert f"matches the {matching} rule set on all 30 spaces" in audit.verdict
    assert f"run it with model={matching!r}" in audit.verdict
    assert audit.count(matching, "rule_set") == 30 > audit.count(used, "rule_set")


@pytest.mark.parametrize(
    ("fixture", "model"), [("sandbox", "precedence"), ("highest_sandbox", "highest")]
)
def test_on_the_demo_the_audit_and_the_sandbox_agree_under_each_rule_set(request, fixture, model):
    sandbox = request.getfixturevalue(fixture)
    audit = docsapi.audit_permissions(sandbox.client(), sandbox.org_id, progress=False, model=model)
    assert audit.complete and audit.aggregate_mismatches.empty
    assert audit.count("compared", "rule_set") == audit.count(model, "rule_set") == 30
    assert "run it with" not in audit.verdict


# -- random organizations -----------------------------------------------------------------------


class Recipe(tuple):
    """What :func:`organizations` draws: the eight parts :func:`build` unpacks (people,
    disabled, teams, collections, spaces, sites, grants, creators) and, as the attribute
    ``sections``, whether each site puts its spaces in sections (a plain tuple: none does)."""

    sections: tuple[bool, ...] = ()


@st.composite
def organizations(draw):
    """A random small organization as instructions for :func:`build`: spaces mostly inherit
    and sites link most of them, so that the levels meet."""
    people = draw(st.lists(st.sampled_from([None, *ROLES]), min_size=3, max_size=5))
    disabled = draw(
        st.lists(st.sampled_from([False, False, False, True]), min_size=len(people), max_size=5)
    )
    teams = draw(st.lists(st.sets(st.integers(0, len(people) - 1), max_size=3), max_size=2))
    collections = draw(st.lists(st.tuples(st.integers(-1, 2), st.sampled_from(LEVELS)), max_size=3))
    space_levels = st.sampled_from(["inherit", "inherit", *LEVELS])
    spaces = draw(st.lists(st.tuples(st.integers(-1, 2), space_levels), min_size=1, max_size=4))
    sites = draw(
        st.lists(
            st.tuples(st.sampled_from(LEVELS), st.sets(st.integers(0, 3), min_size=1, max_size=4)),
            min_size=1,
            max_size=2,
        )
    )
    kinds = st.sampled_from(["space", "collection", "site", "site"])
    targets = st.tuples(kinds, st.integers(0, 3))
    holders = st.one_of(
        st.tuples(st.just("user"), st.integers(0, len(people) - 1)),
        st.tuples(st.just("team"), st.integers(0, 1)),
    )
    grants = draw(st.lists(st.tuples(targets, holders, st.sampled_from(ROLES)), max_size=10))
    creators = draw(st.lists(st.integers(-1, len(people) - 1), min_size=7, max_size=7))
    recipe = Recipe((people, disabled, teams, collections, spaces, sites, grants, creators))
    recipe.sections = tuple(draw(st.lists(st.booleans(), min_size=len(sites), max_size=2)))
    return recipe


def sectioned_site(sandbox, org: SmallOrg, level: str | None, spaces: list[str]) -> str:
    """A site whose spaces are in sections, linked over HTTP: each even space opens a
    section of its own, each odd one joins the section before as a variant."""
    site_id = org.site(level=level)
    api = ApiSession(sandbox.url, sandbox.token)
    path = f"/orgs/{org.org_id}/sites/{site_id}"
    section = None
    for position, space_id in enumerate(spaces):
        if position % 2 == 0:
            answer = api.post(f"{path}/sections", json={"spaceId": space_id})
            section = answer.json()["id"]
        else:
            body = {"spaceId": space_id, "sectionId": section}
            answer = api.post(f"{path}/site-spaces", json=body)
        assert answer.status_code == 201, answer.text
    return site_id


def build(sandbox, recipe) -> tuple[SmallOrg, list[str]]:
    """The organization ``recipe`` describes, in ``sandbox``; its spaces."""
    people, disabled, teams, collections, spaces, sites, grants, creators = recipe
    org = SmallOrg(sandbox)
    chosen = zip(org.users, people, disabled, strict=False)  # more demo users than people
    users = [org.member(u, role, disabled=d) for u, role, d in chosen]
    team_ids = [org.team(*(users[i] for i in members)) for members in teams]
    made = iter(creators)

    def creator() -> str | None:
        who = next(made)
        return users[who] if who >= 0 else None

    collection_ids: list[str] = []
    for parent, level in collections:
        above = collection_ids[parent] if 0 <= parent < len(collection_ids) else None
        collection_ids.append(org.collection(above, level, by=creator()))
    space_ids = [
        org.space(
            collection_ids[parent] if 0 <= parent < len(collection_ids) else None,
            level,
            by=creator(),
        )
        for parent, level in spaces
    ]
    in_sections = getattr(recipe, "sections", ())
    site_ids = []
    for number, (level, linked) in enumerate(sites):
        chosen = [space_ids[i] for i in sorted(linked) if i < len(space_ids)]
        if number < len(in_sections) and in_sections[number]:
            site_ids.append(sectioned_site(sandbox, org, level, chosen))
        else:
            site_ids.append(org.site(*chosen, level=level))
    found = {"space": space_ids, "collection": collection_ids, "site": site_ids}
    for (kind, target), (holder_kind, holder), role in grants:
        holders = users if holder_kind == "user" else team_ids
        if target < len(found[kind]) and holder < len(holders):
            org.grant(found[kind][target], holders[holder], role)
    return org, space_ids


@settings(
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(recipe=organizations())
def test_random_organizations_agree_three_ways_under_both_rule_sets(
    sandbox_server, highest_sandbox_server, recipe
):
    for sandbox, model in ((sandbox_server, "precedence"), (highest_sandbox_server, "highest")):
        sandbox.reset()
        org, space_ids = build(sandbox, recipe)
        audit = audited(sandbox, org, model)
        assert audit.complete, audit.incomplete
        assert audit.aggregate_mismatches.empty, (model, audit.aggregate_mismatches)
        assert audit.count(model, "rule_set") == len(space_ids)
        reading = from_state(sandbox._store.state, org.org_id)
        for space_id in space_ids:
            assert roles_of(audit, space_id) == effective(reading, space_id, model), model
