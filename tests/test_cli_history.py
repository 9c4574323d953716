"""``docsapi audit --save``, ``docsapi history`` and ``docsapi diff``: output and exit codes."""

from __future__ import annotations

import pytest
from audit_org import Org

from docsapi import audit_permissions
from docsapi.audit.snapshot.store import save_dated
from docsapi.cli import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    printed = capsys.readouterr()
    return status, printed.out, printed.err


def audit_of(sandbox):
    return audit_permissions(sandbox.client(), sandbox.org_id, progress=False)


@pytest.fixture
def two_snapshots(sandbox, tmp_path):
    """Snapshots of the demo before and after a guest is given edit access to a space."""
    root = tmp_path / "snapshots"
    old = save_dated(audit_of(sandbox), root)
    guest = sandbox.demo["guest_ids"][0]
    space = sandbox.demo["space_ids"][0]
    sandbox.grant(space, guest, "edit")
    sandbox.advance_clock(days=30)
    new = save_dated(audit_of(sandbox), root)
    return root, old, new


def test_audit_save_keeps_a_dated_snapshot_the_history_lists(
    sandbox, capsys, monkeypatch, canary_token, tmp_path
):
    sandbox.add_token(canary_token, user_id=sandbox.demo["owner_id"])
    monkeypatch.setenv("GITBOOK_API_TOKEN", canary_token)
    root = tmp_path / "snapshots"
    options = ["--org", sandbox.org_id, "--base-url", sandbox.url, "--no-progress"]
    options += ["--out", str(tmp_path / "report.html"), "--save", str(root)]
    for _ in range(2):
        status, out, err = run(capsys, "audit", *options)
        assert status == 0, err
    kept = sorted((root / sandbox.org_id).iterdir())
    assert len(kept) == 2
    assert f"Snapshot: {kept[-1].resolve()}" in out
    status, out, err = run(capsys, "history", str(root))
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == [
        "org_id",
        "org_name",
        "generated_at",
        "complete",
        "spaces",
        "users",
        "findings",
        "high",
        "path",
    ]
    assert len(lines) == 3
    for line, folder in zip(lines[1:], kept, strict=True):
        assert line.startswith(sandbox.org_id) and line.endswith(str(folder))
        assert " yes " in line and " 30 " in line
    assert all(canary_token.encode() not in p.read_bytes() for p in root.rglob("*.*"))


def test_demo_save_and_history_of_one_organization(sandbox_server, capsys, tmp_path):
    root = tmp_path / "snapshots"
    status, out, _ = run(
        capsys, "demo", "--no-progress", "--out", str(tmp_path / "r.html"), "--save", str(root)
    )
    assert status == 0 and "Snapshot: " in out
    Org().member("boss", "admin").audit().save(root / "org" / "20260601T000000Z")
    status, out, _ = run(capsys, "history", str(root), "--org", "org")
    assert status == 0
    assert len(out.splitlines()) == 2 and out.splitlines()[1].split()[0] == "org"


def test_history_of_an_empty_folder_or_a_missing_one(capsys, tmp_path):
    status, out, _ = run(capsys, "history", str(tmp_path))
    assert status == 0 and out.startswith("No snapshots under")
    status, out, err = run(capsys, "history", str(tmp_path / "nowhere"))
    assert status == 2 and out == ""
    assert err.startswith("docsapi: error: ") and "is not a folder" in err
    assert len(err.splitlines()) == 1


def test_history_shows_why_a_snapshot_cannot_be_read(two_snapshots, capsys):
    root, old, _ = two_snapshots
    (old / "snapshot.json").write_text("{", encoding="utf-8")
    status, out, _ = run(capsys, "history", str(root))
    assert status == 0
    assert out.splitlines()[0].split()[-1] == "problem" and "not valid JSON" in out


def test_diff_prints_the_summary_and_the_changes_to_look_at_first(two_snapshots, capsys, tmp_path):
    _, old, new = two_snapshots
    html = tmp_path / "changes.html"
    status, out, err = run(capsys, "diff", str(old), str(new), "--html", str(html))
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Changes in Stark Devices (") and lines[0].endswith("UTC:")
    assert lines[1] == "Access: 1 granted, 0 revoked, 0 raised, 0 lowered, 0 through other paths."
    assert lines[2].startswith("Findings: 1 new, ") and "Exposure: 0 added, 0 removed." in lines[2]
    assert lines[3] == "Look at these first:"
    assert lines[4].startswith("  - new high finding, ") and "guest" in lines[4]
    assert lines[5].startswith("  - granted, ") and lines[5].endswith(
        ": no access -> edit, via direct (edit)"
    )
    assert f"HTML: {html.resolve()}" in out and html.stat().st_size > 10_000


def test_diff_without_changes_says_so(two_snapshots, capsys):
    _, old, _ = two_snapshots
    status, out, _ = run(capsys, "diff", str(old), str(old))
    assert status == 0 and out.splitlines()[-1] == "Nothing changed."


def test_diff_of_a_damaged_snapshot_fails_naming_the_file(two_snapshots, capsys):
    _, old, new = two_snapshots
    members = new / "data" / "members.parquet"
    members.write_bytes(members.read_bytes()[:100])
    status, out, err = run(capsys, "diff", str(old), str(new))
    assert status == 2 and out == ""
    assert "data/members.parquet is corrupt" in err and len(err.splitlines()) == 1


def test_diff_of_two_organizations_is_refused(two_snapshots, capsys, tmp_path):
    _, old, _ = two_snapshots
    other = Org().member("boss", "admin").audit().save(tmp_path / "other")
    status, _, err = run(capsys, "diff", str(old), str(other))
    assert status == 2 and "cannot compare these snapshots" in err


def test_diff_of_a_partial_snapshot_says_so_and_exits_3(capsys, tmp_path):
    org = Org().member("boss", "admin").member("m1", "edit").team("t1", "m1").space("s1")
    org.grant("s1", "t1", "admin")
    old = org.audit().save(tmp_path / "old")
    org.rows["team_members"] = []
    org.fail("team", "t1", "team members")
    new = org.audit().save(tmp_path / "new")
    status, out, err = run(capsys, "diff", str(old), str(new))
    assert status == 3
    assert out.splitlines()[0].startswith("PARTIAL AUDIT: The current audit")
    assert "--allow-partial" in err
    status, out, _ = run(capsys, "diff", str(old), str(new), "--allow-partial")
    assert status == 0 and "1 revoked" in out
