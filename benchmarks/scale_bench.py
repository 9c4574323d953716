"""The whole audit at three sizes: wall time, client CPU, client peak memory, per effective row.

Each size is a sandbox organization (``spaces x people x grants per space``) served by a
process of its own; the audit runs in a fresh interpreter (``_audit_child.py``, 16 workers),
with the audit log read and without it (``read_log=False``: the same work less the log),
so its peak resident memory (``VmHWM``: ``ru_maxrss`` would count the runner's pages the
child held between fork and exec) and CPU time (``audit_permissions``, every thread; the
whole process's, from ``wait4``, in the notes) are the client's alone. Cost
grows with the number of effective rows (who can reach which space): the last lines give
the growth of CPU and memory per effective row between consecutive sizes, and over the
whole range.

Usage::

    python benchmarks/scale_bench.py                        # the three sizes, one run each
    python benchmarks/scale_bench.py --runs 3 --sizes 2000x5000x50 10000x20000x50

:func:`run` returns the rows for ``benchmarks/run.py`` (section ``L``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _server import RemoteSandbox  # noqa: E402
from _table import print_results  # noqa: E402

WORKERS = 16
SIZES = ((2000, 5000, 50), (5000, 10000, 50), (10000, 20000, 50))
#: Targets at the largest size (issue 25): an auditor's laptop has less memory than this machine.
MEMORY_TARGET_MB, CPU_TARGET_S = 600.0, 40.0


def audit_once(sb: RemoteSandbox, workers: int = WORKERS, read_log: bool = True) -> dict[str, Any]:
    """One audit of ``sb`` in a fresh interpreter: its figures, wall, CPU and peak RSS."""
    command = [sys.executable, str(HERE / "_audit_child.py"), sb.url, sb.token, sb.org_id]
    started = time.perf_counter()
    child = subprocess.Popen(
        [*command, str(workers), "1" if read_log else "0"], stdout=subprocess.PIPE, text=True
    )
    output = child.stdout.read() if child.stdout else ""
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("the audit process failed")
    found = json.loads(output)
    if found["errors"]:
        raise RuntimeError(f"the audit had {found['errors']} read errors")
    found.update(
        process_wall=time.perf_counter() - started,
        process_cpu=usage.ru_utime + usage.ru_stime,
        peak_mb=found["peak_rss_mb"],  # its own peak: wait4's counts the runner's pages too
    )
    return found


def measure(size: tuple[int, int, int], runs: int) -> list[dict[str, Any]]:
    """``runs`` audits of one size with the log and as many without it, interleaved;
    medians and spreads of wall, CPU and peak RSS, one dict for each."""
    spaces, people, grants = size
    options = {"seed": 0, "spaces": spaces, "users": people, "grants_per_space": grants}
    found: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    with RemoteSandbox(options) as sb:
        for run in range(runs):
            for read_log in (True, False) if run % 2 == 0 else (False, True):
                found[read_log].append(audit_once(sb, read_log=read_log))
    return [
        {
            "size": size,
            "read_log": read_log,
            "wall": [f["seconds"] for f in audits],
            "cpu": [f["cpu_seconds"] for f in audits],
            "process_cpu": [f["process_cpu"] for f in audits],
            "peak": [f["peak_mb"] for f in audits],
            "baseline_mb": statistics.median(f["baseline_rss_mb"] for f in audits),
            "effective": audits[0]["effective"],
            "requests": audits[0]["requests"],
            "events": audits[0]["events"],
        }
        for read_log, audits in found.items()
    ]


def _spread(values: list[float], digits: int, unit: str) -> str:
    return (
        f"{statistics.median(values):,.{digits}f} [{min(values):,.{digits}f}-"
        f"{max(values):,.{digits}f}] {unit}"
    )


def _growth(a: dict[str, Any], b: dict[str, Any]) -> tuple[float, float]:
    """µs of CPU and bytes of peak memory per effective row added from ``a`` to ``b``."""
    rows = b["effective"] - a["effective"]
    cpu = (statistics.median(b["cpu"]) - statistics.median(a["cpu"])) / rows * 1e6
    peak = (statistics.median(b["peak"]) - statistics.median(a["peak"])) * 2**20 / rows
    return cpu, peak


def _label(size: tuple[int, int, int]) -> str:
    return f"{size[0]:,} spaces x {size[1]:,} people x {size[2]} grants/space"


def _log(one: dict[str, Any]) -> str:
    return "the log read" if one["read_log"] else "`read_log=False`"


def rows(measured: list[dict[str, Any]], runs: int) -> list[dict[str, Any]]:
    """One row per size and log (the largest with the log against its targets), then the
    growth per row, with the log and without."""
    found = []
    for one in measured:
        peak, cpu = statistics.median(one["peak"]), statistics.median(one["cpu"])
        at_target = one["size"] == SIZES[-1] and one["read_log"]
        found.append(
            {
                "name": f"audit, {_label(one['size'])} (sandbox in its own process, "
                f"{WORKERS} workers), {_log(one)}",
                "docsapi": f"CPU {_spread(one['cpu'], 1, 's')}; peak RSS "
                f"{_spread(one['peak'], 0, 'MB')}",
                "baseline": f"{one['effective']:,} effective rows; wall "
                f"{_spread(one['wall'], 1, 's')}",
                "result": f"{cpu / one['effective'] * 1e6:.1f} µs and "
                f"{peak * 2**20 / one['effective']:.0f} B per effective row",
                "target": f"≤ {MEMORY_TARGET_MB:.0f} MB, ≤ {CPU_TARGET_S:.0f} s CPU"
                if at_target
                else "-",
                "ok": (peak <= MEMORY_TARGET_MB and cpu <= CPU_TARGET_S) if at_target else None,
                "notes": [
                    f"{runs} run(s); {one['requests']:,} requests, {one['events']:,} events; "
                    "CPU: the audit's "
                    f"(`audit_permissions`, every thread; the whole process with its start and "
                    f"imports: {_spread(one['process_cpu'], 1, 's')}); peak RSS of the process "
                    f"(`VmHWM`); Python, pandas and docsapi after import: "
                    f"{one['baseline_mb']:.0f} MB"
                ],
            }
        )
    for read_log in (True, False):
        same = [one for one in measured if one["read_log"] is read_log]
        pairs = list(itertools.pairwise(same))
        if len(same) > 2:
            pairs.append((same[0], same[-1]))
        for a, b in pairs:
            cpu, peak = _growth(a, b)
            found.append(
                {
                    "name": f"growth per effective row, {a['effective']:,} → "
                    f"{b['effective']:,} rows ({a['size'][0]:,} → {b['size'][0]:,} spaces), "
                    f"{_log(a)}",
                    "docsapi": f"{cpu:.1f} µs CPU and {peak:.0f} B peak RSS per added row",
                    "baseline": "-",
                    "result": f"{cpu:.1f} µs, {peak:.0f} B",
                    "target": "-",
                    "ok": None,
                }
            )
    return found


def run(sizes: tuple[tuple[int, int, int], ...] = SIZES, runs: int = 1) -> list[dict[str, Any]]:
    """Measure every size and return the rows (see :func:`rows`)."""
    measured = []
    for size in sizes:
        measured += measure(size, runs)
        for one in measured[-2:]:
            print(
                f"    {_label(size)}, {_log(one)}: CPU {_spread(one['cpu'], 1, 's')}, peak "
                f"{_spread(one['peak'], 0, 'MB')}, {one['effective']:,} effective rows",
                flush=True,
            )
    return rows(measured, runs)


def _size(text: str) -> tuple[int, int, int]:
    spaces, people, grants = (int(part) for part in text.lower().split("x"))
    return spaces, people, grants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--sizes", type=_size, nargs="+", default=list(SIZES))
    args = parser.parse_args()
    print_results(lambda: run(tuple(args.sizes), args.runs))


if __name__ == "__main__":
    main()
