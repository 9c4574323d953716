"""What reading and joining the audit log adds to an audit: 2,000 spaces, a year of history.

The sandbox (its own process) serves the demo organization at 2,000 spaces and 5,000 users,
whose log holds
about a year of events, at least one per grant. Each audit runs in a fresh interpreter
(``_audit_child.py``), with the log (``read_log=True``: one paged read beside the crawl, and
the join) and without it, A and B interleaved and their order alternated pair by pair, so
both see the same machine. The figure is the ratio of the median times (target: at most
1.10), with each pair's own ratio beside it, and the same for the audit process's CPU time
(what a loaded machine stretches least); the load average is printed at the start and the end,
since other work shares the machine.

Usage::

    python benchmarks/provenance_bench.py             # 5 pairs
    python benchmarks/provenance_bench.py --pairs 7 --spaces 500
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _server import RemoteSandbox  # noqa: E402

TARGET = 1.10
WORKERS = 8


def _audit(sb: RemoteSandbox, read_log: bool) -> dict:
    command = [
        sys.executable,
        str(HERE / "_audit_child.py"),
        sb.url,
        sb.token,
        sb.org_id,
        str(WORKERS),
        "1" if read_log else "0",
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=1800)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"


def _load() -> str:
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def run(spaces: int, pairs: int) -> dict:
    """Audit ``pairs`` times with and without the log, interleaved; the figures."""
    load_start = _load()
    with RemoteSandbox({"seed": 0, "spaces": spaces, "users": 5000}) as sb:
        _audit(sb, True)  # warm the server's caches and the disk once, unmeasured
        with_log, without, ratios, first = [], [], [], None
        cpu: dict[bool, list[float]] = {True: [], False: []}
        for pair in range(pairs):
            order = (True, False) if pair % 2 == 0 else (False, True)
            times = {}
            for read_log in order:
                figures = _audit(sb, read_log)
                times[read_log] = figures["seconds"]
                cpu[read_log].append(figures["cpu_seconds"])
                if read_log and first is None:
                    first = figures
            with_log.append(times[True])
            without.append(times[False])
            ratios.append(times[True] / times[False])
            print(
                f"pair {pair + 1}: with the log {times[True]:.2f} s, without {times[False]:.2f} s",
                file=sys.stderr,
            )
    assert first is not None
    ratio = statistics.median(with_log) / statistics.median(without)
    return {
        "spaces": first["spaces"],
        "grants": first["grants"],
        "events": first["events"],
        "with_log": _spread(with_log),
        "without_log": _spread(without),
        "ratio": ratio,
        "pair_ratios": _spread(ratios),
        "cpu_with_log": _spread(cpu[True]),
        "cpu_without_log": _spread(cpu[False]),
        "cpu_ratio": statistics.median(cpu[True]) / statistics.median(cpu[False]),
        "met": ratio <= TARGET,
        "load_start": load_start,
        "load_end": _load(),
    }


def row(quick: bool = False) -> dict:
    """The figures as a row of ``benchmarks/run.py`` (``--quick``: 300 spaces, 2 pairs)."""
    spaces, pairs = (300, 2) if quick else (2000, 5)
    found = run(spaces, pairs)
    return {
        "what": (
            f"audit with vs without reading and joining the audit log, {found['spaces']:,} "
            f"spaces, {found['grants']:,} grants, {found['events']:,} events (a year), "
            f"{pairs} pairs interleaved"
        ),
        "docsapi": f"{found['with_log']} s",
        "baseline": f"without the log: {found['without_log']} s",
        "ratio": (
            f"{found['ratio']:.2f} (pairs {found['pair_ratios']}; CPU {found['cpu_ratio']:.2f})"
        ),
        "target": f"<= {TARGET:.2f}",
        "met": found["met"],
        "notes": [
            "`python benchmarks/provenance_bench.py`; sandbox in its own process, each audit "
            f"in a fresh interpreter, 8 workers; CPU time of the audit {found['cpu_with_log']} "
            f"s vs {found['cpu_without_log']} s; load average (1 / 5 / 15 min) "
            f"{found['load_start']} at the start, {found['load_end']} at the end"
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--spaces", type=int, default=2000)
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps(run(args.spaces, args.pairs), indent=2))


if __name__ == "__main__":
    main()
