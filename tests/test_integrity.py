"""Plans, snapshots and evidence are verifiable: every tampering is refused, naming what changed.

A review of the demo (a snapshot, decisions saved with it, a signed-off plan, the evidence)
is written once, without a signing key (``DOCSAPI_SIGNING_KEY=none``) and with one; each
test edits a copy as an attacker would, then runs ``docsapi verify`` and ``docsapi review
apply`` on it: both exit non-zero, say what differs, and nothing is sent.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

import docsapi
from docsapi import AccessReview
from docsapi.audit.snapshot.files import MANIFEST
from docsapi.cli import main
from docsapi.core.integrity import seal
from docsapi.credentials.signing import NO_KEY, SIGNING_KEY_VARIABLE
from docsapi.data import frame_store
from docsapi.review._plan import call_id

KEY = secrets.token_hex(32)
PLAN = "plan.json"
PLAN_MANIFEST = "plan.json.manifest.json"
EVIDENCE = "evidence.xlsx"


def _write_review(sandbox, folder: Path) -> None:
    """Snapshot, decisions (revokes, a lower, keeps), sign-off, plan and evidence."""
    sandbox.reset()
    audit = docsapi.audit_permissions(
        sandbox.client(), sandbox.org_id, progress=False, model="highest"
    )
    audit.save(folder / "snapshot")
    review = AccessReview(docsapi.load_audit(folder / "snapshot"), reviewer="Rita Reviewer")
    direct = review.decisions[review.decisions["sources"] == "direct"].drop_duplicates("space_id")
    review.decide(direct.index[:3], "revoke", comment="left")
    review.decide(direct.index[3:4], "lower", lower_to="read")
    review.decide(direct.index[4:6], "keep")
    review.sign_off("Grace Owner", role="Head of Security")
    review.save()
    review.save_plan(folder / PLAN)
    review.to_excel(folder / EVIDENCE)


@pytest.fixture(scope="module")
def written(sandbox_server, tmp_path_factory) -> dict[bool, Path]:
    """The review written without a key (False) and with one (True)."""
    folders = {}
    for signed in (False, True):
        folder = tmp_path_factory.mktemp("signed" if signed else "unsigned")
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv(SIGNING_KEY_VARIABLE, KEY if signed else NO_KEY)
            _write_review(sandbox_server, folder)
        folders[signed] = folder
    return folders


def _copy(written: dict[bool, Path], signed: bool, tmp_path: Path) -> Path:
    """A copy of the review; the snapshot path its plan records is pointed at the copy."""
    folder = Path(shutil.copytree(written[signed], tmp_path / "review"))
    manifest = json.loads((folder / PLAN_MANIFEST).read_text())
    assert manifest["source"]["snapshot"] == str((written[signed] / "snapshot").resolve())
    return folder


def _run(capsys, *args: str) -> tuple[int, str]:
    status = main(list(args))
    printed = capsys.readouterr()
    return status, printed.out + printed.err


# -- editing, as an attacker would --------------------------------------------------------------
def _calls(folder: Path) -> list[dict]:
    return json.loads((folder / PLAN).read_text())


def _write_calls(folder: Path, calls: list[dict]) -> None:
    (folder / PLAN).write_text(json.dumps(calls, indent=1))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _reseal(path: Path, change: Callable[[dict], None] = lambda m: None) -> None:
    """Edit a manifest and seal it again, as someone without the signing key can."""
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(seal(manifest, None)))


def _rehash_plan_manifest(folder: Path, *, calls_too: bool = False) -> None:
    """Record the plan file's new SHA-256 in its manifest (and, with ``calls_too``, its
    calls, its digest and the sign-off's), sealed again without the key."""

    def change(manifest: dict) -> None:
        manifest["file"] = {
            "sha256": _sha256(folder / PLAN),
            "bytes": (folder / PLAN).stat().st_size,
        }
        if calls_too:
            from docsapi.review import read_plan
            from docsapi.review._plan_seal import plan_digest

            plan = read_plan(folder / PLAN)
            manifest["calls"] = [
                {"step": int(s), "call_id": c}
                for s, c in zip(plan["step"], plan["call_id"], strict=True)
            ]
            source = manifest["source"]
            digest = plan_digest(
                plan, manifest["org_id"], manifest["team_change"], source["decisions"]
            )
            manifest["plan_digest"] = digest
            for sign_off in manifest["sign_offs"]:
                sign_off["plan_digest"] = digest

    _reseal(folder / PLAN_MANIFEST, change)


def _raise_the_lower_call(folder: Path, *, new_id: bool = False) -> str:
    """The PATCH "lower to read" call says admin now (body and role)."""
    calls = _calls(folder)
    patch = next(c for c in calls if c["method"] == "PATCH")
    patch["role"], patch["body"] = "admin", {"role": "admin"}
    if new_id:
        patch["call_id"] = call_id(
            patch["operation"], patch["path"], patch["body"], patch["expect"]
        )
    _write_calls(folder, calls)
    return f'call {patch["step"]} (PATCH {patch["path"]} {{"role": "admin"}})'


def _add_a_delete(folder: Path, *, real_id: bool = False) -> str:
    """A copy of a DELETE call for another user, appended."""
    calls = _calls(folder)
    added = dict(next(c for c in calls if c["method"] == "DELETE"))
    members = docsapi.load_audit(folder / "snapshot").data.members["user_id"]
    other = next(u for u in members if u != added["user_id"])
    added["path"] = added["path"].rsplit("/", 1)[0] + f"/{other}"
    added["user_id"], added["step"] = other, len(calls) + 1
    added["expect"] = {"target": "space-user", "state": "edit"}
    real = call_id(added["operation"], added["path"], None, added["expect"])
    added["call_id"] = real if real_id else "0" * 12
    _write_calls(folder, [*calls, added])
    return f"call {added['step']} (DELETE {added['path']})"


def _remove_a_call(folder: Path) -> str:
    calls = _calls(folder)
    removed = calls.pop(1)
    _write_calls(folder, calls)
    return f"call {removed['step']} (id {removed['call_id']}) of the saved plan is missing"


def _snapshot_org(folder: Path, *, reseal: bool = False) -> str:
    """Another organization's id in snapshot.json."""
    path = folder / "snapshot" / MANIFEST
    if reseal:
        _reseal(path, lambda m: m["organization"].update(id="Another0rganization1"))
        return "snapshot.json: it is not signed, but a signing key is set"
    manifest = json.loads(path.read_text())
    manifest["organization"]["id"] = "Another0rganization1"
    path.write_text(json.dumps(manifest, indent=1))
    return "snapshot.json: its content differs from its digest"


def _grant_admin_and_rehash(folder: Path, *, keep_signature: bool = False) -> str:
    """A grant raised to admin in grants.parquet, its SHA-256 recorded, snapshot.json
    sealed again without the key (or its old signature kept)."""
    snapshot = folder / "snapshot"
    manifest = json.loads((snapshot / MANIFEST).read_text())
    entry = next(e for e in manifest["files"] if e["path"] == "audit/grants.parquet")
    grants = frame_store.read_frame(snapshot / entry["path"], entry["layout"]).copy(deep=True)
    grants.loc[grants.index[0], "role"] = "admin"
    entry["layout"] = frame_store.write_frame(grants, snapshot / entry["path"])
    entry["sha256"] = _sha256(snapshot / entry["path"])
    entry["bytes"] = (snapshot / entry["path"]).stat().st_size
    if keep_signature:
        signature = manifest["integrity"]
        manifest = seal(manifest, None)
        manifest["integrity"] = {**signature, "digest": manifest["integrity"]["digest"]}
        (snapshot / MANIFEST).write_text(json.dumps(manifest))
        return "snapshot.json: its signature does not match"
    (snapshot / MANIFEST).write_text(json.dumps(seal(manifest, None)))
    return "snapshot.json: it is not signed, but a signing key is set"


def _added_and_rehashed(folder: Path) -> str:
    """A DELETE call with a real id appended, the plan file's SHA-256 recorded."""
    added = _add_a_delete(folder, real_id=True)
    _rehash_plan_manifest(folder)
    return f"{added} is not in the saved plan"


def _plan_rehashed_without_the_key(folder: Path) -> str:
    _raise_the_lower_call(folder, new_id=True)
    _rehash_plan_manifest(folder, calls_too=True)
    return f"{PLAN_MANIFEST}: it is not signed, but a signing key is set"


def _everything_rehashed(folder: Path) -> str:
    """A call changed, its id, the manifest's calls, digests and sign-off made to match:
    only the decisions and the snapshot can tell."""
    expected = _raise_the_lower_call(folder, new_id=True)
    _rehash_plan_manifest(folder, calls_too=True)
    return f"{expected} differs from the calls its decisions make on the snapshot"


#: name: (signed, what is checked, the edit (answers words the refusal must hold)).
TAMPERINGS: dict[str, tuple[bool, str, Callable[[Path], str]]] = {
    "changed call, id kept": (
        False,
        PLAN,
        lambda f: _raise_the_lower_call(f) + " has the id",
    ),
    "changed call, id recomputed": (
        False,
        PLAN,
        lambda f: _raise_the_lower_call(f, new_id=True) + " differs from the saved plan",
    ),
    "changed call, everything re-hashed": (False, PLAN, _everything_rehashed),
    "added call, made-up id": (False, PLAN, lambda f: _add_a_delete(f) + " has the id"),
    "added call, real id, plan re-hashed": (False, PLAN, _added_and_rehashed),
    "removed call": (False, PLAN, _remove_a_call),
    "snapshot.json org id changed": (False, "snapshot", _snapshot_org),
    "snapshot.json org id changed, re-sealed without the key": (
        True,
        "snapshot",
        lambda f: _snapshot_org(f, reseal=True),
    ),
    "parquet re-hashed without the key": (True, "snapshot", _grant_admin_and_rehash),
    "parquet re-hashed, old signature kept": (
        True,
        "snapshot",
        lambda f: _grant_admin_and_rehash(f, keep_signature=True),
    ),
    "plan re-hashed without the key": (True, PLAN, _plan_rehashed_without_the_key),
    "evidence edited": (False, EVIDENCE, lambda f: _edit_evidence(f)),
    "evidence edited, manifest re-hashed without the key": (
        True,
        EVIDENCE,
        lambda f: _edit_evidence(f, rehash=True),
    ),
}


def _edit_evidence(folder: Path, *, rehash: bool = False) -> str:
    """A decision's comment changed in the evidence workbook."""
    path = folder / EVIDENCE
    book = openpyxl.load_workbook(path)
    book["decisions"]["K2"] = "approved by the CEO"
    book.save(path)
    if rehash:
        sha = _sha256(path)
        _reseal(
            path.with_name(path.name + ".manifest.json"), lambda m: m["file"].update(sha256=sha)
        )
        return f"{EVIDENCE}.manifest.json: it is not signed, but a signing key is set"
    return f"{EVIDENCE} differs from its manifest"


@pytest.mark.parametrize("signed", [False, True], ids=["digests", "signed"])
def test_an_untouched_review_verifies_and_applies(
    written, signed, tmp_path, capsys, monkeypatch, sandbox
):
    monkeypatch.setenv(SIGNING_KEY_VARIABLE, KEY if signed else NO_KEY)
    folder = _copy(written, signed, tmp_path)
    snapshot = str(folder / "snapshot")
    for target in (snapshot, str(folder / PLAN), str(folder / EVIDENCE)):
        status, out = _run(capsys, "verify", target, "--snapshot", snapshot)
        assert status == 0, out
        assert "Verified:" in out and "PROBLEM" not in out
        assert ("the signature was checked" in out) == signed
        assert ("UNSIGNED: this checks accidental damage only" in out) != signed
    status, out = _run(capsys, "verify", str(folder / PLAN), "--snapshot", snapshot)
    assert "every call follows from a decision" in out and "signed off by Grace Owner" in out
    monkeypatch.setenv("GITBOOK_API_TOKEN", sandbox.token)
    plan_args = ["review", "apply", str(folder / PLAN), "--snapshot", snapshot]
    status, out = _run(capsys, *plan_args, "--base-url", sandbox.url, "--no-progress")
    assert status == 0, out
    assert "4 of 4 calls done." in out
    for file in folder.rglob("*"):
        assert not file.is_file() or KEY.encode() not in file.read_bytes(), file
    assert KEY not in out


@pytest.mark.parametrize("case", list(TAMPERINGS))
def test_each_tampering_is_refused_naming_what_changed(
    written, case, tmp_path, capsys, monkeypatch, sandbox
):
    signed, target, tamper = TAMPERINGS[case]
    folder = _copy(written, signed, tmp_path)
    # the key is set now when it wrote the review; without one, nothing is checked against a key
    monkeypatch.setenv(SIGNING_KEY_VARIABLE, KEY if signed else NO_KEY)
    expected = tamper(folder)
    snapshot = str(folder / "snapshot")
    checked = snapshot if target == "snapshot" else str(folder / target)
    status, out = _run(capsys, "verify", checked, "--snapshot", snapshot)
    assert status == 1, out
    assert expected in out, out
    assert "NOT VERIFIED" in out
    if target == EVIDENCE:
        return
    monkeypatch.setenv("GITBOOK_API_TOKEN", sandbox.token)
    sent = sandbox.request_count
    args = [
        "review",
        "apply",
        str(folder / PLAN),
        "--snapshot",
        snapshot,
        "--base-url",
        sandbox.url,
    ]
    status, out = _run(capsys, *args, "--no-progress")
    assert status == 4, out
    assert "Nothing was sent" in out
    if target == PLAN:
        assert expected in out, out
    else:
        assert "the snapshot it came from does not load" in out and expected in out, out
    assert sandbox.request_count == sent


def test_the_tampering_cases_are_counted():
    print(f"\ntampering cases refused: {len(TAMPERINGS)}")
    assert len(TAMPERINGS) >= 6


# -- approval ------------------------------------------------------------------------------------
def _review(sandbox) -> AccessReview:
    audit = docsapi.audit_permissions(
        sandbox.client(), sandbox.org_id, progress=False, model="highest"
    )
    review = AccessReview(audit, reviewer="Rita Reviewer")
    direct = review.decisions[review.decisions["sources"] == "direct"].drop_duplicates("space_id")
    review.decide(direct.index[:2], "revoke")
    return review


def test_an_unsigned_plan_is_refused_unless_allowed_and_then_says_so(
    sandbox, tmp_path, capsys, monkeypatch
):
    review = _review(sandbox)
    plan = review.save_plan(tmp_path / "plan.csv")
    monkeypatch.setenv("GITBOOK_API_TOKEN", sandbox.token)
    args = ["review", "apply", str(plan), "--base-url", sandbox.url, "--no-progress"]
    sent = sandbox.request_count
    status, out = _run(capsys, *args)
    assert status == 4 and "nobody signed it off" in out and "--allow-unsigned" in out
    assert sandbox.request_count == sent
    status, out = _run(capsys, "review", "apply", str(plan), "--dry-run")
    assert status == 4 and "nobody signed it off" in out

    status, out = _run(capsys, *args, "--allow-unsigned")
    assert status == 0, out
    assert "UNSIGNED" in out and "2 of 2 calls done." in out
    approval = json.loads((tmp_path / "plan.results.json").read_text())[0]["approval"]
    assert approval.startswith("UNSIGNED, sent with --allow-unsigned: nobody signed it off")


def test_a_sign_off_of_another_plan_does_not_approve_this_one(sandbox, tmp_path, capsys):
    review = _review(sandbox)
    review.sign_off("Grace Owner")
    direct = review.decisions[review.decisions["sources"] == "direct"].drop_duplicates("space_id")
    review.decide(direct.index[2:3], "revoke")  # after the sign-off: another plan
    plan = review.save_plan(tmp_path / "plan.json")
    status, out = _run(capsys, "verify", str(plan))
    assert status == 1
    assert "Grace Owner signed off another plan, not this one" in out
    review.sign_off("Grace Owner")
    review.save_plan(plan)
    assert _run(capsys, "verify", str(plan))[0] == 0


def test_a_plan_without_its_manifest_is_refused(sandbox, tmp_path, capsys):
    review = _review(sandbox)
    review.sign_off("Grace Owner")
    plan = review.save_plan(tmp_path / "plan.json")
    (tmp_path / PLAN_MANIFEST).unlink()
    status, out = _run(capsys, "verify", str(plan))
    assert status == 1 and "has no manifest (plan.json.manifest.json) beside it" in out
    status, out = _run(capsys, "review", "apply", str(plan), "--dry-run")
    assert status == 4 and "has no manifest" in out


def test_a_short_signing_key_is_refused_without_showing_it(saved_audit_folder, monkeypatch):
    monkeypatch.setenv(SIGNING_KEY_VARIABLE, "short-key-1234")
    with pytest.raises(docsapi.ValidationError) as refused:
        docsapi.load_audit(saved_audit_folder)
    assert "shorter than 32 characters" in str(refused.value)
    assert "short-key-1234" not in str(refused.value)


@pytest.fixture
def saved_audit_folder(written, tmp_path) -> Path:
    return Path(shutil.copytree(written[False] / "snapshot", tmp_path / "snapshot"))


def test_a_snapshot_of_format_1_loads_without_a_key_and_is_refused_with_one(
    saved_audit_folder, monkeypatch, capsys
):
    """Snapshots written before seals existed: still read, but never passed off as signed."""
    monkeypatch.setenv(SIGNING_KEY_VARIABLE, NO_KEY)
    path = saved_audit_folder / MANIFEST
    manifest = json.loads(path.read_text())
    del manifest["integrity"]
    manifest["format_version"] = 1
    path.write_text(json.dumps(manifest))
    assert docsapi.load_audit(saved_audit_folder).org_id == manifest["organization"]["id"]
    status, out = _run(capsys, "verify", str(saved_audit_folder))
    assert status == 1 and "which has no seal" in out
    monkeypatch.setenv(SIGNING_KEY_VARIABLE, KEY)
    with pytest.raises(docsapi.SnapshotError, match="which has no seal, and a signing key is set"):
        docsapi.load_audit(saved_audit_folder)


def test_a_signed_snapshot_is_not_changed_without_the_key(written, tmp_path, monkeypatch):
    """Saving a table into a signed snapshot without the key would drop its signature:
    refused before anything is written."""
    from docsapi.audit.snapshot.store import list_tables, save_table

    folder = Path(shutil.copytree(written[True] / "snapshot", tmp_path / "snapshot"))
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    monkeypatch.setenv(SIGNING_KEY_VARIABLE, NO_KEY)
    with pytest.raises(docsapi.SnapshotError, match="it is signed, and no signing key is set"):
        save_table(folder, "notes", pd.DataFrame({"note": ["x"]}))
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SIGNING_KEY_VARIABLE, KEY)
        save_table(folder, "notes", pd.DataFrame({"note": ["x"]}))
        assert "notes" in list_tables(folder)
        assert json.loads((folder / MANIFEST).read_text())["integrity"]["signature"]


@pytest.mark.parametrize("name", ["a" * 70_000, "b/" * 300 + "x", "two\nlines", "x\x1b[31m"])
def test_verify_shows_any_path_on_one_short_line(capsys, tmp_path, name):
    """A generated or hostile name neither floods the output nor splits or colours a line."""
    status, out = _run(capsys, "verify", str(tmp_path / name))
    assert status == 1
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("PROBLEM: ") and lines[1].startswith("NOT")
    assert all(len(line) <= 400 for line in lines) and "\x1b" not in out
