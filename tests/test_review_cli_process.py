"""The ``docsapi`` command in real processes: preconditions, applied once, signed by default,
bounded parsing.

Each test runs the installed ``docsapi`` script as a subprocess against the sandbox of this
process, with docsapi's folders (configuration: the signing key; state: journals and locks)
in the test's own temporary folder and keyring's null backend, so a key made by default
lands there and never in the user's own folders or keyring. Writes the sandbox answers are
counted from its request log.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import keyring
import pytest
from keyring.backends import null

import docsapi
from docsapi import AccessReview
from docsapi.audit.snapshot.files import MANIFEST
from docsapi.core.integrity import UNSIGNED, key_id, seal
from docsapi.core.secret import Secret
from docsapi.credentials.signing import KEY_FILE_NAME, NO_KEY, SIGNING_KEY_VARIABLE
from docsapi.data import frame_store

#: Real `docsapi` processes, a few seconds each: `pytest --full` (and CI).
pytestmark = pytest.mark.full

WRITES = ("DELETE", "PATCH", "POST", "PUT")
#: The installed console script beside this interpreter (else the module, as it runs).
_SCRIPT = Path(sys.executable).with_name("docsapi")
COMMAND = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-m", "docsapi.cli"]


@pytest.fixture
def user(tmp_path, monkeypatch) -> Path:
    """This test's own user folders, for this process and the commands it runs; no keyring."""
    home = tmp_path / "user"
    monkeypatch.setenv("DOCSAPI_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("DOCSAPI_STATE_DIR", str(home / "state"))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    monkeypatch.delenv(SIGNING_KEY_VARIABLE, raising=False)
    keyring.set_keyring(null.Keyring())  # the memory keyring fixture puts its own back after
    return home


def _start(sandbox, *args: str, **variables: str) -> subprocess.Popen[str]:
    environment = {**os.environ, "GITBOOK_API_TOKEN": sandbox.token, **variables}
    return subprocess.Popen(
        [*COMMAND, *args],
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _run(sandbox, *args: str, **variables: str) -> tuple[int, str, str]:
    process = _start(sandbox, *args, **variables)
    out, err = process.communicate(timeout=300)
    return process.returncode, out, err


def _apply(sandbox, plan: Path, *extra: str) -> tuple[int, str, str]:
    return _run(
        sandbox, "review", "apply", str(plan), "--base-url", sandbox.url, "--no-progress", *extra
    )


def _writes(sandbox) -> list[tuple[str, str]]:
    return [(method, path) for method, path, _ in sandbox.request_log if method in WRITES]


def _review(sandbox, folder: Path, decide) -> AccessReview:
    """An audit (rule set ``highest``: a direct grant's revoke is one call) saved as a
    snapshot, decided by ``decide(review)``, signed off, its plan saved as
    ``folder/plan.json`` (signed with the key made by default)."""
    audit = docsapi.audit_permissions(
        sandbox.client(), sandbox.org_id, progress=False, model="highest"
    )
    audit.save(folder / "snapshot")
    review = AccessReview(docsapi.load_audit(folder / "snapshot"), reviewer="Rita Reviewer")
    decide(review)
    review.sign_off("Grace Owner", role="Head of Security")
    review.save_plan(folder / "plan.json")
    return review


def _direct(review: AccessReview, role: str):
    decisions = review.decisions
    return decisions[(decisions["sources"] == "direct") & (decisions["role"] == role)]


def _revoke_direct(count: int):
    def decide(review: AccessReview) -> None:
        direct = review.decisions[review.decisions["sources"] == "direct"]
        review.decide(direct.drop_duplicates("space_id").index[:count], "revoke")

    return decide


# -- preconditions ------------------------------------------------------------------------------
def test_a_grant_raised_to_admin_after_the_review_is_not_sent_and_named(sandbox, user, tmp_path):
    def decide(review: AccessReview) -> None:
        edits = _direct(review, "edit").drop_duplicates("space_id")
        review.decide(edits.index[:1], "lower", lower_to="read")
        review.decide(_direct(review, "read").drop_duplicates("space_id").index[:1], "revoke")

    review = _review(sandbox, tmp_path, decide)
    plan = review.plan()
    lowered = plan[plan["operation"] == "updateUserPermissionInSpace"].iloc[0]
    assert lowered["expect"] == {"target": "space-user", "state": "edit"}
    sandbox.client().permissions.set_user_role(lowered["space_id"], lowered["user_id"], "admin")
    before = _writes(sandbox)

    status, out, err = _apply(sandbox, tmp_path / "plan.json")
    assert status == 5, out + err
    line = next(line for line in out.splitlines() if lowered["path"] in line)
    assert line.startswith("stale   PATCH")
    assert line.endswith("changed since the review: expected edit, found admin; not sent")
    assert "1 call not sent: the target changed since the review" in out
    sent = _writes(sandbox)[len(before) :]
    assert ("PATCH", f"/v1{lowered['path']}") not in sent
    assert len(sent) == len(plan) - 1  # the others were sent
    results = json.loads((tmp_path / "plan.results.json").read_text())
    stale = [r for r in results if r["status"] == "stale"]
    assert [r["path"] for r in stale] == [lowered["path"]]
    assert stale[0]["precondition"].startswith("changed since the review: expected edit")
    member = sandbox.client().permissions.users(lowered["space_id"])
    assert member.set_index("user_id").loc[lowered["user_id"], "role"] == "admin"

    # sent all the same only when asked, and then the results say so
    status, out, err = _apply(sandbox, tmp_path / "plan.json", "--send-stale")
    assert status == 0, out + err
    assert "sent all the same (--send-stale)" in out
    results = json.loads((tmp_path / "plan.results.json").read_text())
    assert any("sent all the same (--send-stale)" in (r["precondition"] or "") for r in results)


def test_a_plan_applied_its_journal_deleted_and_applied_again_sends_nothing(
    sandbox, user, tmp_path
):
    review = _review(sandbox, tmp_path, _revoke_direct(3))
    plan = review.plan()
    status, out, err = _apply(sandbox, tmp_path / "plan.json")
    assert status == 0, out + err
    assert "3 of 3 calls done." in out
    journals = list((user / "state" / "plans").glob("*.journal.jsonl"))
    assert len(journals) == 1 and not list(tmp_path.glob("*.journal.jsonl"))
    for journal in journals:  # the journal, and the results kept beside the plan, are lost
        journal.unlink()
    (tmp_path / "plan.results.json").unlink()
    # one of the removed accesses is granted again since, as admin
    first = plan[plan["operation"] == "removeUserFromSpace"].iloc[0]
    sandbox.client().permissions.invite(first["space_id"], role="admin", users=[first["user_id"]])
    before = _writes(sandbox)

    status, out, err = _apply(sandbox, tmp_path / "plan.json")
    assert status == 5, out + err
    assert _writes(sandbox) == before  # no call was sent
    assert "expected" in out and "found admin; not sent" in out
    assert out.count("already as planned: expected") == len(plan) - 1


# -- applied once -------------------------------------------------------------------------------
def test_two_applies_through_a_symlink_and_a_copy_at_once_write_once(sandbox, user, tmp_path):
    review = _review(sandbox, tmp_path / "review", _revoke_direct(6))
    paths = [f"/v1{path}" for path in review.plan()["path"]]
    original = tmp_path / "review" / "plan.json"
    link = tmp_path / "link.json"
    link.symlink_to(original)
    copies = tmp_path / "elsewhere"
    copies.mkdir()
    shutil.copy(original, copies / "renamed.json")
    shutil.copy(
        original.with_name("plan.json.manifest.json"), copies / "renamed.json.manifest.json"
    )
    snapshot = str(tmp_path / "review" / "snapshot")
    sandbox.set_latency(0.5)
    base = ["review", "apply", "--base-url", sandbox.url, "--no-progress", "--snapshot", snapshot]

    first = _start(sandbox, *base, str(link))
    deadline = time.monotonic() + 120
    while not _writes(sandbox):
        assert time.monotonic() < deadline and first.poll() is None, first.communicate()
        time.sleep(0.01)
    status, out, err = _run(sandbox, *base, str(copies / "renamed.json"))
    assert first.poll() is None, "the first apply ended before the second started"
    assert status == 4, out + err
    assert "being applied by another docsapi review apply" in err
    assert f"pid {first.pid}" in err and "Nothing was sent" in err
    first_out, first_err = first.communicate(timeout=300)
    assert first.returncode == 0, first_out + first_err
    assert sorted(path for _, path in _writes(sandbox)) == sorted(paths)  # each call once
    assert not (copies / "renamed.results.json").exists()

    sandbox.set_latency(0)
    status, out, err = _run(sandbox, *base, str(copies / "renamed.json"))
    assert status == 4 and "was applied completely" in err and "--again" in err
    assert sorted(path for _, path in _writes(sandbox)) == sorted(paths)


# -- signed by default --------------------------------------------------------------------------
def _demo(sandbox, folder: Path, **variables: str) -> Path:
    folder.mkdir(parents=True)
    status, out, err = _run(
        sandbox,
        "demo",
        "--save",
        str(folder),
        "--out",
        str(folder / "report.html"),
        "--no-progress",
        "--no-log",
        **variables,
    )
    assert status == 0, out + err
    (saved,) = (
        line.removeprefix("Snapshot: ") for line in out.splitlines() if "Snapshot: " in line
    )
    return Path(saved)


def test_the_default_key_is_made_once_reused_and_its_fingerprint_shown(sandbox, user, tmp_path):
    first = _demo(sandbox, tmp_path / "first")
    key_file = user / "config" / KEY_FILE_NAME
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    key = key_file.read_text().strip()
    fingerprint = key_id(Secret(key))
    second = _demo(sandbox, tmp_path / "second")
    assert key_file.read_text().strip() == key  # made once, then reused
    for folder in (first, second):
        status, out, err = _run(sandbox, "verify", str(folder), "--require-signature")
        assert status == 0, out + err
        assert f"signed with key {fingerprint}" in out
        assert key not in out + err
        for file in folder.rglob("*"):
            assert not file.is_file() or key.encode() not in file.read_bytes()


def _grant_admin_and_reseal(folder: Path) -> None:
    """A grant raised to admin in grants.parquet, its SHA-256 recorded, snapshot.json sealed
    again without a key, as anyone who can write the files can."""
    manifest = json.loads((folder / MANIFEST).read_text())
    entry = next(e for e in manifest["files"] if e["path"] == "audit/grants.parquet")
    grants = frame_store.read_frame(folder / entry["path"], entry["layout"]).copy(deep=True)
    grants.loc[grants.index[0], "role"] = "admin"
    entry["layout"] = frame_store.write_frame(grants, folder / entry["path"])
    entry["sha256"] = hashlib.sha256((folder / entry["path"]).read_bytes()).hexdigest()
    entry["bytes"] = (folder / entry["path"]).stat().st_size
    (folder / MANIFEST).write_text(json.dumps(seal(manifest, None)))


def test_an_unsigned_resealed_snapshot_says_unsigned_and_fails_a_required_signature(
    sandbox, user, tmp_path
):
    folder = _demo(sandbox, tmp_path / "snapshots", **{SIGNING_KEY_VARIABLE: NO_KEY})
    _grant_admin_and_reseal(folder)
    without_key = {SIGNING_KEY_VARIABLE: NO_KEY}
    status, out, err = _run(sandbox, "verify", str(folder), **without_key)
    assert status == 0, out + err
    assert UNSIGNED in out and "Verified:" in out and "(unsigned)" in out
    status, out, err = _run(sandbox, "verify", str(folder), "--require-signature", **without_key)
    assert status == 1, out + err
    assert UNSIGNED in out and "NOT VERIFIED" in out and "--require-signature" in out
    # once this user has a key, an unsigned snapshot is refused outright
    _demo(sandbox, tmp_path / "keyed")
    status, out, err = _run(sandbox, "verify", str(folder))
    assert status == 1 and "it is not signed, but a signing key is set" in out


def test_a_plan_not_signed_while_a_key_exists_is_never_sent(sandbox, user, tmp_path):
    review = _review(sandbox, tmp_path, _revoke_direct(2))
    manifest_path = tmp_path / "plan.json.manifest.json"
    manifest = json.loads(manifest_path.read_text())
    assert manifest["integrity"]["key_id"] == key_id(
        Secret((user / "config" / KEY_FILE_NAME).read_text().strip())
    )
    manifest_path.write_text(json.dumps(seal(manifest, None)))  # re-sealed without the key
    before = _writes(sandbox)
    for extra in ((), ("--allow-unsigned",)):
        status, out, err = _apply(sandbox, tmp_path / "plan.json", *extra)
        assert status == 4, out + err
        assert "it is not signed, but a signing key is set" in err and "Nothing was sent" in err
    assert _writes(sandbox) == before
    assert len(review.plan()) == 2


def test_a_plan_whose_snapshot_is_missing_is_refused_unless_told_to_go_without(
    sandbox, user, tmp_path
):
    _review(sandbox, tmp_path, _revoke_direct(2))
    shutil.rmtree(tmp_path / "snapshot")
    before = _writes(sandbox)
    status, out, err = _apply(sandbox, tmp_path / "plan.json")
    assert status == 4, out + err
    assert "is not here" in err and "--without-snapshot" in err
    assert _writes(sandbox) == before
    status, out, err = _run(sandbox, "verify", str(tmp_path / "plan.json"))
    assert status == 1 and "--without-snapshot" in out
    status, out, err = _apply(sandbox, tmp_path / "plan.json", "--without-snapshot")
    assert status == 0, out + err
    assert "WITHOUT SNAPSHOT" in out and "2 of 2 calls done." in out


# -- bounded parsing ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text", ["[" * 200_000 + "]" * 200_000, "[" * 200_000], ids=["closed", "open"]
)
def test_a_plan_of_200000_nested_brackets_is_one_line_and_exit_2(sandbox, user, tmp_path, text):
    plan = tmp_path / "plan.json"
    plan.write_text(text)
    for args in (
        ["verify", str(plan)],
        ["review", "apply", str(plan), "--dry-run"],
        ["review", "apply", str(plan), "--base-url", sandbox.url, "--no-progress"],
    ):
        status, out, err = _run(sandbox, *args)
        assert status == 2, out + err
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert str(plan) in lines[0] and "nests deeper than 64 levels" in lines[0]
        assert "Traceback" not in err and "RecursionError" not in err


@pytest.mark.parametrize("what", ["manifest", "snapshot.json", "journal", "results"])
def test_every_json_file_read_is_bounded(sandbox, user, tmp_path, what):
    """A manifest, a snapshot's snapshot.json, a journal and a results file nested 200,000
    deep: one line naming the file and the limit, exit 2."""
    review = _review(sandbox, tmp_path, _revoke_direct(1))
    deep = "[" * 200_000 + "]" * 200_000
    args = ["verify", str(tmp_path / "plan.json")]
    if what == "manifest":
        damaged = tmp_path / "plan.json.manifest.json"
    elif what == "snapshot.json":
        damaged = tmp_path / "snapshot" / MANIFEST
        args = ["verify", str(tmp_path / "snapshot")]
    elif what == "results":
        damaged = tmp_path / "plan.results.json"
        args = ["review", "apply", str(tmp_path / "plan.json"), "--dry-run"]
    else:
        status, out, err = _apply(sandbox, tmp_path / "plan.json")
        assert status == 0, out + err
        (damaged,) = (user / "state" / "plans").glob("*.journal.jsonl")
        deep = "{}\n" + deep + "\n{}\n"
        args = ["review", "apply", str(tmp_path / "plan.json"), "--dry-run"]
    damaged.write_text(deep)
    status, out, err = _run(sandbox, *args)
    assert status == 2, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and damaged.name in lines[0], err
    assert "nests deeper than 64 levels" in lines[0] or "is not a journal event" in lines[0]
    assert "Traceback" not in err
    assert len(review.plan()) == 1
