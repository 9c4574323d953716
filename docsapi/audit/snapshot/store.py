"""Snapshots of a permission audit: one folder of Parquet files that loads back exactly.

A snapshot is a folder::

    snapshot.json               what it is: format, versions, organization, time, thresholds,
                                coverage, counts, every file with its SHA-256 and layout, and
                                its seal (the SHA-256 of all that; signed with a signing key)
    audit/<table>.parquet       the audit's public tables (grants, paths, effective, ...)
    data/<table>.parquet        the raw crawled tables, so a loaded audit can be analysed,
                                compared or planned again without a request
    extra/<name>-<hash>.parquet tables saved with it later (a review's decisions, say)

:func:`save_audit` (``audit.save(path)``) writes it into a hidden folder beside the target
and renames it into place, so a snapshot is never seen half-written. :func:`read_snapshot`
(``docsapi.load_audit(path)``) checks everything first (the description and its seal, the
format version, each file's checksum and columns) and only then builds the audit: what it
returns equals what was saved, dtypes included; what it refuses raises
:class:`~docsapi.errors.SnapshotError`. :func:`verify_snapshot` (``docsapi verify PATH``)
lists every problem instead of stopping at the first.

With a signing key (``DOCSAPI_SIGNING_KEY`` or the keyring, see
:mod:`docsapi.credentials.signing`) ``snapshot.json`` is signed with HMAC-SHA256 as well,
and a snapshot that is unsigned or signed otherwise is refused while the key is set: a
file changed and re-hashed by someone without the key does not load. Snapshots of format
1 (docsapi before seals) still load without a key.

Secrets stay out: share-link keys and query values of published addresses are masked (the
crawl already masks them; a hand-made audit is masked on the way out) and every text has the
registered credentials masked.

Tables saved with a snapshot (:func:`save_table`, :func:`load_table`, :func:`list_tables`)
get the same care: exact dtypes, a checksum, and an atomic update of ``snapshot.json``.
:func:`save_dated` and :func:`history` keep and list dated snapshots per organization
(``DIR/<org id>/<UTC time>/``), as ``docsapi audit --save DIR`` and ``docsapi history DIR`` do.

Examples
--------
>>> audit.save("reviews/2026-Q3")
PosixPath('reviews/2026-Q3')
>>> same = docsapi.load_audit("reviews/2026-Q3")
>>> notes = pd.DataFrame({"space_id": [space_id], "note": ["checked by Ada"]})
>>> _ = save_table("reviews/2026-Q3", "notes", notes)
>>> load_table("reviews/2026-Q3", "notes").equals(notes)
True
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote

import numpy as np
import pandas as pd

from docsapi.audit.coverage import COVERAGE_COLUMNS, is_complete
from docsapi.audit.data import PARTS, RAW_SCHEMAS, STRING, AuditData, conform
from docsapi.audit.provenance import PROVENANCE_COLUMNS, SETTING_COLUMNS
from docsapi.audit.resolve import LEVELS, STATUSES, check_rule_set
from docsapi.audit.rule_set_check import RULE_SET_MATCH_COLUMNS, empty_rule_set_matches
from docsapi.audit.rules import FINDING_COLUMNS, AuditThresholds
from docsapi.audit.snapshot.files import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    OLDEST_FORMAT_VERSION,
    RULE_SET_FORMAT_VERSION,
    SEALED_FORMAT_VERSION,
    SnapshotInfo,
    clean,
    entries,
    file_problem,
    manifest_problems,
    parse_manifest,
    read_entry,
    read_manifest,
    refuse,
    scrub_texts,
    sealing_key,
    snapshot_info,
    write_manifest,
    write_table,
)
from docsapi.audit.tables import (
    EFFECTIVE_COLUMNS,
    EXPOSURE_COLUMNS,
    GRANT_COLUMNS,
    MISMATCH_COLUMNS,
    PATH_COLUMNS,
)
from docsapi.audit.view import AuditView, check_audit
from docsapi.core.integrity import Verdict, seal_fact, signed_with
from docsapi.core.json_files import JSONFileError
from docsapi.core.version import version
from docsapi.credentials.signing import signing_key, writing_key
from docsapi.errors import SnapshotError, ValidationError

__all__ = [
    "AUDIT_TABLES",
    "FORMAT_VERSION",
    "MANIFEST",
    "OLDEST_FORMAT_VERSION",
    "SnapshotInfo",
    "StoredAudit",
    "history",
    "list_tables",
    "load_table",
    "read_info",
    "read_snapshot",
    "save_audit",
    "save_dated",
    "save_table",
    "verify_snapshot",
]

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
    "rule_set_matches",
    "matrix",
    "provenance",
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
    "rule_set_matches": RULE_SET_MATCH_COLUMNS,
    "matrix": [],
    "provenance": SETTING_COLUMNS,
    "errors": list(RAW_SCHEMAS["errors"]),
}
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


def _snapshot_path(path: object, argument: str = "path") -> Path:
    if not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise ValidationError(argument, f"pass a snapshot folder's path, got {path!r}")
    if "\x00" in str(path):
        raise ValidationError(argument, "must not contain a NUL character")
    return Path(path)


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
    >>> folder = audit.save("reviews/2026-Q3")
    >>> read_info(folder).counts["findings"] == len(audit.findings)
    True
    """
    target = _snapshot_path(path)
    return snapshot_info(target, read_manifest(target))


# -- writing -------------------------------------------------------------------------------------
def _manifest_for(audit: AuditView, expand_teams: bool) -> dict[str, Any]:
    coverage = audit.coverage.astype(object).where(audit.coverage.notna(), None)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "docsapi_version": version(),
        "saved_at": pd.Timestamp.now(tz="UTC").isoformat(),
        "organization": {"id": audit.org_id, "name": audit.org_name},
        "generated_at": pd.Timestamp(audit.generated_at).tz_convert("UTC").isoformat(),
        "complete": bool(audit.complete),
        "expand_teams": bool(expand_teams),
        "thresholds": asdict(audit.thresholds),
        "model": audit.model,
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
            "events_since": (
                None
                if audit.data.events_since is None
                else pd.Timestamp(audit.data.events_since).isoformat()
            ),
            # absent from snapshots made before the audit read audit-event-actions
            "log_actions": (
                None if audit.data.log_actions is None else list(audit.data.log_actions)
            ),
        },
        "files": [],
    }


def _plain_value(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    return value


def _write_snapshot(audit: AuditView, folder: Path, expand_teams: bool) -> None:
    manifest = _manifest_for(audit, expand_teams)
    tables = audit.tables()
    for name in AUDIT_TABLES:
        manifest["files"].append(
            write_table(folder, f"audit/{name}.parquet", clean(name, tables[name]))
        )
    for name, table in audit.data.tables().items():
        manifest["files"].append(write_table(folder, f"data/{name}.parquet", clean(name, table)))
    write_manifest(folder, manifest, writing_key())  # last: a folder without it is no snapshot


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
    audit: AuditView,
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
    >>> audit.save("reviews/2026-Q3")
    PosixPath('reviews/2026-Q3')
    """
    audit = check_audit(audit, "audit")
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
    audit: AuditView, root: str | os.PathLike[str], *, expand_teams: bool = True
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
    >>> folder = save_dated(audit, "snapshots")
    >>> folder.parent == Path("snapshots", org_id)  # snapshots/<org id>/<UTC time>
    True
    """
    base = _snapshot_path(root, "root")
    folder = _dated_folder(base, str(audit.org_id), audit.generated_at)
    return save_audit(audit, folder, expand_teams=expand_teams)


# -- reading -------------------------------------------------------------------------------------
def _read_group(
    path: Path, manifest: dict[str, Any], group: str, names: tuple[str, ...]
) -> dict[str, pd.DataFrame]:
    listed = entries(manifest, group)
    missing = [name for name in names if name not in listed]
    if missing:
        raise refuse(path, f"{MANIFEST} lists no {group} table {', '.join(missing)}")
    return {name: read_entry(path, listed[name]) for name in names}


def _check_columns(path: Path, tables: dict[str, pd.DataFrame], data: dict[str, pd.DataFrame]):
    for name, frame in tables.items():
        lacking = [c for c in _REQUIRED_COLUMNS[name] if c not in frame.columns]
        if lacking:
            raise refuse(path, f"the {name} table lacks columns {lacking}")
    for name, frame in data.items():
        if list(frame.columns) != list(RAW_SCHEMAS[name]):
            raise refuse(
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
            "events_since": crawl.get("events_since"),
            "log_actions": _log_actions(crawl.get("log_actions")),
        }
        if facts["events_since"] is not None:
            facts["events_since"] = pd.Timestamp(facts["events_since"])
    except (KeyError, TypeError, ValueError) as exc:
        raise refuse(path, f"{MANIFEST} lacks {exc}: the file is damaged") from None
    if not not_read <= set(PARTS):
        raise refuse(path, f"{MANIFEST} names unknown parts {sorted(not_read - set(PARTS))}")
    return facts


def _log_actions(value: object) -> tuple[str, ...] | None:
    """The stored ``audit-event-actions`` IDs (None: not read, or an older snapshot)."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError("crawl.log_actions")
    return tuple(value)


def _without_log(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The tables of a format-1 snapshot, with the provenance of an audit that read no log."""
    unknown = "unknown: the audit log was not read"
    for name in ("grants", "paths", "findings"):
        frame = tables[name]
        filled = {
            column: (
                pd.array([pd.NaT] * len(frame), dtype="datetime64[ns, UTC]")
                if column == "granted_at"
                else pd.Categorical([unknown if column == "provenance" else None] * len(frame))
            )
            for column in PROVENANCE_COLUMNS
        }
        tables[name] = frame.assign(**filled)
    tables["provenance"] = pd.DataFrame(
        {
            column: pd.Series(dtype="datetime64[ns, UTC]" if column == "granted_at" else STRING)
            for column in SETTING_COLUMNS
        }
    )
    return tables


def _before_rule_sets(
    raw: dict[str, pd.DataFrame], tables: dict[str, pd.DataFrame]
) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame]]:
    """The tables of a snapshot written before rule sets (format 3 and older), as an audit
    under ``highest`` (what those audits computed) with what they did not read left unknown:
    no creators, no site default levels, no rule set check, no site paths.

    Every path counted under ``highest``: a path ``decides`` when it gives its pair's
    highest role and is ``lower`` otherwise. Its ``level`` follows its kind; a default
    level's path has none (the space's own and a collection's were not told apart).
    """
    raw["creators"] = conform("creators")
    raw["sites"] = conform("sites", raw["sites"])
    tables["rule_set_matches"] = empty_rule_set_matches()
    paths = tables["paths"]
    levels = {"org-admin": "organization", "direct": "space", "team": "space"}
    levels |= {"collection": "collection", "collection-team": "collection"}
    best = paths.groupby(["space_id", "user_id"], observed=True)["role"].transform("max")
    decides = (paths["role"] == best).to_numpy(dtype=bool)
    tables["paths"] = paths.assign(
        site_id=pd.Categorical([None] * len(paths)),
        level=pd.Categorical(paths["kind"].astype(object).map(levels), categories=list(LEVELS)),
        status=pd.Categorical(
            np.where(decides, STATUSES[0], STATUSES[1]), categories=list(STATUSES)
        ),
    )[PATH_COLUMNS]
    return raw, tables


class StoredAudit(NamedTuple):
    """What a snapshot holds, checked whole: the raw tables, the audit's tables, its limits,
    its description and its rule set."""

    data: AuditData
    tables: dict[str, pd.DataFrame]
    thresholds: AuditThresholds
    info: SnapshotInfo
    model: str


def read_snapshot(path: str | os.PathLike[str]) -> StoredAudit:
    """Read and check a snapshot written by ``audit.save(path)``, every file of it.

    Everything is checked before anything is returned (the format version, each file's
    SHA-256, each table's columns, the completeness the manifest states), so a damaged
    snapshot is refused whole, never half loaded. :func:`docsapi.load_audit` builds the
    audit from what this returns.

    Parameters
    ----------
    path : str or path-like
        The snapshot's folder.

    Returns
    -------
    StoredAudit
        The raw tables (``data``), the audit's tables by name (``tables``, ``paths`` and
        ``matrix`` included), the rule limits (``thresholds``), the snapshot's
        description (``info``) and the rule set (``model``).

    Raises
    ------
    SnapshotError
        For a folder that is not a snapshot, a snapshot written in a format this docsapi
        does not read (the message names both versions), a missing, changed or truncated
        file, or a table without its columns.

    Examples
    --------
    >>> folder = audit.save("reviews/2026-Q3")
    >>> stored = read_snapshot(folder)
    >>> stored.info.org_id == org_id, sorted(stored.tables)[:3]
    (True, ['aggregate_mismatches', 'coverage', 'effective'])
    """
    target = _snapshot_path(path)
    manifest = read_manifest(target)
    info = snapshot_info(target, manifest)
    crawl = _crawl_facts(target, manifest)
    try:
        thresholds = AuditThresholds(**info.thresholds)  # type: ignore[arg-type]
    except (TypeError, ValidationError) as exc:
        raise refuse(target, f"its thresholds are not valid: {exc}") from None
    first = info.format_version < 3  # written before the audit log was read
    named = info.format_version >= RULE_SET_FORMAT_VERSION  # its rule set is named
    try:
        model = check_rule_set(manifest.get("model")) if named else "highest"
    except ValidationError as exc:
        raise refuse(target, f"its rule set is not valid: {exc}") from None
    absent = ({"provenance", "events"} if first else set()) | (
        set() if named else {"rule_set_matches", "creators"}
    )
    tables = _read_group(
        target, manifest, "audit", tuple(n for n in AUDIT_TABLES if n not in absent)
    )
    raw = _read_group(target, manifest, "data", tuple(n for n in RAW_SCHEMAS if n not in absent))
    for entry in entries(manifest, "extra").values():  # the snapshot is checked whole
        read_entry(target, entry)
    if first:
        raw["events"] = conform("events")
        tables = _without_log(tables)
    if not named:
        raw, tables = _before_rule_sets(raw, tables)
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
        raise refuse(target, f"its raw tables are not valid: {exc}") from None
    if is_complete(tables["coverage"]) != info.complete:
        raise refuse(info.path, "its coverage table and snapshot.json disagree on completeness")
    return StoredAudit(data, tables, thresholds, info, model)


def verify_snapshot(path: str | os.PathLike[str]) -> Verdict:
    """Check a snapshot whole and list every problem (``docsapi verify FOLDER``).

    The seal of ``snapshot.json`` (and its signature when a signing key is set), every file
    against its SHA-256, then, when those hold, everything :func:`read_snapshot` checks.

    Parameters
    ----------
    path : str or path-like
        The snapshot's folder.

    Returns
    -------
    Verdict
        ``problems`` (one line each; none when it verifies) and ``facts`` (the
        organization, the files, how it is sealed).

    Raises
    ------
    SnapshotError
        When ``snapshot.json`` is larger or nested deeper than docsapi reads (the message
        names the file and the limit).

    Examples
    --------
    >>> folder = audit.save("reviews/2026-Q3")
    >>> verify_snapshot(folder).ok
    True
    """
    target = _snapshot_path(path)
    key = signing_key()
    try:
        manifest = parse_manifest(target)
    except SnapshotError as exc:
        if isinstance(exc.__cause__, JSONFileError):
            raise  # too large or too deep: one line naming the file and the limit
        return Verdict("snapshot", target, (str(exc),))
    problems = manifest_problems(manifest, key)
    if manifest["format_version"] < SEALED_FORMAT_VERSION and key is None:
        problems.append(
            f"{MANIFEST} is in format {manifest['format_version']} (docsapi "
            f"{manifest.get('docsapi_version', '?')}), which has no seal, so nothing shows "
            "whether it was changed: load it and save it again to seal it"
        )
    problems += [p for entry in manifest["files"] if (p := file_problem(target, entry))]
    if not problems:
        try:
            read_snapshot(target)
        except SnapshotError as exc:
            problems.append(str(exc))
    organization = manifest.get("organization")
    org_id = organization.get("id") if isinstance(organization, dict) else None
    facts = (
        f"an audit snapshot of organization {org_id}, format "
        f"{manifest['format_version']}, {len(manifest['files'])} files",
        seal_fact(manifest, key)
        if manifest["format_version"] >= SEALED_FORMAT_VERSION
        else "not sealed (format 1)",
    )
    return Verdict("snapshot", target, tuple(problems), facts, signed_with(manifest, key))


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
    >>> folder = audit.save("reviews/2026-Q3")
    >>> save_table(folder, "decisions", review.decisions)  # doctest: +ELLIPSIS
    PosixPath('reviews/2026-Q3/extra/decisions-....parquet')
    """
    target = _snapshot_path(snapshot, "snapshot")
    table = _table_name(name)
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError("frame", f"must be a pandas DataFrame, got {type(frame).__name__}")
    manifest = read_manifest(target)
    key = sealing_key(target, manifest)
    if manifest["format_version"] != FORMAT_VERSION:
        raise refuse(
            target,
            f"it is in snapshot format {manifest['format_version']}; this docsapi writes only "
            f"into format {FORMAT_VERSION}",
        )
    staging = Path(tempfile.mkdtemp(prefix=".extra.", dir=target))
    try:
        entry = write_table(staging, "table.parquet", scrub_texts(frame))
        relative = f"extra/{table}-{entry['sha256'][:12]}.parquet"
        (target / "extra").mkdir(exist_ok=True)
        os.replace(staging / "table.parquet", target / relative)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    entry["path"] = relative
    previous = entries(manifest, "extra").get(table)
    manifest["files"] = [e for e in manifest["files"] if e is not previous] + [entry]
    write_manifest(target, manifest, key)
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
    >>> folder = review.save("reviews/2026-Q3")  # the audit, and the review's tables
    >>> load_table(folder, "review_decisions").equals(review.decisions)
    True
    """
    target = _snapshot_path(snapshot, "snapshot")
    table = _table_name(name)
    manifest = read_manifest(target)
    saved_tables = entries(manifest, "extra")
    if table not in saved_tables:
        saved = ", ".join(sorted(saved_tables)) or "none"
        raise SnapshotError(
            f"the snapshot {target} has no table {table!r} saved with it (saved: {saved})"
        )
    return read_entry(target, saved_tables[table])


def list_tables(snapshot: str | os.PathLike[str]) -> list[str]:
    """The names of the tables saved with a snapshot by :func:`save_table`, sorted.

    Raises
    ------
    SnapshotError
        When ``snapshot`` is not a snapshot this docsapi reads.
    """
    target = _snapshot_path(snapshot, "snapshot")
    return sorted(entries(read_manifest(target), "extra"))


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
        read: :func:`read_snapshot` checks the files.

    Raises
    ------
    ValidationError
        When ``root`` is not a folder.

    Examples
    --------
    >>> _ = save_dated(audit, "snapshots")
    >>> kept = history("snapshots")
    >>> list(kept.columns)[:4], org_id in set(kept.org_id)
    (['org_id', 'org_name', 'generated_at', 'complete'], True)
    """
    base = _snapshot_path(root, "root")
    if org_id is not None and (not isinstance(org_id, str) or not org_id.strip()):
        raise ValidationError("org_id", f"must be an organization id (a str), got {org_id!r:.60}")
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
