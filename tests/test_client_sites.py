"""client.sites over real HTTP against the sandbox: every change is read back, and the site's
secrets (share-link keys, the visitor-authentication private key) never show."""

from __future__ import annotations

import logging

import pandas as pd
import pytest
from client_checks import assert_schema, member_client

from docsapi.errors import (
    BadRequestError,
    DocsAPIError,
    NotFoundError,
    PermissionDeniedError,
    ValidationError,
)
from docsapi.models import ShareLink, Site
from docsapi.resources.sites import SitePublishingAuth


@pytest.fixture
def sites(sandbox):
    return sandbox.demo["sites"]


@pytest.fixture
def other(sandbox):
    return member_client(sandbox)


# -- the sites ------------------------------------------------------------------------------------


def test_list_every_site_with_its_audience(client, sandbox, sites):
    listed = client.sites.list(sandbox.org_id)
    assert_schema(listed, "sites")
    assert set(listed["id"]) == set(sandbox.demo["site_ids"])
    by_id = listed.set_index("id")
    for key in ("public", "unlisted", "share-link", "visitor-auth"):
        assert by_id.loc[sites[key], "visibility"] == key
        assert bool(by_id.loc[sites[key], "published"]) is True
    assert bool(by_id.loc[sites["unpublished"], "published"]) is False
    assert pd.isna(by_id.loc[sites["unpublished"], "url_published"])


def test_get_a_site_and_an_unknown_one(client, sandbox, sites):
    site = client.sites.get(sandbox.org_id, sites["unlisted"])
    assert isinstance(site, Site)
    assert (site.id, site.visibility) == (sites["unlisted"], "unlisted")
    with pytest.raises(NotFoundError):
        client.sites.get(sandbox.org_id, "no_such_site")


def test_update_closes_a_public_site_and_reads_back(client, sandbox, sites):
    site_id = sites["public"]
    updated = client.sites.update(
        sandbox.org_id, site_id, visibility="share-link", title="Dev docs"
    )
    assert (updated.visibility, updated.title) == ("share-link", "Dev docs")
    read = client.sites.get(sandbox.org_id, site_id)
    assert (read.visibility, read.title) == ("share-link", "Dev docs")
    client.sites.update(sandbox.org_id, site_id, default_level=None, basename="dev")
    read = client.sites.get(sandbox.org_id, site_id)
    assert (read.default_level, read.basename) == (None, "dev")
    events = client.orgs.audit_events(sandbox.org_id, action="site.visibility.updated")
    assert site_id in set(events["target_id"])


def test_update_adaptive_content_proxy_style_guide_and_default_section(client, sandbox, sites):
    demo = sandbox.demo
    org_id, site_id = sandbox.org_id, sites["unlisted"]
    runbooks = demo["site_section_ids"]["runbooks"]
    updated = client.sites.update(
        org_id,
        site_id,
        adaptive_content=True,
        default_site_section=runbooks,
        proxy="company.example/docs",
        styleguide=demo["styleguide_space_id"],
    )
    read = client.sites.get(org_id, site_id)
    for site in (updated, read):
        assert site.adaptive_content is True
        assert site.proxy == "company.example/docs"
        assert site.styleguide_space_id == demo["styleguide_space_id"]
    listed = client.sites.list(org_id).set_index("id")
    assert listed.loc[site_id, "proxy"] == "company.example/docs"
    cleared = client.sites.update(org_id, site_id, proxy=None, styleguide=None)
    assert (cleared.proxy, cleared.styleguide_space_id) == (None, None)
    assert cleared.adaptive_content is True  # not given: unchanged
    with pytest.raises(BadRequestError, match="not a section"):
        client.sites.update(org_id, sites["public"], default_site_section=runbooks)


def test_update_needs_a_change(client, sandbox, sites):
    before = sandbox.request_count
    with pytest.raises(ValidationError, match="update"):
        client.sites.update(sandbox.org_id, sites["public"])
    assert sandbox.request_count == before


def test_publish_and_unpublish_read_back(client, sandbox, sites):
    site_id = sites["unpublished"]
    assert client.sites.publish(sandbox.org_id, site_id).published is True
    read = client.sites.get(sandbox.org_id, site_id)
    assert read.published is True and read.url_published
    assert client.sites.unpublish(sandbox.org_id, site_id).published is False
    assert client.sites.get(sandbox.org_id, site_id).published is False


def test_spaces_a_site_publishes(client, sandbox, sites):
    published = client.sites.spaces(sandbox.org_id, sites["public"])
    assert_schema(published, "site_spaces")
    assert len(published) > 0 and (published["site_id"] == sites["public"]).all()
    assert set(published["space_id"]) <= set(sandbox.demo["space_ids"])
    exposed = {space for space, site in sandbox.demo["public_exposure"] if site == sites["public"]}
    assert exposed <= set(published["space_id"])


def test_an_ordinary_member_cannot_change_a_site(other, sandbox, sites):
    with pytest.raises(PermissionDeniedError):
        other.sites.update(sandbox.org_id, sites["public"], visibility="unlisted")
    with pytest.raises(PermissionDeniedError):
        other.sites.share_links(sandbox.org_id, sites["share-link"])
    with pytest.raises(PermissionDeniedError):
        other.sites.publish(sandbox.org_id, sites["unpublished"])


# -- share links ----------------------------------------------------------------------------------


def test_share_links_frame_has_the_demo_links(client, sandbox, sites):
    links = client.sites.share_links(sandbox.org_id, sites["share-link"])
    assert_schema(links, "share_links")
    ids = sandbox.demo["share_link_ids"]
    assert set(links["id"]) == set(ids.values())
    active = links.set_index("id")["active"]
    assert not active[ids["inactive"]] and active[ids["stale"]] and active[ids["recent"]]
    assert links["url_published"].str.endswith("=********").all()


def test_a_site_without_links_has_an_empty_typed_frame(client, sandbox, sites):
    links = client.sites.share_links(sandbox.org_id, sites["public"])
    assert links.empty
    assert_schema(links, "share_links")


def test_create_rename_deactivate_delete_a_share_link(client, sandbox, sites):
    org_id, site_id = sandbox.org_id, sites["share-link"]
    link = client.sites.create_share_link(org_id, site_id, name="Auditors")
    assert isinstance(link, ShareLink) and link.active is True
    listed = client.sites.share_links(org_id, site_id).set_index("id")
    assert listed.loc[link.id, "name"] == "Auditors" and listed.loc[link.id, "active"]

    assert client.sites.update_share_link(org_id, site_id, link.id, name="Q3").name == "Q3"
    assert client.sites.deactivate_share_link(org_id, site_id, link.id).active is False
    listed = client.sites.share_links(org_id, site_id).set_index("id")
    assert listed.loc[link.id, "name"] == "Q3" and not listed.loc[link.id, "active"]
    assert client.sites.update_share_link(org_id, site_id, link.id, active=True).active is True

    assert client.sites.delete_share_link(org_id, site_id, link.id) is True
    assert link.id not in set(client.sites.share_links(org_id, site_id)["id"])
    assert client.sites.delete_share_link(org_id, site_id, link.id) is False
    with pytest.raises(NotFoundError):
        client.sites.deactivate_share_link(org_id, site_id, link.id)


def _captured(caplog) -> str:
    return "\n".join(record.getMessage() for record in caplog.records)


def test_share_link_key_never_shows(client, sandbox, sites, caplog):
    caplog.set_level(logging.DEBUG)
    org_id, site_id = sandbox.org_id, sites["share-link"]
    link = client.sites.create_share_link(org_id, site_id, name="Canary")
    key = link.url_published.rpartition("share=")[2]
    assert len(key) >= 16 and key in link.raw["urls"]["published"]  # the model keeps it whole
    frame = client.sites.share_links(org_id, site_id)
    shown = [repr(link), str(link), link._repr_html_(), repr(frame), frame.to_html()]
    shown += [frame.to_csv(), repr(client.sites.deactivate_share_link(org_id, site_id, link.id))]
    with pytest.raises(DocsAPIError) as error:
        client.sites.get(org_id, key)  # the server's 404 message repeats the key
    shown += [str(error.value), repr(error.value), str(error.value.body)]
    assert "********" in str(error.value)
    shown.append(_captured(caplog))
    assert all(key not in text for text in shown)


def test_publishing_auth_private_key_never_shows(client, sandbox, sites, caplog):
    caplog.set_level(logging.DEBUG)
    org_id, site_id = sandbox.org_id, sites["visitor-auth"]
    auth = client.sites.publishing_auth(org_id, site_id)
    assert isinstance(auth, SitePublishingAuth) and auth.backend == "custom"
    key = auth.reveal_private_key()
    assert (
        key
        == client.request("GET", f"/orgs/{org_id}/sites/{site_id}/publishing/auth")["privateKey"]
    )
    shown = [repr(auth), str(auth), auth._repr_html_(), repr(auth.private_key), str(auth.raw)]
    assert "privateKey" not in auth.raw
    with pytest.raises(DocsAPIError) as error:
        client.sites.get(org_id, key)  # the server's 404 message repeats it
    shown += [str(error.value), repr(error.value), str(error.value.body), _captured(caplog)]
    assert all(key not in text for text in shown)
    with pytest.raises(TypeError):
        import pickle

        pickle.dumps(auth.private_key)


def test_publishing_auth_of_a_site_without_visitor_auth_is_400(client, sandbox, sites):
    with pytest.raises(BadRequestError, match="visitor-auth"):
        client.sites.publishing_auth(sandbox.org_id, sites["public"])


# -- permissions ----------------------------------------------------------------------------------


def test_users_and_teams_frames(client, sandbox, sites):
    for site_id in sandbox.demo["site_ids"]:
        users = client.sites.users(sandbox.org_id, site_id)
        teams = client.sites.teams(sandbox.org_id, site_id)
        assert_schema(users, "site_users")
        assert_schema(teams, "site_teams")
        assert (users["site_id"] == site_id).all() and (teams["site_id"] == site_id).all()
        assert set(teams["team_id"]) <= set(sandbox.demo["team_ids"])


def test_set_and_remove_roles_read_back(client, sandbox, sites):
    org_id, site_id = sandbox.org_id, sites["unlisted"]
    held = set(client.sites.users(org_id, site_id)["user_id"])
    user = next(u for u in client.orgs.members(org_id)["user_id"] if u not in held)
    taken = set(client.sites.teams(org_id, site_id)["team_id"])
    team = next(t for t in sandbox.demo["team_ids"] if t not in taken)

    client.sites.set_user_role(org_id, site_id, user, "edit")
    client.sites.set_team_role(org_id, site_id, team, "admin")
    assert client.sites.users(org_id, site_id).set_index("user_id").loc[user, "role"] == "edit"
    assert client.sites.teams(org_id, site_id).set_index("team_id").loc[team, "role"] == "admin"

    assert client.sites.remove_user(org_id, site_id, user) is True
    assert user not in set(client.sites.users(org_id, site_id)["user_id"])
    assert client.sites.remove_user(org_id, site_id, user) is False
    assert client.sites.remove_team(org_id, site_id, team) is True
    assert client.sites.remove_team(org_id, site_id, team) is False


def test_a_site_has_no_guest_role(client, sandbox, sites):
    before = sandbox.request_count
    with pytest.raises(ValidationError, match="no guest role"):
        client.sites.set_user_role(sandbox.org_id, sites["public"], sandbox.demo["owner_id"], None)
    assert sandbox.request_count == before


def test_unknown_principals_and_sites(client, sandbox, sites):
    org_id, site_id = sandbox.org_id, sites["public"]
    for read in (
        client.sites.spaces,
        client.sites.share_links,
        client.sites.users,
        client.sites.teams,
        client.sites.publishing_auth,
        client.sites.publish,
    ):
        with pytest.raises(NotFoundError):
            read(org_id, "no_such_site")
    with pytest.raises(NotFoundError):
        client.sites.create_share_link(org_id, "no_such_site", name="x")
    with pytest.raises(NotFoundError):
        client.sites.set_user_role(org_id, site_id, "no_such_user", "read")
    with pytest.raises(NotFoundError):
        client.sites.set_team_role(org_id, site_id, "no_such_team", "read")
    with pytest.raises(BadRequestError):
        client.sites.remove_team(org_id, site_id, "no_such_team")


def test_an_ordinary_member_cannot_change_site_permissions(other, sandbox, sites):
    with pytest.raises(PermissionDeniedError):
        other.sites.set_user_role(
            sandbox.org_id, sites["public"], sandbox.demo["other_user_id"], "admin"
        )
