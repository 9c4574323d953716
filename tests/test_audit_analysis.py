"""The audit's analysis on hand-made tables with the client's DataFrame schemas (no server)."""

from __future__ import annotations

import pandas as pd
import pytest

from docsapi import frames
from docsapi._audit_crawl import ERROR_COLUMNS, AuditData
from docsapi._audit_rules import AuditThresholds, role_rank
from docsapi.audit import analyze
from docsapi.errors import ValidationError

SPACES = {"s1": "Handbook", "s2": "API", "s3": "Empty", "s4": "Ops"}
MEMBERS = {"owner": "admin", "alice": "edit", "bob": "read", "gina": None, "carol": "create"}
TEAMS = {
    "t1": ("Writers", ["alice", "bob"]),
    "t2": ("Admins", ["owner", "carol"]),
    "t3": ("Ghosts", []),
    "t4": ("Reviewers", ["alice"]),
}
USER_GRANTS = [
    ("s1", "owner", "admin"),
    ("s1", "alice", "edit"),
    ("s1", "fred", "read"),
    ("s1", "gina", "edit"),
    ("s2", "bob", "comment"),
    ("s4", "alice", "review"),
]
TEAM_GRANTS = [
    ("s1", "t1", "edit"),
    ("s1", "t3", "read"),
    ("s1", "t4", "review"),
    ("s2", "t2", "admin"),
    ("s2", "t1", "read"),
]


def name(user_id: str) -> str:
    return user_id.capitalize()


def user(user_id: str) -> dict:
    return {
        "object": "user",
        "id": user_id,
        "displayName": name(user_id),
        "email": f"{user_id}@example.com",
    }


def team(team_id: str) -> dict:
    title, users = TEAMS[team_id]
    return {"object": "team", "id": team_id, "title": title, "members": len(users), "spaces": 0}


def make_data(user_grants=USER_GRANTS, team_grants=TEAM_GRANTS, errors=()) -> AuditData:
    """An organization built from API-shaped records by the client's own frame functions."""
    spaces = frames.spaces(
        [
            {"object": "space", "id": s, "title": title, "organization": "org"}
            for s, title in SPACES.items()
        ]
    )
    members = frames.org_members(
        "org",
        [
            {"object": "member", "id": u, "role": role, "user": user(u), "disabled": False}
            for u, role in MEMBERS.items()
        ],
    )
    teams = frames.teams("org", [team(t) for t in TEAMS])
    team_members = pd.concat(
        [
            frames.team_members(
                "org",
                t,
                [{"organization": {"user": user(u)}, "team": {"role": "member"}} for u in users],
            )
            for t, (_, users) in TEAMS.items()
        ],
        ignore_index=True,
    )
    users = pd.concat(
        [frames.permission_users(None, [])]
        + [
            frames.permission_users(s, [{"permission": role, "user": user(u)}])
            for s, u, role in user_grants
        ],
        ignore_index=True,
    )
    team_rows = pd.concat(
        [frames.permission_teams(None, [])]
        + [
            frames.permission_teams(s, [{"permission": role, "team": team(t)}])
            for s, t, role in team_grants
        ],
        ignore_index=True,
    )
    return AuditData(
        org_id="org",
        spaces=spaces,
        user_grants=users,
        team_grants=team_rows,
        members=members,
        teams=teams,
        team_members=team_members,
        errors=pd.DataFrame(list(errors), columns=ERROR_COLUMNS),
    )


def found(audit, rule: str) -> set[tuple]:
    rows = audit.findings[audit.findings["rule"] == rule]
    return set(zip(rows["space_id"], rows["principal_id"], strict=True))


def effective_role(audit, space_id: str, user_id: str):
    row = audit.effective[
        (audit.effective.space_id == space_id) & (audit.effective.user_id == user_id)
    ]
    assert len(row) == 1
    return row.iloc[0]


def test_role_order_puts_review_between_create_and_edit():
    order = sorted(["read", "admin", "edit", "review", None, "comment", "create"], key=role_rank)
    assert order == [None, "read", "comment", "edit", "review", "create", "admin"]


def test_each_rule_fires_exactly_where_the_tables_break_it():
    audit = analyze(make_data())
    assert found(audit, "guest_write") == {("s1", "gina")}
    assert found(audit, "former_member") == {("s1", "fred")}
    assert found(audit, "no_admin") == {("s3", None), ("s4", None)}
    assert found(audit, "redundant_grant") == {("s1", "alice")}
    assert found(audit, "empty_team") == {("s1", "t3")}
    assert found(audit, "admin_sprawl") == set()
    assert found(audit, "too_many_admins") == set()


def test_thresholds_are_keyword_limits():
    audit = analyze(make_data(), thresholds=AuditThresholds(admin_share=0.4, max_admins=1))
    assert found(audit, "admin_sprawl") == {(None, "owner")}
    assert found(audit, "too_many_admins") == {("s2", None)}
    detail = audit.findings.set_index("rule").loc["admin_sprawl", "detail"]
    assert "Owner is admin on 2 of 4 spaces" in detail


def test_findings_are_sorted_most_severe_first_with_a_sentence_each():
    findings = analyze(make_data()).findings
    ranks = findings["severity"].map({"high": 0, "medium": 1, "low": 2}).tolist()
    assert ranks == sorted(ranks)
    assert list(findings.columns) == [
        "severity",
        "rule",
        "space_id",
        "space_title",
        "principal_id",
        "principal_name",
        "detail",
    ]
    guest = findings[findings.rule == "guest_write"].iloc[0]
    assert guest.principal_name == "Gina" and guest.space_title == "Handbook"
    assert "guest" in guest.detail and "Lower the role" in guest.detail
    assert findings[findings.rule == "empty_team"].iloc[0].principal_name == "Ghosts"


def test_effective_role_is_the_highest_over_direct_and_several_teams():
    audit = analyze(make_data())
    alice = effective_role(audit, "s1", "alice")
    assert alice.role == "review"  # direct edit, Writers edit, Reviewers review
    assert alice.sources == "direct; team:t1; team:t4"
    assert alice.member_role == "edit"
    bob = effective_role(audit, "s2", "bob")
    assert bob.role == "comment" and bob.sources == "direct; team:t1"
    assert effective_role(audit, "s2", "carol").role == "admin"
    assert effective_role(audit, "s1", "fred").member_role == "non-member"
    assert effective_role(audit, "s1", "gina").member_role == "guest"


def test_direct_grant_above_every_team_role_is_not_redundant():
    grants = [*USER_GRANTS, ("s2", "alice", "admin")]  # Writers only give read on s2
    assert ("s2", "alice") not in found(analyze(make_data(user_grants=grants)), "redundant_grant")


def test_role_columns_are_ordered_so_comparisons_select_writers():
    effective = analyze(make_data()).effective
    writers = effective[effective["role"] >= "edit"]
    pairs = set(zip(writers.space_id, writers.user_id, strict=True))
    assert {("s1", "gina"), ("s1", "bob")} <= pairs  # bob writes through Writers
    assert ("s2", "bob") not in pairs  # comment only


def test_without_team_expansion_effective_shows_direct_grants_but_findings_do_not_change():
    expanded, direct = analyze(make_data()), analyze(make_data(), expand_teams=False)
    assert set(direct.effective.sources) == {"direct"}
    assert effective_role(direct, "s1", "alice").role == "edit"
    assert "carol" not in set(direct.effective.user_id)
    pd.testing.assert_frame_equal(direct.findings, expanded.findings)


def test_grants_stay_raw_one_row_per_user_or_team_grant():
    grants = analyze(make_data()).grants
    assert len(grants) == len(USER_GRANTS) + len(TEAM_GRANTS)
    assert list(grants.columns) == [
        "space_id",
        "space_title",
        "principal_type",
        "principal_id",
        "principal_name",
        "role",
        "source",
    ]
    assert set(grants.loc[grants["principal_type"] == "user", "source"]) == {"direct"}
    team_rows = grants[grants["principal_type"] == "team"]
    assert (team_rows["source"] == "team:" + team_rows["principal_id"]).all()
    team = grants[(grants.principal_type == "team") & (grants.principal_id == "t2")].iloc[0]
    assert (team.space_title, team.principal_name, team.role) == ("API", "Admins", "admin")


def test_matrix_is_users_by_spaces_of_effective_roles():
    matrix = analyze(make_data()).matrix
    assert list(matrix.columns) == ["API", "Empty", "Handbook", "Ops"]
    assert matrix.loc["Alice", "Handbook"] == "review"
    assert matrix.loc["Owner", "API"] == "admin"
    assert pd.isna(matrix.loc["Fred", "API"])
    assert matrix["Empty"].isna().all()
    assert matrix["Ops"].dtype.ordered


def test_summary_counts_roles_principals_and_severities():
    audit = analyze(make_data())
    assert audit.count("spaces") == 4
    assert audit.count("user", "principal_type") == len(USER_GRANTS)
    assert audit.count("team", "principal_type") == len(TEAM_GRANTS)
    assert audit.count("high", "severity") == 2
    assert audit.count("admin", "role") == 3  # owner on s1, owner and carol on s2
    assert audit.count("findings") == len(audit.findings)
    assert "findings=6" in repr(audit)


def test_space_with_unreadable_permissions_is_not_called_adminless():
    error = {
        "space_id": "s3",
        "team_id": None,
        "stage": "space users",
        "error_type": "PermissionDeniedError",
        "message": "403",
    }
    audit = analyze(make_data(errors=[error]))
    assert found(audit, "no_admin") == {("s4", None)}
    assert audit.count("errors") == 1


def test_empty_organization_gives_empty_tables_with_their_columns():
    data = make_data(user_grants=[], team_grants=[])
    audit = analyze(data)
    assert audit.grants.empty and audit.effective.empty
    assert "role" in audit.effective.columns
    assert found(audit, "no_admin") == {(s, None) for s in SPACES}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"admin_share": 1.5},
        {"admin_share": "half"},
        {"max_admins": 0},
        {"max_admins": 2.5},
        {"max_admin": 3},
        {"max_admins": True},
    ],
)
def test_bad_thresholds_are_refused(kwargs):
    with pytest.raises(ValidationError):
        AuditThresholds.from_kwargs(**kwargs)
