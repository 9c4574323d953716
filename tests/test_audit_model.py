"""The access model of docs/access-model.md, one test per row and bullet, offline."""

from __future__ import annotations

import pandas as pd
import pytest
from audit_org import Org, reaches, row

# -- the paths table of the access model -------------------------------------------------------


def test_org_admin_reaches_every_space_as_admin():
    audit = Org().member("boss", "admin").space("s1").space("s2").audit()
    for space in ("s1", "s2"):
        found = row(audit, space, "boss")
        assert (found.role, found.sources, found.source_names) == (
            "admin",
            "org-admin",
            "organization admin",
        )


def test_default_role_level_gives_every_member_that_role_even_below_their_own():
    audit = (
        Org()
        .member("ann", "edit")
        .member("bob", "comment")
        .member("gus", None)
        .space("s1", default="read")
        .audit()
    )
    assert row(audit, "s1", "ann").role == "read"  # lower than ann's organization role
    assert row(audit, "s1", "bob").sources == "default:read"
    assert row(audit, "s1", "bob").source_names == "default level read"
    assert not reaches(audit, "s1", "gus")  # guests get no default access


def test_default_inherit_at_the_top_gives_each_member_their_organization_role():
    audit = Org().member("ann", "edit").member("bob", "comment").space("s1", default="inherit")
    audit = audit.audit()
    assert (row(audit, "s1", "ann").role, row(audit, "s1", "ann").sources) == (
        "edit",
        "default:inherit",
    )
    assert row(audit, "s1", "bob").role == "comment"


def test_inherit_climbs_the_collection_chain_to_the_first_level_set():
    org = (
        Org()
        .member("ann", "edit")
        .collection("c1", default="comment")
        .collection("c2", parent="c1", default="inherit")
        .space("s1", parent="c2", default="inherit")
        .space("s2", parent="c2", default="review")
    )
    audit = org.audit()
    assert (row(audit, "s1", "ann").role, row(audit, "s1", "ann").sources) == (
        "comment",
        "default:comment",
    )
    assert row(audit, "s2", "ann").role == "review"  # the space's own level decides first


def test_inherit_through_every_level_reaches_the_organization_role():
    org = (
        Org()
        .member("ann", "create")
        .collection("c1", default="inherit")
        .collection("c2", parent="c1", default="inherit")
        .space("s1", parent="c2", default="inherit")
    )
    found = row(org.audit(), "s1", "ann")
    assert (found.role, found.sources) == ("create", "default:inherit")


def test_a_null_level_on_the_way_makes_the_content_private():
    org = (
        Org()
        .member("ann", "edit")
        .collection("c1", default="edit")
        .collection("c2", parent="c1", default=None)
        .space("s1", parent="c2", default="inherit")
        .space("s2")  # null at the space itself
    )
    audit = org.audit()
    assert not reaches(audit, "s1", "ann") and not reaches(audit, "s2", "ann")


def test_direct_permission():
    audit = Org().member("ann", "read").space("s1").grant("s1", "ann", "edit").audit()
    assert (row(audit, "s1", "ann").role, row(audit, "s1", "ann").sources) == ("edit", "direct")


def test_team_permission_reaches_every_member_of_the_team():
    org = Org().member("ann").member("bob").team("t1", "ann", "bob").space("s1")
    audit = org.grant("s1", "t1", "review").audit()
    for user in ("ann", "bob"):
        found = row(audit, "s1", user)
        assert (found.role, found.sources, found.source_names) == (
            "review",
            "team:t1",
            "team T1",
        )


def test_collection_permission_reaches_every_space_below_at_any_depth():
    org = (
        Org()
        .member("ann")
        .collection("c1")
        .collection("c2", parent="c1", default="inherit")
        .space("s1", parent="c2", default="inherit")
        .space("s2", parent="c1", default="inherit")
        .space("s3")
        .grant("c1", "ann", "edit")
    )
    audit = org.audit()
    for space in ("s1", "s2"):
        found = row(audit, space, "ann")
        assert (found.role, found.sources, found.source_names) == (
            "edit",
            "collection:c1",
            "collection C1",
        )
    assert not reaches(audit, "s3", "ann")


def test_collection_team_permission_names_the_collection_and_the_team():
    org = (
        Org()
        .member("ann")
        .team("t1", "ann")
        .collection("c1")
        .space("s1", parent="c1", default="inherit")
        .grant("c1", "t1", "comment")
    )
    found = row(org.audit(), "s1", "ann")
    assert (found.role, found.sources, found.source_names) == (
        "comment",
        "collection-team:c1/t1",
        "collection C1 / team T1",
    )


# -- the bullets -----------------------------------------------------------------------------


def test_guests_reach_content_only_through_explicit_permissions():
    org = (
        Org()
        .member("gus", None)
        .team("t1", "gus")
        .collection("c1")
        .space("s1", default="inherit")
        .space("s2", default="edit")
        .space("s3", parent="c1", default="inherit")
        .grant("s1", "gus", "comment")
        .grant("c1", "t1", "read")
    )
    audit = org.audit()
    assert (row(audit, "s1", "gus").role, row(audit, "s1", "gus").sources) == (
        "comment",
        "direct",
    )
    assert not reaches(audit, "s2", "gus")
    assert row(audit, "s3", "gus").sources == "collection-team:c1/t1"
    assert row(audit, "s1", "gus").member_role == "guest"


def test_non_members_still_reach_content_through_their_permissions():
    audit = Org().member("ann").space("s1", default="read").grant("s1", "fred", "edit").audit()
    found = row(audit, "s1", "fred")
    assert (found.role, found.member_role, found.member_status) == (
        "edit",
        "non-member",
        "non-member",
    )


def test_disabled_members_reach_nothing_through_any_path_but_keep_their_grants():
    org = (
        Org()
        .member("dan", "admin", disabled=True)
        .team("t1", "dan")
        .collection("c1")
        .space("s1", parent="c1", default="inherit")
        .grant("s1", "dan", "edit")
        .grant("s1", "t1", "read")
        .grant("c1", "dan", "edit")
    )
    audit = org.audit()
    assert "dan" not in set(audit.effective["user_id"])
    assert "dan" not in set(audit.paths["user_id"])
    assert {("space", "dan"), ("collection", "dan")} <= set(
        zip(audit.grants["target_type"], audit.grants["principal_id"], strict=True)
    )


def test_a_space_in_the_trash_is_reached_by_nobody():
    org = Org().member("boss", "admin").space("s1").space("s2", trashed=True)
    audit = org.grant("s2", "boss", "admin").audit()
    assert set(audit.effective["space_id"]) == {"s1"}
    assert audit.count("spaces") == 1


def test_site_permissions_reach_the_linked_spaces_that_inherit_only():
    org = (
        Org()
        .member("ann")
        .member("bob", "edit")
        .space("s1")
        .space("s2", default="inherit")
        .space("s3", default="inherit")
        .site("w1", "public", "s1", "s2")
        .grant("w1", "ann", "admin")
    )
    audit = org.audit()
    assert not reaches(audit, "s1", "ann")  # its own default level: not inherited
    found = row(audit, "s2", "ann")
    assert (found.role, found.sources, found.source_names) == ("admin", "site:w1", "site W1")
    assert row(audit, "s3", "ann").sources == "default:inherit"  # no site links s3
    grants = audit.grants
    assert grants[grants["principal_id"] == "ann"]["target_type"].tolist() == ["site"]


def test_a_site_team_and_a_site_default_level_reach_the_members():
    org = (
        Org()
        .member("ann", "create")
        .member("bob", "read")
        .team("t1", "bob")
        .space("s1", default="inherit")
        .site("w1", "unlisted", "s1", default="comment")
        .grant("w1", "t1", "edit")
    )
    audit = org.audit()
    assert (row(audit, "s1", "ann").role, row(audit, "s1", "ann").sources) == (
        "comment",
        "site-default:w1",
    )
    assert row(audit, "s1", "ann").source_names == "default level of site W1"
    found = row(audit, "s1", "bob")
    assert (found.role, found.sources, found.source_names) == (
        "edit",
        "site-team:w1/t1",
        "site W1 / team T1",
    )
    highest = org.audit(model="highest")
    assert row(highest, "s1", "ann").role == "create"  # the organization role is higher


def test_the_creator_of_no_access_content_keeps_their_organization_role():
    org = (
        Org()
        .member("ann", "create")
        .member("bob", "edit")
        .collection("c1")
        .space("s1")
        .space("s2", parent="c1", default="inherit")
        .space("s3", default="read")
        .created("s1", "ann")
        .created("c1", "bob")
        .created("s3", "ann")
    )
    audit = org.audit()
    assert (row(audit, "s1", "ann").role, row(audit, "s1", "ann").sources) == ("create", "creator")
    assert not reaches(audit, "s1", "bob")
    found = row(audit, "s2", "bob")
    assert (found.role, found.sources, found.source_names) == (
        "edit",
        "creator:c1",
        "creator of collection C1",
    )
    assert row(audit, "s3", "ann").sources == "default:read"  # not "No access": no exception
    assert audit.complete


def test_a_creator_the_audit_log_does_not_know_leaves_the_space_incomplete():
    org = Org().member("boss", "admin").space("s1").space("s2", default="inherit")
    audit = org.creator_unknown("s1").creator_unknown("s2").audit()
    assert not row(audit, "s1", "boss").complete
    assert row(audit, "s2", "boss").complete  # it inherits: who created it does not matter
    coverage = audit.coverage.set_index("item").loc["creators"]
    assert (coverage.seen, coverage.total, bool(coverage.complete)) == (0, 1, False)
    assert "s1" in coverage.detail and not audit.complete


@pytest.mark.parametrize(
    ("model", "role", "sources", "names"),
    [
        (
            "precedence",
            "admin",
            "team:t2; direct; team:t1",
            "team T2; direct; team T1",
        ),
        (
            "highest",
            "admin",
            "team:t2; direct; default:inherit; collection:c1; team:t1",
            "team T2; direct; default level inherit; collection C1; team T1",
        ),
    ],
)
def test_sources_list_the_paths_that_decide_highest_role_first(model, role, sources, names):
    org = (
        Org()
        .member("ann", "edit")
        .team("t2", "ann")
        .team("t1", "ann")
        .collection("c1", default="inherit")
        .space("s1", parent="c1", default="inherit")
        .grant("s1", "ann", "edit")
        .grant("s1", "t2", "admin")
        .grant("s1", "t1", "read")
        .grant("c1", "ann", "comment")
    )
    found = row(org.audit(model=model), "s1", "ann")
    # highest role first; among equal roles direct first, then by text
    assert (found.role, found.sources, found.source_names) == (role, sources, names)


def test_paths_list_each_way_with_the_grant_a_change_would_touch():
    org = (
        Org()
        .member("ann")
        .team("t1", "ann")
        .collection("c1")
        .space("s1", parent="c1", default="inherit")
        .site("w1", "public", "s1")
        .grant("c1", "t1", "edit")
        .grant("s1", "ann", "read")
        .grant("w1", "ann", "comment")
    )
    paths = org.audit().paths
    assert list(paths.columns) == [
        "space_id",
        "user_id",
        "kind",
        "source",
        "source_name",
        "collection_id",
        "team_id",
        "role",
        "site_id",
        "level",
        "status",
        "granted_by",
        "granted_by_id",
        "granted_at",
        "granted_via",
        "event_id",
        "provenance",
    ]
    assert paths["status"].astype(str).tolist() == ["decides", "overridden", "overridden"]
    assert paths["level"].astype(str).tolist() == ["space", "site", "collection"]
    via = paths[paths["kind"] == "collection-team"].iloc[0]
    assert (via.collection_id, via.team_id, via.role) == ("c1", "t1", "edit")
    assert paths[paths["kind"] == "site"].iloc[0].site_id == "w1"
    direct = paths[paths["kind"] == "direct"].iloc[0]
    assert pd.isna(direct.collection_id) and pd.isna(direct.team_id) and pd.isna(direct.site_id)
    highest = org.audit(model="highest").paths
    assert highest["status"].astype(str).tolist() == ["decides", "lower", "lower"]


def test_a_pair_whose_every_path_is_overridden_names_the_level_that_decided():
    org = (
        Org()
        .member("ann")
        .collection("c1", default="edit")
        .space("s1", parent="c1")
        .space("s2", parent="c1", default="inherit")
        .site("w1", "public", "s2", default=None)
        .grant("c1", "ann", "admin")
    )
    audit = org.audit()
    assert not reaches(audit, "s1", "ann") and not reaches(audit, "s2", "ann")
    assert set(audit.paths["status"]) == {"overridden"}
    decisions = (("s1", "default:private", "space"), ("s2", "site-default:w1", "site"))
    for space, source, level in decisions:
        found = audit.explain(space, "ann")
        decided = found.iloc[0]
        assert (decided.source, decided.role, decided.status, decided.level) == (
            source,
            "guest",
            "decides",
            level,
        )
        assert set(found["status"].iloc[1:]) == {"overridden"}
        assert "collection:c1" in found["source"].tolist()


def test_without_team_expansion_effective_leaves_team_paths_out():
    org = (
        Org()
        .member("ann")
        .team("t1", "ann")
        .collection("c1")
        .space("s1", parent="c1", default="inherit")
        .grant("s1", "t1", "edit")
        .grant("c1", "t1", "admin")
        .grant("s1", "ann", "read")
    )
    full, narrow = org.audit(), org.audit(expand_teams=False)
    assert row(full, "s1", "ann").role == "edit"  # the space's own permissions decide
    assert (row(narrow, "s1", "ann").role, row(narrow, "s1", "ann").sources) == ("read", "direct")
    pd.testing.assert_frame_equal(full.findings, narrow.findings)
    full, narrow = org.audit(model="highest"), org.audit(model="highest", expand_teams=False)
    assert row(full, "s1", "ann").role == "admin"
    assert (row(narrow, "s1", "ann").role, row(narrow, "s1", "ann").sources) == ("read", "direct")


# -- exposure -------------------------------------------------------------------------------


@pytest.fixture
def exposed():
    return (
        Org()
        .member("ann")
        .space("s1")
        .space("s2", default="read")
        .space("s3", visibility="public", url="https://docs.example/s3")
        .space("s4")
        .site("wpub", "public", "s1")
        .site("wunl", "unlisted", "s2")
        .site("wlink", "share-link", "s4")
        .site("wva", "visitor-auth", "s2")
        .site("wdraft", "public", "s4", draft=True)
        .site("wnew", "public", "s4", published=False)
        .site("wsaid", "public", "s1", published=None)
        .share_link("wlink", "old", age_days=200)
        .share_link("wlink", "off", age_days=10, active=False)
        .audit()
    )


def test_exposure_lists_every_way_to_read_without_an_account(exposed):
    table = exposed.exposure
    ways = set(
        zip(table["space_id"], table["site_id"].fillna("-"), table["visibility"], strict=True)
    )
    assert ways == {
        ("s1", "wpub", "public"),
        ("s1", "wsaid", "public"),  # a site that does not say whether it is published
        ("s2", "wunl", "unlisted"),
        ("s2", "wva", "visitor-auth"),
        ("s3", "-", "public"),  # the space's own visibility, no site
        ("s4", "wlink", "share-link"),  # one row per active link; no draft, no unpublished site
    }
    audiences = dict(zip(table["visibility"], table["audience"], strict=False))
    assert audiences["unlisted"] == "anyone with the address"
    assert audiences["visitor-auth"] == "authenticated visitors"


def test_share_link_exposure_has_its_age_and_a_masked_address(exposed):
    link = exposed.exposure[exposed.exposure["visibility"] == "share-link"].iloc[0]
    assert (link.share_link_id, link.share_link_name, link.share_link_age_days) == (
        "old",
        "Old",
        200,
    )
    assert bool(link.share_link_active)
    assert "secret-old" not in link.published_url and link.published_url.endswith("/********")


def test_exposure_says_what_members_get_inside(exposed):
    inside = dict(
        zip(exposed.exposure["space_id"], exposed.exposure["internal_default"], strict=True)
    )
    assert inside == {"s1": "private", "s2": "read", "s3": "private", "s4": "private"}
