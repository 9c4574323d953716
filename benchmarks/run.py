"""docsapi benchmarks: every performance target, each beside a fair baseline, in one run.

Each row is measured at least 5 times (docsapi and its baseline interleaved) and shows the
median [min-max] and the machine's 1-minute load average when it was measured. Servers (the
sandbox, the replay server) run in processes of their own, so their work does not share the
client's GIL; memory is measured in a fresh child process. Sections (``--only`` letters):

- ``I`` imports: ``from docsapi import DocsClient`` vs ``import requests`` and
  ``from docsapi import audit_permissions`` vs ``import pandas`` (fresh interpreters, wall);
- ``F`` frames: docsapi's frames vs ``from_records`` + ``to_datetime`` with the same columns
  and dtypes at 100, 1,000 and 10,000 items, and the fixed cost (``frames_bench``);
- ``P`` per call: ``client.spaces.get`` vs raw ``requests`` with no network and on a
  keep-alive server (``percall_bench``);
- ``A`` analysis alone (no I/O) at 2,000 spaces x 5,000 users x 50 grants per space
  (``audit_analysis_bench``);
- ``M`` peak RSS of an audit of that organization served by the sandbox;
- ``C`` 16 workers against the ideal, on the sandbox at N = 500 and 2,000 and on the replay
  server, the client's CPU per request while crawling, and the JSON decoder alone on the
  recorded answers, before and after (``concurrency_bench``, ``decoder_bench``);
- ``L`` the audit at 2,000, 5,000 and 10,000 spaces: client CPU and peak memory, and their
  growth per effective row (``scale_bench``);
- ``S`` the sandbox: per-request cost at N = 100 and 2,000, throughput at 1-32 client threads;
- ``R`` requests per audited space (issues 12 and 34): a first audit with the log and without
  it, a second audit an hour later given the first, by endpoint; audit time at a rate limit;
- ``G`` issue 14: ``import docsapi`` before and after ``client.api``, first access, per call;
- ``K`` issue 16: a second audit with the response cache;
- ``E`` issue 38: the sandbox's CPU per request during the audit, the 2,000-space audit's wall
  time, ``docsapi demo`` and its phases, each beside the previous run's (``sandbox_speed``).

Usage (from the repository root)::

    python benchmarks/run.py              # full run (about 45 minutes), replaces RESULTS.md
    python benchmarks/run.py --quick      # smallest sizes, 2 runs: a smoke run, no RESULTS.md
    python benchmarks/run.py --only IP    # some sections only, no RESULTS.md
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _server import RemoteSandbox  # noqa: E402

RESULTS = HERE / "RESULTS.md"
#: How the figures are taken: written under the table by every full run (RESULTS.md is
#: replaced whole; past rounds' analyses are in docs/performance.md).
HOW = """\
- **Ideal** (rows C): `requests x latency / workers`, the wall time if each of the 16 workers
  always had a request in flight and every request took exactly the added 30 ms. No client
  reaches it: the organization's lists must arrive before the per-space reads they enable
  (a few latencies in a row), and every answer costs the client CPU time under one GIL. The
  hand-written baseline (requests + a 16-thread pool, the same reads submitted in the same
  order with the same overlap, JSON decoded, no DataFrames, no analysis) shows what this
  machine allows; docsapi's row is the whole `audit_permissions` call, analysis included.
- **Replay server**: the sandbox's answers recorded once (a `requests` transport adapter), then
  served from memory by a minimal keep-alive HTTP/1.1 server on `asyncio` with the 30 ms as a
  non-blocking sleep, in its own process: the server's own CPU is negligible, so what is left
  above the ideal is the client's.
- **CPU vs wall**: rows without I/O (F frames and models, P with no network, I imports) are
  measured in CPU time (the thread's, the process's, or the child interpreter's user + system
  time from `wait4`), so the other engineers' tests on the same 2 cores do not stretch them;
  rows with latency or a server are wall time, and their `load` column says how busy the
  machine was. Row A gives both.
- **Bytecode**: the shared environment sets `PYTHONDONTWRITEBYTECODE=1`, so docsapi (an
  editable install) was compiled from source on every import while `requests` and `pandas`
  load the files pip compiled. `run.py` lets its child interpreters cache compiled modules in
  a temporary `PYTHONPYCACHEPREFIX`, as an installed package would.
- **Before** (R): the revision before the crawl read the whole access model (`57c884f`), run
  against the same sandbox in a child process with its own package on `PYTHONPATH`.
- **With and without the log** (rows M, C, L, R): every crawl figure is given twice, the
  audit reading the organization's audit log (the default: a year of events, 100 a page)
  and with `read_log=False`, so the log's cost and the audit's overhead over the
  hand-written crawl (which then reads the same log) are measured on the same work.
"""
SECTIONS = "IFPAMCLSRGKE"
#: The organization the README documents: spaces, users, direct grants per space.
DOCUMENTED = {"spaces": 2000, "users": 5000, "grants_per_space": 50}
#: The last revision before the crawl read the whole access model (issue 12): pages of 100,
#: explicit space grants only.
CRAWL_BEFORE = "57c884f"
#: The last revision before ``client.api`` (issue 14).
API_BEFORE = "bb33c8d^1"


@dataclass
class Row:
    """One line of the results table."""

    section: str
    what: str
    docsapi: str
    baseline: str
    ratio: str
    target: str
    met: bool | None
    load: float = field(default_factory=lambda: os.getloadavg()[0])
    notes: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, section: str, found: dict[str, Any]) -> Row:
        """A row from a benchmark module's dict (either naming convention)."""
        return cls(
            section,
            found.get("what") or found["name"],
            found.get("docsapi", "-"),
            found.get("baseline", "-"),
            found.get("ratio") or found.get("result", "-"),
            found.get("target", "-"),
            found["met"] if "met" in found else found.get("ok"),
            notes=list(found.get("notes", [])),
        )


@dataclass
class Settings:
    """Sizes and repeats; ``--quick`` shrinks them for a smoke run."""

    quick: bool
    runs: int = 5
    import_runs: int = 9
    organization: dict[str, int] = field(default_factory=lambda: dict(DOCUMENTED))
    concurrency_sizes: tuple[int, ...] = (500, 2000)
    scale_sizes: tuple[tuple[int, int, int], ...] = (
        (2000, 5000, 50),
        (5000, 10000, 50),
        (10000, 20000, 50),
    )
    cost_sizes: tuple[int, int] = (100, 2000)
    cost_repeats: int = 100
    threads: tuple[int, ...] = (1, 2, 4, 8, 32)
    throughput_seconds: float = 2.0
    percall_blocks: int = 10
    percall_calls: int = 300
    rate_spaces: int = 100
    rate: tuple[int, float] = (300, 5.0)

    @classmethod
    def make(cls, quick: bool) -> Settings:
        if not quick:
            return cls(quick=False)
        return cls(
            quick=True,
            runs=2,
            import_runs=2,
            organization={"spaces": 100, "users": 300, "grants_per_space": 10},
            concurrency_sizes=(60,),
            scale_sizes=((60, 200, 10), (120, 400, 10)),
            cost_sizes=(30, 100),
            cost_repeats=20,
            threads=(1, 2),
            throughput_seconds=0.5,
            percall_blocks=2,
            percall_calls=50,
            rate_spaces=30,
            rate=(100, 1.0),
        )


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def spread(values: list[float], scale: float = 1.0, digits: int = 2, unit: str = "") -> str:
    """``median [min-max] unit`` of ``values`` times ``scale``."""
    low, mid, high = (v * scale for v in (min(values), statistics.median(values), max(values)))
    return f"{mid:.{digits}f} [{low:.{digits}f}-{high:.{digits}f}]{' ' + unit if unit else ''}"


# -- I. imports ---------------------------------------------------------------------------------


def _interpreter(statement: str) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, from ``wait4``) of ``python -c statement``."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", statement], cwd=ROOT)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"python -c {statement!r} failed")
    return wall, usage.ru_utime + usage.ru_stime


def _heavy(statement: str) -> list[str]:
    """Which of pandas, numpy, matplotlib, ipywidgets, jsonschema, requests_cache load."""
    code = f"import sys; {statement}; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    heavy = {"pandas", "numpy", "matplotlib", "ipywidgets", "jsonschema", "requests_cache"}
    return sorted(heavy & {name.split(".")[0] for name in done.stdout.split()})


def bench_imports(cfg: Settings) -> list[Row]:
    pairs = [
        ("from docsapi import DocsClient", "import requests"),
        ("from docsapi import audit_permissions", "import pandas"),
    ]
    statements = [s for pair in pairs for s in pair] + ["pass"]
    wall: dict[str, list[float]] = {s: [] for s in statements}
    cpu: dict[str, list[float]] = {s: [] for s in statements}
    _interpreter("import docsapi.client, docsapi.audit")  # compile once, warm the page cache
    for run in range(cfg.import_runs):
        for statement in statements if run % 2 == 0 else statements[::-1]:
            seconds, used = _interpreter(statement)
            wall[statement].append(seconds)
            cpu[statement].append(used)
    rows = []
    bare = statistics.median(cpu["pass"])
    for ours, theirs in pairs:
        ratio = statistics.median(cpu[ours]) / statistics.median(cpu[theirs])
        wall_ratio = statistics.median(wall[ours]) / statistics.median(wall[theirs])
        rows.append(
            Row(
                "I",
                f'`python -c "{ours}"` vs `python -c "{theirs}"`',
                spread(cpu[ours], 1e3, 0, "ms CPU"),
                spread(cpu[theirs], 1e3, 0, "ms CPU"),
                f"{ratio:.2f} (wall: {wall_ratio:.2f})",
                "≤ 1.1",
                ratio <= 1.1,
                notes=[
                    f"fresh interpreters, {cfg.import_runs} runs interleaved; CPU time of the "
                    f"child (user + system; the interpreter's own start, `python -c pass`, is "
                    f"{bare * 1e3:.0f} ms of each); wall: {spread(wall[ours], 1e3, 0, 'ms')} vs "
                    f"{spread(wall[theirs], 1e3, 0, 'ms')}; heavy packages loaded: "
                    f"{', '.join(_heavy(ours)) or 'none'}"
                ],
            )
        )
    return rows


# -- F. frames, P. per call ---------------------------------------------------------------------


def bench_frames(cfg: Settings) -> list[Row]:
    import frames_bench

    return [Row.of("F", found) for found in frames_bench.run(cfg.quick)]


def bench_percall(cfg: Settings) -> list[Row]:
    import percall_bench
    from replay_server import ReplayServer, save

    rows = [Row.of("P", percall_bench.no_network(cfg.percall_blocks, cfg.percall_calls))]
    body = json.dumps(percall_bench.SPACE).encode()
    with tempfile.TemporaryDirectory() as folder:
        recording = Path(folder) / "space.pickle"
        save({("GET", f"/v1/spaces/{percall_bench.SPACE['id']}"): (200, body)}, recording)
        with ReplayServer(recording) as server:
            found = percall_bench.keep_alive(
                f"{server.url}/v1",
                "t0ken",
                percall_bench.SPACE["id"],
                cfg.percall_blocks,
                cfg.percall_calls // 2,
            )
    rows.append(Row.of("P", found))
    return rows


# -- A. analysis, M. memory ---------------------------------------------------------------------


def bench_analysis(cfg: Settings) -> list[Row]:
    import audit_analysis_bench

    size = cfg.organization
    os.environ["DOCSAPI_BENCH_ORG"] = f"{size['spaces']},{size['users']},{size['grants_per_space']}"
    found = audit_analysis_bench.bench_audit_analysis(cfg.runs)
    rows = []
    for item in found:
        item["ratio"] = item.pop("result")
        item["docsapi"] = item["ratio"]
        rows.append(Row.of("A", item))
    return rows


def _audit_child(sb: RemoteSandbox, workers: int, read_log: bool) -> tuple[float, dict[str, Any]]:
    command = [sys.executable, str(HERE / "_audit_child.py"), sb.url, sb.token, sb.org_id]
    child = subprocess.Popen(
        [*command, str(workers), "1" if read_log else "0"], stdout=subprocess.PIPE, text=True
    )
    output = child.stdout.read() if child.stdout else ""
    if child.wait() != 0:
        raise RuntimeError("the audit process failed")
    found = json.loads(output)
    return found["peak_rss_mb"], found  # the program's own peak (see _audit_child.py)


def bench_memory(cfg: Settings) -> list[Row]:
    size = cfg.organization
    runs: dict[bool, list[tuple[float, dict[str, Any]]]] = {True: [], False: []}
    with RemoteSandbox({"seed": 0, **size}) as sb:
        for run in range(cfg.runs):
            for read_log in (True, False) if run % 2 == 0 else (False, True):
                runs[read_log].append(_audit_child(sb, 8, read_log))
    rows = []
    for read_log, found in runs.items():
        peaks = [peak for peak, _ in found]
        figures = found[0][1]
        imports = [one["baseline_rss_mb"] for _, one in found]
        rows.append(
            Row(
                "M",
                f"audit peak RSS, {size['spaces']:,} spaces x {size['users']:,} users x "
                f"{size['grants_per_space']} grants/space (sandbox in its own process), "
                + ("the log read" if read_log else "`read_log=False`"),
                spread(peaks, 1, 0, "MB"),
                f"{statistics.median(imports):.0f} MB after imports (Python, pandas, docsapi)",
                f"{statistics.median(peaks):.0f} MB",
                "≤ 300 MB",
                statistics.median(peaks) <= 300,
                notes=[
                    f"peak RSS (`VmHWM`) of a fresh process running `audit_permissions`, "
                    f"max_workers=8, {cfg.runs} runs, with and without the log interleaved; "
                    f"{figures['requests']:,} requests, {figures['events']:,} events, "
                    f"{figures['grants']:,} grants, {figures['effective']:,} effective rows, "
                    f"{figures['findings']} findings; audit "
                    f"{spread([f['seconds'] for _, f in found], 1, 1, 's')} with no added "
                    "latency"
                ],
            )
        )
    return rows


# -- C. concurrency -----------------------------------------------------------------------------


def bench_concurrency(cfg: Settings) -> list[Row]:
    import concurrency_bench

    size = cfg.organization
    found = concurrency_bench.run(
        cfg.concurrency_sizes, cfg.runs, users=size["users"], grants=size["grants_per_space"]
    )
    return [Row.of("C", item) for item in found]


def bench_scale(cfg: Settings) -> list[Row]:
    import scale_bench

    return [Row.of("L", found) for found in scale_bench.run(cfg.scale_sizes, 1)]


# -- S. the sandbox -----------------------------------------------------------------------------


def bench_sandbox(cfg: Settings) -> list[Row]:
    import sandbox_request_cost
    import sandbox_throughput

    small, large = cfg.cost_sizes
    size = cfg.organization
    by_size = {
        n: sandbox_request_cost.measure(
            n, size["users"], size["grants_per_space"], cfg.cost_repeats
        )
        for n in (small, large)
    }
    rows = []
    for label in by_size[small]:
        a, b = by_size[small][label], by_size[large][label]
        ratio = statistics.median(b) / statistics.median(a)
        rows.append(
            Row(
                "S",
                f"sandbox, one request ({label}): N = {large:,} vs N = {small:,}",
                f"N = {large:,}: {spread(b, 1, 2, 'ms')}",
                f"N = {small:,}: {spread(a, 1, 2, 'ms')}",
                f"{ratio:.2f}",
                "≤ 1.2 (independent of N)",
                ratio <= 1.2,
                notes=[
                    f"{cfg.cost_repeats} requests in a row over one keep-alive connection, "
                    f"{size['users']:,} users, {size['grants_per_space']} grants per space"
                ],
            )
        )
    with RemoteSandbox({"seed": 0}) as sb:
        sandbox_throughput.measure(sb, 1, 0.5)  # warm up
        rates: dict[int, list[float]] = {n: [] for n in cfg.threads}
        for run in range(cfg.runs):
            for threads in cfg.threads if run % 2 == 0 else cfg.threads[::-1]:
                rates[threads].append(
                    sandbox_throughput.measure(sb, threads, cfg.throughput_seconds)
                )
    one = statistics.median(rates[1])
    cores = os.cpu_count() or 1
    up_to_cores = [n for n in cfg.threads if n <= cores]
    grows = all(
        statistics.median(rates[b]) > statistics.median(rates[a])
        for a, b in itertools.pairwise(up_to_cores)
    )
    rows.append(
        Row(
            "S",
            "sandbox throughput (requests/s) by client threads: "
            + ", ".join(f"{n}" for n in cfg.threads),
            "; ".join(f"{n}: {spread(rates[n], 1, 0)}" for n in cfg.threads),
            f"1 thread: {one:.0f}/s",
            ", ".join(f"{statistics.median(rates[n]) / one:.2f}" for n in cfg.threads),
            f"grows up to the cores ({cores})",
            grows,
            notes=[
                f"demo organization; each thread its own session, 3 reads : 1 write, "
                f"{cfg.throughput_seconds:g} s per measure, {cfg.runs} runs; the client "
                f"threads share one process (one GIL) and the {cores} cores with the server"
            ],
        )
    )
    return rows


# -- R. issue 12: requests per space, rate limit ------------------------------------------------

_OLD_AUDIT = """
import json, sys
import docsapi
from docsapi.audit import audit_permissions
url, token, org = sys.argv[1:4]
client = docsapi.DocsClient(base_url=url, token=token, timeout=60.0)
audit = audit_permissions(client, org, max_workers=8, progress=False)
print(json.dumps({"requests": client.transport.request_count, "file": docsapi.__file__}))
"""


def _revision_tree(revision: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "archive", revision, "docsapi"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _requests_of(sb: RemoteSandbox, tree: Path | None) -> int:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    done = subprocess.run(
        [sys.executable, "-c", _OLD_AUDIT, sb.url, sb.token, sb.org_id],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=tree or ROOT,
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    if tree is not None and not found["file"].startswith(str(tree)):
        raise RuntimeError("the old revision's package was not the one imported")
    return int(found["requests"])


def _rate_limited_audit(sb: RemoteSandbox, limit: int, period: float) -> tuple[float, int]:
    import docsapi

    client = docsapi.DocsClient(base_url=sb.url, token=sb.token, timeout=(10.0, 60.0))
    sb.set_rate_limit(limit, period)
    started = time.perf_counter()
    audit = docsapi.audit_permissions(client, sb.org_id, max_workers=8, progress=False)
    elapsed = time.perf_counter() - started
    sb.set_rate_limit(None, period)
    client.close()
    if audit.count("errors"):
        raise RuntimeError("the rate-limited audit had read errors")
    return elapsed, client.transport.request_count


#: Requests per audited space at the documented size (issue 34): a first audit, and a second
#: one an hour later (``previous=`` the first) with a day of new events in the log.
FIRST_AUDIT_TARGET, SECOND_AUDIT_TARGET = 3.0, 2.2


def _endpoint(path: str) -> str:
    """A request's path with its ids replaced: ``/spaces/{id}/permissions/users``."""
    parts = path.split("?")[0].split("/")
    kinds = {"spaces", "collections", "teams", "sites", "orgs"}
    return "/".join("{id}" if i and parts[i - 1] in kinds else part for i, part in enumerate(parts))


def _audit_counted(sb: RemoteSandbox, **options: Any) -> tuple[Any, Counter[str]]:
    """An audit of ``sb`` (8 workers) and its requests by endpoint."""
    import docsapi

    client = docsapi.DocsClient(base_url=sb.url, token=sb.token, timeout=(10.0, 120.0))
    client.transport.history = deque()  # every request, not the last 5,000
    audit = docsapi.audit_permissions(client, sb.org_id, max_workers=8, progress=False, **options)
    client.close()
    sent = [r for r in client.transport.history if not r.from_cache]
    if audit.count("errors") or len(sent) != client.transport.request_count:
        raise RuntimeError("the audit had read errors, or its history missed requests")
    return audit, Counter(_endpoint(r.path) for r in sent)


def _by_endpoint(counts: Counter[str], spaces: int) -> str:
    return ", ".join(f"{path} {n:,} ({n / spaces:.2f})" for path, n in counts.most_common())


def bench_issue12(cfg: Settings) -> list[Row]:
    size = cfg.organization
    spaces = size["spaces"]
    rows = []
    with tempfile.TemporaryDirectory() as folder, RemoteSandbox({"seed": 0, **size}) as sb:
        tree = _revision_tree(CRAWL_BEFORE, Path(folder))
        before = _requests_of(sb, tree)
        blind, blind_counts = _audit_counted(sb, read_log=False)
        first, first_counts = _audit_counted(sb)
        day = max(1, round(len(first.events) / 365))
        sb.later(hours=1, changes=day)
        second, second_counts = _audit_counted(sb, previous=first)
    audits = (
        ("first audit, the log read", first, first_counts, FIRST_AUDIT_TARGET),
        ("first audit, `read_log=False`", blind, blind_counts, None),
        (
            f"second audit an hour later, `previous=` the first, {day:,} new events",
            second,
            second_counts,
            SECOND_AUDIT_TARGET,
        ),
    )
    for label, audit, counts, target in audits:
        sent = sum(counts.values())
        rows.append(
            Row(
                "R",
                f"requests per audited space, {spaces:,} spaces x {size['users']:,} users: {label}",
                f"{sent / spaces:.2f} ({sent:,} requests)",
                f"before ({CRAWL_BEFORE}): {before / spaces:.2f} ({before:,} requests)",
                f"{sent / before:.2f}",
                "-" if target is None else f"≤ {target}",
                None if target is None else sent / spaces <= target,
                notes=[
                    f"by endpoint (per space): {_by_endpoint(counts, spaces)}; "
                    f"{len(audit.events):,} events in the audit's log; counted from the "
                    "client's history, deterministic; before: explicit space grants only "
                    "(users, teams per space), pages of 100"
                ],
            )
        )
    limit, period = cfg.rate
    rate = limit / period
    with RemoteSandbox({"seed": 0, "spaces": cfg.rate_spaces}) as sb:
        runs = []
        for _ in range(cfg.runs):
            runs.append(_rate_limited_audit(sb, limit, period))
            time.sleep(period)  # a fresh window for the next run
    seconds = [s for s, _ in runs]
    sent = runs[0][1]
    floor = sent / rate
    rows.append(
        Row(
            "R",
            f"audit at a rate limit of {limit} requests / {period:g} s "
            f"({cfg.rate_spaces} spaces, 8 workers)",
            spread(seconds, 1, 2, "s"),
            f"floor {sent:,} requests ÷ {rate:g}/s = {floor:.2f} s",
            f"{statistics.median(seconds) / floor:.2f}x floor",
            "close to the floor",
            None,
            notes=[
                "the sandbox's fixed-window limit with `X-RateLimit-*` headers; the client "
                "paces itself on them; the first window is a full budget, so the floor "
                "(requests ÷ rate) is within one window of what is reachable"
            ],
        )
    )
    return rows


# -- G. issue 14 (client.api), K. issue 16 (cache) ---------------------------------------------


def bench_issue14(cfg: Settings) -> list[Row]:
    import api_overhead

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        tree = api_overhead.baseline_tree(API_BEFORE, Path(folder))
        found = api_overhead.bench_import(max(cfg.import_runs, 5), tree)
    found["notes"][0] = f"baseline: `import docsapi` at {API_BEFORE} (before client.api)"
    rows.append(found)
    rows.append(api_overhead.bench_first_access(max(cfg.runs, 2)))
    blocks, per_block = (4, 10) if cfg.quick else (10, 100)
    rows += api_overhead.bench_calls(blocks, per_block)
    return [Row.of("G", found) for found in rows]


def bench_issue16(cfg: Settings) -> list[Row]:
    import cache_bench

    return [Row.of("K", found) for found in cache_bench.run(cfg.quick)]


# -- the report ---------------------------------------------------------------------------------


def bench_speed(cfg: Settings) -> list[Row]:
    import sandbox_speed

    # a quick run measures the demo only (the audits are of 500 and 2,000 spaces)
    found = sandbox_speed.measure("demo" if cfg.quick else None, save=not cfg.quick)
    return [Row.of("E", row) for row in found]


BENCHES: dict[str, tuple[str, Callable[[Settings], list[Row]]]] = {
    "I": ("import time (issue 17; issue 14's is in G)", bench_imports),
    "F": ("frames vs from_records + to_datetime", bench_frames),
    "P": ("per call vs raw requests", bench_percall),
    "A": ("audit analysis alone", bench_analysis),
    "M": ("audit peak memory", bench_memory),
    "C": ("16 workers vs ideal", bench_concurrency),
    "L": ("the audit at three sizes", bench_scale),
    "S": ("the sandbox", bench_sandbox),
    "R": ("requests per audited space (issues 12, 34) and rate limit", bench_issue12),
    "G": ("issue 14: client.api", bench_issue14),
    "K": ("issue 16: second audit with the cache", bench_issue16),
    "E": ("issue 38: the sandbox's speed and the demo", bench_speed),
}


def verdict(met: bool | None) -> str:
    return {True: "yes", False: "**no**", None: "-"}[met]


def table(rows: list[Row]) -> str:
    lines = [
        "| # | what | docsapi | baseline | ratio | target | met? | load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.section} | {r.what} | {r.docsapi} | {r.baseline} | {r.ratio} | {r.target} "
        f"| {verdict(r.met)} | {r.load:.1f} |"
        for r in rows
    ]
    return "\n".join(lines)


def machine() -> str:
    import pandas
    import requests

    with open("/proc/meminfo", encoding="ascii") as info:
        total_kb = int(next(line for line in info if line.startswith("MemTotal")).split()[1])
    return (
        f"{os.cpu_count()} cores, {total_kb / 1024**2:.1f} GiB memory, Python "
        f"{platform.python_version()}, {platform.platform()}; requests {requests.__version__}, "
        f"pandas {pandas.__version__}"
    )


def revision() -> str:
    """The commit measured, and whether the working tree had changes beside it."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "an unknown revision (no git)"
    if not commit:
        return "an unknown revision (not a git checkout)"
    return f"`{commit}`" + (" with uncommitted changes" if changed else "")


def load_average() -> str:
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def write_results(
    rows: list[Row], command: str, minutes: float, loads: tuple[str, str], measured: str
) -> None:
    """Replace RESULTS.md whole with this run's table, its notes and how they are taken;
    ``measured`` names the revision (see :func:`revision`)."""
    notes = "\n".join(f"- **{r.section}** {r.what}: {'; '.join(r.notes)}" for r in rows if r.notes)
    missed = sum(r.met is False for r in rows)
    body = f"""# docsapi benchmark results

Output of one run: `{command}` (from the repository root) on {measured},
started {dt.datetime.now(dt.UTC) - dt.timedelta(minutes=minutes):%Y-%m-%d %H:%M} UTC,
{minutes:.1f} minutes in all; each full run replaces this file whole (past rounds'
analyses: [docs/performance.md](../docs/performance.md)).

Machine: {machine()}. The machine is shared: other work ran beside the benchmark. Load average
(1 / 5 / 15 min) at the start: {loads[0]}; at the end: {loads[1]}; the `load` column is the
1-minute load average when the row was measured (above 2, the 2 cores were oversubscribed).

Each figure is the median [min-max] of at least 5 runs (imports: 9), docsapi and its baseline
interleaved; servers run in processes of their own. {missed} target(s) missed.

{table(rows)}

Notes per row:

{notes}

## How the figures are taken

{HOW}"""
    RESULTS.write_text(body, encoding="utf-8")


def _cache_bytecode() -> str:
    """Let the benchmark's child interpreters cache compiled modules, as installs do.

    With ``PYTHONDONTWRITEBYTECODE`` set (as on the shared machine), docsapi's modules would be
    compiled from source on every import while ``requests`` and ``pandas`` load the files pip
    compiled when installing them. The children write and read compiled files in a temporary
    directory instead (``PYTHONPYCACHEPREFIX``), the same for every package; returns it.
    """
    folder = tempfile.mkdtemp(prefix="docsapi-bench-pycache-")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = folder
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smallest sizes, 2 runs")
    parser.add_argument("--only", metavar="LETTERS", help=f"sections among {SECTIONS}")
    args = parser.parse_args(argv)
    cfg = Settings.make(args.quick)
    chosen = (args.only or SECTIONS).upper()
    unknown = set(chosen) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections {''.join(sorted(unknown))}; choose among {SECTIONS}")
    measured = revision()  # before the run: the code measured
    compiled_here = _cache_bytecode()
    started, start_load = time.perf_counter(), load_average()
    log(f"load average {start_load}; {'quick' if cfg.quick else 'full'} run of {chosen}")
    rows: list[Row] = []
    for letter in SECTIONS:
        if letter in chosen:
            title, bench = BENCHES[letter]
            log(f"{letter}: {title}")
            found = bench(cfg)
            for row in found:
                log(f"  {row.what}: {row.docsapi} | {row.ratio} | met: {verdict(row.met)}")
            rows += found
    minutes = (time.perf_counter() - started) / 60
    print()
    print(table(rows))
    print()
    for row in rows:
        for note in row.notes:
            print(f"  {row.section}: {note}")
    print(
        f"\n{sum(r.met is False for r in rows)} target(s) missed; {minutes:.1f} minutes; "
        f"load average {start_load} at the start, {load_average()} at the end"
    )
    if not cfg.quick and not args.only:
        inside = ROOT in Path(sys.executable).parents
        python = os.path.relpath(sys.executable, ROOT) if inside else "python"
        write_results(
            rows, f"{python} benchmarks/run.py", minutes, (start_load, load_average()), measured
        )
        log(f"wrote {RESULTS.relative_to(ROOT)}")
    shutil.rmtree(compiled_here, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
