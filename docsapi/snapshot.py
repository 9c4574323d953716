"""Snapshots of a permission audit: one folder of Parquet files that loads back exactly.

A snapshot is a folder::

    snapshot.json               what it is: format, versions, organization, time, thresholds,
                                coverage, counts, and every file with its SHA-256 and layout
    audit/<table>.parquet       the audit's public tables (grants, paths, effective, ...)
    data/<table>.parquet        the raw crawled tables, so a loaded audit can be analysed,
                                compared or planned again without a request
    extra/<name>-<hash>.parquet tables saved with it later (a review's decisions, say)

:func:`save_audit` (``audit.save(path)``) writes it into a hidden folder beside the target
and renames it into place, so a snapshot is never seen half-written. :func:`load_audit`
(``docsapi.load_audit(path)``) checks everything first (the description, the format version,
each file's checksum and columns) and only then builds the audit: what it returns equals what
was saved, dtypes included; what it refuses raises :class:`~docsapi.errors.SnapshotError`.

Secrets stay out: share-link keys and query values of published addresses are masked (the
crawl already masks them; a hand-made audit is masked on the way out) and every text has the
registered credentials masked.

Tables saved with a snapshot (:func:`save_table`, :func:`load_table`, :func:`list_tables`)
get the same care: exact dtypes, a checksum, and an atomic update of ``snapshot.json``.
:func:`save_dated` and :func:`history` keep and list dated snapshots per organization
(``DIR/<org id>/<UTC time>/``), as ``docsapi audit --save DIR`` and ``docsapi history DIR`` do.

Examples
--------
>>> audit.save("reviews/2026-Q3")                            # doctest: +SKIP
>>> same = docsapi.load_audit("reviews/2026-Q3")             # doctest: +SKIP
>>> save_table("reviews/2026-Q3", "decisions", decisions)   # doctest: +SKIP
>>> load_table("reviews/2026-Q3", "decisions")              # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import numpy as np
import pandas as pd

from docsapi import _frame_store
from docsapi._audit_coverage import COVERAGE_COLUMNS
from docsapi._audit_data import PARTS, RAW_SCHEMAS, AuditData
from docsapi._audit_rules import FINDING_COLUMNS, AuditThresholds
from docsapi._audit_tables import (
    EFFECTIVE_COLUMNS,
    EXPOSURE_COLUMNS,
    GRANT_COLUMNS,
    MISMATCH_COLUMNS,
    PATH_COLUMNS,
)
from docsapi._fields import mask_query, mask_share_url
from docsapi._redact import scrub, scrub_data
from docsapi.errors import SnapshotError, ValidationError

if TYPE_CHECKING:
    from docsapi.audit import PermissionAudit

__all__ = [
    "AUDIT_TABLES",
    "FORMAT_VERSION",
    "MANIFEST",
    "OLDEST_FORMAT_VERSION",
    "SnapshotInfo",
    "history",
    "list_tables",
    "load_audit",
    "load_table",
    "read_info",
    "save_audit",
    "save_dated",
    "save_table",
]

#: The file that makes a folder a snapshot, and says what it holds.
MANIFEST = "snapshot.json"
_FORMAT = "docsapi.audit-snapshot"
#: The snapshot format this docsapi writes. Any change to what a snapshot holds (a table, a
#: column, a dtype, a key of ``snapshot.json``) raises it.
FORMAT_VERSION = 1
#: The oldest format this docsapi still reads.
OLDEST_FORMAT_VERSION = 1

#: The audit's public tables, in report order (``docs/audit-tables.md``).
AUDIT_TABLES: tuple[str, ...] = (
    "summary",
    "coverage",
    "findings",
    "effective",
    "paths",
    "exposure",
    "grants",
    "aggregate_mismatches",
    "matrix",
    "errors",
)
#: The columns each public table must have (the contract); the matrix's are the spaces.
_REQUIRED_COLUMNS: dict[str, list[str]] = {
    "summary": ["count"],
    "coverage": COVERAGE_COLUMNS,
    "findings": FINDING_COLUMNS,
    "effective": EFFECTIVE_COLUMNS,
    "paths": PATH_COLUMNS,
    "exposure": EXPOSURE_COLUMNS,
    "grants": GRANT_COLUMNS,
    "aggregate_mismatches": MISMATCH_COLUMNS,
    "matrix": [],
    "errors": list(RAW_SCHEMAS["errors"]),
}
_GROUPS = ("audit", "data", "extra")
_FILE_PATTERN = re.compile(r"^(audit|data|extra)/([a-z][a-z0-9_]{0,63})(-[0-9a-f]{12})?\.parquet$")
_NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_STAMP = "%Y%m%dT%H%M%SZ"
_COUNTS = (
    ("spaces", "totals"),
    ("users", "totals"),
    ("members", "totals"),
    ("teams", "totals"),
    ("grants", "totals"),
    ("exposed spaces", "totals"),
    ("findings", "totals"),
    ("errors", "totals"),
    ("high", "severity"),
    ("medium", "severity"),
    ("low", "severity"),
)


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

    def __repr__(self) -> str:
        state = "complete" if self.complete else "PARTIAL"
        return (
            f"SnapshotInfo({str(self.path)!r}, org_id={self.org_id!r}, "
            f"generated_at={self.generated_at.isoformat()!r}, {state}, "
            f"spaces={self.counts.get('spaces', 0)}, findings={self.counts.get('findings', 0)})"
        )


def _version() -> str:
    import docsapi

    return str(docsapi.__version__)


def _snapshot_path(path: object, argument: str = "path") -> Path:
    if not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise ValidationError(argument, f"pass a snapshot folder's path, got {path!r}")
    return Path(path)


def _refuse(path: Path, problem: str) -> SnapshotError:
    return SnapshotError(f"cannot load the snapshot {path}: {problem}")


def _timestamp(text: object, path: Path, key: str) -> pd.Timestamp:
    try:
        stamp = pd.Timestamp(str(text))
    except (TypeError, ValueError):
        raise _refuse(path, f"{MANIFEST} has no valid {key}") from None
    if stamp.tzinfo is None:
        raise _refuse(path, f"{MANIFEST} has a {key} without a time zone")
    return stamp.tz_convert("UTC")


def _manifest(path: Path) -> dict[str, Any]:
    """``snapshot.json``, with its format checked (not yet the files)."""
    if not path.exists():
        raise _refuse(path, "it does not exist")
    if not path.is_dir():
        raise _refuse(path, "a snapshot is a folder; this is a file")
    try:
        text = (path / MANIFEST).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _refuse(
            path, f"it has no {MANIFEST}, so it is not a docsapi snapshot (or was not finished)"
        ) from None
    try:
        manifest = json.loads(text)
    except ValueError as exc:
        raise _refuse(path, f"{MANIFEST} is not valid JSON ({exc}): the file is damaged") from None
    if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
        raise _refuse(path, f"{MANIFEST} does not describe a docsapi audit snapshot")
    version = manifest.get("format_version")
    written_by = manifest.get("docsapi_version", "an unknown version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _refuse(path, f"{MANIFEST} states no format version")
    if version > FORMAT_VERSION:
        raise _refuse(
            path,
            f"it was written by docsapi {written_by} in snapshot format {version}; this docsapi "
            f"{_version()} reads formats {OLDEST_FORMAT_VERSION} to {FORMAT_VERSION}: upgrade "
            "docsapi to load it",
        )
    if version < OLDEST_FORMAT_VERSION:
        raise _refuse(
            path,
            f"it was written by docsapi {written_by} in snapshot format {version}, which this "
            f"docsapi {_version()} no longer reads (formats {OLDEST_FORMAT_VERSION} to "
            f"{FORMAT_VERSION}): load it with docsapi {written_by} and export its tables",
        )
    files = manifest.get("files")
    if not isinstance(files, list) or not all(_valid_entry(entry) for entry in files):
        raise _refuse(path, f"{MANIFEST} lists its files wrongly: the file is damaged")
    return manifest


def _valid_entry(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("path"), str)
        and _FILE_PATTERN.match(entry["path"]) is not None
        and isinstance(entry.get("sha256"), str)
        and isinstance(entry.get("layout"), dict)
    )


def _entries(manifest: dict[str, Any], group: str) -> dict[str, dict[str, Any]]:
    """The files of one group by table name."""
    found = {}
    for entry in manifest["files"]:
        match = _FILE_PATTERN.match(entry["path"])
        if match and match.group(1) == group:
            found[match.group(2)] = entry
    return found


def _info(path: Path, manifest: dict[str, Any]) -> SnapshotInfo:
    try:
        organization = manifest["organization"]
        coverage = pd.DataFrame(manifest["coverage"], columns=COVERAGE_COLUMNS)
        return SnapshotInfo(
            path=path,
            format_version=manifest["format_version"],
            docsapi_version=str(manifest["docsapi_version"]),
            saved_at=_timestamp(manifest["saved_at"], path, "saved_at"),
            org_id=str(organization["id"]),
            org_name=organization["name"],
            generated_at=_timestamp(manifest["generated_at"], path, "generated_at"),
            complete=bool(manifest["complete"]),
            expand_teams=bool(manifest["expand_teams"]),
            thresholds=dict(manifest["thresholds"]),
            counts={str(k): int(v) for k, v in manifest["counts"].items()},
            coverage=coverage,
            extras=tuple(sorted(_entries(manifest, "extra"))),
            _manifest=manifest,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _refuse(path, f"{MANIFEST} lacks or garbles {exc}: the file is damaged") from None


def read_info(path: str | os.PathLike[str]) -> SnapshotInfo:
    """What a snapshot says about itself, without reading its tables.

    Parameters
    ----------
    path : str or path-like
        The snapshot's folder.

    Returns
    -------
    SnapshotInfo

    Raises
    ------
    SnapshotError
        When the folder is not a snapshot, its ``snapshot.json`` is damaged, or its format
        is one this docsapi does not read (the message names both versions).

    Examples
    --------
    >>> read_info("reviews/2026-Q3").counts["findings"]       # doctest: +SKIP
    24
    """
    target = _snapshot_path(path)
    return _info(target, _manifest(target))


# -- writing -------------------------------------------------------------------------------------
def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _write_table(folder: Path, relative: str, frame: pd.DataFrame) -> dict[str, Any]:
    """Write one table under ``folder``; its manifest entry."""
    target = folder / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    layout = _frame_store.write_frame(frame, target)
    _fsync(target)
    return {
        "path": relative,
        "sha256": _sha256(target),
        "bytes": target.stat().st_size,
        "rows": len(frame),
        "layout": layout,
    }


def _scrub_texts(frame: pd.DataFrame) -> pd.DataFrame:
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


def _clean(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    return _scrub_texts(_mask_addresses(name, frame))


def _manifest_for(audit: PermissionAudit, expand_teams: bool) -> dict[str, Any]:
    coverage = audit.coverage.astype(object).where(audit.coverage.notna(), None)
    return {
        "format": _FORMAT,
        "format_version": FORMAT_VERSION,
        "docsapi_version": _version(),
        "saved_at": pd.Timestamp.now(tz="UTC").isoformat(),
        "organization": {"id": audit.org_id, "name": audit.org_name},
        "generated_at": pd.Timestamp(audit.generated_at).tz_convert("UTC").isoformat(),
        "complete": bool(audit.complete),
        "expand_teams": bool(expand_teams),
        "thresholds": asdict(audit.thresholds),
        "counts": {item: audit.count(item, category) for item, category in _COUNTS},
        "coverage": [
            {k: _plain_value(v) for k, v in row.items()}
            for row in coverage.to_dict(orient="records")
        ],
        "crawl": {
            "token_role": audit.data.token_role,
            "spaces_reported": audit.data.spaces_reported,
            "invite_links_enabled": audit.data.invite_links_enabled,
            "not_read": sorted(audit.data.not_read),
        },
        "files": [],
    }


def _plain_value(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    return value


def _write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    """Write ``snapshot.json`` atomically (a temporary file renamed over it)."""
    descriptor, temporary = tempfile.mkstemp(prefix=".snapshot.", suffix=".json", dir=folder)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            json.dump(manifest, stream, indent=1, ensure_ascii=False)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, folder / MANIFEST)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _write_snapshot(audit: PermissionAudit, folder: Path, expand_teams: bool) -> None:
    manifest = _manifest_for(audit, expand_teams)
    tables = audit.tables()
    for name in AUDIT_TABLES:
        manifest["files"].append(
            _write_table(folder, f"audit/{name}.parquet", _clean(name, tables[name]))
        )
    for name, table in audit.data.tables().items():
        manifest["files"].append(_write_table(folder, f"data/{name}.parquet", _clean(name, table)))
    _write_manifest(folder, manifest)  # last: a folder without it is no snapshot


def _check_target(target: Path, overwrite: bool) -> None:
    if not target.exists():
        return
    if not target.is_dir():
        raise ValidationError("path", f"{target} is a file; a snapshot is a folder")
    if not any(target.iterdir()):
        return
    if not (target / MANIFEST).is_file():
        raise ValidationError(
            "path", f"{target} exists and is not a snapshot: choose a new or empty folder"
        )
    if not overwrite:
        raise ValidationError(
            "path", f"{target} already holds a snapshot: choose a new folder or pass overwrite=True"
        )


def _install(staging: Path, target: Path) -> None:
    """Move the finished snapshot into place (replacing an empty folder or an old snapshot)."""
    if target.exists() and not any(target.iterdir()):
        target.rmdir()
    if not target.exists():
        os.rename(staging, target)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
    retired.rmdir()
    os.rename(target, retired)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(retired, target)
        raise
    shutil.rmtree(retired, ignore_errors=True)


def save_audit(
    audit: PermissionAudit,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    expand_teams: bool = True,
) -> Path:
    """Write a snapshot of ``audit`` into the folder ``path`` (``audit.save(path)``).

    Parameters
    ----------
    audit : PermissionAudit
        The audit to keep.
    path : str or path-like
        The snapshot's folder: new, empty, or (with ``overwrite``) an older snapshot.
        Missing parent folders are created.
    overwrite : bool
        Replace a snapshot already there (never a folder that is not a snapshot).
    expand_teams : bool
        Whether the audit's ``effective`` counts access through teams (recorded with it).

    Returns
    -------
    Path
        The snapshot's folder.

    Raises
    ------
    ValidationError
        For a bad path, a folder that is not a snapshot, a snapshot already there without
        ``overwrite``. Nothing is left behind when writing fails.

    Examples
    --------
    >>> audit.save("reviews/2026-Q3")                        # doctest: +SKIP
    PosixPath('reviews/2026-Q3')
    """
    from docsapi.audit import PermissionAudit

    if not isinstance(audit, PermissionAudit):
        raise ValidationError("audit", f"must be a PermissionAudit, got {type(audit).__name__}")
    target = _snapshot_path(path)
    _check_target(target, overwrite)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(
        tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    )
    try:
        _write_snapshot(audit, staging, expand_teams)
        _install(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _dated_folder(root: Path, org_id: str, generated_at: pd.Timestamp) -> Path:
    organization = quote(org_id, safe="")
    if organization in {"", ".", ".."}:
        raise ValidationError("audit.org_id", f"cannot name a folder after {org_id!r}")
    stamp = pd.Timestamp(generated_at).tz_convert("UTC").strftime(_STAMP)
    folder = root / organization / stamp
    number = 1
    while folder.exists():
        number += 1
        folder = root / organization / f"{stamp}-{number}"
    return folder


def save_dated(
    audit: PermissionAudit, root: str | os.PathLike[str], *, expand_teams: bool = True
) -> Path:
    """Keep a snapshot of ``audit`` at ``root/<org id>/<UTC time of the crawl>/``.

    Snapshots of one organization sort by time; a second audit in the same second gets
    ``-2`` added. :func:`history` lists them.

    Parameters
    ----------
    audit : PermissionAudit
        The audit to keep.
    root : str or path-like
        The folder of every organization's snapshots (created if missing).
    expand_teams : bool
        Whether the audit's ``effective`` counts access through teams.

    Returns
    -------
    Path
        The new snapshot's folder, e.g. ``root/<org id>/20260701T080000Z``.

    Examples
    --------
    >>> save_dated(audit, "snapshots")                       # doctest: +SKIP
    PosixPath('snapshots/W4Acq9GFz6Y1t9EwL56n/20261123T083729Z')
    """
    base = _snapshot_path(root, "root")
    folder = _dated_folder(base, str(audit.org_id), audit.generated_at)
    return save_audit(audit, folder, expand_teams=expand_teams)


# -- reading -------------------------------------------------------------------------------------
def _read_entry(path: Path, entry: dict[str, Any]) -> pd.DataFrame:
    file = path / entry["path"]
    if not file.is_file():
        raise _refuse(path, f"{entry['path']} is missing (it is listed in {MANIFEST})")
    if _sha256(file) != entry["sha256"]:
        raise _refuse(
            path,
            f"{entry['path']} is corrupt: its SHA-256 differs from the one recorded when it "
            "was saved (the file was changed or cut short since)",
        )
    try:
        return _frame_store.read_frame(file, entry["layout"])
    except (_frame_store.FrameFormatError, KeyError, TypeError, ValueError) as exc:
        raise _refuse(path, f"{entry['path']} does not hold the table described: {exc}") from None


def _read_group(
    path: Path, manifest: dict[str, Any], group: str, names: Iterator[str] | tuple[str, ...]
) -> dict[str, pd.DataFrame]:
    entries = _entries(manifest, group)
    missing = [name for name in names if name not in entries]
    if missing:
        raise _refuse(path, f"{MANIFEST} lists no {group} table {', '.join(missing)}")
    return {name: _read_entry(path, entries[name]) for name in names}


def _check_columns(path: Path, tables: dict[str, pd.DataFrame], data: dict[str, pd.DataFrame]):
    for name, frame in tables.items():
        lacking = [c for c in _REQUIRED_COLUMNS[name] if c not in frame.columns]
        if lacking:
            raise _refuse(path, f"the {name} table lacks columns {lacking}")
    for name, frame in data.items():
        if list(frame.columns) != list(RAW_SCHEMAS[name]):
            raise _refuse(
                path,
                f"the raw {name} table has columns {list(frame.columns)}, "
                f"expected {list(RAW_SCHEMAS[name])}",
            )


def _crawl_facts(path: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    try:
        crawl = manifest["crawl"]
        not_read = frozenset(crawl["not_read"])
        facts = {
            "token_role": crawl["token_role"],
            "spaces_reported": crawl["spaces_reported"],
            "invite_links_enabled": crawl["invite_links_enabled"],
            "not_read": not_read,
        }
    except (KeyError, TypeError) as exc:
        raise _refuse(path, f"{MANIFEST} lacks {exc}: the file is damaged") from None
    if not not_read <= set(PARTS):
        raise _refuse(path, f"{MANIFEST} names unknown parts {sorted(not_read - set(PARTS))}")
    return facts


def load_audit(path: str | os.PathLike[str]) -> PermissionAudit:
    """Load a snapshot written by ``audit.save(path)`` back into a :class:`PermissionAudit`.

    Everything is checked before the audit is built (the format version, each file's
    SHA-256, each table's columns), so a damaged snapshot is refused whole, never half
    loaded. The audit returned equals the one saved: every table with its dtypes, the
    organization, time, thresholds, completeness and the raw tables (``.data``), from which
    it can be analysed, compared or planned again without a request. Its ``.snapshot`` says
    where it came from.

    Parameters
    ----------
    path : str or path-like
        The snapshot's folder.

    Returns
    -------
    PermissionAudit

    Raises
    ------
    SnapshotError
        For a folder that is not a snapshot, a snapshot written in a format this docsapi
        does not read (the message names both versions), a missing, changed or truncated
        file, or a table without its columns.

    Examples
    --------
    >>> audit = docsapi.load_audit("snapshots/W4Acq9/20261123T083729Z")  # doctest: +SKIP
    >>> audit.findings.head()                                # doctest: +SKIP
    """
    target = _snapshot_path(path)
    manifest = _manifest(target)
    info = _info(target, manifest)
    crawl = _crawl_facts(target, manifest)
    try:
        thresholds = AuditThresholds(**info.thresholds)  # type: ignore[arg-type]
    except (TypeError, ValidationError) as exc:
        raise _refuse(target, f"its thresholds are not valid: {exc}") from None
    tables = _read_group(target, manifest, "audit", AUDIT_TABLES)
    raw = _read_group(target, manifest, "data", tuple(RAW_SCHEMAS))
    for entry in _entries(manifest, "extra").values():  # the snapshot is checked whole
        _read_entry(target, entry)
    _check_columns(target, tables, raw)
    try:
        data = AuditData(
            org_id=info.org_id,
            org_name=info.org_name,
            generated_at=info.generated_at,
            **crawl,
            **raw,  # type: ignore[arg-type]
        )
    except ValidationError as exc:
        raise _refuse(target, f"its raw tables are not valid: {exc}") from None
    return _assemble(data, tables, thresholds, info)


def _assemble(
    data: AuditData,
    tables: dict[str, pd.DataFrame],
    thresholds: AuditThresholds,
    info: SnapshotInfo,
) -> PermissionAudit:
    """The audit made of stored tables (``paths`` and ``matrix`` included, not recomputed)."""
    from docsapi.audit import PermissionAudit

    audit = PermissionAudit(
        data,
        thresholds=thresholds,
        resolution=None,  # type: ignore[arg-type]  # the stored tables need no resolution
        full=None,  # type: ignore[arg-type]
        shown=None,  # type: ignore[arg-type]
        grants=tables["grants"],
        effective=tables["effective"],
        exposure=tables["exposure"],
        findings=tables["findings"],
        coverage=tables["coverage"],
        aggregate_mismatches=tables["aggregate_mismatches"],
        summary=tables["summary"],
    )
    audit.errors = tables["errors"]
    audit.__dict__["paths"] = tables["paths"]  # the values of the cached properties
    audit.__dict__["matrix"] = tables["matrix"]
    if audit.complete != info.complete:
        raise _refuse(info.path, "its coverage table and snapshot.json disagree on completeness")
    audit.snapshot = info
    return audit


# -- tables saved with a snapshot ----------------------------------------------------------------
def _table_name(name: object) -> str:
    if not isinstance(name, str) or not _NAME_PATTERN.match(name):
        raise ValidationError(
            "name",
            f"must be lower-case letters, digits and underscores, starting with a letter "
            f"(at most 64), got {name!r}",
        )
    return name


def save_table(snapshot: str | os.PathLike[str], name: str, frame: pd.DataFrame) -> Path:
    """Save a table with a snapshot (a review's decisions, say), replacing one of that name.

    The table keeps its dtypes, index, column labels and ``attrs`` exactly; text has the
    registered credentials masked. The file is written under a new name, then
    ``snapshot.json`` is replaced atomically to point to it, so a crash leaves the snapshot
    either as it was or with the new table, never broken. One writer at a time.

    Parameters
    ----------
    snapshot : str or path-like
        The snapshot's folder.
    name : str
        The table's name: lower-case letters, digits and underscores.
    frame : DataFrame
        The table: text column labels, each once; values Parquet can hold (object columns
        of dicts and lists, such as a request body, are stored as JSON).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ValidationError
        For a bad name or a frame that cannot be saved.
    SnapshotError
        When ``snapshot`` is not a snapshot this docsapi reads.

    Examples
    --------
    >>> save_table("reviews/2026-Q3", "decisions", review.decisions)  # doctest: +SKIP
    """
    target = _snapshot_path(snapshot, "snapshot")
    table = _table_name(name)
    manifest = _manifest(target)
    if manifest["format_version"] != FORMAT_VERSION:
        raise _refuse(
            target,
            f"it is in snapshot format {manifest['format_version']}; this docsapi writes only "
            f"into format {FORMAT_VERSION}",
        )
    staging = Path(tempfile.mkdtemp(prefix=".extra.", dir=target))
    try:
        entry = _write_table(staging, "table.parquet", _scrub_texts(frame))
        relative = f"extra/{table}-{entry['sha256'][:12]}.parquet"
        (target / "extra").mkdir(exist_ok=True)
        os.replace(staging / "table.parquet", target / relative)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    entry["path"] = relative
    previous = _entries(manifest, "extra").get(table)
    manifest["files"] = [e for e in manifest["files"] if e is not previous] + [entry]
    _write_manifest(target, manifest)
    if previous is not None and previous["path"] != relative:
        (target / previous["path"]).unlink(missing_ok=True)
    return target / relative


def load_table(snapshot: str | os.PathLike[str], name: str) -> pd.DataFrame:
    """A table saved with a snapshot by :func:`save_table`, exactly as saved.

    Parameters
    ----------
    snapshot : str or path-like
        The snapshot's folder.
    name : str
        The table's name.

    Returns
    -------
    DataFrame

    Raises
    ------
    SnapshotError
        When the snapshot has no such table (the message lists those it has), or the file
        is missing, changed or truncated.

    Examples
    --------
    >>> load_table("reviews/2026-Q3", "decisions")           # doctest: +SKIP
    """
    target = _snapshot_path(snapshot, "snapshot")
    table = _table_name(name)
    manifest = _manifest(target)
    entries = _entries(manifest, "extra")
    if table not in entries:
        saved = ", ".join(sorted(entries)) or "none"
        raise SnapshotError(
            f"the snapshot {target} has no table {table!r} saved with it (saved: {saved})"
        )
    return _read_entry(target, entries[table])


def list_tables(snapshot: str | os.PathLike[str]) -> list[str]:
    """The names of the tables saved with a snapshot by :func:`save_table`, sorted.

    Raises
    ------
    SnapshotError
        When ``snapshot`` is not a snapshot this docsapi reads.
    """
    target = _snapshot_path(snapshot, "snapshot")
    return sorted(_entries(_manifest(target), "extra"))


# -- dated snapshots -----------------------------------------------------------------------------
_HISTORY_COLUMNS = {
    "org_id": "string[python]",
    "org_name": "string[python]",
    "generated_at": "datetime64[ns, UTC]",
    "complete": "boolean",
    "spaces": "Int64",
    "users": "Int64",
    "findings": "Int64",
    "high": "Int64",
    "docsapi_version": "string[python]",
    "path": "string[python]",
    "problem": "string[python]",
}


def _manifests_under(root: Path) -> list[Path]:
    """Snapshot folders at most two levels below ``root`` (``root/<org>/<time>``)."""
    found: list[Path] = []
    for depth in ("*", "*/*"):
        found.extend(p.parent for p in root.glob(f"{depth}/{MANIFEST}"))
    if (root / MANIFEST).is_file():
        found.append(root)
    return sorted({p for p in found if not any(part.startswith(".") for part in p.parts[-2:])})


def history(root: str | os.PathLike[str], *, org_id: str | None = None) -> pd.DataFrame:
    """The snapshots kept under ``root`` (by :func:`save_dated`), oldest first per organization.

    Parameters
    ----------
    root : str or path-like
        The folder given to ``docsapi audit --save`` (or one organization's folder in it).
    org_id : str, optional
        Only this organization's snapshots.

    Returns
    -------
    DataFrame
        One row per snapshot: ``org_id``, ``org_name``, ``generated_at``, ``complete``,
        ``spaces``, ``users``, ``findings``, ``high``, ``docsapi_version``, ``path``, and
        ``problem`` (why it cannot be read; missing when it can). Only ``snapshot.json`` is
        read: :func:`load_audit` checks the files.

    Raises
    ------
    ValidationError
        When ``root`` is not a folder.

    Examples
    --------
    >>> history("snapshots")                                 # doctest: +SKIP
    """
    base = _snapshot_path(root, "root")
    if not base.is_dir():
        raise ValidationError("root", f"{base} is not a folder")
    rows: list[dict[str, object]] = []
    for folder in _manifests_under(base):
        try:
            info = read_info(folder)
        except SnapshotError as exc:
            rows.append({"path": str(folder), "problem": str(exc)})
            continue
        rows.append(
            {
                "org_id": info.org_id,
                "org_name": info.org_name,
                "generated_at": info.generated_at,
                "complete": info.complete,
                "spaces": info.counts.get("spaces"),
                "users": info.counts.get("users"),
                "findings": info.counts.get("findings"),
                "high": info.counts.get("high"),
                "docsapi_version": info.docsapi_version,
                "path": str(folder),
                "problem": None,
            }
        )
    frame = pd.DataFrame(rows, columns=list(_HISTORY_COLUMNS)).astype(_HISTORY_COLUMNS)
    if org_id is not None:
        frame = frame[frame["org_id"] == org_id]
    return frame.sort_values(["org_id", "generated_at", "path"], na_position="last").reset_index(
        drop=True
    )
