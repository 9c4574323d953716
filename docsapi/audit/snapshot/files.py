"""The files of an audit snapshot: a sealed ``snapshot.json``, checksummed Parquet tables.

:mod:`docsapi.audit.snapshot.store` builds on these: reading and checking ``snapshot.json``
(its format and version, and its seal), writing one table with its checksum and layout,
replacing ``snapshot.json`` atomically, reading a table back after checking its SHA-256,
and cleaning a table of secrets on its way out (share-link keys and query values of
published addresses masked, registered credentials masked in every text).

``snapshot.json`` lists every file with its SHA-256 and is sealed (format 2 on): its
``integrity`` member holds the SHA-256 of the rest of it as canonical JSON, and with a
signing key an HMAC-SHA256 too (see :mod:`docsapi.core.integrity`). So every byte of a
snapshot is covered: a file by its checksum, the description (the organization, the times,
the thresholds, the checksums themselves) by the seal. Snapshots of format 1 (no seal) are
still read, except while a signing key is set.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from docsapi.audit.coverage import COVERAGE_COLUMNS
from docsapi.core.integrity import digest, file_sha256, is_signed, seal, seal_problems, unsealed
from docsapi.core.json_files import JSONFileError, parse_json
from docsapi.core.redact import scrub, scrub_data
from docsapi.core.reprs import shown_path
from docsapi.core.secret import Secret
from docsapi.core.sidecar import write_json
from docsapi.core.version import version
from docsapi.credentials.signing import SIGNING_KEY_VARIABLE, signing_key, writing_key
from docsapi.data import frame_store as _frame_store
from docsapi.data.fields import mask_query, mask_share_url
from docsapi.errors import SnapshotError

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MANIFEST",
    "OLDEST_FORMAT_VERSION",
    "SnapshotInfo",
    "audit_digest",
    "clean",
    "entries",
    "file_problem",
    "manifest_problems",
    "parse_manifest",
    "read_entry",
    "read_manifest",
    "refuse",
    "scrub_texts",
    "sealing_key",
    "snapshot_info",
    "write_manifest",
    "write_table",
]

#: The file that makes a folder a snapshot, and says what it holds.
MANIFEST = "snapshot.json"
#: What ``snapshot.json`` says it describes.
FORMAT = "docsapi.audit-snapshot"
#: The snapshot format this docsapi writes. Any change to what a snapshot holds (a table, a
#: column, a dtype, a key of ``snapshot.json``) raises it. Format 2 seals ``snapshot.json``;
#: format 3 added the audit log (``data/events``, ``events_since`` in ``crawl``) and provenance
#: (``audit/provenance`` and the provenance columns of grants, paths and findings); format 4
#: the rule set (``model``), the ``rule_set_matches`` table, the paths' ``site_id``, ``level``
#: and ``status``, the sites' default levels and the raw ``creators``.
FORMAT_VERSION = 4
#: The first format whose ``snapshot.json`` is sealed.
SEALED_FORMAT_VERSION = 2
#: The first format that names its rule set (older audits combined paths by the highest role).
RULE_SET_FORMAT_VERSION = 4
#: The oldest format this docsapi still reads.
OLDEST_FORMAT_VERSION = 1
#: The largest ``snapshot.json`` read (docsapi writes a few kilobytes).
MAX_MANIFEST_BYTES = 16 * 2**20
#: Where a table may be: ``audit/<table>``, ``data/<table>``, ``extra/<name>-<hash>``.
_FILE_PATTERN = re.compile(r"^(audit|data|extra)/([a-z][a-z0-9_]{0,63})(-[0-9a-f]{12})?\.parquet$")


# -- what a snapshot says about itself -----------------------------------------------------------
@dataclass(frozen=True)
class SnapshotInfo:
    """What ``snapshot.json`` says about a snapshot (read by :func:`read_info`).

    Attributes
    ----------
    path : Path
        The snapshot's folder.
    format_version : int
        The snapshot format it was written in (:data:`FORMAT_VERSION` today).
    docsapi_version : str
        The docsapi that wrote it.
    saved_at, generated_at : Timestamp
        When it was written, and when the audit's crawl finished (UTC).
    org_id, org_name : str, str or None
        The organization audited.
    complete : bool
        Whether the audit could see everything (see ``coverage``).
    expand_teams : bool
        Whether ``effective`` counts access through teams.
    thresholds : dict
        The rule limits used (``AuditThresholds`` as a dict).
    counts : dict
        Numbers of the summary: spaces, users, members, teams, grants, exposed spaces,
        findings, errors, high, medium, low.
    coverage : DataFrame
        The audit's coverage table (what the token could and could not see).
    extras : tuple of str
        Names of the tables saved with it (:func:`save_table`).
    """

    path: Path
    format_version: int
    docsapi_version: str
    saved_at: pd.Timestamp
    org_id: str
    org_name: str | None
    generated_at: pd.Timestamp
    complete: bool
    expand_teams: bool
    thresholds: dict[str, float]
    counts: dict[str, int]
    coverage: pd.DataFrame = field(repr=False, compare=False)
    extras: tuple[str, ...] = ()
    _manifest: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def audit_digest(self) -> str:
        """The SHA-256 of what the snapshot says of the audit: ``snapshot.json`` (its seal
        and the tables saved with it later left out), so every audit and raw table by its
        checksum. It stays the same when a review saves its decisions into the snapshot; a
        review's plan records it."""
        return audit_digest(self._manifest)

    def __repr__(self) -> str:
        state = "complete" if self.complete else "PARTIAL"
        return (
            f"SnapshotInfo({str(self.path)!r}, org_id={self.org_id!r}, "
            f"generated_at={self.generated_at.isoformat()!r}, {state}, "
            f"spaces={self.counts.get('spaces', 0)}, findings={self.counts.get('findings', 0)})"
        )


def refuse(path: Path, problem: str) -> SnapshotError:
    return SnapshotError(f"cannot load the snapshot {shown_path(path)}: {problem}")


def _timestamp(text: object, path: Path, key: str) -> pd.Timestamp:
    try:
        stamp = pd.Timestamp(str(text))
    except (TypeError, ValueError):
        raise refuse(path, f"{MANIFEST} has no valid {key}") from None
    if stamp.tzinfo is None:
        raise refuse(path, f"{MANIFEST} has a {key} without a time zone")
    return stamp.tz_convert("UTC")


def parse_manifest(path: Path) -> dict[str, Any]:
    """``snapshot.json``, with its format checked (not yet its seal or the files)."""
    if not path.exists():
        looping = path.is_symlink()
        raise refuse(
            path, "it is a broken or looping symbolic link" if looping else "it does not exist"
        )
    if not path.is_dir():
        raise refuse(path, "a snapshot is a folder; this is a file")
    file = path / MANIFEST
    try:
        size = file.stat().st_size
        text = "" if size > MAX_MANIFEST_BYTES else file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise refuse(
            path, f"it has no {MANIFEST}, so it is not a docsapi snapshot (or was not finished)"
        ) from None
    except OSError as exc:
        raise refuse(path, f"cannot read {MANIFEST}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise refuse(path, f"{MANIFEST} is not UTF-8 text ({exc}): the file is damaged") from None
    if size > MAX_MANIFEST_BYTES:
        raise refuse(
            path,
            f"{MANIFEST} is larger than {MAX_MANIFEST_BYTES // 2**20} MiB; docsapi writes a "
            "few kilobytes there, so the file is not a snapshot's",
        )
    try:
        manifest = parse_json(text, name=MANIFEST)
    except JSONFileError as exc:
        raise refuse(path, f"{MANIFEST} {exc.reason}: the file is damaged") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise refuse(path, f"{MANIFEST} does not describe a docsapi audit snapshot")
    format_version = manifest.get("format_version")
    written_by = manifest.get("docsapi_version", "an unknown version")
    if not isinstance(format_version, int) or isinstance(format_version, bool):
        raise refuse(path, f"{MANIFEST} states no format version")
    if format_version > FORMAT_VERSION:
        raise refuse(
            path,
            f"it was written by docsapi {written_by} in snapshot format {format_version}; this "
            f"docsapi {version()} reads formats {OLDEST_FORMAT_VERSION} to "
            f"{FORMAT_VERSION}: upgrade docsapi to load it",
        )
    if format_version < OLDEST_FORMAT_VERSION:
        raise refuse(
            path,
            f"it was written by docsapi {written_by} in snapshot format {format_version}, "
            f"which this docsapi {version()} no longer reads (formats {OLDEST_FORMAT_VERSION} to "
            f"{FORMAT_VERSION}): load it with docsapi {written_by} and export its tables",
        )
    files = manifest.get("files")
    if not isinstance(files, list) or not all(_valid_entry(entry) for entry in files):
        raise refuse(path, f"{MANIFEST} lists its files wrongly: the file is damaged")
    return manifest


def manifest_problems(manifest: dict[str, Any], key: Secret | None) -> list[str]:
    """What is wrong with the seal of a parsed ``snapshot.json``; empty when it holds.

    A snapshot of format 1 has no seal: that is a problem only while a signing key is set
    (nothing shows whether it was changed, so it cannot pass for signed)."""
    if manifest["format_version"] < SEALED_FORMAT_VERSION:
        if key is None:
            return []
        return [
            f"{MANIFEST} is in format {manifest['format_version']} (docsapi "
            f"{manifest.get('docsapi_version', '?')}), which has no seal, and a signing key is "
            f"set: load it without {SIGNING_KEY_VARIABLE}, check it, and save it again to sign it"
        ]
    return [f"{MANIFEST}: {problem}" for problem in seal_problems(manifest, key)]


def read_manifest(path: Path) -> dict[str, Any]:
    """``snapshot.json``, with its format and its seal checked (not yet the files)."""
    manifest = parse_manifest(path)
    problems = manifest_problems(manifest, signing_key())
    if problems:
        raise refuse(path, problems[0])
    return manifest


def audit_digest(manifest: dict[str, Any]) -> str:
    """The digest of a snapshot's audit: ``snapshot.json`` without its seal and without the
    tables saved with it later (see :attr:`SnapshotInfo.audit_digest`)."""
    kept = [entry for entry in manifest["files"] if not entry["path"].startswith("extra/")]
    return digest({**unsealed(manifest), "files": kept})


def _valid_entry(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("path"), str)
        and _FILE_PATTERN.match(entry["path"]) is not None
        and isinstance(entry.get("sha256"), str)
        and isinstance(entry.get("layout"), dict)
    )


def entries(manifest: dict[str, Any], group: str) -> dict[str, dict[str, Any]]:
    """The files of one group by table name."""
    found = {}
    for entry in manifest["files"]:
        match = _FILE_PATTERN.match(entry["path"])
        if match and match.group(1) == group:
            found[match.group(2)] = entry
    return found


def snapshot_info(path: Path, manifest: dict[str, Any]) -> SnapshotInfo:
    try:
        organization = manifest["organization"]
        coverage = pd.DataFrame(manifest["coverage"], columns=COVERAGE_COLUMNS)
        return SnapshotInfo(
            path=path,
            format_version=manifest["format_version"],
            docsapi_version=str(manifest["docsapi_version"]),
            saved_at=_timestamp(manifest["saved_at"], path, "saved_at"),
            org_id=_string(organization["id"], "organization.id"),
            org_name=_string(organization["name"], "organization.name"),
            generated_at=_timestamp(manifest["generated_at"], path, "generated_at"),
            complete=_flag(manifest["complete"], "complete"),
            expand_teams=_flag(manifest["expand_teams"], "expand_teams"),
            thresholds=dict(manifest["thresholds"]),
            counts={str(k): int(v) for k, v in manifest["counts"].items()},
            coverage=coverage,
            extras=tuple(sorted(entries(manifest, "extra"))),
            _manifest=manifest,
        )
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise refuse(path, f"{MANIFEST} lacks or garbles {exc}: the file is damaged") from None


def _flag(value: object, key: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{key} (true or false, got {type(value).__name__})")
    return value


def _string(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{key} (a string, got {type(value).__name__})")
    return value


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_table(folder: Path, relative: str, frame: pd.DataFrame) -> dict[str, Any]:
    """Write one table under ``folder``; its manifest entry."""
    target = folder / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    layout = _frame_store.write_frame(frame, target)
    _fsync(target)
    return {
        "path": relative,
        "sha256": file_sha256(target),
        "bytes": target.stat().st_size,
        "rows": len(frame),
        "layout": layout,
    }


def scrub_texts(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with registered credentials masked in every text (a copy when changed)."""
    replaced: dict[int, Any] = {}
    for position, (_, series) in enumerate(frame.items()):
        dtype = series.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            categories = [scrub(c) if isinstance(c, str) else c for c in dtype.categories]
            if categories != list(dtype.categories):
                codes = series.cat.codes.to_numpy()
                texts = np.asarray(categories, dtype=object)[codes]
                texts[codes < 0] = None
                distinct = pd.Index(list(dict.fromkeys(categories)), dtype=dtype.categories.dtype)
                replaced[position] = pd.Categorical(
                    texts, categories=distinct, ordered=dtype.ordered
                )
        elif isinstance(dtype, pd.StringDtype):
            codes, uniques = pd.factorize(series.to_numpy(dtype=object))  # each text once
            scrubbed = [scrub(v) for v in uniques]
            if scrubbed != list(uniques):
                array = np.asarray([*scrubbed, None], dtype=object)[codes]  # code -1: missing
                replaced[position] = pd.array(array, dtype=dtype)
        elif dtype == np.dtype(object):  # text, or the lists and dicts of a request body
            values = series.to_numpy()
            cleaned = np.empty(len(values), dtype=object)
            for row, value in enumerate(values):
                cleaned[row] = scrub_data(value) if isinstance(value, str | list | dict) else value
            if any(
                isinstance(b, str | list | dict) and a != b
                for a, b in zip(cleaned, values, strict=True)
            ):
                replaced[position] = cleaned
    if not replaced:
        return frame
    frame = frame.copy()
    for position, values in replaced.items():
        frame.isetitem(position, values)
    return frame


def _mask_addresses(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Published addresses with the key of a share link, and query values, masked."""
    column = "published_url" if name == "exposure" else "url_published"
    if column not in frame.columns:
        return frame
    values = frame[column].to_numpy(dtype=object)
    if name == "share_links":
        links = np.ones(len(frame), dtype=bool)
    elif name == "exposure":
        links = frame["share_link_id"].notna().to_numpy(dtype=bool)
    else:
        links = np.zeros(len(frame), dtype=bool)
    masked = [
        mask_share_url(v) if link else mask_query(v) for v, link in zip(values, links, strict=True)
    ]
    if all(a is b or a == b for a, b in zip(masked, values, strict=True) if isinstance(a, str)):
        return frame
    frame = frame.copy()
    frame[column] = pd.Series(masked, index=frame.index, dtype=object).astype(frame[column].dtype)
    return frame


def clean(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    return scrub_texts(_mask_addresses(name, frame))


def sealing_key(folder: Path, manifest: dict[str, Any]) -> Secret | None:
    """The key to seal ``manifest`` with when it is written again (None: a digest alone).

    Raises
    ------
    SnapshotError
        When the manifest was signed and no signing key is set now: writing it would drop
        its signature.
    """
    key = signing_key()
    if key is None and is_signed(manifest):
        raise refuse(
            folder,
            f"it is signed, and no signing key is set: set {SIGNING_KEY_VARIABLE} to change it",
        )
    return key or writing_key()


def write_manifest(folder: Path, manifest: dict[str, Any], key: Secret | None) -> None:
    """Seal ``snapshot.json`` (signed with ``key``, see :func:`sealing_key`) and write it
    atomically (a temporary file renamed over it)."""
    write_json(folder / MANIFEST, seal(manifest, key))


def file_problem(path: Path, entry: dict[str, Any]) -> str | None:
    """Why a file a manifest lists is not as it was saved (missing, changed), or None."""
    file = path / entry["path"]
    if not file.is_file():
        return f"{entry['path']} is missing (it is listed in {MANIFEST})"
    try:
        found = file_sha256(file)
    except OSError as exc:
        return f"cannot read {entry['path']}: {exc.strerror or exc}"
    if found != entry["sha256"]:
        return (
            f"{entry['path']} is corrupt: its SHA-256 differs from the one recorded when it "
            "was saved (the file was changed or cut short since)"
        )
    return None


def read_entry(path: Path, entry: dict[str, Any]) -> pd.DataFrame:
    problem = file_problem(path, entry)
    if problem is not None:
        raise refuse(path, problem)
    file = path / entry["path"]
    try:
        return _frame_store.read_frame(file, entry["layout"])
    except (_frame_store.FrameFormatError, KeyError, TypeError, ValueError, OSError) as exc:
        raise refuse(path, f"{entry['path']} does not hold the table described: {exc}") from None
