"""Each audit rule: it fires where the organization breaks it, and never from missing data."""

from __future__ import annotations

from audit_org import Org, found

from docsapi.audit.rules import AuditThresholds


def base() -> Org:
    """A healthy organization: two private spaces with an admin each, nothing to report."""
    return (
        Org()
        .member("boss", "admin")
        .member("ann", "edit")
        .member("bea", "edit")
        .space("s0")
        .space("s00")
        .grant("s0", "ann", "admin")
        .grant("s00", "bea", "admin")
    )


def details(audit, rule: str):
    rows = audit.findings[audit.findings["rule"] == rule]
    return dict(zip(rows["principal_id"], rows["detail"], strict=True))


def test_a_healthy_organization_has_no_findings():
    audit = base().audit()
    assert audit.findings.empty, audit.findings[["rule", "detail"]]
    assert audit.complete


# -- high ---------------------------------------------------------------------------------------


def test_guest_write_fires_for_guests_and_non_members_who_can_write():
    org = (
        base()
        .member("gus", None)
        .space("s1")
        .grant("s1", "gus", "edit")
        .grant("s1", "ann", "admin")
    )
    org.grant("s1", "fred", "review").member("rita", None).grant("s1", "rita", "comment")
    audit = org.audit()
    assert found(audit, "guest_write") == {("s1", "gus"), ("s1", "fred")}
    said = details(audit, "guest_write")
    assert "a guest of the organization" in said["gus"] and "not a member" in said["fred"]


def test_guest_write_counts_every_path_of_the_guest():
    org = base().member("gus", None).team("t1", "gus").collection("c1")
    org = org.space("s1", parent="c1", default="inherit")
    audit = org.grant("c1", "t1", "edit").grant("s1", "ann", "admin").audit()
    assert found(audit, "guest_write") == {("s1", "gus")}


def test_former_member_fires_for_every_permission_a_non_member_holds():
    org = base().collection("c1").space("s1", parent="c1").grant("s1", "ann", "admin")
    audit = org.grant("s1", "fred", "read").grant("c1", "fred", "read").audit()
    assert found(audit, "former_member") == {("s1", "fred"), ("c1", "fred")}


def test_former_member_needs_the_member_list():
    org = base().grant("s0", "fred", "read")
    org.not_read = frozenset({"members"})
    assert found(org.audit(), "former_member") == set()


def test_public_exposure_fires_for_private_content_on_public_or_unlisted_sites():
    org = (
        base()
        .space("s1")
        .space("s2", default="read")
        .space("s3")
        .space("s4", visibility="unlisted")
        .site("w1", "public", "s1", "s2")
        .site("w2", "share-link", "s3")
        .share_link("w2", "l1", age_days=1)
    )
    for space in ("s1", "s2", "s3", "s4"):
        org.grant(space, "ann", "admin")
    audit = org.audit()
    # s2 is readable inside by every member; s3 only with a link
    assert found(audit, "public_exposure", "space_id") == {("w1", "s1"), ("s4", "s4")}


def test_public_exposure_is_not_claimed_when_the_internal_level_is_unknown():
    org = base().space("s1", parent="c9", default="inherit").site("w1", "public", "s1")
    audit = org.grant("s1", "ann", "admin").audit()  # collection c9 was not listed
    assert found(audit, "public_exposure") == set()
    assert not audit.complete


def test_risky_invite_link_fires_for_admin_and_create_links():
    org = (
        base()
        .invite_link("i1", "admin")
        .invite_link("i2", "read")
        .invite_link("i3", "create", target_type="space", target="s0")
    )
    audit = org.audit()
    assert found(audit, "risky_invite_link") == {("org", "i1"), ("s0", "i3")}
    said = details(audit, "risky_invite_link")["i3"]
    assert "space 'S0'" in said and "as create" in said


def test_aggregate_mismatch_fires_per_space_where_the_platform_disagrees():
    org = (
        base()
        .space("s1")
        .grant("s1", "ann", "admin")
        .platform("s0", "boss", "admin")
        .platform("s0", "ann", "admin")
        .platform("s00", "boss", "admin")
        .platform("s00", "bea", "admin")
        .platform("s1", "boss", "admin")
        .platform("s1", "ann", "edit")  # the audit says admin
        .platform("s1", "zoe", "read")  # the audit does not see zoe at all
    )
    audit = org.audit()
    assert found(audit, "aggregate_mismatch") == {("s1", None)}
    table = audit.aggregate_mismatches
    pairs = {
        (u, None if a != a else a, None if p != p else p)
        for u, a, p in zip(
            table["user_id"],
            table["audit_role"].astype(object),
            table["platform_role"].astype(object),
            strict=True,
        )
    }
    assert pairs == {("ann", "admin", "edit"), ("zoe", None, "read")}


def test_aggregate_mismatch_skips_spaces_whose_aggregate_or_access_is_missing():
    org = (
        base()
        .team("t1", "ann")
        .space("s1")
        .space("s2")
        .grant("s1", "t1", "admin")
        .grant("s2", "ann", "admin")
        .platform("s0", "boss", "admin")
        .platform("s0", "ann", "admin")
        .platform("s00", "boss", "admin")
        .platform("s00", "bea", "admin")
        .fail("team", "t1", "team members")  # s1's access is incomplete
        .fail("space", "s2", "aggregate")  # s2's aggregate could not be read
    )
    audit = org.audit()
    assert audit.aggregate_mismatches.empty and found(audit, "aggregate_mismatch") == set()
    coverage = audit.coverage.set_index("item")
    assert coverage.loc["aggregate cross-checks", "seen"] == 2  # s0 and s00


def test_guest_collection_write_fires_from_the_threshold():
    org = base().member("gus", None).team("t1", "gus").collection("c1").collection("c2")
    for i in range(3):
        org.space(f"s{i + 1}", parent="c1", default="inherit").grant(f"s{i + 1}", "ann", "admin")
    org.space("s9", parent="c2", default="inherit").grant("s9", "ann", "admin")
    org.space("s8", parent="c1").grant("s8", "ann", "admin")  # its own level: c1 stops there
    org.grant("c1", "t1", "edit").grant("c2", "gus", "admin")
    audit = org.audit(thresholds=AuditThresholds(guest_collection_spaces=3))
    assert found(audit, "guest_collection_write") == {("c1", "gus")}
    assert (
        "write access to 3 spaces"
        in audit.findings.set_index("rule").loc["guest_collection_write", "detail"]
    )


# -- medium ------------------------------------------------------------------------------------


def test_inactive_writer_fires_for_disabled_members_with_write_grants_and_idle_writers():
    org = (
        base()
        .member("dan", "edit", disabled=True)
        .member("ida", "edit", seen_days_ago=120)
        .member("rob", "edit", seen_days_ago=120)
        .member("new", "edit", seen_days_ago=None)
        .space("s1")
        .grant("s1", "ann", "admin")
        .grant("s1", "dan", "edit")
        .grant("s1", "ida", "edit")
        .grant("s1", "rob", "read")  # idle but cannot write
        .grant("s1", "new", "edit")  # never said to be seen: not called inactive
    )
    org.member("eve", "edit", disabled=True).team("t1", "eve").grant("s0", "t1", "read")
    org.collection("c1").space("s2", parent="c1").grant("c1", "eve", "admin")
    audit = org.audit()
    assert found(audit, "inactive_writer") == {("s1", "dan"), ("s1", "ida"), ("s2", "eve")}
    said = details(audit, "inactive_writer")
    assert "disabled but still holds edit access to 'S1'" in said["dan"]
    assert "last seen 120 days ago but still has edit access to 'S1'" in said["ida"]
    assert "admin access to 'S2'" in said["eve"]  # through a collection; read on s0 is not write


def test_inactive_writer_threshold():
    org = base().member("ida", "edit", seen_days_ago=40).space("s1").grant("s1", "ida", "admin")
    assert found(org.audit(), "inactive_writer") == set()
    audit = org.audit(thresholds=AuditThresholds(inactive_days=30))
    assert found(audit, "inactive_writer") == {("s1", "ida")}


def test_stale_share_link_fires_for_old_active_links_only():
    org = (
        base()
        .site("w1", "share-link")
        .share_link("w1", "old", age_days=100)
        .share_link("w1", "fresh", age_days=10)
        .share_link("w1", "dead", age_days=300, active=False)
    )
    audit = org.audit()
    assert found(audit, "stale_share_link") == {("w1", "old")}
    audit = org.audit(thresholds=AuditThresholds(share_link_max_age_days=5))
    assert found(audit, "stale_share_link") == {("w1", "old"), ("w1", "fresh")}


def test_admin_sprawl_ignores_organization_admins_and_needs_the_whole_listing():
    org = base().space("s1").space("s2").grant("s1", "ann", "admin").grant("s2", "boss", "admin")
    org.grant("s2", "ann", "admin")
    assert found(org.audit(), "admin_sprawl") == {("ann", "ann")}  # 3 of 4, above half
    org.token_role = "edit"  # the token may not see every space: no share can be claimed
    assert found(org.audit(), "admin_sprawl") == set()
    org.token_role, org.spaces_reported = "admin", 10
    assert found(org.audit(), "admin_sprawl") == set()


def test_no_admin_ignores_organization_admins_and_defaults():
    org = (
        base().space("s1", default="admin").space("s2").team("t1", "ann").grant("s2", "t1", "admin")
    )
    assert found(org.audit(), "no_admin") == {("s1", None)}


def test_no_admin_skips_spaces_whose_permissions_could_not_be_read():
    org = base().space("s1").space("s2").fail("space", "s1", "space users")
    assert found(org.audit(), "no_admin") == {("s2", None)}


# -- low ---------------------------------------------------------------------------------------


def test_too_many_admins_counts_own_admins_only():
    org = base().space("s1")
    for user in ("u1", "u2", "u3"):
        org.member(user, "admin" if user == "u1" else "edit").grant("s1", user, "admin")
    audit = org.audit(thresholds=AuditThresholds(max_admins=2))
    assert found(audit, "too_many_admins") == {("s1", None)}
    audit = org.audit(thresholds=AuditThresholds(max_admins=3))
    assert found(audit, "too_many_admins") == set()  # boss, an org admin, does not count


def test_redundant_grant_fires_when_another_path_gives_as_much():
    org = (
        base()
        .team("t1", "ann")
        .space("s1", default="read")
        .space("s2")
        .grant("s1", "ann", "read")  # the default gives read already
        .grant("s1", "t1", "admin")
        .grant("s2", "ann", "admin")  # nothing else gives ann anything on s2
        .grant("s2", "boss", "admin")  # boss is an organization admin
    )
    audit = org.audit()
    assert found(audit, "redundant_grant") == {("s1", "ann"), ("s2", "boss")}
    said = details(audit, "redundant_grant")
    assert "already gets admin there through team T1" in said["ann"]
    assert "through organization admin" in said["boss"]


def test_redundant_grant_equal_roles_keep_the_direct_grant_when_alone():
    org = base().team("t1", "ann").space("s1").grant("s1", "ann", "edit").grant("s1", "t1", "edit")
    org.grant("s1", "boss", "read")
    audit = org.audit()
    assert ("s1", "ann") in found(audit, "redundant_grant")


def test_empty_team_fires_only_for_teams_known_to_be_empty():
    org = (
        base()
        .team("t1")
        .team("t2")
        .collection("c1")
        .grant("s0", "t1", "read")
        .grant("c1", "t2", "read")
        .team("t3")
        .grant("s0", "t3", "read")
        .fail("team", "t3", "team members")
    )
    assert found(org.audit(), "empty_team") == {("s0", "t1"), ("c1", "t2")}
