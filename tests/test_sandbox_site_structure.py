"""A site's structure over HTTP: addSpaceToSite, addSectionToSite, inviteToSite.

Every answer is validated against the description (``ApiSession``); the project's
``client.api`` calls the same operations; the audit of an organization whose space sits under
two sites (a site space in one, a section's space in the other) agrees with the sandbox's
aggregate under both rule sets.
"""

from __future__ import annotations

import pytest
from access_reading import fetch_all
from contract import ApiSession
from sandbox_orgs import SmallOrg

import docsapi
from docsapi.errors import APIStatusError


@pytest.fixture
def api(sandbox):
    return ApiSession(sandbox.url, sandbox.token)


def _site(sandbox, name: str = "public") -> str:
    return f"/orgs/{sandbox.org_id}/sites/{sandbox.demo['sites'][name]}"


def _unlinked_space(api, sandbox, site: str) -> str:
    linked = {i["space"]["id"] for i in fetch_all(api, f"{site}/site-spaces")}
    return next(s for s in sandbox.demo["space_ids"] if s not in linked)


def _newest(api, sandbox, count: int) -> list[str]:
    events = api.get(f"/orgs/{sandbox.org_id}/audit-events", params={"limit": count}).json()
    return [e["action"] for e in events["items"]]


def test_a_space_is_linked_to_a_site_and_logged(sandbox, api):
    site = _site(sandbox)
    space = _unlinked_space(api, sandbox, site)
    answer = api.post(f"{site}/site-spaces", json={"spaceId": space, "title": "Linked here"})
    assert answer.status_code == 201
    made = answer.json()
    assert made["space"]["id"] == space and made["title"] == "Linked here"
    assert made["default"] is False and made["draft"] is False
    assert answer.headers["Location"].endswith(f"/site-spaces/{made['id']}")
    listed = {i["id"]: i for i in fetch_all(api, f"{site}/site-spaces")}
    assert listed[made["id"]]["path"] == made["path"]
    assert _newest(api, sandbox, 1) == ["site.space.added"]
    # the same space twice in a site without sections: refused, nothing logged
    again = api.post(f"{site}/site-spaces", json={"spaceId": space})
    assert again.status_code == 400 and "already in site" in again.json()["error"]["message"]
    assert _newest(api, sandbox, 1) == ["site.space.added"]


def test_a_new_space_for_a_site_and_the_minimal_answer(sandbox, api):
    site = _site(sandbox)
    answer = api.post(
        f"{site}/site-spaces",
        json={"spaceId": None, "title": "Made for the site"},
        headers={"Prefer": "return=minimal"},
    )
    assert answer.status_code == 204 and answer.headers["Preference-Applied"] == "return=minimal"
    assert _newest(api, sandbox, 2) == ["site.space.added", "space.created"]
    titles = {i["space"]["title"] for i in fetch_all(api, f"{site}/site-spaces")}
    assert "Made for the site" in titles
    bad = api.post(f"{site}/site-spaces", json={"spaceId": None, "pageId": "p1"})
    assert bad.status_code == 400 and "pageId" in bad.json()["error"]["message"]


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"spaceId": "ghost"}, 404, "not found"),
        ({"spaceId": "SPACE", "sectionId": "sitesc_ghost"}, 400, "not a section of site"),
        ({"spaceId": "SPACE", "pageId": "ghost"}, 400, "is not a page of space"),
        ({"spaceId": "SPACE", "template": {"id": "blank"}}, 400, "template is for a new space"),
        ({"title": "no space"}, 400, "spaceId"),
    ],
)
def test_add_space_to_site_refusals(sandbox, api, body, status, words):
    site = _site(sandbox)
    space = _unlinked_space(api, sandbox, site)
    body = {k: (space if v == "SPACE" else v) for k, v in body.items()}
    answer = api.post(f"{site}/site-spaces", json=body)
    assert answer.status_code == status, answer.text
    assert words in answer.text


def test_only_a_site_admin_changes_its_structure(sandbox):
    reader = sandbox.demo["other_user_id"]  # a read member
    sandbox.add_token("gb_api_structure_reader", user_id=reader)
    weak = ApiSession(sandbox.url, "gb_api_structure_reader")
    site = _site(sandbox)
    space = sandbox.demo["space_ids"][0]
    for path, body in (
        ("site-spaces", {"spaceId": space}),
        ("sections", {"spaceId": space}),
        ("permissions", {"role": "read", "users": [reader]}),
    ):
        answer = weak.post(f"{site}/{path}", json=body)
        assert answer.status_code == 403, (path, answer.text)


def test_sections_hold_their_spaces_and_variants(sandbox, api):
    site = _site(sandbox, "public")
    first, second = sandbox.demo["space_ids"][:2]
    made = api.post(f"{site}/sections", json={"spaceId": first, "title": "Guides"})
    assert made.status_code == 201
    section = made.json()
    assert section["object"] == "site-section" and section["default"] is True
    assert [s["space"]["id"] for s in section["siteSpaces"]] == [first]
    assert section["siteSpaces"][0]["section"] == section["id"]
    assert _newest(api, sandbox, 1) == ["site.section.created"]
    variant = api.post(
        f"{site}/site-spaces", json={"spaceId": second, "sectionId": section["id"]}
    ).json()
    assert variant["section"] == section["id"] and variant["default"] is False
    other = api.post(f"{site}/sections", json={"spaceId": second, "title": "Reference"}).json()
    assert other["default"] is False and other["path"] == "reference"
    # the same space in two sections of one site, never twice in one section
    twice = api.post(f"{site}/site-spaces", json={"spaceId": first, "sectionId": section["id"]})
    assert twice.status_code == 400
    group = api.post(f"{site}/sections", json={"spaceId": first, "siteSectionGroupId": "g1"})
    assert group.status_code == 400 and "section group" in group.text
    # a space added without sectionId lands in the default section
    third = sandbox.demo["space_ids"][2]
    landed = api.post(f"{site}/site-spaces", json={"spaceId": third}).json()
    assert landed["section"] == section["id"]


def test_invite_to_site_grants_and_logs(sandbox, api):
    site = _site(sandbox)
    user, team = sandbox.demo["other_user_id"], sandbox.demo["team_ids"][0]
    answer = api.post(
        f"{site}/permissions", json={"role": "edit", "users": [user], "teams": [team]}
    )
    assert answer.status_code == 204
    users = {i["user"]["id"]: i["permission"] for i in fetch_all(api, f"{site}/permissions/users")}
    teams = {i["team"]["id"]: i["permission"] for i in fetch_all(api, f"{site}/permissions/teams")}
    assert users[user] == "edit" and teams[team] == "edit"
    assert set(_newest(api, sandbox, 2)) <= {"site.permission.added", "site.permission.updated"}
    unknown = api.post(f"{site}/permissions", json={"role": "read", "users": [user, "nobody"]})
    assert unknown.status_code == 404
    users = {i["user"]["id"]: i["permission"] for i in fetch_all(api, f"{site}/permissions/users")}
    assert users[user] == "edit"  # nothing changed by the refused invite
    empty = api.post(f"{site}/permissions", json={"role": "read", "users": []})
    assert empty.status_code == 400


def test_client_api_calls_the_three_operations(sandbox, client):
    org, site_id = sandbox.org_id, sandbox.demo["sites"]["share-link"]
    api = ApiSession(sandbox.url, sandbox.token)
    space = _unlinked_space(api, sandbox, f"/orgs/{org}/sites/{site_id}")
    linked = client.api.site_spaces.add_space_to_site(org, site_id, space_id=space, title="Via api")
    assert linked.space.id == space and linked.title == "Via api"
    section = client.api.site_sections.add_section_to_site(
        org, site_id, space_id=None, title="Section via api"
    )
    assert section.object == "site-section" and len(section.site_spaces) == 1
    user = sandbox.demo["other_user_id"]
    invited = client.api.site_permissions.invite_to_site(org, site_id, role="comment", users=[user])
    assert invited is None  # 204
    granted = fetch_all(api, f"/orgs/{org}/sites/{site_id}/permissions/users")
    assert {i["user"]["id"]: i["permission"] for i in granted}[user] == "comment"
    with pytest.raises(APIStatusError) as refused:
        client.api.site_spaces.add_space_to_site(org, site_id, space_id="ghost")
    assert refused.value.status == 404


@pytest.mark.parametrize(
    ("fixture", "model"), [("sandbox", "precedence"), ("highest_sandbox", "highest")]
)
def test_a_space_under_two_sites_agrees_with_the_aggregate(request, fixture, model):
    """A site space in one site and a section's space in another, both set to decide access
    (the space inherits): the audit, under each rule set, matches the sandbox's aggregate."""
    sandbox = request.getfixturevalue(fixture)
    org = SmallOrg(sandbox)
    reader, editor, other = org.users[:3]
    org.member(reader, "read")
    org.member(editor, "edit")
    org.member(other, "comment")
    shared = org.space()
    alone = org.space()
    plain = org.site(shared, level="comment")
    sectioned = org.site(level="read")
    api = ApiSession(sandbox.url, sandbox.token)
    path = f"/orgs/{org.org_id}/sites/{sectioned}"
    assert (
        api.post(f"{path}/sections", json={"spaceId": alone, "title": "Start"}).status_code == 201
    )
    assert (
        api.post(f"{path}/sections", json={"spaceId": shared, "title": "Shared"}).status_code == 201
    )
    org.grant(sectioned, editor, "admin")
    org.grant(plain, other, "read")
    audit = docsapi.audit_permissions(sandbox.client(), org.org_id, progress=False, model=model)
    assert audit.complete and audit.aggregate_mismatches.empty, audit.aggregate_mismatches
    sites = set(audit.paths[audit.paths["space_id"] == shared]["site_id"].dropna().astype(str))
    assert sites == {plain, sectioned}


def test_site_insights_name_the_section_of_each_event(sandbox, api):
    """The demo's unlisted site has sections: its events name them; a site without sections
    keeps ``siteSection`` None."""
    sections = set(sandbox.demo["site_section_ids"].values())
    history = {"from": "2020-01-01T00:00:00Z", "to": "2030-01-01T00:00:00Z"}
    query = {"range": history, "groupBy": [{"column": "siteSection"}]}
    for name, expected in (("unlisted", sections), ("public", {None})):
        answer = api.post(f"{_site(sandbox, name)}/insights/events/aggregate", json=query)
        assert answer.status_code == 200, answer.text
        columns = {c["column"]: c["values"] for c in answer.json()["columns"]}
        seen = set(columns["siteSection"])
        assert seen and seen <= expected | {None}, (name, seen)
        assert (seen & sections) if name == "unlisted" else seen == {None}


@pytest.mark.parametrize("model", ["precedence", "highest"])
def test_the_shared_sites_seed_option_agrees_with_the_aggregate(model):
    """``Sandbox(shared_sites=True)``: spaces under several sites (a site space in one, a
    section's space in another); the audit matches the sandbox's aggregate under each rule
    set, and every other id of the demo is the default demo's."""
    from docsapi.sandbox import Sandbox

    with Sandbox(shared_sites=True, model=model) as sb:
        shared = sb.demo["shared_site_spaces"]
        assert len(shared) == 2 and all(len(sites) >= 2 for sites in shared.values())
        api = ApiSession(sb.url, sb.token)
        kinds = set()
        for space, sites in shared.items():
            for site in sites:
                items = fetch_all(api, f"/orgs/{sb.org_id}/sites/{site}/site-spaces")
                kinds |= {"section" in i for i in items if i["space"]["id"] == space}
        assert kinds == {True, False}  # in a section of one site, a plain site space of another
        audit = docsapi.audit_permissions(sb.client(), sb.org_id, progress=False, model=model)
        assert audit.complete and audit.aggregate_mismatches.empty, audit.aggregate_mismatches
        paths = audit.paths
        reached = {s: set(paths[paths["space_id"] == s]["site_id"].dropna()) for s in shared}
        assert all(reached[s] <= set(sites) for s, sites in shared.items())
        assert any(reached[s] == set(sites) for s, sites in shared.items())  # two sites decide
        default = Sandbox()
        assert default.demo["space_ids"] == sb.demo["space_ids"]
        assert default.demo["sites"] == sb.demo["sites"]
        assert "shared_site_spaces" not in default.demo


def test_a_custom_home_page_is_kept(sandbox, api):
    site = _site(sandbox)
    space = _unlinked_space(api, sandbox, site)
    pages = api.get(f"/spaces/{space}/content/pages").json()["pages"]
    made = api.post(f"{site}/site-spaces", json={"spaceId": space, "pageId": pages[0]["id"]})
    assert made.status_code == 201 and made.json()["pageId"] == pages[0]["id"]
