"""Audit snapshots: exact round trips, refused snapshots, atomic writes, secrets, extra tables."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from audit_org import NOW, Org
from pandas.testing import assert_frame_equal

import docsapi
from docsapi import audit_permissions
from docsapi.audit import PermissionAudit, analyze
from docsapi.audit.data import ROLE_DTYPE, SEVERITY_DTYPE, text_categorical
from docsapi.audit.rules import AuditThresholds
from docsapi.audit.snapshot.store import (
    FORMAT_VERSION,
    MANIFEST,
    history,
    list_tables,
    load_table,
    read_info,
    save_dated,
    save_table,
)
from docsapi.core.integrity import seal
from docsapi.errors import DocsAPIError, SnapshotError, ValidationError

ATTRIBUTES = ("org_id", "org_name", "generated_at", "thresholds", "complete")
CRAWL_FACTS = ("token_role", "spaces_reported", "invite_links_enabled", "not_read")


def assert_same_audit(saved: PermissionAudit, loaded: PermissionAudit) -> None:
    """Every table (dtypes included), every raw table and every attribute are equal."""
    for name, table in saved.tables().items():
        assert_frame_equal(loaded.tables()[name], table, check_exact=True, obj=name)
    for name, table in saved.data.tables().items():
        assert_frame_equal(loaded.data.tables()[name], table, check_exact=True, obj=name)
    for attribute in ATTRIBUTES:
        assert getattr(loaded, attribute) == getattr(saved, attribute), attribute
    assert str(loaded.generated_at.tz) == str(saved.generated_at.tz)
    for fact in CRAWL_FACTS:
        assert getattr(loaded.data, fact) == getattr(saved.data, fact), fact
    assert (loaded.data.org_id, loaded.data.org_name) == (saved.data.org_id, saved.data.org_name)


def edge_case_org() -> Org:
    """Missing values everywhere they may be: a guest, a member never seen (NaT), a space
    without title parent or default, a team whose members failed, a share link without an
    ``active`` flag, no invite links, a failed read (so the audit is partial)."""
    org = Org().member("boss", "admin").member("g1", None).member("m1", "edit", seen_days_ago=None)
    org.member("m2", "read", disabled=True).team("t1", "m1").team("t2", listed=True)
    org.rows["team_members"].append({"team_id": "t2", "user_id": "m2"})
    org.collection("c1", default="inherit").space("s1", parent="c1").space("s2", default="read")
    org.space("s3", visibility="unlisted").space("s4", trashed=True)
    org.grant("s1", "g1", "edit").grant("s2", "t1", "admin").grant("c1", "t2", "comment")
    org.grant("s3", "m2", "edit")
    org.site("w1", "share-link", "s1", "s3").share_link("w1", "l1", age_days=120, active=None)
    org.fail("team", "t3", "team members")
    org.rows["share_links"][0]["url_published"] = "https://w1.example/~share/********"  # as read
    return org


@pytest.fixture(scope="module")
def demo_audit(sandbox_server):
    sandbox_server.reset()
    return audit_permissions(sandbox_server.client(), sandbox_server.org_id, progress=False)


@pytest.fixture
def saved(demo_audit, tmp_path, monkeypatch) -> Path:
    """The demo saved and read with no signing key (``DOCSAPI_SIGNING_KEY=none``): an edit
    sealed again must get past the checks behind the seal (signed snapshots: test_integrity)."""
    monkeypatch.setenv("DOCSAPI_SIGNING_KEY", "none")
    return demo_audit.save(tmp_path / "snapshot")


def manifest_of(folder: Path) -> dict:
    return json.loads((folder / MANIFEST).read_text(encoding="utf-8"))


def rewrite_manifest(folder: Path, change) -> None:
    """Change snapshot.json and seal it again, as someone without a signing key can: the
    checks behind the seal are what a change must get past then."""
    manifest = manifest_of(folder)
    change(manifest)
    (folder / MANIFEST).write_text(json.dumps(seal(manifest, None)), encoding="utf-8")


# -- round trips ----------------------------------------------------------------------------------
def test_a_sandbox_audit_loads_back_equal(demo_audit, saved):
    loaded = docsapi.load_audit(saved)
    assert isinstance(loaded, PermissionAudit)
    assert_same_audit(demo_audit, loaded)
    assert loaded.findings["severity"].dtype == SEVERITY_DTYPE  # ordered categoricals
    assert loaded.effective["role"].dtype == ROLE_DTYPE
    assert loaded.snapshot.path == saved
    assert loaded.snapshot.org_id == demo_audit.org_id
    assert repr(loaded) == repr(demo_audit)
    report = loaded.to_html(saved.parent / "report.html").read_text(encoding="utf-8")
    assert "<h2>Findings</h2>" in report and set(loaded.plot()) == set(demo_audit.plot())


def test_a_hand_made_audit_with_edge_cases_loads_back_equal(tmp_path):
    audit = edge_case_org().audit(
        expand_teams=False, thresholds=AuditThresholds(max_admins=2, inactive_days=30)
    )
    assert not audit.complete and audit.exposure["share_link_active"].isna().any()
    assert audit.effective["last_seen_at"].isna().any()  # NaT survives
    assert len(audit.data.invite_links) == 0 and len(audit.aggregate_mismatches) == 0
    loaded = docsapi.load_audit(audit.save(tmp_path / "edge"))
    assert_same_audit(audit, loaded)
    assert loaded.snapshot.expand_teams is False and not loaded.snapshot.complete


def test_an_empty_organization_loads_back_equal(tmp_path):
    audit = Org().member("boss", "admin").audit()
    assert audit.effective.empty and audit.matrix.empty and audit.findings.empty
    assert_same_audit(audit, docsapi.load_audit(audit.save(tmp_path / "empty")))


def test_a_loaded_audit_is_analysed_again_without_a_request(tmp_path):
    audit = edge_case_org().audit(thresholds=AuditThresholds(max_admins=2))
    loaded = docsapi.load_audit(audit.save(tmp_path / "s"))
    again = analyze(loaded.data, thresholds=loaded.thresholds)
    for name, table in audit.tables().items():
        assert_frame_equal(again.tables()[name], table, check_exact=True, obj=name)


def test_a_loaded_audit_saves_again_to_an_equal_snapshot(demo_audit, saved, tmp_path):
    loaded = docsapi.load_audit(saved)
    assert_same_audit(demo_audit, docsapi.load_audit(loaded.save(tmp_path / "copy")))


def test_snapshot_json_lists_every_file_with_its_sha256(demo_audit, saved):
    manifest = manifest_of(saved)
    files = {entry["path"]: entry for entry in manifest["files"]}
    on_disk = {p.relative_to(saved).as_posix() for p in saved.rglob("*") if p.is_file()} - {
        MANIFEST
    }
    assert set(files) == on_disk
    for path, entry in files.items():
        assert entry["sha256"] == hashlib.sha256((saved / path).read_bytes()).hexdigest()
    assert {p.split("/")[0] for p in files} == {"audit", "data"}
    assert manifest["format_version"] == FORMAT_VERSION
    assert manifest["docsapi_version"] == docsapi.__version__
    assert manifest["organization"] == {"id": demo_audit.org_id, "name": demo_audit.org_name}
    assert manifest["thresholds"] == {
        "admin_share": 0.5,
        "max_admins": 5,
        "inactive_days": 90,
        "share_link_max_age_days": 90,
        "guest_collection_spaces": 5,
    }
    assert [row["item"] for row in manifest["coverage"]] == demo_audit.coverage["item"].tolist()
    assert manifest["complete"] is True
    info = read_info(saved)
    assert info.counts["spaces"] == demo_audit.count("spaces") == 30
    assert info.counts["findings"] == len(demo_audit.findings)
    assert info.generated_at == demo_audit.generated_at


def test_the_tables_are_plain_parquet_other_tools_read(saved, demo_audit):
    effective = pd.read_parquet(saved / "audit" / "effective.parquet")
    assert (
        effective["user_id"].astype(str).tolist()
        == demo_audit.effective["user_id"].astype(str).tolist()
    )


# -- refused snapshots ----------------------------------------------------------------------------
def _newer(folder: Path) -> None:
    def change(manifest):
        manifest["format_version"] = FORMAT_VERSION + 1
        manifest["docsapi_version"] = "9.9.9"

    rewrite_manifest(folder, change)


def test_a_snapshot_of_a_newer_format_is_refused_naming_both_versions(saved):
    _newer(saved)
    with pytest.raises(SnapshotError) as refused:
        docsapi.load_audit(saved)
    message = str(refused.value)
    assert f"format {FORMAT_VERSION + 1}" in message and "docsapi 9.9.9" in message
    assert f"docsapi {docsapi.__version__}" in message and f"to {FORMAT_VERSION}" in message
    assert "upgrade" in message


def test_a_snapshot_of_a_format_no_longer_read_is_refused_naming_both_versions(saved):
    rewrite_manifest(saved, lambda m: m.update(format_version=0, docsapi_version="0.0.1"))
    with pytest.raises(SnapshotError) as refused:
        docsapi.load_audit(saved)
    message = str(refused.value)
    assert "format 0" in message and "docsapi 0.0.1" in message
    assert f"docsapi {docsapi.__version__}" in message and "no longer reads" in message


def _flip_a_byte(folder: Path) -> None:
    file = folder / "audit" / "effective.parquet"
    data = bytearray(file.read_bytes())
    data[len(data) // 2] ^= 0xFF
    file.write_bytes(bytes(data))


def _truncate(folder: Path) -> None:
    file = folder / "data" / "members.parquet"
    file.write_bytes(file.read_bytes()[: file.stat().st_size // 2])


def _truncate_and_record(folder: Path) -> None:
    """Cut a file short and record its new checksum, as a careless copy tool might."""
    _truncate(folder)
    digest = hashlib.sha256((folder / "data" / "members.parquet").read_bytes()).hexdigest()

    def change(manifest):
        for entry in manifest["files"]:
            if entry["path"] == "data/members.parquet":
                entry["sha256"] = digest

    rewrite_manifest(folder, change)


def _drop_a_column(folder: Path) -> None:
    """Replace the findings with a well-formed table lacking a column of the contract."""
    from docsapi.data import frame_store as _frame_store

    file = folder / "audit" / "findings.parquet"
    frame = docsapi.load_audit(folder).findings.drop(columns=["detail"])
    layout = _frame_store.write_frame(frame, file)
    digest = hashlib.sha256(file.read_bytes()).hexdigest()

    def change(manifest):
        for entry in manifest["files"]:
            if entry["path"] == "audit/findings.parquet":
                entry.update(sha256=digest, layout=layout)

    rewrite_manifest(folder, change)


def _unlist(folder: Path) -> None:
    rewrite_manifest(
        folder,
        lambda m: m.update(files=[e for e in m["files"] if e["path"] != "audit/paths.parquet"]),
    )


def _damage_json(folder: Path) -> None:
    text = (folder / MANIFEST).read_text(encoding="utf-8")
    (folder / MANIFEST).write_text(text[: len(text) // 2], encoding="utf-8")


CORRUPTIONS = {
    "changed byte": (_flip_a_byte, "audit/effective.parquet is corrupt"),
    "truncated file": (_truncate, "data/members.parquet is corrupt"),
    "truncated parquet, checksum recorded": (_truncate_and_record, "cannot be read as Parquet"),
    "missing file": (
        lambda f: (f / "audit" / "paths.parquet").unlink(),
        "audit/paths.parquet is missing",
    ),
    "table not listed": (_unlist, "lists no audit table paths"),
    "column dropped": (_drop_a_column, "lacks columns ['detail']"),
    "damaged snapshot.json": (_damage_json, "snapshot.json is not valid JSON"),
    "snapshot.json removed": (lambda f: (f / MANIFEST).unlink(), "no snapshot.json"),
    "foreign snapshot.json": (
        lambda f: (f / MANIFEST).write_text('{"name": "my-package"}', encoding="utf-8"),
        "does not describe a docsapi audit snapshot",
    ),
    "garbled field": (
        lambda f: rewrite_manifest(f, lambda m: m.pop("thresholds")),
        "lacks or garbles 'thresholds'",
    ),
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_a_damaged_snapshot_is_refused_with_a_clear_error(saved, corruption):
    damage, expected = CORRUPTIONS[corruption]
    damage(saved)
    with pytest.raises(SnapshotError) as refused:
        docsapi.load_audit(saved)
    assert isinstance(refused.value, DocsAPIError)
    assert expected in str(refused.value)
    assert str(saved) in str(refused.value)


def test_a_foreign_folder_a_file_and_a_missing_path_are_refused(tmp_path):
    foreign = tmp_path / "photos"
    foreign.mkdir()
    (foreign / "cat.jpg").write_bytes(b"\xff\xd8")
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    for path, expected in (
        (foreign, "no snapshot.json"),
        (tmp_path / "notes.txt", "this is a file"),
        (tmp_path / "nowhere", "does not exist"),
    ):
        with pytest.raises(SnapshotError, match=expected):
            docsapi.load_audit(path)
    with pytest.raises(ValidationError, match="path"):
        docsapi.load_audit("")


# -- writing safely -------------------------------------------------------------------------------
def _unsavable(audit: PermissionAudit) -> PermissionAudit:
    """The audit with a findings column Parquet cannot hold: writing fails midway."""
    audit.findings = audit.findings.assign(detail=[{1, 2}] * len(audit.findings))
    return audit


def test_a_failed_write_leaves_nothing_behind(saved, tmp_path):
    target = tmp_path / "out" / "snapshot"
    with pytest.raises(ValidationError, match="detail"):
        _unsavable(docsapi.load_audit(saved)).save(target)
    assert not target.exists()
    assert list((tmp_path / "out").iterdir()) == []  # no half-written hidden folder


def test_a_failed_overwrite_keeps_the_old_snapshot(demo_audit, saved, tmp_path):
    broken = _unsavable(docsapi.load_audit(saved))
    with pytest.raises(ValidationError):
        broken.save(saved, overwrite=True)
    assert_same_audit(demo_audit, docsapi.load_audit(saved))
    assert [p.name for p in saved.parent.iterdir()] == [saved.name]


def test_an_existing_snapshot_is_replaced_only_when_asked(demo_audit, saved, tmp_path):
    other = Org().member("boss", "admin").audit()
    with pytest.raises(ValidationError, match="overwrite=True"):
        other.save(saved)
    assert docsapi.load_audit(saved).org_id == demo_audit.org_id
    other.save(saved, overwrite=True)
    assert docsapi.load_audit(saved).org_id == "org"
    assert [p.name for p in saved.parent.iterdir()] == [saved.name]


def test_a_folder_that_is_not_a_snapshot_is_never_overwritten(demo_audit, tmp_path):
    folder = tmp_path / "documents"
    folder.mkdir()
    (folder / "thesis.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(ValidationError, match="not a snapshot"):
        demo_audit.save(folder, overwrite=True)
    assert (folder / "thesis.txt").read_text(encoding="utf-8") == "keep me"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert demo_audit.save(empty) == empty and (empty / MANIFEST).is_file()


def test_save_checks_its_arguments(demo_audit):
    from docsapi.audit.snapshot.store import save_audit

    with pytest.raises(ValidationError, match="PermissionAudit"):
        save_audit("not an audit", "x")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="path"):
        demo_audit.save(None)  # type: ignore[arg-type]


# -- secrets --------------------------------------------------------------------------------------
def every_byte(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def test_no_token_share_link_key_or_private_key_is_saved(sandbox, canary_token, tmp_path):
    share_site = sandbox.demo["sites"]["share-link"]
    sandbox.create_share_link(share_site, "Board review")
    sandbox.add_token(canary_token, scheme="user", user_id=sandbox.demo["owner_id"])
    client = docsapi.DocsClient(token=canary_token, base_url=sandbox.url, max_retries=0)
    sandbox.inject("503", count=1, path=f"/orgs/{sandbox.org_id}/sites/{share_site}/share-links")
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    assert len(audit.errors)  # a failed read's message is saved too
    folder = audit.save(tmp_path / "snapshot")
    pasted = pd.DataFrame(
        {
            "note": [f"token {canary_token} was pasted"],
            "body": np.array([{"headers": {"token": canary_token}}], dtype=object),
        }
    )
    save_table(folder, "notes", pasted)
    assert load_table(folder, "notes")["body"][0] == {"headers": {"token": "********"}}
    state = sandbox._store.state
    secrets = [canary_token, sandbox.token]
    secrets += [link["key"] for links in state.share_links.values() for link in links.values()]
    secrets += [auth["privateKey"] for auth in state.site_auth.values()]
    assert len(secrets) >= 8
    saved_bytes = every_byte(folder)
    for secret in secrets:
        assert secret.encode() not in saved_bytes


def test_a_hand_made_audit_has_its_keys_masked_on_the_way_out(tmp_path):
    org = Org().member("boss", "admin").space("s1").site("w1", "share-link", "s1")
    org.share_link("w1", "l1", age_days=3)
    org.rows["spaces"][0]["url_published"] = "https://d.example/s1/?token=s3cr3t-query"
    audit = org.audit()
    assert "secret-l1" in "".join(audit.data.share_links["url_published"])
    folder = audit.save(tmp_path / "s")
    saved_bytes = every_byte(folder)
    assert b"secret-l1" not in saved_bytes and b"s3cr3t-query" not in saved_bytes
    loaded = docsapi.load_audit(folder)
    assert loaded.data.share_links["url_published"].tolist() == [
        "https://w1.example/~share/********"
    ]


# -- tables saved with a snapshot -----------------------------------------------------------------
def decisions_frame() -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "space_id": pd.array(["s1", "s2", None], dtype="string[python]"),
            "user_id": text_categorical(["u1", "u1", "u2"]),
            "decision": pd.Categorical(
                ["keep", "revoke", None], categories=["keep", "revoke", "lower"]
            ),
            "lower_to": pd.Categorical([None, None, "read"], dtype=ROLE_DTYPE),
            "decided_at": pd.to_datetime(
                ["2026-06-01T10:00:00Z", None, "2026-06-02T11:30:00.123456Z"],
                utc=True,
                format="ISO8601",
            ),
            "body": np.array([{"role": "read"}, None, [1, "two"]], dtype=object),
            "comment": np.array(["ok", None, "left the company"], dtype=object),
            "score": [1.5, np.nan, 3.0],
            "applied": pd.array([True, None, False], dtype="boolean"),
        },
        index=pd.Index([10, 20, 30], name="decision_id"),
    )
    frame.attrs = {"reviewer": "Ada", "round": 2}
    return frame


def test_a_table_saved_with_a_snapshot_loads_back_exactly(saved):
    frame = decisions_frame()
    save_table(saved, "decisions", frame)
    loaded = load_table(saved, "decisions")
    assert_frame_equal(loaded, frame, check_exact=True)
    assert loaded.attrs == {"reviewer": "Ada", "round": 2}
    assert loaded["body"].tolist()[0] == {"role": "read"}
    empty = frame.iloc[:0]
    save_table(saved, "empty_decisions", empty)
    assert_frame_equal(load_table(saved, "empty_decisions"), empty, check_exact=True)
    assert list_tables(saved) == ["decisions", "empty_decisions"]
    assert read_info(saved).extras == ("decisions", "empty_decisions")


def test_saving_a_table_again_replaces_it(saved):
    save_table(saved, "decisions", decisions_frame())
    second = decisions_frame().iloc[:1]
    save_table(saved, "decisions", second)
    assert_frame_equal(load_table(saved, "decisions"), second, check_exact=True)
    assert len(list((saved / "extra").iterdir())) == 1
    assert [e["path"].split("-")[0] for e in manifest_of(saved)["files"]].count(
        "extra/decisions"
    ) == 1


def test_saved_tables_are_checked_with_the_snapshot(demo_audit, saved):
    file = save_table(saved, "decisions", decisions_frame())
    assert_same_audit(demo_audit, docsapi.load_audit(saved))
    file.write_bytes(file.read_bytes()[:-10])
    for load in (lambda: load_table(saved, "decisions"), lambda: docsapi.load_audit(saved)):
        with pytest.raises(SnapshotError, match="corrupt"):
            load()


def test_saved_tables_refuse_bad_names_unknown_tables_and_non_snapshots(saved, tmp_path):
    for name in ("Decisions", "../escape", "", "a-b", 7):
        with pytest.raises(ValidationError, match="name"):
            save_table(saved, name, decisions_frame())  # type: ignore[arg-type]
    with pytest.raises(SnapshotError, match=r"no table 'plan' saved with it \(saved: none\)"):
        load_table(saved, "plan")
    with pytest.raises(SnapshotError, match=r"no snapshot\.json"):
        save_table(tmp_path, "decisions", decisions_frame())
    with pytest.raises(ValidationError, match="column labels must be text"):
        save_table(saved, "numbers", pd.DataFrame({0: [1]}))
    _newer(saved)
    with pytest.raises(SnapshotError, match="format"):
        save_table(saved, "decisions", decisions_frame())


# -- dated snapshots ------------------------------------------------------------------------------
def test_dated_snapshots_are_listed_oldest_first(sandbox, tmp_path):
    first = audit_permissions(sandbox.client(), sandbox.org_id, progress=False)
    sandbox.grant(sandbox.demo["space_ids"][0], sandbox.demo["guest_ids"][0], "edit")
    sandbox.advance_clock(days=31)
    second = audit_permissions(sandbox.client(), sandbox.org_id, progress=False)
    root = tmp_path / "snapshots"
    later = save_dated(second, root)
    earlier = save_dated(first, root)
    again = save_dated(first, root)
    assert later.parent == earlier.parent == root / sandbox.org_id
    assert earlier.name == first.generated_at.strftime("%Y%m%dT%H%M%SZ")
    assert again.name == f"{earlier.name}-2"
    Org().member("boss", "admin").audit().save(root / "org" / "20260601T000000Z")
    kept = history(root)
    assert kept["org_id"].tolist() == sorted(["org", *[sandbox.org_id] * 3])
    ours = kept[kept["org_id"] == sandbox.org_id]
    assert ours["path"].tolist() == [str(earlier), str(again), str(later)]
    assert ours["findings"].tolist() == [len(first.findings)] * 2 + [len(second.findings)]
    assert ours["spaces"].tolist() == [30, 30, 30] and ours["complete"].all()
    assert ours["problem"].isna().all()
    only = history(root, org_id="org")
    assert_frame_equal(only, kept[kept["org_id"] == "org"].reset_index(drop=True))


def test_history_names_a_damaged_snapshot_instead_of_failing(saved, tmp_path):
    _damage_json(saved)
    (tmp_path / "unrelated").mkdir()
    kept = history(tmp_path)
    assert kept["path"].tolist() == [str(saved)]
    assert "not valid JSON" in kept["problem"].iloc[0]
    with pytest.raises(ValidationError, match="not a folder"):
        history(tmp_path / "nowhere")


def test_save_keeps_the_snapshot_info_on_the_audit(tmp_path):
    audit = Org().member("boss", "admin").audit()
    assert audit.snapshot is None
    folder = audit.save(tmp_path / "s")
    assert audit.snapshot.path == folder and audit.snapshot.saved_at <= pd.Timestamp.now(tz="UTC")
    assert audit.snapshot.generated_at == NOW


def test_a_snapshot_written_before_the_audit_log_loads_with_unknown_provenance(saved):
    def as_format_2(manifest: dict) -> None:
        manifest["format_version"] = 2
        manifest["files"] = [
            f
            for f in manifest["files"]
            if f["path"] not in ("data/events.parquet", "audit/provenance.parquet")
        ]
        del manifest["crawl"]["events_since"]

    rewrite_manifest(saved, as_format_2)
    for name in ("data/events.parquet", "audit/provenance.parquet"):
        (saved / name).unlink()
    loaded = docsapi.load_audit(saved)
    assert loaded.data.events.empty and loaded.data.events_since is None
    assert set(loaded.grants["provenance"]) == {"unknown: the audit log was not read"}
    assert loaded.grants["granted_at"].isna().all() and loaded.provenance.empty
