"""What changed between two audits: each kind of change made in the sandbox, end to end."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from audit_org import Org
from pandas.testing import assert_frame_equal

import docsapi
from docsapi import audit_permissions
from docsapi.audit import analyze
from docsapi.audit.data import ROLE_DTYPE, ROLES
from docsapi.audit.diff.access_diff import AccessDiff
from docsapi.audit.diff.changes import ACCESS_CHANGE_COLUMNS, CHANGE_KINDS
from docsapi.audit.diff.report import OKABE_ITO
from docsapi.audit.rules import AuditThresholds
from docsapi.errors import ValidationError

ACCESS = ("granted", "revoked", "raised", "lowered", "rerouted")


def audit_of(sandbox):
    return audit_permissions(sandbox.client(), sandbox.org_id, progress=False)


def pairs(frame: pd.DataFrame) -> set[tuple[str, str]]:
    return set(zip(frame["space_id"], frame["user_id"], strict=True))


def finding_keys(frame: pd.DataFrame) -> set[tuple]:
    return {
        (rule, space, None if pd.isna(who) else who)
        for rule, space, who in zip(
            frame["rule"], frame["target_id"], frame["principal_id"], strict=True
        )
    }


def only_changes(diff: AccessDiff, *kinds: str) -> None:
    """Every kind of access change not named is empty."""
    for kind in ACCESS:
        if kind not in kinds:
            assert diff.tables()[kind].empty, (kind, diff.tables()[kind])


def paths_of(audit) -> pd.DataFrame:
    paths = audit.paths.astype({c: object for c in ("space_id", "user_id", "source", "kind")})
    return paths.assign(rank=paths["role"].cat.codes)


def single_direct_pairs(audit) -> pd.DataFrame:
    """(space, user) reached by exactly one path, a direct grant, below admin."""
    paths = paths_of(audit)
    counts = paths.groupby(["space_id", "user_id"]).size()
    alone = paths.set_index(["space_id", "user_id"]).loc[counts[counts == 1].index].reset_index()
    return alone[(alone["kind"] == "direct") & (alone["role"] < "admin")]


# -- each kind of change --------------------------------------------------------------------------
def test_a_grant_to_a_guest_is_granted_access_and_a_new_finding(sandbox):
    before = audit_of(sandbox)
    guest = sandbox.demo["guest_ids"][0]
    reached = set(before.effective.loc[before.effective["user_id"] == guest, "space_id"])
    space = next(s for s in sandbox.demo["space_ids"] if s not in reached)
    sandbox.grant(space, guest, "edit")
    diff = audit_of(sandbox).diff(before)
    only_changes(diff, "granted")
    row = diff.granted.iloc[0]
    assert pairs(diff.granted) == {(space, guest)}
    assert pd.isna(row["role_before"]) and row["role_after"] == "edit"
    assert (row["sources_after"], row["paths_added"]) == ("direct", "direct (edit)")
    assert pd.isna(row["paths_removed"]) and row["member_role"] == "guest" and row["complete"]
    assert finding_keys(diff.new_findings) == {("guest_write", space, guest)}
    assert diff.resolved_findings.empty and diff.exposure_added.empty
    assert diff.changed_paths[["change", "source", "role"]].values.tolist() == [
        ["added", "direct", "edit"]
    ]


def test_revoking_a_users_only_path_is_revoked_access(sandbox):
    before = audit_of(sandbox)
    case = single_direct_pairs(before).iloc[0]
    sandbox.revoke(case["space_id"], case["user_id"])
    diff = audit_of(sandbox).diff(before)
    only_changes(diff, "revoked")
    assert pairs(diff.revoked) == {(case["space_id"], case["user_id"])}
    row = diff.revoked.iloc[0]
    assert row["role_before"] == case["role"] and pd.isna(row["role_after"])
    assert row["paths_removed"] == f"direct ({case['role']})" and pd.isna(row["sources_after"])
    assert diff.new_findings.empty


def test_raising_a_direct_grant_is_raised_access(sandbox):
    before = audit_of(sandbox)
    case = single_direct_pairs(before).iloc[0]
    higher = ROLES[ROLES.index(case["role"]) + 1]
    sandbox.grant(case["space_id"], case["user_id"], higher)
    diff = audit_of(sandbox).diff(before)
    only_changes(diff, "raised")
    assert pairs(diff.raised) == {(case["space_id"], case["user_id"])}
    row = diff.raised.iloc[0]
    assert (row["role_before"], row["role_after"]) == (case["role"], higher)
    assert row["paths_added"] == f"direct ({higher})"
    assert row["paths_removed"] == f"direct ({case['role']})"


def _team_lowering(audit):
    """A team grant on a space whose lowering to read lowers someone: (space, team, the
    pairs expected lowered, the pairs expected rerouted)."""
    paths = paths_of(audit)
    read = ROLES.index("read")
    teams = paths[(paths["kind"] == "team") & (paths["role"] > "read")]
    if audit.model == "precedence":  # the space's own permissions decide over the rest
        paths = paths[paths["level"] == "space"]
    for (space, source), members in teams.groupby(["space_id", "source"]):
        on_space = paths[paths["space_id"] == space]
        others = on_space[on_space["source"] != source].groupby("user_id")["rank"].max()
        before = on_space.groupby("user_id")["rank"].max()
        after = {u: max(int(others.get(u, -1)), read) for u in members["user_id"]}
        lowered = {(space, u) for u, rank in after.items() if rank < before[u]}
        if lowered:
            rerouted = {(space, u) for u in members["user_id"]} - lowered
            return space, source.split(":")[1], lowered, rerouted
    raise AssertionError("the demo has no team grant whose lowering lowers anyone")


def test_lowering_a_team_grant_lowers_those_it_gave_the_most(sandbox):
    before = audit_of(sandbox)
    space, team, lowered, rerouted = _team_lowering(before)
    sandbox.grant(space, team, "read")
    diff = audit_of(sandbox).diff(before)
    only_changes(diff, "lowered", "rerouted")
    assert pairs(diff.lowered) == lowered and pairs(diff.rerouted) == rerouted
    title = before.grants.loc[before.grants["principal_id"] == team, "principal_name"].iloc[0]
    for row in diff.lowered.itertuples():
        assert f"team {title} ({row.role_before})" in row.paths_removed
        assert f"team {title} (read)" in row.paths_added
        assert ROLES.index(row.role_after) < ROLES.index(row.role_before)


def test_a_default_level_change_reaches_every_member(sandbox):
    before = audit_of(sandbox)
    example = sandbox.demo["path_examples"]["default:read"]
    space = example["space_id"]
    sandbox.set_default_level(space, "edit")
    diff = audit_of(sandbox).diff(before)
    only_changes(diff, "granted", "raised", "rerouted")
    changed = diff.changed_paths
    assert set(changed["space_id"]) == {space}
    assert set(changed.loc[changed["change"] == "added", "source"]) == {"default:edit"}
    assert set(changed.loc[changed["change"] == "removed", "source"]) == {"default:read"}
    touched = set(changed.loc[changed["change"] == "added", "user_id"])
    assert pairs(diff.granted) | pairs(diff.raised) | pairs(diff.rerouted) == {
        (space, u) for u in touched
    }
    assert (example["space_id"], example["user_id"]) in pairs(diff.raised)
    assert set(diff.raised["role_after"]) == {"edit"}
    after = audit_of(sandbox)
    for row in diff.rerouted[diff.rerouted["role_after"] < "edit"].itertuples():
        # under precedence a permission of their own on the space decides: it stays
        decided = after.explain(row.space_id, row.user_id)
        assert set(decided.loc[decided["status"] == "decides", "level"]) == {"space"}


def test_publishing_a_public_site_adds_exposure(sandbox):
    before = audit_of(sandbox)
    site = sandbox.demo["sites"]["unpublished"]
    sandbox.publish(site)
    after = audit_of(sandbox)
    diff = after.diff(before)
    only_changes(diff)
    published = after.exposure[after.exposure["site_id"] == site]
    assert len(published) and set(diff.exposure_added["site_id"]) == {site}
    assert set(diff.exposure_added["space_id"]) == set(published["space_id"])
    assert set(diff.exposure_added["visibility"]) == {"public"} and diff.exposure_removed.empty
    assert set(diff.new_findings["rule"]) == {"public_exposure"}
    assert set(diff.new_findings["target_id"]) == {site}


def test_a_new_share_link_adds_exposure_through_it_alone(sandbox):
    before = audit_of(sandbox)
    site = sandbox.demo["sites"]["share-link"]
    link = sandbox.create_share_link(site, "Board review")
    diff = audit_of(sandbox).diff(before)
    only_changes(diff)
    assert set(diff.exposure_added["share_link_id"]) == {link}
    shared = before.exposure.loc[before.exposure["site_id"] == site, "space_id"]
    assert set(diff.exposure_added["space_id"]) == set(shared)
    assert diff.new_findings.empty and diff.resolved_findings.empty


def test_fixing_findings_resolves_them(sandbox):
    before = audit_of(sandbox)
    space, user = sandbox.demo["redundant_grant"][0]
    site, link = sandbox.demo["stale_share_link"][0]
    sandbox.revoke(space, user)
    sandbox.set_share_link_active(site, link, False)
    diff = audit_of(sandbox).diff(before)
    only_changes(diff, "rerouted")
    assert pairs(diff.rerouted) == {(space, user)}
    assert diff.rerouted.iloc[0]["paths_removed"].startswith("direct (")
    assert finding_keys(diff.resolved_findings) == {
        ("redundant_grant", space, user),
        ("stale_share_link", site, link),
    }
    assert diff.new_findings.empty
    assert set(diff.exposure_removed["share_link_id"]) == {link} and diff.exposure_added.empty


def test_findings_are_matched_without_their_sentence(sandbox):
    before = audit_of(sandbox)
    sandbox.advance_clock(days=3)
    after = audit_of(sandbox)
    assert set(before.findings["detail"]) != set(after.findings["detail"])  # ages moved on
    diff = after.diff(before)
    assert diff.empty and diff.new_findings.empty and diff.resolved_findings.empty
    assert diff.summary["count"].sum() == 0 and diff.notes == []


# -- partial audits, refusals, notes --------------------------------------------------------------
def small_org(*, more: bool, failing: bool):
    """s1 is administered through team t1 (m1); with ``more``, m2 edits s1 and s2; with
    ``failing``, t1's members could not be read."""
    org = Org().member("boss", "admin").member("m1", "edit").member("m2", "edit")
    org.team("t1", "m1").space("s1").space("s2").grant("s1", "t1", "admin")
    if more:
        org.grant("s1", "m2", "edit").grant("s2", "m2", "edit")
    if failing:
        org.rows["team_members"] = []
        org.fail("team", "t1", "team members")
    return org.audit()


def test_a_partial_side_is_stated_first_and_its_spaces_flagged():
    diff = small_org(more=True, failing=True).diff(small_org(more=False, failing=False))
    assert not diff.complete
    assert len(diff.notes) == 1 and "current audit" in diff.notes[0]
    assert "partial" in diff.notes[0] and "team members read" in diff.notes[0]
    keys = zip(diff.granted["space_id"], diff.granted["user_id"], strict=True)
    granted = dict(zip(keys, diff.granted["complete"], strict=True))
    assert granted == {("s1", "m2"): False, ("s2", "m2"): True}
    # m1's access through the unread team looks revoked: flagged as such
    assert pairs(diff.revoked) == {("s1", "m1")} and not diff.revoked["complete"].any()
    assert diff.summary.loc["granted"].tolist() == [2, 1]
    assert "PARTIAL" in repr(diff)


def test_audits_of_different_organizations_are_refused(sandbox):
    other = Org().member("boss", "admin").audit()
    with pytest.raises(ValidationError, match=r"organization 'org'.*one organization"):
        audit_of(sandbox).diff(other)
    with pytest.raises(ValidationError, match="previous"):
        other.diff("last quarter")  # type: ignore[arg-type]


def test_reversed_audits_and_changed_thresholds_are_noted():
    data = Org().member("boss", "admin").member("m1").space("s1").grant("s1", "m1", "admin").data()
    strict = analyze(data, thresholds=AuditThresholds(max_admins=1))
    loose = analyze(data)
    notes = strict.diff(loose).notes
    assert notes == [
        "The rule thresholds changed (max_admins 5 -> 1): some findings are new or resolved "
        "because of that, not because access changed."
    ]
    later = analyze(
        Org().member("boss", "admin").data(generated_at=pd.Timestamp("2027-01-01", tz="UTC"))
    )
    assert loose.diff(later).notes == [
        "The previous audit (2027-01-01 00:00 UTC) is newer than the current one "
        "(2026-06-01 00:00 UTC): the changes read backwards in time."
    ]
    assert later.diff(loose).notes == []


# -- tables, snapshots, charts, HTML --------------------------------------------------------------
@pytest.fixture(scope="module")
def changed(sandbox_server):
    """Audits of the demo before and after one change of each kind."""
    sb = sandbox_server
    sb.reset()
    before = audit_of(sb)
    demo = sb.demo
    reached = set(
        before.effective.loc[before.effective["user_id"] == demo["guest_ids"][0], "space_id"]
    )
    sb.grant(next(s for s in demo["space_ids"] if s not in reached), demo["guest_ids"][0], "edit")
    case = single_direct_pairs(before).iloc[0]
    sb.revoke(case["space_id"], case["user_id"])
    sb.set_default_level(demo["path_examples"]["default:read"]["space_id"], "edit")
    sb.publish(demo["sites"]["unpublished"])
    sb.set_share_link_active(*demo["stale_share_link"][0], False)
    after = audit_of(sb)
    sb.reset()
    return before, after


def test_every_kind_of_change_is_in_one_diff(changed):
    before, after = changed
    diff = after.diff(before)
    summary = diff.summary
    assert summary.index.tolist() == list(CHANGE_KINDS)
    for kind in CHANGE_KINDS:
        assert summary.loc[kind, "count"] == len(diff.tables()[kind]) == diff.count(kind)
    assert all(summary.loc[k, "count"] for k in CHANGE_KINDS if k != "lowered")
    for kind in ACCESS:
        table = diff.tables()[kind]
        assert table.columns.tolist() == ACCESS_CHANGE_COLUMNS
        assert table["role_before"].dtype == table["role_after"].dtype == ROLE_DTYPE
    with pytest.raises(ValidationError, match="kind"):
        diff.count("moved")


def test_snapshots_diff_like_the_audits_they_hold(changed, tmp_path):
    before, after = changed
    live = after.diff(before)
    old = docsapi.load_audit(before.save(tmp_path / "old"))
    new = docsapi.load_audit(after.save(tmp_path / "new"))
    loaded = new.diff(old)
    for kind, table in live.tables().items():
        assert_frame_equal(loaded.tables()[kind], table, obj=kind)


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_charts_keep_legends_off_the_bars_in_colour_blind_safe_colours(changed):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import to_hex
    from matplotlib.patches import Rectangle

    before, after = changed
    figures = after.diff(before).plot()
    assert set(figures) == {"access_by_role", "changes"}
    palette = {c.lower() for c in OKABE_ITO.values()}
    for figure in figures.values():
        renderer = FigureCanvasAgg(figure).get_renderer()
        figure.draw(renderer)
        axes = figure.axes[0]
        legend = axes.get_legend().get_window_extent(renderer)
        bars = [p for p in axes.patches if isinstance(p, Rectangle) and p.get_height()]
        assert bars
        for bar in bars:
            assert not _overlaps(legend, bar.get_window_extent(renderer))
            assert to_hex(bar.get_facecolor()) in palette


def test_the_html_page_is_self_contained_and_states_partial_audits_first(changed, tmp_path):
    before, after = changed
    page = after.diff(before).to_html(tmp_path / "changes.html").read_text(encoding="utf-8")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert re.findall(r'<img [^>]*src="([^"]{5})', page) == ["data:", "data:"]
    assert not re.search(r"<(script|link|iframe)\b", page)
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert "Access granted" in page and "Look at these first" in page
    partial = small_org(more=True, failing=True).diff(small_org(more=False, failing=False))
    partial.current.org_name = "<b>Acme</b>"
    page = partial.to_html(tmp_path / "partial.html").read_text(encoding="utf-8")
    assert page.index('class="partial"') < page.index("<h2>Summary</h2>")
    assert "<b>Acme</b>" not in page and "&lt;b&gt;Acme&lt;/b&gt;" in page


def test_notebook_view_and_repr_give_the_counts(changed):
    before, after = changed
    diff = after.diff(before)
    view = diff._repr_html_()
    assert f"<b>{diff.count('granted')}</b>granted" in view
    assert repr(diff).startswith(f"AccessDiff(org_id='{after.org_id}', granted=")
    top = diff.top_changes(5)
    assert top.columns.tolist() == ["change", "space", "who", "what"] and len(top) == 5
    assert top["change"].iloc[0].startswith("new high finding")


# -- against a plain reading of the tables --------------------------------------------------------
def random_org(seed: int, *, changed: bool) -> Org:
    """Twelve members, three teams, two collections, eight spaces with random grants; the
    changed organization redraws a third of the grants and a default level."""
    import random

    draw = random.Random(seed)
    roles = ["read", "comment", "edit", "review", "create", "admin"]
    org = Org().member("boss", "admin")
    users = [f"u{i}" for i in range(12)]
    for user in users:
        org.member(user, draw.choice([None, "read", "edit"]))
    for team in ("t1", "t2", "t3"):
        org.team(team, *draw.sample(users, 3))
    org.collection("c1", default="read").collection("c2", parent="c1")
    grants = [
        (target, holder, draw.choice(roles))
        for target in [*(f"s{i}" for i in range(8)), "c1", "c2"]
        for holder in draw.sample([*users, "t1", "t2", "t3"], 4)
    ]
    levels = {f"s{i}": draw.choice([None, "inherit", "read"]) for i in range(8)}
    if changed:
        again = random.Random(seed + 1000)
        grants = [
            (t, h, again.choice(roles)) if again.random() < 0.33 else (t, h, r)
            for t, h, r in grants
            if again.random() > 0.1
        ]
        levels["s0"] = "edit"
    for i in range(8):
        org.space(f"s{i}", parent="c2" if i % 3 == 0 else None, default=levels[f"s{i}"])
    for target, holder, role in grants:
        org.grant(target, holder, role)
    return org


def plain_reading(before, after) -> dict[str, set]:
    """The changes by set operations on rows, without the diff's integer keys."""

    def roles(audit):
        table = audit.effective.astype(object)
        rows = zip(table.space_id, table.user_id, table.role, strict=True)
        return {(s, u): r for s, u, r in rows}

    def paths(audit):
        found: dict[tuple, set] = {}
        for s, u, source, role in (
            audit.paths[["space_id", "user_id", "source", "role"]]
            .astype(object)
            .itertuples(index=False)
        ):
            found.setdefault((s, u), set()).add((source, role))
        return found

    old, new = roles(before), roles(after)
    old_paths, new_paths = paths(before), paths(after)
    both = old.keys() & new.keys()
    rank = {role: i for i, role in enumerate(ROLES)}
    return {
        "granted": new.keys() - old.keys(),
        "revoked": old.keys() - new.keys(),
        "raised": {k for k in both if rank[new[k]] > rank[old[k]]},
        "lowered": {k for k in both if rank[new[k]] < rank[old[k]]},
        "rerouted": {k for k in both if new[k] == old[k] and old_paths.get(k) != new_paths.get(k)},
    }


@pytest.mark.parametrize("seed", range(6))
def test_the_diff_agrees_with_a_plain_reading_of_the_tables(seed):
    before = random_org(seed, changed=False).audit()
    after = random_org(seed, changed=True).audit()
    diff = after.diff(before)
    expected = plain_reading(before, after)
    assert sum(len(v) for v in expected.values()) > 5  # the organizations do differ
    for kind, pairs_expected in expected.items():
        assert pairs(diff.tables()[kind]) == pairs_expected, kind
    changed_paths = diff.changed_paths
    for row in diff.raised.itertuples():
        added = changed_paths[
            (changed_paths.space_id == row.space_id)
            & (changed_paths.user_id == row.user_id)
            & (changed_paths.change == "added")
        ]
        removed = changed_paths[
            (changed_paths.space_id == row.space_id)
            & (changed_paths.user_id == row.user_id)
            & (changed_paths.change == "removed")
        ]
        # a path that gives the new role, or (precedence) a nearer one that was removed
        assert (added["role"] == row.role_after).any() or len(removed)
