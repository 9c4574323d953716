"""Manifests beside single files: ``plan.json`` gets ``plan.json.manifest.json``.

A file that cannot hold its own digest (a workbook, a page, a CSV plan) is described by a
sealed manifest beside it (see :mod:`docsapi.core.integrity`): what it is (``format``,
``format_version``), the file's SHA-256 and size, whatever its writer records, and the
seal over all of that. :func:`write_json` writes any JSON file atomically, as snapshots'
``snapshot.json`` is written too.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from docsapi.core.integrity import file_sha256, seal, seal_problems
from docsapi.core.json_files import JSONFileError, read_json_file
from docsapi.core.secret import Secret

__all__ = [
    "SUFFIX",
    "covered_file",
    "file_problems",
    "manifest_of",
    "read_sidecar",
    "sidecar_path",
    "write_json",
    "write_sidecar",
]

#: What a manifest beside a file adds to the file's name.
SUFFIX = ".manifest.json"
#: The largest manifest read (a plan's lists its decisions: a few MiB for a large review).
MAX_BYTES = 64 * 2**20


def sidecar_path(path: Path) -> Path:
    """Where the manifest of ``path`` is.

    Examples
    --------
    >>> sidecar_path(Path("q4/plan.json")).as_posix()
    'q4/plan.json.manifest.json'
    """
    return path.with_name(path.name + SUFFIX)


def covered_file(manifest_path: Path) -> Path:
    """The file a manifest beside it describes.

    Examples
    --------
    >>> covered_file(Path("q4/plan.json.manifest.json")).as_posix()
    'q4/plan.json'
    """
    return manifest_path.with_name(manifest_path.name[: -len(SUFFIX)])


def write_json(path: Path, value: Any) -> None:
    """Write ``value`` as JSON to ``path`` atomically (a temporary file, flushed to disk,
    renamed over it): a reader sees the old file or the new one, never half of one."""
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            json.dump(value, stream, indent=1, ensure_ascii=False, allow_nan=False)
            stream.write("\n")
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_sidecar(path: Path, manifest: dict[str, Any], key: Secret | None) -> Path:
    """Describe the file ``path`` (its SHA-256 and size added to ``manifest``), seal the
    manifest (signed with ``key``) and write it beside the file; the manifest's path."""
    described = {
        **manifest,
        "file": {"sha256": file_sha256(path), "bytes": path.stat().st_size},
    }
    target = sidecar_path(path)
    write_json(target, seal(described, key))
    return target


def read_sidecar(path: Path) -> dict[str, Any]:
    """The manifest beside ``path``, as written (not yet checked).

    Raises
    ------
    FileNotFoundError
        When there is none.
    JSONFileError
        When it is larger than 64 MiB, nested too deeply or not JSON (one line naming the
        file and the limit).
    ValueError
        When it is not a JSON object.
    """
    target = sidecar_path(path)
    manifest = read_json_file(target, max_bytes=MAX_BYTES)
    if not isinstance(manifest, dict):
        raise ValueError(f"{target.name} does not hold a manifest")
    return manifest


def file_problems(path: Path, manifest: dict[str, Any], key: Secret | None) -> list[str]:
    """What is wrong with ``path`` and its manifest: the seal, then the file's bytes.

    Returns
    -------
    list of str
        One short sentence per problem, naming the file; empty when both hold.
    """
    problems = [f"{sidecar_path(path).name}: {p}" for p in seal_problems(manifest, key)]
    described = manifest.get("file")
    if not isinstance(described, dict) or not isinstance(described.get("sha256"), str):
        return [*problems, f"{sidecar_path(path).name} does not describe {path.name}"]
    if not path.is_file():
        return [*problems, f"{path.name} is missing (its manifest is there)"]
    if file_sha256(path) != described["sha256"]:
        problems.append(
            f"{path.name} differs from its manifest (SHA-256): it was changed after it was written"
        )
    return problems


def _format_problem(manifest: dict[str, Any], expected: str, newest: int) -> str | None:
    if manifest.get("format") != expected:
        return f"it describes {manifest.get('format')!r}, not {expected!r}"
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        return "it states no format version"
    if version > newest:
        return (
            f"it is in format {version} (docsapi {manifest.get('docsapi_version', '?')}); this "
            f"docsapi reads formats 1 to {newest}: upgrade docsapi to check it"
        )
    return None


def manifest_of(
    path: Path, expected: str, newest: int
) -> tuple[dict[str, Any], None] | tuple[None, str]:
    """The manifest beside ``path`` if it is one of the ``expected`` format that this
    docsapi reads (versions 1 to ``newest``); else why not, in one sentence.

    Returns
    -------
    tuple
        ``(manifest, None)``, or ``(None, problem)`` when there is no manifest, it cannot
        be read, or it is of another format or a newer version. Its seal is not checked
        yet (:func:`file_problems`).
    """
    name = sidecar_path(path).name
    try:
        manifest = read_sidecar(path)
    except FileNotFoundError:
        return None, (
            f"it has no manifest ({name}) beside it: docsapi did not write it, or the manifest "
            "was not copied with it, so nothing shows that it is as it was written"
        )
    except JSONFileError:
        raise
    except (OSError, ValueError) as exc:
        return None, f"its manifest cannot be read: {exc}"
    wrong = _format_problem(manifest, expected, newest)
    return (manifest, None) if wrong is None else (None, f"{name}: {wrong}")
