"""Sites (audience, publishing, site spaces), share links, visitor authentication, site
permissions, invite links, the audit log, and the sandbox's own change controls."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import requests
from access_reading import fetch_all
from contract import ApiSession


@pytest.fixture
def api(sandbox):
    session = ApiSession(sandbox.url, sandbox.token)
    yield session
    session.close()


def _site_path(sandbox, key: str) -> str:
    return f"/orgs/{sandbox.org_id}/sites/{sandbox.demo['sites'][key]}"


def _events(api, sandbox, **params) -> list[dict]:
    return fetch_all(api, f"/orgs/{sandbox.org_id}/audit-events", **params)


# -- sites ----------------------------------------------------------------------------------
def test_sites_list_with_their_audience_and_filters(sandbox, api):
    path = f"/orgs/{sandbox.org_id}/sites"
    sites = {s["id"]: s for s in fetch_all(api, path)}
    assert set(sites) == set(sandbox.demo["site_ids"])
    for key, site_id in sandbox.demo["sites"].items():
        assert sites[site_id]["published"] is (key != "unpublished")
    published = {s["id"] for s in fetch_all(api, path, published="false")}
    assert published == {sandbox.demo["sites"]["unpublished"]}
    exposed_space = sandbox.demo["public_exposure"][0][0]
    on_space = {s["id"] for s in fetch_all(api, path, space=exposed_space)}
    assert on_space == {sandbox.demo["sites"]["public"]}
    premium = fetch_all(api, path, type=["premium"])
    assert premium and all(s["type"] == "premium" for s in premium)
    assert api.get(path, params={"type": "gold"}).status_code == 400


def test_site_spaces_carry_the_space_and_a_share_key_completes_the_address(sandbox, api):
    listed = fetch_all(api, f"{_site_path(sandbox, 'public')}/site-spaces")
    assert sandbox.demo["public_exposure"][0][0] in {item["space"]["id"] for item in listed}
    assert [item["default"] for item in listed].count(True) == 1
    shared = fetch_all(api, f"{_site_path(sandbox, 'share-link')}/site-spaces", shareKey="k3y")
    assert all(item["urls"]["published"].endswith("?share=k3y") for item in shared)


def test_update_title_visibility_and_default_level(sandbox, api):
    path = _site_path(sandbox, "public")
    changed = api.patch(
        path, json={"visibility": "share-link", "title": "Docs", "defaultLevel": None}
    )
    assert changed.status_code == 200
    assert (changed.json()["visibility"], changed.json()["title"]) == ("share-link", "Docs")
    assert api.get(path).json()["defaultLevel"] is None
    assert api.patch(path, json={"visibility": "everyone"}).status_code == 400
    assert api.patch(path, json={"title": "x"}).status_code == 400
    assert api.patch(path, json={"theme": "dark"}).status_code == 400


def test_update_adaptive_content_proxy_style_guide_and_default_section(sandbox, api):
    """The four settings the description allows besides the basic ones are stored and
    returned in the Site; the default section moves the default site space with it."""
    demo = sandbox.demo
    path = _site_path(sandbox, "unlisted")
    handbook, runbooks = demo["site_section_ids"]["handbook"], demo["site_section_ids"]["runbooks"]
    settings = {
        "adaptiveContent": {"enabled": True},
        "proxy": "www.company.example/developer/docs",
        "styleguide": demo["styleguide_space_id"],
        "defaultSiteSection": runbooks,
    }
    changed = api.patch(path, json=settings)
    assert changed.status_code == 200
    for site in (changed.json(), api.get(path).json()):
        assert site["adaptiveContent"] == {"enabled": True}
        assert site["proxy"]["origin"] == "www.company.example/developer/docs"
        assert site["proxy"]["target"].startswith("https://")
        assert site["styleguide"] == {"kind": "space", "space": demo["styleguide_space_id"]}
    spaces = fetch_all(api, f"{path}/site-spaces")
    assert {s["section"] for s in spaces} == {handbook, runbooks}
    in_runbooks = next(s for s in spaces if s["section"] == runbooks)
    assert api.patch(path, json={"defaultSiteSpace": in_runbooks["id"]}).status_code == 200
    actions = [
        e["target"]["label"] for e in _events(api, sandbox, target=demo["sites"]["unlisted"])
    ]
    assert any("defaultSiteSection" in label for label in actions)
    assert any("proxy -> www.company.example/developer/docs" in label for label in actions)
    detached = api.patch(path, json={"proxy": None, "styleguide": None}).json()
    assert "proxy" not in detached and "styleguide" not in detached
    assert detached["adaptiveContent"] == {"enabled": True}


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"proxy": "https://company.example/docs"}, "body.proxy"),
        ({"proxy": "company.example"}, "body.proxy"),
        ({"adaptiveContent": {}}, "enabled"),
        ({"adaptiveContent": {"enabled": "yes"}}, "body.adaptiveContent.enabled"),
        ({"styleguide": 42}, "body.styleguide"),
        ({"styleguide": "ghost"}, "not a style guide space"),
        ({"defaultSiteSection": "ghost"}, "not a section of site"),
        ({"defaultSiteSection": None}, "body.defaultSiteSection"),
    ],
)
def test_bad_site_settings_are_400_and_change_nothing(sandbox, api, body, says):
    path = _site_path(sandbox, "unlisted")
    before = api.get(path).json(), fetch_all(api, f"{path}/site-spaces")
    # a valid change in the same body is not stored either
    response = api.patch(path, json={"title": "Changed", **body})
    assert response.status_code == 400
    assert says in response.json()["error"]["message"]
    assert (api.get(path).json(), fetch_all(api, f"{path}/site-spaces")) == before


def test_site_setting_references_are_checked_against_the_site(sandbox, api):
    demo = sandbox.demo
    unlisted, public = _site_path(sandbox, "unlisted"), _site_path(sandbox, "public")
    regular_space = demo["space_ids"][0]
    refused = api.patch(unlisted, json={"styleguide": regular_space})
    assert refused.status_code == 400 and "type is styleguide" in refused.text
    handbook_section = demo["site_section_ids"]["handbook"]
    refused = api.patch(public, json={"defaultSiteSection": handbook_section})
    assert refused.status_code == 400 and "the site has no sections" in refused.text
    spaces = fetch_all(api, f"{unlisted}/site-spaces")
    in_runbooks = next(s for s in spaces if s["section"] == demo["site_section_ids"]["runbooks"])
    refused = api.patch(unlisted, json={"defaultSiteSpace": in_runbooks["id"]})
    assert refused.status_code == 400 and "default section" in refused.text
    both = {"defaultSiteSection": in_runbooks["section"], "defaultSiteSpace": in_runbooks["id"]}
    assert api.patch(unlisted, json=both).status_code == 200
    # without sections, the site has one default site space, of its own
    second = fetch_all(api, f"{public}/site-spaces")[1]["id"]
    assert api.patch(public, json={"defaultSiteSpace": second}).status_code == 200
    assert [s["id"] for s in fetch_all(api, f"{public}/site-spaces") if s["default"]] == [second]
    assert api.patch(public, json={"defaultSiteSpace": in_runbooks["id"]}).status_code == 400


def test_publish_and_unpublish_are_recorded(sandbox, api):
    path = _site_path(sandbox, "unpublished")
    site_id = sandbox.demo["sites"]["unpublished"]
    assert api.post(f"{path}/publish").json()["published"] is True
    assert api.post(f"{path}/unpublish").json()["published"] is False
    actions = [e["action"] for e in _events(api, sandbox, target=site_id)]
    assert actions[:2] == ["site.unpublished", "site.published"]  # newest first


def test_share_links_create_deactivate_delete(sandbox, api):
    path = f"{_site_path(sandbox, 'share-link')}/share-links"
    before = fetch_all(api, path)
    ids = sandbox.demo["share_link_ids"]
    assert {link["id"] for link in before} == set(ids.values())
    created = api.post(path, json={"name": "Reviewers"})
    assert created.status_code == 201
    link = created.json()
    assert link["active"] is True and "?share=" in link["urls"]["published"]
    assert created.headers["Location"].endswith(f"/share-links/{link['id']}")
    assert api.patch(f"{path}/{link['id']}", json={"active": False}).json()["active"] is False
    assert api.patch(f"{path}/{link['id']}", json={}).status_code == 400
    assert api.patch(f"{path}/ghost", json={"active": False}).status_code == 404
    assert api.post(path, json={}).status_code == 400
    found = fetch_all(api, path, search="review")
    assert {item["name"] for item in found} >= {"Reviewers", "Acme review"}
    assert api.delete(f"{path}/{link['id']}").status_code == 205
    assert api.delete(f"{path}/{link['id']}").status_code == 204


def test_share_link_ages_are_counted_from_today(sandbox, api):
    path = f"{_site_path(sandbox, 'share-link')}/share-links"
    links = {link["id"]: link for link in fetch_all(api, path)}
    now = datetime.now(UTC)

    def age(link_id):
        created = datetime.fromisoformat(links[link_id]["createdAt"].replace("Z", "+00:00"))
        return now - created

    ids = sandbox.demo["share_link_ids"]
    assert age(ids["stale"]) > timedelta(days=90) and links[ids["stale"]]["active"]
    assert age(ids["recent"]) < timedelta(days=90) and links[ids["recent"]]["active"]
    assert not links[ids["inactive"]]["active"]


def test_visitor_auth_settings_hold_a_private_key_for_admins_only(sandbox, api):
    auth = api.get(f"{_site_path(sandbox, 'visitor-auth')}/publishing/auth")
    assert auth.status_code == 200 and len(auth.json()["privateKey"]) >= 32
    assert api.get(f"{_site_path(sandbox, 'public')}/publishing/auth").status_code == 400
    weak = ApiSession(sandbox.url, sandbox.tokens["other-user"], check=False)
    assert weak.get(f"{_site_path(sandbox, 'visitor-auth')}/publishing/auth").status_code == 403
    assert weak.get(f"{_site_path(sandbox, 'visitor-auth')}").status_code == 200


def test_site_permissions_set_and_remove(sandbox, api):
    path = f"{_site_path(sandbox, 'unlisted')}/permissions"
    user, team = sandbox.demo["other_user_id"], sandbox.demo["team_ids"][0]
    assert api.patch(f"{path}/users/{user}", json={"role": "edit"}).status_code == 204
    assert api.patch(f"{path}/users/{user}", json={"role": None}).status_code == 400
    assert api.patch(f"{path}/teams/{team}", json={"role": "admin"}).status_code == 204
    users = {i["user"]["id"]: i["permission"] for i in fetch_all(api, f"{path}/users")}
    teams = {i["team"]["id"]: i["permission"] for i in fetch_all(api, f"{path}/teams")}
    assert users[user] == "edit" and teams[team] == "admin"
    # no role: nothing changes (the description does not require one)
    assert api.patch(f"{path}/users/{user}", json={}).status_code == 204
    assert api.patch(f"{path}/teams/{team}", json={}).status_code == 204
    assert {i["user"]["id"]: i["permission"] for i in fetch_all(api, f"{path}/users")} == users
    assert {i["team"]["id"]: i["permission"] for i in fetch_all(api, f"{path}/teams")} == teams
    assert api.patch(f"{path}/users/ghost", json={}).status_code == 404
    member = api.get(f"/orgs/{sandbox.org_id}/members/{user}").json()
    assert member["sites"] == 1
    assert api.delete(f"{path}/users/{user}").status_code == 205
    assert api.delete(f"{path}/users/{user}").status_code == 204
    assert api.delete(f"{path}/teams/ghost").status_code == 400
    assert api.get(f"/orgs/{sandbox.org_id}/sites/ghost/permissions/users").status_code == 404


def test_site_scopes_of_oauth_tokens(sandbox):
    sandbox.add_token("sbx_site_reader", scheme="oauth", scopes=["site:read"])
    reader = ApiSession(sandbox.url, "sbx_site_reader", check=False)
    assert reader.get(f"/orgs/{sandbox.org_id}/sites").status_code == 200
    assert reader.post(f"{_site_path(sandbox, 'public')}/unpublish").status_code == 403
    assert reader.get(f"{_site_path(sandbox, 'share-link')}/share-links").status_code == 403


# -- invite links ---------------------------------------------------------------------------
def test_invite_links_list_the_organization_links_and_read_the_others_by_id(sandbox, api):
    path = f"/orgs/{sandbox.org_id}/link-invites"
    ids = sandbox.demo["invite_ids"]
    listed = {i["id"]: i for i in fetch_all(api, path)}
    assert set(listed) == {ids["admin"], ids["read"]}
    assert listed[ids["admin"]]["role"] == "admin"
    space_link = api.get(f"{path}/{ids['space']}").json()
    assert space_link["level"] == "comment" and space_link["space"]["object"] == "space"
    assert api.get(f"{path}/{ids['collection']}").json()["collection"]["object"] == "collection"
    assert api.patch(f"{path}/{ids['admin']}", json={"role": "read"}).json()["role"] == "read"
    assert api.patch(f"{path}/{ids['space']}", json={"role": "read"}).status_code == 400
    assert api.patch(f"{path}/{ids['space']}", json={"level": "edit"}).json()["level"] == "edit"
    assert api.post(path, json={"level": "read", "space": "ghost"}).status_code == 404
    assert api.post(path, json={"role": "read", "level": "read"}).status_code == 400
    assert api.delete(f"{path}/{ids['read']}").status_code == 205
    assert api.delete(f"{path}/{ids['read']}").status_code == 204
    weak = ApiSession(sandbox.url, sandbox.tokens["other-user"], check=False)
    assert weak.get(path).status_code == 403


# -- the audit log --------------------------------------------------------------------------
def test_every_access_change_shows_up_in_the_audit_log(sandbox, api):
    start = datetime.now(UTC) - timedelta(seconds=1)
    space, user = sandbox.demo["space_ids"][0], sandbox.demo["other_user_id"]
    api.patch(f"/spaces/{space}/permissions/users/{user}", json={"role": "edit"})
    api.delete(f"/spaces/{space}/permissions/users/{user}")
    api.patch(f"/orgs/{sandbox.org_id}/members/{user}", json={"role": "create"})
    api.patch(f"/spaces/{space}", json={"defaultLevel": "read"})
    since = _events(api, sandbox, **{"from": start.isoformat()})
    actions = [e["action"] for e in since]
    assert actions == [
        "space.default-level.updated",
        "organization.member.updated",
        "space.permission.removed",
        "space.permission.updated",  # the demo gives this user comment access to the space
    ]
    assert all(e["actor"]["id"] == sandbox.demo["owner_id"] and e["source"] == "api" for e in since)
    grant = since[-1]
    # A permission has no id of its own: the target names the space and the user.
    assert grant["target"] == {
        "type": "space-permission",
        "id": f"{space}/user/{user}",
        "label": grant["target"]["label"],
    }
    assert "-> edit" in grant["target"]["label"]
    only = _events(
        api, sandbox, action="organization.member.updated", actor=sandbox.demo["owner_id"]
    )
    assert only and all(e["action"] == "organization.member.updated" for e in only)


def test_other_writes_are_logged_too(sandbox, api):
    space, org = sandbox.demo["space_ids"][4], sandbox.org_id
    api.patch(f"/spaces/{space}", json={"title": "Renamed"})
    api.post(f"/spaces/{space}/change-requests", json={"subject": "Typos"})
    api.post(f"/spaces/{space}/content/template", json={"id": "changelog"})
    api.patch(f"/orgs/{org}", json={"inviteLinks": False})
    actions = [e["action"] for e in _events(api, sandbox)[:4]]
    assert actions == [
        "organization.settings.updated",
        "space.content.updated",
        "space.change-request.created",
        "space.updated",
    ]
    assert [e["target"]["id"] for e in _events(api, sandbox, target=space)][:3] == [space] * 3


def test_the_audit_log_has_a_history_and_pages_of_at_most_100(sandbox, api):
    path = f"/orgs/{sandbox.org_id}/audit-events"
    first = api.get(path).json()
    assert len(first["items"]) == min(20, first["count"]) and first["count"] > 5
    times = [e["occurredAt"] for e in first["items"]]
    assert times == sorted(times, reverse=True)
    assert api.get(path, params={"limit": 101}).status_code == 400
    until = api.get(path, params={"to": "2000-01-01T00:00:00Z"}).json()
    assert until["items"] == []


# -- the sandbox's own controls -------------------------------------------------------------
def test_sandbox_methods_change_access_and_are_logged(sandbox, api):
    demo = sandbox.demo
    space = demo["no_admin"][0]
    granted = {i["user"]["id"] for i in fetch_all(api, f"/spaces/{space}/permissions/users")}
    guest = next(g for g in demo["guest_ids"] if g not in granted)
    assert sandbox.grant(space, guest, "edit") is None
    assert _aggregate(api, space)[guest] == "edit"
    assert sandbox.revoke(space, guest) is True and sandbox.revoke(space, guest) is False
    site = demo["sites"]["unpublished"]
    sandbox.publish(site)
    assert api.get(_site_path(sandbox, "unpublished")).json()["published"] is True
    link = sandbox.create_share_link(demo["sites"]["share-link"], "From a test")
    sandbox.set_share_link_active(demo["sites"]["share-link"], link, False)
    sandbox.set_default_level(space, "read")
    assert api.get(f"/spaces/{space}").json()["defaultLevel"] == "read"
    actions = [e["action"] for e in _events(api, sandbox)[:6]]
    assert actions == [
        "space.default-level.updated",
        "site.share-link.updated",
        "site.share-link.created",
        "site.published",
        "space.permission.removed",
        "space.permission.added",
    ]
    assert all(e["actor"]["type"] == "system" for e in _events(api, sandbox)[:6])
    with pytest.raises(ValueError):
        sandbox.grant("ghost", guest, "edit")
    with pytest.raises(ValueError):
        sandbox.grant(space, guest, "owner")


def test_the_http_controls_mirror_the_methods(sandbox, api):
    root = sandbox.root_url
    space, team = sandbox.demo["no_admin"][0], sandbox.demo["team_ids"][0]
    grant = {"target": space, "principal": team, "role": "review"}
    assert requests.post(f"{root}/_sandbox/grant", json=grant, timeout=5).json() == {
        "previous": None
    }
    teams = {i["team"]["id"] for i in fetch_all(api, f"/spaces/{space}/permissions/teams")}
    assert team in teams
    site = sandbox.demo["sites"]["share-link"]
    made = requests.post(f"{root}/_sandbox/share-links", json={"site": site}, timeout=5)
    assert made.status_code == 201
    flip = {"site": site, "link": made.json()["id"], "active": False}
    assert requests.post(f"{root}/_sandbox/share-link", json=flip, timeout=5).status_code == 204
    member = {"user": sandbox.demo["other_user_id"], "disabled": True}
    assert requests.post(f"{root}/_sandbox/member", json=member, timeout=5).json()["disabled"]
    bad = requests.post(f"{root}/_sandbox/grant", json={"target": space}, timeout=5)
    assert bad.status_code == 400 and "principal" in bad.json()["error"]["message"]


def test_the_clock_ages_new_share_links(sandbox, api):
    site = sandbox.demo["sites"]["share-link"]
    link = sandbox.create_share_link(site, "Aging")
    sandbox.advance_clock(days=100)
    later = sandbox.create_share_link(site, "Later")
    links = {
        item["id"]: item
        for item in fetch_all(api, f"{_site_path(sandbox, 'share-link')}/share-links")
    }
    made = datetime.fromisoformat(links[link]["createdAt"].replace("Z", "+00:00"))
    made_later = datetime.fromisoformat(links[later]["createdAt"].replace("Z", "+00:00"))
    assert made_later - made >= timedelta(days=100)


def _aggregate(api, space):
    items = fetch_all(api, f"/spaces/{space}/permissions/aggregate")
    return {i["user"]["id"]: i["permission"] for i in items}
