"""``docsapi verify PATH``: check a snapshot folder, a plan file or an evidence file.

What ``PATH`` is comes from what is there: a folder with ``snapshot.json`` is a snapshot
(:func:`~docsapi.audit.snapshot.store.verify_snapshot`); a file is a plan or an evidence
file by the manifest beside it (``<file>.manifest.json``; the manifest's own path works
too): :func:`~docsapi.review._plan_seal.check_plan_file`,
:func:`~docsapi.review._evidence.check_evidence_file`.
"""

from __future__ import annotations

import os
from pathlib import Path

from docsapi.audit.report.page import output_path
from docsapi.audit.snapshot.files import MANIFEST
from docsapi.audit.snapshot.store import verify_snapshot
from docsapi.core.integrity import Verdict
from docsapi.core.json_files import JSONFileError
from docsapi.core.reprs import shown_path
from docsapi.core.sidecar import SUFFIX, covered_file, read_sidecar, sidecar_path
from docsapi.review._evidence import EVIDENCE_FORMAT, check_evidence_file
from docsapi.review._plan_seal import PLAN_FORMAT, check_plan_file

__all__ = ["verify"]

#: Files that may be plans, checked as plans even without a manifest (which is the problem).
_PLAN_SUFFIXES = (".json", ".csv")


def verify(
    path: str | os.PathLike[str],
    *,
    snapshot: str | os.PathLike[str] | None = None,
    without_snapshot: bool = False,
) -> Verdict:
    """Check what docsapi wrote at ``path`` and list every problem.

    Parameters
    ----------
    path : str or path-like
        A snapshot folder, a plan file, an evidence file, or the manifest beside one.
    snapshot : str or path-like, optional
        For a plan: the snapshot it was made from, when it is not where its manifest says.
    without_snapshot : bool
        For a plan: a missing snapshot is not a problem (its calls are not re-derived).

    Returns
    -------
    Verdict
        ``ok`` when nothing is wrong; ``problems`` one line each; ``facts``.

    Raises
    ------
    ValidationError
        For a path that is not one (blank, a NUL), or a plan file that cannot be read as a
        plan.

    Examples
    --------
    >>> folder = audit.save("reviews/2026-Q3")
    >>> verify(folder).ok
    True
    """
    target = output_path(path, "path")
    try:
        return _verify(target, snapshot, without_snapshot)
    except OSError as exc:
        problem = f"cannot read {shown_path(target)}: {exc.strerror or exc}"
        return Verdict("unknown", target, (problem,))


def _verify(
    target: Path, snapshot: str | os.PathLike[str] | None, without_snapshot: bool
) -> Verdict:
    if target.is_dir() or target.name == MANIFEST:
        return verify_snapshot(target if target.is_dir() else target.parent)
    if target.name.endswith(SUFFIX):
        target = covered_file(target)
    try:
        kind = read_sidecar(target.resolve()).get("format")
    except FileNotFoundError:
        if target.suffix.lower() in _PLAN_SUFFIXES and target.is_file():
            return check_plan_file(target, snapshot=snapshot).verdict(
                without_snapshot=without_snapshot
            )
        what = "does not exist" if not target.exists() else f"has no {sidecar_path(target).name}"
        return Verdict(
            "unknown",
            target,
            (
                f"{shown_path(target)} {what}: docsapi verify checks snapshot folders, plans "
                "and evidence",
            ),
        )
    except JSONFileError:
        raise  # too large or too deep: one line naming the file and the limit (exit 2)
    except (OSError, ValueError) as exc:
        return Verdict("unknown", target, (f"its manifest cannot be read: {exc}",))
    if kind == PLAN_FORMAT:
        return check_plan_file(target, snapshot=snapshot).verdict(without_snapshot=without_snapshot)
    if kind == EVIDENCE_FORMAT:
        return check_evidence_file(target)
    return Verdict(
        "unknown", target, (f"its manifest describes {kind!r}, which docsapi does not write",)
    )
