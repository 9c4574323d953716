"""The permission audit over real HTTP against the sandbox's demo organization."""

from __future__ import annotations

import pytest

from docsapi import audit_permissions
from docsapi.audit.crawl import LOG_SLICES
from docsapi.audit.creators import CREATE_ACTION_NAMES
from docsapi.audit.rules import RULES
from docsapi.errors import NotFoundError, ValidationError


@pytest.fixture(scope="module")
def demo_audit(sandbox_server):
    """One audit of the seeded demo organization, shared by the read-only tests below."""
    sandbox_server.reset()
    return audit_permissions(sandbox_server.client(), sandbox_server.org_id, progress=False)


def pairs(findings, rule: str) -> set[tuple]:
    rows = findings[findings["rule"] == rule][["space_id", "principal_id"]].astype(object)
    rows = rows.where(rows.notna(), None)
    return set(zip(rows["space_id"], rows["principal_id"], strict=True))


def places(findings, rule: str) -> set:
    """The places a rule reports, in the shape of the demo's facts (docs/sandbox-demo.md)."""
    rows = findings[findings["rule"] == rule].astype(object)
    rows = rows.where(rows.notna(), None)
    if rule in ("admin_sprawl", "risky_invite_link"):
        return set(rows["principal_id"])
    if rule in ("no_admin", "too_many_admins"):
        return set(rows["target_id"])
    if rule == "public_exposure":
        return {
            (space, target if kind == "site" else None)
            for space, kind, target in zip(
                rows["space_id"], rows["target_type"], rows["target_id"], strict=True
            )
        }
    return set(zip(rows["target_id"], rows["principal_id"], strict=True))


def test_findings_are_exactly_the_demo_organizations_deliberate_problems(demo_audit, sandbox):
    demo, findings = sandbox.demo, demo_audit.findings
    for rule in RULES:
        expected = {tuple(item) if isinstance(item, list) else item for item in demo[rule]}
        assert places(findings, rule) == expected, rule
    assert len(findings) == sum(len(demo[rule]) for rule in RULES)


def test_the_owners_audit_is_complete(demo_audit):
    assert demo_audit.complete, demo_audit.incomplete
    assert demo_audit.errors.empty and demo_audit.data.not_read == frozenset()
    assert demo_audit.coverage["complete"].all()
    assert demo_audit.org_name


def test_effective_access_equals_the_platforms_aggregate_for_every_space(demo_audit, client):
    effective = demo_audit.effective
    for space_id in demo_audit.data.spaces["id"]:
        platform = {
            (item["user"]["id"], item["permission"])
            for item in client.paginate(f"/spaces/{space_id}/permissions/aggregate")
        }
        ours = effective[effective["space_id"] == space_id]
        assert set(zip(ours["user_id"], ours["role"].astype(str), strict=True)) == platform
    assert demo_audit.aggregate_mismatches.empty


def test_every_kind_of_path_of_the_demo_is_found_with_its_source(demo_audit, sandbox):
    paths = demo_audit.paths
    for kind, case in sandbox.demo["path_examples"].items():
        found = paths[
            (paths["space_id"] == case["space_id"]) & (paths["user_id"] == case["user_id"])
        ]
        held = dict(zip(found["source"].astype(str), found["role"].astype(str), strict=True))
        assert held.get(case["source"]) == case["role"], kind
        row = demo_audit.effective[
            (demo_audit.effective["space_id"] == case["space_id"])
            & (demo_audit.effective["user_id"] == case["user_id"])
        ].iloc[0]
        counted = found[found["status"] != "overridden"]
        listed = case["source"] in counted["source"].astype(str).tolist()
        assert listed == (case["source"] in row.sources.split("; ")), kind
        assert row.role == counted["role"].max()


def test_demo_tables_cover_every_space_and_member(demo_audit, sandbox):
    grants = demo_audit.grants
    targets = set(sandbox.demo["space_ids"]) | set(sandbox.demo["collection_ids"])
    targets |= set(sandbox.demo["site_ids"])
    assert set(grants["target_id"]) <= targets
    assert {"space", "collection", "site"} == set(grants["target_type"])
    assert demo_audit.count("spaces") == len(sandbox.demo["space_ids"])
    assert demo_audit.matrix.shape[1] == len(sandbox.demo["space_ids"])
    former = sandbox.demo["former_member_ids"][0]
    statuses = set(demo_audit.effective.loc[demo_audit.effective.user_id == former, "member_role"])
    assert statuses == {"non-member"}
    for guest in sandbox.demo["guest_ids"]:
        roles = set(demo_audit.effective.loc[demo_audit.effective.user_id == guest, "member_role"])
        assert roles <= {"guest"}
    disabled = set(sandbox.demo["disabled_member_ids"])
    assert not disabled & set(demo_audit.effective["user_id"])


def test_exposure_lists_the_demo_sites_audiences(demo_audit, sandbox):
    exposure, sites = demo_audit.exposure, sandbox.demo["sites"]
    by_site = set(exposure["site_id"].dropna())
    assert {
        sites["public"],
        sites["unlisted"],
        sites["share-link"],
        sites["visitor-auth"],
    } == by_site
    links = exposure[exposure["visibility"] == "share-link"]
    active = {sandbox.demo["share_link_ids"][k] for k in ("stale", "stale-2", "recent")}
    assert set(links["share_link_id"]) == active  # the inactive link exposes nothing
    assert links["published_url"].str.endswith("?share=********").all()


def test_multi_team_user_gets_the_highest_role_of_direct_and_team_grants(demo_audit, sandbox):
    case = sandbox.demo["multi_team_user"]
    effective = demo_audit.effective
    row = effective[
        (effective.space_id == case["space_id"]) & (effective.user_id == case["user_id"])
    ].iloc[0]
    assert row.role >= case["effective"]
    sources = row.sources.split("; ")
    assert {"direct", *(f"team:{team}" for team in case["team_roles"])} <= set(sources)
    paths = demo_audit.paths
    held = paths[(paths.space_id == case["space_id"]) & (paths.user_id == case["user_id"])]
    roles = dict(zip(held["source"].astype(str), held["role"].astype(str), strict=True))
    assert roles["direct"] == case["direct_role"]
    assert {t: roles[f"team:{t}"] for t in case["team_roles"]} == case["team_roles"]
    assert row.role == held["role"].max()
    assert set(sources) == set(roles)


def _create_team(client, org_id: str, title: str, members: list[str]) -> str:
    team = client.request("PUT", f"/orgs/{org_id}/teams", json={"title": title, "members": members})
    return team["id"]


def test_hand_built_user_with_direct_and_two_team_grants(sandbox, client):
    org_id, space_id = sandbox.org_id, sandbox.demo["no_admin"][0]
    user_id = sandbox.demo["other_user_id"]
    readers = _create_team(client, org_id, "Audit readers", [user_id])
    reviewers = _create_team(client, org_id, "Audit reviewers", [user_id])
    client.permissions.invite(space_id, role="read", teams=[readers])
    client.permissions.invite(space_id, role="review", teams=[reviewers])
    client.permissions.invite(space_id, role="edit", users=[user_id])

    audit = audit_permissions(client, org_id, progress=False, max_workers=4)
    effective = audit.effective
    row = effective[(effective.space_id == space_id) & (effective.user_id == user_id)].iloc[0]
    paths = audit.paths
    held = paths[(paths.space_id == space_id) & (paths.user_id == user_id)]
    roles = dict(zip(held["source"].astype(str), held["role"].astype(str), strict=True))
    assert {k: roles[k] for k in ("direct", f"team:{readers}", f"team:{reviewers}")} == {
        "direct": "edit",
        f"team:{readers}": "read",
        f"team:{reviewers}": "review",
    }
    assert row.role == held["role"].max() and row.role >= "review"
    assert set(row.sources.split("; ")) == set(roles)  # every path, each once
    assert (space_id, user_id) in pairs(audit.findings, "redundant_grant")
    grants = audit.grants[audit.grants.target_id == space_id]
    assert {readers, reviewers, user_id} <= set(grants.principal_id)


@pytest.mark.full  # several seconds: `pytest --full` (and CI)
def test_audit_under_a_rate_limit_finishes_without_errors_or_refusals(sandbox, demo_audit):
    # The API announces its reset in whole seconds, so each window costs the client a second.
    sandbox.set_rate_limit(30, per_seconds=1)
    audit = audit_permissions(sandbox.client(), sandbox.org_id, progress=False, max_workers=8)
    assert audit.errors.empty
    assert len(sandbox.request_log) > 3 * 30  # the crawl spanned several windows
    assert [entry for entry in sandbox.request_log if entry[2] == 429] == []
    assert audit.findings.equals(demo_audit.findings)


def test_a_space_that_keeps_failing_is_recorded_and_the_rest_is_audited(sandbox, demo_audit):
    broken = sandbox.demo["space_ids"][5]
    sandbox.inject("500", count=50, path=f"/spaces/{broken}/permissions/users")
    audit = audit_permissions(sandbox.client(), sandbox.org_id, progress=False)
    assert audit.errors[["target_type", "target_id", "stage", "error_type"]].values.tolist() == [
        ["space", broken, "space users", "ServerError"]
    ]
    users = audit.grants[audit.grants.principal_type == "user"]
    assert broken not in set(users["target_id"])
    assert len(audit.grants) < len(demo_audit.grants)
    assert "500" in audit.errors.loc[0, "message"]
    assert not audit.effective.loc[audit.effective.space_id == broken, "complete"].any()
    assert not audit.complete


def test_unknown_organization_raises_not_found(client):
    with pytest.raises(NotFoundError):
        audit_permissions(client, "no-such-org", progress=False)


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"org_id": ""}, "org_id"),
        ({"org_id": 42}, "org_id"),
        ({"max_workers": 0}, "max_workers"),
        ({"max_workers": 2.0}, "max_workers"),
        ({"admin_share": 2}, "admin_share"),
        ({"max_admins": -1}, "max_admins"),
        ({"too_many": 3}, "too_many"),
        ({"model": "lowest"}, "model"),
        ({"model": None}, "model"),
    ],
)
def test_bad_arguments_are_refused_before_any_request(sandbox, client, kwargs, argument):
    options = {"org_id": sandbox.org_id, "progress": False, **kwargs}
    with pytest.raises(ValidationError) as info:
        audit_permissions(client, **options)
    assert info.value.argument == argument
    assert sandbox.request_count == 0


def test_progress_bar_counts_every_space_team_collection_and_site_read(sandbox, client, capsys):
    audit = audit_permissions(client, sandbox.org_id, progress=True, max_workers=2)
    data = audit.data
    err = capsys.readouterr().err
    for what, count in (
        ("access of {} spaces", len(data.spaces)),
        ("members of {} teams", len(data.teams)),
        ("access of {} collections", len(data.collections)),
        ("spaces, share links and access of {} sites", len(data.sites)),
        # its year in slices (one per worker here), and each create action before it
        ("the audit log in {} reads", min(LOG_SLICES, 2) + len(CREATE_ACTION_NAMES)),
    ):
        assert f"{what.format(count)}: 100%" in err and f"{count}/{count}" in err


def test_changing_a_default_level_changes_the_effective_role(sandbox, client):
    spaces = client.spaces.list(org_id=sandbox.org_id)
    space_id = spaces.loc[spaces["parent"].isna(), "id"].iloc[0]  # its own level decides
    members = client.orgs.members(sandbox.org_id)
    member = members.loc[(members["role"] == "comment") & ~members["disabled"], "user_id"].iloc[0]

    def reached(level):
        client.spaces.update(space_id, default_level=level)
        audit = audit_permissions(client, sandbox.org_id, progress=False)
        paths = audit.paths
        mine = paths[(paths.space_id == space_id) & (paths.user_id == member)]
        defaults = mine[mine["kind"] == "default"]
        return audit, [
            (str(s), str(r)) for s, r in zip(defaults.source, defaults.role, strict=True)
        ]

    audit, defaults = reached("edit")
    assert defaults == [("default:edit", "edit")]
    row = audit.effective[
        (audit.effective.space_id == space_id) & (audit.effective.user_id == member)
    ].iloc[0]
    assert row.role >= "edit" and "default:edit" in row.sources
    assert reached("inherit")[1] == [("default:inherit", "comment")]  # the member's own role
    assert reached(None)[1] == []  # private: members get nothing by default


def test_a_grant_on_a_collection_reaches_its_spaces_with_its_source(sandbox, client):
    collection = sandbox.demo["collections"]["partners"]  # private: members get nothing
    member = sandbox.demo["other_user_id"]
    before = audit_permissions(client, sandbox.org_id, progress=False)
    spaces = before.data.spaces
    below = set(spaces.loc[spaces["parent"] == collection, "id"])
    assert below and not (set(before.paths.loc[before.paths.user_id == member, "space_id"]) & below)

    client.request(
        "POST", f"/collections/{collection}/permissions", json={"role": "edit", "users": [member]}
    )
    after = audit_permissions(client, sandbox.org_id, progress=False)
    effective = after.effective[after.effective["user_id"] == member]
    reached = effective[effective["space_id"].isin(below)]
    assert set(reached["space_id"]) == below
    assert (reached["role"] == "edit").all()
    assert all(f"collection:{collection}" in s.split("; ") for s in reached["sources"])
    paths = after.paths[(after.paths.user_id == member) & (after.paths.kind == "collection")]
    assert set(paths["collection_id"]) == {collection}
    assert after.aggregate_mismatches.empty  # the platform agrees


def test_publishing_a_site_adds_its_exposure_and_findings(sandbox, client):
    site = sandbox.demo["sites"]["unpublished"]
    before = audit_permissions(client, sandbox.org_id, progress=False)
    assert site not in set(before.exposure["site_id"].dropna())

    client.request("POST", f"/orgs/{sandbox.org_id}/sites/{site}/publish")
    after = audit_permissions(client, sandbox.org_id, progress=False)
    exposed = after.exposure[after.exposure["site_id"] == site]
    assert len(exposed) and set(exposed["audience"]) == {"anyone"}
    private = set(exposed.loc[exposed["internal_default"] == "private", "space_id"])
    reported = {s for s, w in places(after.findings, "public_exposure") if w == site}
    assert reported == private
    assert private, "the demo's unpublished site holds a space private inside"


def test_advancing_the_sandbox_clock_ages_share_links_and_members(sandbox, client):
    stale = sandbox.demo["share_link_ids"]
    before = audit_permissions(client, sandbox.org_id, progress=False)
    assert stale["recent"] not in set(places(before.findings, "stale_share_link")) | {
        link for _, link in places(before.findings, "stale_share_link")
    }
    sandbox.advance_clock(days=120)
    after = audit_permissions(client, sandbox.org_id, progress=False)
    flagged = {link for _, link in places(after.findings, "stale_share_link")}
    assert stale["recent"] in flagged
    ages = after.exposure.set_index("share_link_id")["share_link_age_days"].dropna()
    assert ages.min() >= 120
    assert len(places(after.findings, "inactive_writer")) > len(
        places(before.findings, "inactive_writer")
    )


def test_a_members_token_makes_a_partial_audit_that_says_so(sandbox):
    client = sandbox.client(token=sandbox.tokens["other-user"])
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    assert not audit.complete
    token = audit.coverage.set_index("item").loc["token role"]
    assert not token["complete"] and token["detail"].startswith("read: not an organization admin")
    assert audit.count("spaces") <= len(sandbox.demo["space_ids"])
    assert "admin_sprawl" not in set(audit.findings["rule"])  # no share of a partial list


def test_creators_come_from_the_audit_log_and_keep_their_private_space(demo_audit, sandbox):
    creators = demo_audit.data.creators
    demo = sandbox.demo
    assert set(creators["target_id"]) == set(demo["space_ids"]) | set(demo["collection_ids"])
    case = demo["access_cases"]["private_space_creator"]
    mine = creators.set_index("target_id").loc[case["space_id"]]
    assert (mine["target_type"], mine["user_id"]) == ("space", case["user_id"])
    found = demo_audit.explain(case["space_id"], case["user_id"])
    assert found[["source", "role"]].values.tolist() == [["creator", case["roles"]["precedence"]]]
    assert demo_audit.coverage.set_index("item").loc["creators", "complete"]


def test_an_audit_log_that_cannot_be_read_leaves_the_creators_unknown(sandbox):
    client = sandbox.client(max_retries=0)
    sandbox.inject("503", count=10, path="/orgs/*/audit-events")
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    failed = set(audit.errors["stage"]) | set(audit.data.not_read)
    assert "creators" in failed and not audit.complete
    coverage = audit.coverage.set_index("item").loc["creators"]
    assert not coverage["complete"] and coverage["detail"].startswith("not read")
    case = sandbox.demo["access_cases"]["private_space_creator"]
    rows = audit.effective[audit.effective["space_id"] == case["space_id"]]
    assert len(rows) and not rows["complete"].any()  # who else reaches it is not known
    assert case["user_id"] not in set(rows["user_id"].astype(str))
