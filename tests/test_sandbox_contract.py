"""Every operation the sandbox implements answers in the shapes of the reference description."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest
from contract import SEED_ONLY, SPEC_PATH, ApiSession, ContractError, operation_for, spec, validate
from openapi.make_subset import make_subset, operation_ids, render


def _walk(sandbox):
    """Call every in-scope operation once with valid input; yield each response."""
    api = ApiSession(sandbox.url, sandbox.token, check=False)
    demo = sandbox.demo
    org, owner = demo["org_id"], demo["owner_id"]
    space = demo["space_ids"][0]
    team = demo["team_ids"][0]
    other = demo["other_user_id"]
    yield api.get("/")
    yield api.get("/user")
    yield ApiSession(sandbox.url, sandbox.tokens["user-internal"], check=False).post(
        "/user/notifications/token"
    )
    yield api.get(f"/users/{owner}")
    yield api.patch(f"/users/{owner}", json={"displayName": "Frances L."})
    yield api.get(f"/users/{owner}/spaces")
    yield api.get("/orgs")
    new_org = api.post("/orgs", json={"title": "Contract Test Org"})
    yield new_org
    yield api.get(f"/orgs/{org}")
    yield api.patch(
        f"/orgs/{new_org.json()['id']}", json={"title": "Renamed Org", "inviteLinks": True}
    )
    yield api.get(f"/orgs/{org}/members")
    yield api.get(f"/orgs/{org}/members/{other}")
    yield api.patch(f"/orgs/{org}/members/{other}", json={"role": "comment"})
    yield api.get(f"/orgs/{org}/members/{other}/spaces")
    yield api.get(f"/orgs/{org}/members/{demo['multi_team_user']['user_id']}/teams")
    yield api.get(f"/orgs/{org}/spaces")
    created = api.post(f"/orgs/{org}/spaces", json={"title": "Contract space"})
    yield created
    yield api.get(f"/orgs/{org}/teams")
    new_team = api.put(f"/orgs/{org}/teams", json={"title": "Contract team", "members": [other]})
    yield new_team
    team_id = new_team.json()["id"]
    yield api.get(f"/orgs/{org}/teams/{team}")
    yield api.patch(f"/orgs/{org}/teams/{team_id}", json={"title": "Contract team 2"})
    yield api.get(f"/orgs/{org}/teams/{team}/members")
    yield api.put(f"/orgs/{org}/teams/{team_id}/members", json={"add": [owner]})
    yield api.put(f"/orgs/{org}/teams/{team_id}/members/{owner}", json={"role": "owner"})
    yield api.delete(f"/orgs/{org}/teams/{team_id}/members/{owner}")
    yield api.delete(f"/orgs/{org}/teams/{team_id}")
    yield api.delete(f"/orgs/{org}/members/{demo['guest_ids'][-1]}")
    yield api.get(f"/spaces/{space}")
    yield api.patch(f"/spaces/{space}", json={"title": "Contract title", "emoji": "1f680"})
    yield api.get(f"/spaces/{space}/change-requests")
    yield api.post(f"/spaces/{space}/change-requests", json={"subject": "Contract change"})
    yield api.get(f"/spaces/{space}/content")
    source = {
        "type": "builtin:openapi",
        "dependencies": {"spec": {"ref": {"kind": "openapi", "spec": "x"}}},
        "props": {"doc": "models"},
    }
    yield api.post(
        f"/spaces/{space}/content/computed/document", json={"source": source, "seed": "s1"}
    )
    revision_source = {**source, "props": {"models": True}}
    yield api.post(
        f"/spaces/{space}/content/computed/revision", json={"source": revision_source, "seed": "s1"}
    )
    files = api.get(f"/spaces/{space}/content/files")
    yield files
    yield api.get(f"/spaces/{space}/content/files/{files.json()['items'][0]['id']}")
    pages = api.get(f"/spaces/{space}/content/pages")
    yield pages
    group = next(p for p in pages.json()["pages"] if p["type"] == "group")
    document = group["pages"][0]
    yield api.get(f"/spaces/{space}/content/page/{document['id']}")
    yield api.get(f"/spaces/{space}/content/page/{document['id']}", params={"format": "markdown"})
    yield api.get(f"/spaces/{space}/content/page/{group['id']}")
    yield api.get(f"/spaces/{space}/content/page/{document['id']}/meta-links")
    yield api.get(f"/spaces/{space}/content/path/{quote(document['path'], safe='')}")
    yield api.get(f"/spaces/{space}/content/path/{group['path']}")
    with_reusable = next(
        s for s in demo["space_ids"] if api.get(f"/spaces/{s}/content").json()["reusableContents"]
    )
    reusable = api.get(f"/spaces/{with_reusable}/content").json()["reusableContents"][0]
    yield api.get(f"/spaces/{with_reusable}/content/reusable-contents/{reusable['id']}")
    yield api.post(f"/spaces/{space}/content/template", json={"id": "changelog"})
    duplicate = api.post(f"/spaces/{space}/duplicate")
    yield duplicate
    yield api.get(f"/spaces/{space}/embed", params={"url": "https://www.youtube.com/watch?v=abc"})
    yield api.get(f"/spaces/{space}/embed", params={"url": "https://example.com/blog/post"})
    yield api.post(
        f"/spaces/{space}/git/import",
        json={"url": "https://github.com/acme/docs.git", "ref": "main"},
    )
    yield api.get(f"/spaces/{space}/git/info")
    yield api.post(
        f"/spaces/{space}/git/export",
        json={"url": "https://github.com/acme/docs.git", "ref": "main", "commitMessage": "Sync"},
    )
    yield api.get(f"/spaces/{space}/git/info")
    yield (
        api.get(f"/spaces/{demo['space_ids'][-1]}/git/info")
        if demo["space_ids"][-1] not in demo["git_space_ids"]
        else api.get(f"/spaces/{demo['space_ids'][1]}/git/info")
    )
    yield api.post(f"/spaces/{space}/move", json={"parent": demo["collection_ids"][0]})
    yield api.post(f"/spaces/{space}/move", json={"parent": demo["collection_ids"][0]})
    yield api.post(f"/spaces/{space}/move", json={"parent": "not-a-collection"})
    yield api.post("/spaces/does-not-exist/move", json={"parent": None})
    yield api.post(f"/spaces/{space}/permissions", json={"role": "read", "users": [other]})
    yield api.post(f"/spaces/{space}/permissions", json={"role": "read", "users": ["nobody"]})
    yield api.get(f"/spaces/{space}/permissions/aggregate")
    yield api.get(f"/spaces/{space}/permissions/teams")
    yield api.get("/spaces/does-not-exist/permissions/teams")
    yield api.patch(f"/spaces/{space}/permissions/teams/{team}", json={"role": "comment"})
    yield api.patch(f"/spaces/{space}/permissions/teams/nobody", json={"role": "comment"})
    yield api.delete(f"/spaces/{space}/permissions/teams/{team}")
    yield api.delete(f"/spaces/{space}/permissions/teams/{team}")
    yield api.delete(f"/spaces/{space}/permissions/teams/not-a-team")
    yield api.get(f"/spaces/{space}/permissions/users")
    yield api.get("/spaces/does-not-exist/permissions/users")
    yield api.patch(f"/spaces/{space}/permissions/users/{other}", json={"role": "edit"})
    yield api.patch(f"/spaces/{space}/permissions/users/nobody", json={"role": "edit"})
    yield api.delete(f"/spaces/{space}/permissions/users/{other}")
    yield api.delete(f"/spaces/{space}/permissions/users/{other}")
    yield api.get(f"/spaces/{space}/search", params={"query": "configure"})
    yield api.delete(f"/spaces/{space}")
    yield api.post(f"/spaces/{space}/restore")
    yield api.delete(f"/spaces/{duplicate.json()['id']}")
    yield api.delete(f"/spaces/{duplicate.json()['id']}")
    yield api.get(f"/spaces/{space}/permissions/aggregate", params={"role": "admin"})
    yield api.get("/users/nobody")
    yield api.patch("/users/nobody", json={"displayName": "x"})
    yield api.get("/orgs/nobody")
    yield from _walk_collections(sandbox, api)
    yield from _walk_sites(sandbox, api)
    yield from _walk_invites_and_events(sandbox, api)
    yield from _walk_insights(sandbox, api)


def _walk_collections(sandbox, api):
    demo = sandbox.demo
    org, other, team = demo["org_id"], demo["other_user_id"], demo["team_ids"][0]
    collection, top = demo["collections"]["api"], demo["collections"]["product"]
    yield api.get(f"/orgs/{org}/collections")
    yield api.get(f"/orgs/{org}/collections", params={"nested": "false"})
    created = api.post(f"/orgs/{org}/collections", json={"title": "Contract", "parent": top})
    yield created
    new = created.json()["id"]
    yield api.get(f"/collections/{collection}")
    yield api.patch(f"/collections/{new}", json={"title": "Renamed", "defaultLevel": "read"})
    yield api.get(f"/collections/{collection}/spaces")
    yield api.post(f"/collections/{new}/move", json={"parent": None})
    yield api.post(f"/collections/{new}/move", json={"parent": None})
    yield api.post(f"/collections/{top}/move", json={"parent": collection})
    yield api.post("/collections/ghost/move", json={"parent": None})
    grant = {"role": "edit", "users": [other], "teams": [team]}
    yield api.post(f"/collections/{new}/permissions", json=grant)
    yield api.post(f"/collections/{new}/permissions", json={"role": "edit", "users": ["nobody"]})
    yield api.get(f"/collections/{collection}/permissions/users")
    yield api.get("/collections/ghost/permissions/users")
    yield api.patch(f"/collections/{new}/permissions/users/{other}", json={"role": "read"})
    yield api.patch(f"/collections/{new}/permissions/users/nobody", json={"role": "read"})
    yield api.delete(f"/collections/{new}/permissions/users/{other}")
    yield api.delete(f"/collections/{new}/permissions/users/{other}")
    yield api.get(f"/collections/{collection}/permissions/teams")
    yield api.patch(f"/collections/{new}/permissions/teams/{team}", json={"role": "comment"})
    yield api.patch(f"/collections/{new}/permissions/teams/nobody", json={"role": "comment"})
    yield api.delete(f"/collections/{new}/permissions/teams/{team}")
    yield api.delete(f"/collections/{new}/permissions/teams/{team}")
    yield api.get(f"/collections/{collection}/permissions/aggregate")
    yield api.get(f"/collections/{collection}/permissions/aggregate", params={"role": "read"})
    yield api.delete(f"/collections/{new}")
    yield api.delete(f"/collections/{new}")


def _walk_sites(sandbox, api):
    demo = sandbox.demo
    org, other, team = demo["org_id"], demo["other_user_id"], demo["team_ids"][0]
    sites = demo["sites"]
    public, shared = (
        f"/orgs/{org}/sites/{sites['public']}",
        f"/orgs/{org}/sites/{sites['share-link']}",
    )
    yield api.get(f"/orgs/{org}/sites")
    yield api.get(f"/orgs/{org}/sites", params={"published": "true", "type": ["basic"]})
    yield api.get(public)
    yield api.get(f"/orgs/{org}/sites/ghost")
    change = {"title": "Docs", "visibility": "unlisted", "defaultLevel": "read"}
    yield api.patch(public, json=change)
    unlisted = f"/orgs/{org}/sites/{sites['unlisted']}"
    settings = {
        "adaptiveContent": {"enabled": True},
        "proxy": "company.example/docs",
        "styleguide": demo["styleguide_space_id"],
        "defaultSiteSection": demo["site_section_ids"]["runbooks"],
    }
    yield api.patch(unlisted, json=settings)
    yield api.get(f"{unlisted}/site-spaces")
    yield api.patch(unlisted, json={"defaultSiteSection": "ghost"})
    yield api.get(f"{public}/site-spaces")
    yield api.get(f"{shared}/site-spaces", params={"shareKey": "abc", "default": "true"})
    yield api.get(f"{shared}/share-links")
    created = api.post(f"{shared}/share-links", json={"name": "Contract"})
    yield created
    link = f"{shared}/share-links/{created.json()['id']}"
    yield api.patch(link, json={"active": False})
    yield api.delete(link)
    yield api.delete(link)
    yield api.get(f"/orgs/{org}/sites/{sites['visitor-auth']}/publishing/auth")
    yield api.get(f"{public}/publishing/auth")
    yield api.get(f"{public}/permissions/users")
    yield api.get(f"{public}/permissions/teams")
    yield api.get(f"{public}/permissions/aggregate")
    yield api.get(
        f"{public}/permissions/aggregate",
        params={"role": "guest", "sort": "name", "order": "asc", "search": "a", "team": team},
    )
    yield api.get(f"/orgs/{org}/sites/{sites['unlisted']}/permissions/aggregate")
    yield api.patch(f"{public}/permissions/users/{other}", json={"role": "edit"})
    yield api.patch(f"{public}/permissions/users/nobody", json={"role": "edit"})
    yield api.patch(f"{public}/permissions/users/{other}", json={})
    yield api.delete(f"{public}/permissions/users/{other}")
    yield api.delete(f"{public}/permissions/users/{other}")
    yield api.patch(f"{public}/permissions/teams/{team}", json={"role": "read"})
    yield api.patch(f"{public}/permissions/teams/nobody", json={"role": "read"})
    yield api.delete(f"{public}/permissions/teams/{team}")
    yield api.post(
        f"{public}/permissions", json={"role": "read", "users": [other], "teams": [team]}
    )
    yield api.post(f"{public}/permissions", json={"role": "read", "users": ["nobody"]})
    linked = api.get(f"{public}/site-spaces", params={"limit": 100}).json()["items"]
    space = next(s for s in demo["space_ids"] if s not in {i["space"]["id"] for i in linked})
    yield api.post(f"{public}/site-spaces", json={"spaceId": space, "title": "Linked again"})
    yield api.post(f"{public}/site-spaces", json={"spaceId": space})  # already there: 400
    yield api.post(
        f"{public}/site-spaces",
        json={"spaceId": None, "title": "Made for the site"},
        headers={"Prefer": "return=minimal"},
    )
    yield api.post(f"{public}/site-spaces", json={"spaceId": "ghost"})
    yield api.post(f"{unlisted}/sections", json={"spaceId": space, "title": "Reference"})
    yield api.post(f"{unlisted}/sections", json={"spaceId": None, "title": "New section"})
    yield api.post(f"{unlisted}/sections", json={"spaceId": space, "siteSectionGroupId": "g"})
    yield api.post(f"{public}/unpublish")
    yield api.post(f"{public}/publish")


def _walk_invites_and_events(sandbox, api):
    demo = sandbox.demo
    org = demo["org_id"]
    yield api.get(f"/orgs/{org}/link-invites")
    yield api.get(f"/orgs/{org}/link-invites/{demo['invite_ids']['space']}")
    created = api.post(f"/orgs/{org}/link-invites", json={"role": "read"})
    yield created
    offer = {"level": "read", "collection": demo["collections"]["api"]}
    yield api.post(f"/orgs/{org}/link-invites", json=offer)
    invite = f"/orgs/{org}/link-invites/{created.json()['id']}"
    yield api.patch(invite, json={"role": "comment"})
    yield api.delete(invite)
    yield api.delete(invite)
    yield api.get(f"/orgs/{org}/audit-events")
    since = {"from": "2020-01-01T00:00:00Z", "action": "site.published", "limit": 5}
    yield api.get(f"/orgs/{org}/audit-events", params=since)
    yield api.get(f"/orgs/{org}/audit-events", params={"from": "yesterday"})
    weak = ApiSession(sandbox.url, sandbox.tokens["other-user"], check=False)
    yield weak.get(f"/orgs/{org}/audit-events")
    yield api.get("/orgs/nobody/audit-events")
    yield api.get(f"/orgs/{org}/audit-event-actions")
    yield weak.get(f"/orgs/{org}/audit-event-actions")


def _walk_insights(sandbox, api):
    demo = sandbox.demo
    org, sites = demo["org_id"], demo["sites"]
    public = f"/orgs/{org}/sites/{sites['public']}/insights"
    history = {"from": "2024-10-01T00:00:00Z", "to": "2025-01-07T00:00:00Z"}
    event = {
        "type": "search_type_query",
        "query": "install",
        "session": {
            "visitorId": "v1",
            "sessionId": "s1",
            "cookies": {},
            "userAgent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0",
            "language": "en",
            "referrer": None,
        },
        "location": {
            "url": "https://docs.example.com/install",
            "siteSection": None,
            "siteSpace": None,
            "siteShareKey": None,
            "page": None,
            "space": None,
            "revision": None,
        },
    }
    yield api.post(f"{public}/events", json={"events": [event]})
    yield api.post(
        f"{public}/events", json={"events": [{**event, "timestamp": "2020-01-01T00:00:00Z"}]}
    )
    yield api.post(
        f"{public}/events/aggregate",
        json={
            "range": history,
            "groupBy": [{"column": "datetime", "interval": "week"}, {"column": "page"}],
            "select": [
                {"column": "eventsCount"},
                {"column": "visitorsCount"},
                {"column": "pageFeedbackRating"},
            ],
            "where": [{"column": "eventType", "values": ["page_view", "page_post_feedback"]}],
            "order": {"by": {"column": "eventsCount"}, "direction": "desc"},
            "limit": 20,
        },
    )
    yield api.post(
        f"{public}/events/aggregate",
        json={"range": "last24Hours", "groupBy": [{"column": "eventSearchQuery"}]},
    )
    yield api.post(
        f"{public}/events/aggregate", json={"range": history, "groupBy": [{"column": "utmSource"}]}
    )
    yield api.get(f"/orgs/{org}/sites/{sites['visitor-auth']}/insights/visitor-segments")
    yield api.get(f"{public}/visitor-segments", params={"limit": 1})


def test_every_operation_answers_per_the_reference(sandbox):
    failures, covered = [], set()
    for response in _walk(sandbox):
        found = operation_for(response.request.method, response.request.url)
        if found is not None:
            covered.add((response.request.method.lower(), found[0]))
        try:
            validate(response)
        except ContractError as error:
            failures.append(str(error)[:600])
    assert failures == []
    declared = {(m, p) for p, ops in spec()["paths"].items() for m in ops if m != "parameters"}
    assert declared - covered == set()
    # the subset's operations plus the seed's GET /users/{userId}/spaces
    assert len(declared) == len(operation_ids()) + len(SEED_ONLY)


def test_the_vendored_subset_is_derived_from_the_reference():
    reference = Path(__file__).parent / "openapi" / "gitbook-openapi.json"
    derived = make_subset(json.loads(reference.read_text()), operation_ids())
    assert render(derived) == SPEC_PATH.read_text()


def test_validation_catches_a_broken_body(sandbox):
    response = ApiSession(sandbox.url, sandbox.token, check=False).get(
        f"/spaces/{sandbox.demo['space_ids'][0]}"
    )
    body = response.json()
    assert body["object"] == "space"
    response._content = json.dumps({**body, "object": "page"}).encode()
    with pytest.raises(ContractError):
        validate(response)


def test_undeclared_errors_must_still_have_the_error_shape(sandbox):
    api = ApiSession(sandbox.url, None, check=False)
    response = api.get("/user")
    assert response.status_code == 401
    validate(response)
    response._content = b'{"message": "nope"}'
    with pytest.raises(ContractError):
        validate(response)


def test_requests_are_matched_on_the_reference_host(sandbox):
    response = ApiSession(sandbox.url, sandbox.token).get("/")
    assert urlsplit(response.request.url).hostname == "127.0.0.1"
