"""The response cache: a second permission audit with ``DocsClient(cache=...)`` and without.

A notebook that runs its audit again (to try other thresholds, or after a kernel restart)
crawls the organization again. With a cache, the second crawl is answered from the SQLite
file. Each run builds a new client, audits the demo organization once (with the cache, into
a new file), then times the second audit and counts the requests it sent (answers from the
cache are not requests). Cached and uncached runs alternate; each figure is the median
[min-max] of the runs.

The sandbox (demo size, seed 0) is served from a child process, with a latency added to every
request: 0 (the sandbox on this machine) and 30 ms (closer to a remote API). Usage::

    python benchmarks/cache_bench.py            # 7 runs at 0 and 30 ms
    python benchmarks/cache_bench.py --quick    # 5 runs at 0 ms

:func:`run` returns the rows (dicts) for ``benchmarks/run.py``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _server import RemoteSandbox  # noqa: E402
from _table import print_results  # noqa: E402

RUNS = 7
LATENCIES = (0.0, 0.030)
WORKERS = 8
REQUEST_TIMEOUT = (10.0, 60.0)


def _second_audit(sb: RemoteSandbox, cache: Path | None) -> tuple[float, int]:
    """Audit twice with one new client; the second audit's seconds and requests sent."""
    import docsapi

    client = docsapi.DocsClient(
        token=sb.token, base_url=sb.url, timeout=REQUEST_TIMEOUT, cache=cache
    )
    with client:
        docsapi.audit_permissions(client, sb.org_id, max_workers=WORKERS, progress=False)
        sent = client.transport.request_count
        started = time.perf_counter()
        docsapi.audit_permissions(client, sb.org_id, max_workers=WORKERS, progress=False)
        elapsed = time.perf_counter() - started
        return elapsed, client.transport.request_count - sent


def _spread(values: list[float], scale: float, unit: str) -> str:
    """``median [min-max] unit``."""
    return (
        f"{statistics.median(values) * scale:.0f} [{min(values) * scale:.0f}-"
        f"{max(values) * scale:.0f}] {unit}"
    )


def bench_latency(sb: RemoteSandbox, latency: float, runs: int) -> dict[str, Any]:
    """One row: the second audit's time and requests, cached and not, at one latency."""
    sb.set_latency(latency)
    times: dict[bool, list[float]] = {True: [], False: []}
    requests: dict[bool, list[int]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as folder:
        _second_audit(sb, Path(folder) / "warm-up.sqlite")  # imports, connections
        for number in range(runs):
            order = (True, False) if number % 2 == 0 else (False, True)
            for cached in order:
                cache = Path(folder) / f"run-{number}.sqlite" if cached else None
                seconds, sent = _second_audit(sb, cache)
                times[cached].append(seconds)
                requests[cached].append(sent)
    cached_ms = statistics.median(times[True]) * 1e3
    fresh_ms = statistics.median(times[False]) * 1e3
    ok = max(requests[True]) == 0 and cached_ms < fresh_ms
    return {
        "name": (
            f"second audit of the demo org ({latency * 1e3:.0f} ms latency, "
            f"{WORKERS} workers, {runs} runs)"
        ),
        "docsapi": f"cache=…: {_spread(times[True], 1e3, 'ms')}, {max(requests[True])} requests",
        "baseline": (
            f"no cache: {_spread(times[False], 1e3, 'ms')}, "
            f"{statistics.median(requests[False]):.0f} requests"
        ),
        "result": f"{fresh_ms / cached_ms:.1f}x faster",
        "target": "0 requests, faster",
        "ok": ok,
    }


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure every figure; returns one dict per row (name, docsapi, baseline, result, ...)."""
    runs = 5 if quick else RUNS
    latencies = LATENCIES[:1] if quick else LATENCIES
    with RemoteSandbox({"seed": 0}) as sb:
        return [bench_latency(sb, latency, runs) for latency in latencies]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 runs, no added latency")
    quick = parser.parse_args().quick
    print_results(lambda: run(quick))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
