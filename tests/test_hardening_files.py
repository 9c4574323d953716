"""Hostile snapshot folders: refused with a SnapshotError (CLI: exit 2, one line), never loaded
half-way, never a raw exception."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docsapi import audit_permissions, load_audit
from docsapi.audit.snapshot.files import MANIFEST, MAX_MANIFEST_BYTES
from docsapi.audit.snapshot.store import history
from docsapi.cli import main
from docsapi.core.integrity import seal
from docsapi.errors import SnapshotError, ValidationError


@pytest.fixture(scope="module")
def saved_once(sandbox_server, tmp_path_factory) -> Path:
    sandbox_server.reset()
    audit = audit_permissions(sandbox_server.client(), sandbox_server.org_id, progress=False)
    return audit.save(tmp_path_factory.mktemp("good") / "snapshot")


@pytest.fixture
def saved(saved_once, tmp_path, monkeypatch) -> Path:
    """A copy of the snapshot, read with no signing key (``DOCSAPI_SIGNING_KEY=none``): an
    edit sealed again must get past the checks behind the seal."""
    import shutil

    monkeypatch.setenv("DOCSAPI_SIGNING_KEY", "none")
    return Path(shutil.copytree(saved_once, tmp_path / "snapshot"))


def _write_sealed(folder: Path, manifest: dict) -> None:
    """Write snapshot.json sealed again, as someone without a signing key can: the checks
    behind the seal are what the change must get past then."""
    (folder / MANIFEST).write_text(json.dumps(seal(manifest, None)), encoding="utf-8")


def _edit(folder: Path, **changes: object) -> None:
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    manifest.update(changes)
    _write_sealed(folder, manifest)


def _refused(folder: Path, words: str) -> None:
    with pytest.raises(SnapshotError, match=words):
        load_audit(folder)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("complete", "yes"),
        ("complete", 1),
        ("expand_teams", "no"),
        ("expand_teams", None),
        ("organization", {"id": 5, "name": "Acme"}),
        ("organization", {"id": "org1", "name": ["Acme"]}),
    ],
    ids=repr,
)
def test_wrong_types_in_the_manifest_are_refused(saved, key, value):
    _edit(saved, **{key: value})
    _refused(saved, "snapshot.json lacks or garbles")


def test_a_number_json_cannot_state_exactly_is_refused(saved):
    manifest = json.loads((saved / MANIFEST).read_text(encoding="utf-8"))
    manifest["counts"]["spaces"] = 1e400  # written as Infinity: no seal can cover it
    (saved / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    _refused(saved, "snapshot.json: it holds a value JSON cannot state exactly")


def test_a_manifest_nested_too_deeply_is_refused(saved):
    (saved / MANIFEST).write_text('{"a":' * 100_000 + "1" + "}" * 100_000, encoding="utf-8")
    _refused(saved, "nests deeper than 64 levels")
    frame = history(saved.parent)
    assert frame["problem"].str.contains("nests deeper than 64 levels").all()


def test_a_huge_manifest_is_refused_without_being_read(saved):
    with (saved / MANIFEST).open("ab") as file:
        file.truncate(MAX_MANIFEST_BYTES + 1)
    _refused(saved, "larger than 16 MiB")


def test_a_manifest_that_is_a_folder_is_refused(saved):
    (saved / MANIFEST).unlink()
    (saved / MANIFEST).mkdir()
    _refused(saved, "cannot read snapshot.json")


def test_a_symlink_loop_is_named_as_such(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    _refused(loop, "looping symbolic link")


def test_the_cli_says_one_line_and_exits_2(saved, capsys):
    (saved / MANIFEST).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert main(["diff", str(saved), str(saved)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "Traceback" not in err and "nests deeper than 64 levels" in err


@pytest.mark.parametrize(
    "change",
    [
        {"columns_dtype": "not a dtype"},
        {"columns_name": [[1]]},
        {"spec dtype": None},
        {"spec dtype": "garbage"},
        {"spec dtype": {"kind": "category", "categories": 5}},
        {"index": {"kind": 5}},
    ],
    ids=repr,
)
def test_a_layout_the_manifest_garbles_is_refused(saved, change):
    """The layout is not covered by the files' SHA-256: a damaged one must still be refused."""
    manifest = json.loads((saved / MANIFEST).read_text(encoding="utf-8"))
    entry = next(e for e in manifest["files"] if e["path"].endswith("/grants.parquet"))
    if "spec dtype" in change:
        entry["layout"]["columns"][0]["dtype"] = change["spec dtype"]
    else:
        entry["layout"].update(change)
    _write_sealed(saved, manifest)
    _refused(saved, "grants.parquet does not hold the table described")


def test_snapshot_helpers_refuse_wrong_arguments_by_name(saved):
    from docsapi.audit.snapshot.store import save_table

    with pytest.raises(ValidationError) as caught:
        save_table(saved, "notes", "not a frame")
    assert caught.value.argument == "frame"
    with pytest.raises(ValidationError) as caught:
        load_audit(str(saved) + "\x00x")
    assert caught.value.argument == "path" and "\x00" not in str(caught.value)
    for org_id in (5, "", ["org1"]):
        with pytest.raises(ValidationError) as caught:
            history(saved.parent, org_id=org_id)
        assert caught.value.argument == "org_id"


def test_the_cli_refuses_a_save_folder_that_is_a_file_before_the_audit(tmp_path, capsys):
    target = tmp_path / "a-file"
    target.write_text("x", encoding="utf-8")
    out = tmp_path / "report.html"
    assert main(["demo", "--no-progress", "--out", str(out), "--save", str(target)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith("docsapi: error: --save: ") and "is a file: name a folder" in err
    assert not out.exists()  # refused before the audit ran
