"""The audit's tables on a hand-made organization (no server): columns, order, laziness."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from audit_org import Org, found, row

from docsapi.audit import analyze
from docsapi.audit.data import RAW_SCHEMAS, AuditData, ColumnAccumulator, conform
from docsapi.audit.rules import RULES, AuditThresholds, role_rank
from docsapi.errors import ValidationError

SPACES = ("s1", "s2", "s3", "s4")
MEMBERS = {"owner": "admin", "alice": "edit", "bob": "read", "gina": None, "carol": "create"}
TEAMS = {"t1": ["alice", "bob"], "t2": ["owner", "carol"], "t3": [], "t4": ["alice"]}
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


def make_org(user_grants=USER_GRANTS, team_grants=TEAM_GRANTS) -> Org:
    """Four private spaces, five members (one guest), four teams (one empty), a non-member."""
    org = Org()
    for user, role in MEMBERS.items():
        org.member(user, role)
    for team, members in TEAMS.items():
        org.team(team, *members)
    for space in SPACES:
        org.space(space)
    for space, holder, role in (*user_grants, *team_grants):
        org.grant(space, holder, role)
    return org


def make_data(user_grants=USER_GRANTS, team_grants=TEAM_GRANTS) -> AuditData:
    return make_org(user_grants, team_grants).data()


@pytest.fixture(scope="module")
def audit():
    return analyze(make_data())


def test_role_order_puts_review_between_create_and_edit():
    order = sorted(["read", "admin", "edit", "review", None, "comment", "create"], key=role_rank)
    assert order == [None, "read", "comment", "edit", "review", "create", "admin"]


def test_effective_columns_and_highest_role(audit):
    assert list(audit.effective.columns) == [
        "space_id",
        "space_title",
        "user_id",
        "display_name",
        "email",
        "member_role",
        "member_status",
        "last_seen_at",
        "role",
        "sources",
        "source_names",
        "complete",
    ]
    alice = row(audit, "s1", "alice")
    assert (alice.role, alice.sources) == ("review", "team:t4; direct; team:t1")
    assert alice.source_names == "team T4; direct; team T1"
    assert (alice.member_role, alice.member_status, alice.email) == (
        "edit",
        "active",
        "alice@example.com",
    )
    assert row(audit, "s2", "carol").role == "admin"
    # the organization admin's role decides; under highest every path counts, direct first
    assert row(audit, "s1", "owner").sources == "org-admin"
    highest = analyze(make_data(), model="highest")
    assert row(highest, "s1", "owner").sources == "direct; org-admin"


def test_effective_is_sorted_by_space_title_then_name(audit):
    keys = list(zip(audit.effective["space_title"], audit.effective["display_name"], strict=True))
    assert keys == sorted(keys)


def test_role_columns_are_ordered_so_comparisons_select_writers(audit):
    writers = audit.effective[audit.effective["role"] >= "edit"]
    pairs = set(zip(writers.space_id, writers.user_id, strict=True))
    assert {("s1", "gina"), ("s1", "bob")} <= pairs  # bob writes through t1
    assert ("s2", "bob") not in pairs  # comment only


def test_grants_stay_raw_one_row_per_permission(audit):
    grants = audit.grants
    assert list(grants.columns) == [
        "target_type",
        "target_id",
        "target_title",
        "principal_type",
        "principal_id",
        "principal_name",
        "role",
        "granted_by",
        "granted_by_id",
        "granted_at",
        "granted_via",
        "event_id",
        "provenance",
    ]
    assert len(grants) == len(USER_GRANTS) + len(TEAM_GRANTS)
    # A hand-made organization read no audit log: who made each grant is not known.
    assert set(grants["provenance"]) == {"unknown: the audit log was not read"}
    assert grants["granted_by"].isna().all() and grants["granted_at"].isna().all()
    team = grants[grants["principal_id"] == "t2"].iloc[0]
    assert (team.target_title, team.principal_type, team.principal_name, team.role) == (
        "S2",
        "team",
        "T2",
        "admin",
    )
    keys = list(zip(grants["target_title"], grants["principal_type"] == "team", strict=True))
    assert keys == sorted(keys)  # by target, users before teams


def test_matrix_is_built_on_first_access_from_int8_codes(audit):
    fresh = analyze(make_data())
    assert "matrix" not in vars(fresh)
    matrix = fresh.matrix
    assert "matrix" in vars(fresh)
    assert list(matrix.columns) == ["S1", "S2", "S3", "S4"]
    assert matrix.loc["Alice", "S1"] == "review"
    assert matrix.loc["Owner", "S3"] == "admin"  # organization admin
    assert pd.isna(matrix.loc["Fred", "S2"])
    assert all(matrix[column].dtype == audit.effective["role"].dtype for column in matrix)
    assert matrix["S1"].cat.codes.dtype == np.int8
    assert matrix.notna().to_numpy().sum() == len(fresh.effective)


def test_matrix_labels_tell_apart_users_with_the_same_name():
    org = make_org().member("alice2", "read").grant("s3", "alice2", "read")
    org.rows["members"][-1]["display_name"] = "Alice"
    matrix = analyze(org.data()).matrix
    assert {"Alice (alice)", "Alice (alice2)"} <= set(matrix.index)


def test_summary_counts_paths_roles_principals_and_severities(audit):
    assert audit.count("spaces") == 4
    assert audit.count("user", "principal_type") == len(USER_GRANTS)
    assert audit.count("team", "principal_type") == len(TEAM_GRANTS)
    assert audit.count("org-admin", "path") == 4
    assert audit.count("findings") == len(audit.findings)
    assert audit.count("high", "severity") == len(audit.findings[audit.findings.severity == "high"])
    assert "findings=" in repr(audit) and "complete" in repr(audit)


def test_findings_are_sorted_most_severe_first_with_a_sentence_each(audit):
    findings = audit.findings
    assert list(findings.columns) == [
        "severity",
        "rule",
        "target_type",
        "target_id",
        "target_title",
        "space_id",
        "space_title",
        "principal_type",
        "principal_id",
        "principal_name",
        "detail",
        "granted_by",
        "granted_by_id",
        "granted_at",
        "granted_via",
        "event_id",
        "provenance",
    ]
    ranks = findings["severity"].map({"high": 0, "medium": 1, "low": 2}).tolist()
    assert ranks == sorted(ranks)
    rules = list(RULES)
    order = [rules.index(rule) for rule in findings["rule"]]
    assert order == sorted(order)
    assert findings["detail"].str.endswith(".").all()
    guest = findings[findings.rule == "guest_write"].iloc[0]
    assert (guest.principal_name, guest.space_title) == ("Gina", "S1")
    assert "guest" in guest.detail and "Lower the role" in guest.detail


def test_every_rule_is_registered_once_with_severity_description_and_check():
    assert len(RULES) == 13
    for name, rule in RULES.items():
        assert rule.name == name and rule.severity in {"high", "medium", "low"}
        assert rule.description and callable(rule.check)


def test_an_empty_organization_gives_empty_tables_with_their_columns():
    audit = analyze(AuditData(org_id="org", token_role="admin"))
    for table in ("effective", "grants", "exposure", "findings", "aggregate_mismatches"):
        assert getattr(audit, table).empty, table
    assert "role" in audit.effective.columns and audit.matrix.empty and audit.paths.empty
    assert audit.complete


def test_thresholds_are_keyword_limits():
    data = make_data()
    assert found(analyze(data), "admin_sprawl") == set()
    audit = analyze(data, thresholds=AuditThresholds(admin_share=0.2, max_admins=1))
    assert found(audit, "admin_sprawl") == {("carol", "carol")}  # admin of 1 of 4 spaces
    assert found(audit, "too_many_admins") == {("s2", None)}  # owner and carol through t2
    detail = audit.findings.set_index("rule").loc["admin_sprawl", "detail"]
    assert "Carol is admin on 1 of 4 spaces (25%, above 20%)" in detail


@pytest.mark.parametrize(
    "kwargs",
    [
        {"admin_share": 1.5},
        {"admin_share": "half"},
        {"max_admins": 0},
        {"max_admins": 2.5},
        {"max_admin": 3},
        {"max_admins": True},
        {"inactive_days": 0},
        {"share_link_max_age_days": -1},
        {"guest_collection_spaces": 1.5},
    ],
)
def test_bad_thresholds_are_refused(kwargs):
    with pytest.raises(ValidationError):
        AuditThresholds.from_kwargs(**kwargs)


# -- the raw tables ----------------------------------------------------------------------------


def test_raw_tables_are_conformed_to_their_declared_columns():
    data = AuditData(org_id="org", members=pd.DataFrame({"user_id": ["u1"], "extra": [1]}))
    for name, schema in RAW_SCHEMAS.items():
        assert list(getattr(data, name).columns) == list(schema), name
    assert "extra" not in data.members
    assert data.members["user_id"].dtype == "string"
    assert isinstance(data.user_permissions["user_id"].dtype, pd.CategoricalDtype)


def test_duplicate_rows_from_shifted_pages_are_dropped():
    frame = pd.DataFrame(
        {"target_type": "space", "target_id": ["s1", "s1"], "user_id": ["u", "u"], "role": "read"}
    )
    assert len(conform("user_permissions", frame)) == 1


def test_unknown_roles_are_refused_naming_the_table():
    with pytest.raises(ValidationError, match=r"aggregate\.role"):
        conform("aggregate", pd.DataFrame({"space_id": ["s"], "user_id": ["u"], "role": ["boss"]}))


def test_column_accumulator_appends_pages_and_shares_repeated_strings():
    pages = ColumnAccumulator("aggregate")
    pages.append(space_id="s1", user_id=["u1", "u2"], role=["read", "edit"])
    pages.append(space_id="s2", user_id=["u1"], role=["admin"])
    assert len(pages) == 3
    frame = pages.frame()
    assert len(pages) == 0  # the codes were handed over to the frame
    assert frame[["space_id", "user_id", "role"]].astype(object).values.tolist() == [
        ["s1", "u1", "read"],
        ["s1", "u2", "edit"],
        ["s2", "u1", "admin"],
    ]
    assert list(frame["user_id"].cat.categories) == ["u1", "u2"]
    with pytest.raises(ValidationError):
        pages.append(space_id=["s1"], user_id=["u1", "u2"])
