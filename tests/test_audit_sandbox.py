"""The permission audit over real HTTP against the sandbox's demo organization."""

from __future__ import annotations

import pytest

from docsapi import audit_permissions
from docsapi._audit_rules import RULES
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


def test_findings_include_the_demo_organizations_deliberate_problems(demo_audit, sandbox):
    demo, findings = sandbox.demo, demo_audit.findings
    for rule in ("guest_write", "former_member", "empty_team"):
        assert pairs(findings, rule) == set(demo[rule]), rule
    # default levels give members access too, so more direct grants are redundant
    assert set(demo["redundant_grant"]) <= pairs(findings, "redundant_grant")
    assert pairs(findings, "admin_sprawl") == {(None, user) for user in demo["admin_sprawl"]}
    assert pairs(findings, "no_admin") == {(space, None) for space in demo["no_admin"]}
    assert pairs(findings, "too_many_admins") == {(s, None) for s in demo["too_many_admins"]}
    assert set(findings["rule"]) <= set(RULES)
    assert demo_audit.errors.empty


def test_demo_tables_cover_every_space_and_member(demo_audit, sandbox):
    assert set(demo_audit.grants["target_id"]) <= set(sandbox.demo["space_ids"])
    assert demo_audit.count("spaces") == len(sandbox.demo["space_ids"])
    assert demo_audit.matrix.shape[1] == len(sandbox.demo["space_ids"])
    former = sandbox.demo["former_member_ids"][0]
    statuses = set(demo_audit.effective.loc[demo_audit.effective.user_id == former, "member_role"])
    assert statuses == {"non-member"}
    guest = sandbox.demo["guest_write"][0][1]
    assert set(demo_audit.effective.loc[demo_audit.effective.user_id == guest, "member_role"]) == {
        "guest"
    }


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


def test_audit_under_a_rate_limit_finishes_without_errors_or_refusals(sandbox, demo_audit):
    sandbox.set_rate_limit(15, per_seconds=0.5)
    audit = audit_permissions(sandbox.client(), sandbox.org_id, progress=False, max_workers=8)
    assert audit.errors.empty
    assert len(sandbox.request_log) > 3 * 15  # the crawl spanned several windows
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
    ],
)
def test_bad_arguments_are_refused_before_any_request(sandbox, client, kwargs, argument):
    options = {"org_id": sandbox.org_id, "progress": False, **kwargs}
    with pytest.raises(ValidationError) as info:
        audit_permissions(client, **options)
    assert info.value.argument == argument
    assert sandbox.request_count == 0


def test_progress_bar_counts_the_spaces(sandbox, client, capsys):
    audit_permissions(client, sandbox.org_id, progress=True, max_workers=2)
    spaces = len(sandbox.demo["space_ids"])
    err = capsys.readouterr().err
    assert "Auditing spaces" in err and f"{spaces}/{spaces}" in err


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
