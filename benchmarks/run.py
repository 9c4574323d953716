"""docsapi benchmarks: the toolkit against hand-written ``requests`` code, side by side.

Every row measures docsapi and its baseline in the same run, interleaved, against the
same sandbox, and compares the figure with its target:

1. per-request cost: ``client.spaces.get`` vs a bare ``requests.Session`` (ratio <= 1.10)
2. listing a 2,000-space org into a DataFrame vs requests + ``pandas.json_normalize`` (<= 1.0)
3. ``frames.permission_users`` on 100,000 records vs ``json_normalize`` + rename (>= 2x faster)
4. audit crawl of 300 spaces with 30 ms latency at 1/4/8/16 workers (16 within 1.5x of the
   ideal requests x latency / workers; 16 workers >= 8x faster than 1)
5. peak memory of an audit of a 2,000-space org with ~50 grants per space (<= 400 MB)
6. import cost: ``import docsapi`` vs ``import requests`` (ratio <= 1.5), and no pandas,
   matplotlib or ipywidgets in ``python -X importtime -c "import docsapi"``

The sandboxes run in child processes (see ``_server.py``) so the server's work does not
share the client's GIL. Usage::

    python benchmarks/run.py            # full run, writes benchmarks/RESULTS.md
    python benchmarks/run.py --quick    # smoke run (smaller, fewer repeats, no RESULTS.md)
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _server import RemoteSandbox  # noqa: E402

RESULTS = HERE / "RESULTS.md"
#: RESULTS.md keeps everything below this line across runs (notes, before/after figures).
KEEP_MARKER = "<!-- notes below this line are kept when run.py rewrites the file -->"
SEED = 0
REQUEST_TIMEOUT = (10.0, 60.0)


@dataclass
class Row:
    """One line of the results table."""

    number: str
    name: str
    docsapi: str
    baseline: str
    result: str
    target: str
    ok: bool | None
    notes: list[str] = field(default_factory=list)


@dataclass
class Settings:
    """Sizes and repeats; ``--quick`` shrinks them for a smoke run."""

    quick: bool
    blocks: int = 20
    per_block: int = 100
    list_spaces: int = 2000
    list_repeats: int = 7
    frame_records: int = 100_000
    frame_repeats: int = 5
    crawl_spaces: int = 300
    crawl_latency: float = 0.030
    crawl_workers: tuple[int, ...] = (1, 4, 8, 16)
    crawl_repeats: int = 3
    memory_spaces: int = 2000
    memory_users: int = 300
    memory_grants: int = 50
    import_runs: int = 15

    @classmethod
    def make(cls, quick: bool) -> Settings:
        if not quick:
            return cls(quick=False)
        return cls(
            quick=True,
            blocks=4,
            per_block=50,
            list_spaces=500,
            list_repeats=3,
            frame_records=20_000,
            frame_repeats=2,
            crawl_spaces=60,
            crawl_repeats=1,
            memory_spaces=300,
            memory_users=150,
            import_runs=4,
        )


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def timed(function: Callable[[], object]) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def verdict(ok: bool | None) -> str:
    return {True: "yes", False: "**MISS**", None: "-"}[ok]


# -- 1. per-request cost ----------------------------------------------------------------------


def bench_per_request(sb: RemoteSandbox, cfg: Settings) -> Row:
    import requests

    import docsapi

    client = docsapi.DocsClient(base_url=sb.url, token=sb.token, timeout=REQUEST_TIMEOUT)
    session = requests.Session()
    session.headers.update(
        {
            "Authorization": f"Bearer {sb.token}",
            "Accept": "application/json",
            "User-Agent": f"docsapi/{docsapi.__version__}",
        }
    )
    ids = sb.space_ids[:50]

    def with_docsapi(count: int) -> None:
        for i in range(count):
            client.spaces.get(ids[i % len(ids)])

    def with_requests(count: int) -> None:
        for i in range(count):
            reply = session.get(f"{sb.url}/spaces/{ids[i % len(ids)]}", timeout=REQUEST_TIMEOUT)
            reply.raise_for_status()
            reply.json()

    with_docsapi(50)  # warm up: connections, lazy imports
    with_requests(50)
    ratios, doc_times, raw_times = [], [], []
    cpu = {with_docsapi: 0.0, with_requests: 0.0}
    for block in range(cfg.blocks):
        pair = [(with_docsapi, doc_times), (with_requests, raw_times)]
        if block % 2:
            pair.reverse()
        for function, times in pair:
            cpu_started = time.process_time()
            times.append(timed(lambda f=function: f(cfg.per_block)) / cfg.per_block)
            cpu[function] += time.process_time() - cpu_started
        ratios.append(doc_times[-1] / raw_times[-1])
    client.close()
    session.close()
    ratio = statistics.median(ratios)
    total = cfg.blocks * cfg.per_block
    return Row(
        "1",
        f"GET /spaces/{{id}} x {total} each (blocks of {cfg.per_block}, alternating)",
        f"{statistics.median(doc_times) * 1e6:.0f} µs/req",
        f"{statistics.median(raw_times) * 1e6:.0f} µs/req",
        f"ratio {ratio:.3f}",
        "≤ 1.10",
        ratio <= 1.10,
        [
            f"block ratios min {min(ratios):.3f} / max {max(ratios):.3f}",
            f"client-process CPU per request: docsapi {cpu[with_docsapi] / total * 1e6:.0f} µs, "
            f"requests {cpu[with_requests] / total * 1e6:.0f} µs",
            "the sandbox (werkzeug) answers `Connection: close`, so every request of both "
            "sides opens a new TCP connection",
        ],
    )


# -- 2. listing into a DataFrame ----------------------------------------------------------------


def raw_spaces_frame(session, base_url: str, org_id: str):
    """What a user writes by hand: follow the cursors, normalize, rename, parse timestamps."""
    import pandas as pd

    items, params = [], {}
    while True:
        reply = session.get(
            f"{base_url}/orgs/{org_id}/spaces", params=params, timeout=REQUEST_TIMEOUT
        )
        reply.raise_for_status()
        page = reply.json()
        items.extend(page["items"])
        cursor = (page.get("next") or {}).get("page")
        if not cursor:
            break
        params = {"page": cursor}
    frame = pd.json_normalize(items)
    frame = frame.rename(
        columns={
            "editMode": "edit_mode",
            "defaultLevel": "default_level",
            "createdAt": "created_at",
            "updatedAt": "updated_at",
            "urls.app": "url_app",
            "urls.location": "url_location",
        }
    )
    for column in ("created_at", "updated_at"):
        frame[column] = pd.to_datetime(frame[column], utc=True)
    return frame


def bench_listing(sb: RemoteSandbox, cfg: Settings) -> Row:
    import requests

    import docsapi

    client = docsapi.DocsClient(base_url=sb.url, token=sb.token, timeout=REQUEST_TIMEOUT)
    session = requests.Session()
    session.headers.update({"Authorization": f"Bearer {sb.token}", "Accept": "application/json"})
    expected = len(client.spaces.list(org_id=sb.org_id))  # warm up both
    assert len(raw_spaces_frame(session, sb.url, sb.org_id)) == expected
    ratios, doc_times, raw_times = [], [], []
    for repeat in range(cfg.list_repeats):
        pair = [
            (lambda: client.spaces.list(org_id=sb.org_id), doc_times),
            (lambda: raw_spaces_frame(session, sb.url, sb.org_id), raw_times),
        ]
        if repeat % 2:
            pair.reverse()
        for function, times in pair:
            times.append(timed(function))
        ratios.append(doc_times[-1] / raw_times[-1])
    client.close()
    session.close()
    ratio = statistics.median(ratios)
    return Row(
        "2",
        f"list a {expected:,}-space org into a DataFrame (x {cfg.list_repeats})",
        f"{statistics.median(doc_times) * 1e3:.0f} ms",
        f"{statistics.median(raw_times) * 1e3:.0f} ms",
        f"ratio {ratio:.3f}",
        "≤ 1.0",
        ratio <= 1.0,
        ["baseline: cursor loop + json_normalize + rename + to_datetime; same page size (100)"],
    )


# -- 3. frames alone ------------------------------------------------------------------------------


def permission_records(count: int) -> list[dict]:
    """``UserContentPermission`` objects shaped like the API's, from a fixed seed."""
    rng = random.Random(SEED)
    roles = ["admin", "create", "review", "edit", "comment", "read", None]
    users = [
        {
            "object": "user",
            "id": f"u{n:08d}",
            "displayName": f"User {n}",
            "email": f"user{n}@example.com",
            "urls": {"location": f"https://api.example.com/v1/users/u{n:08d}"},
        }
        for n in range(5000)
    ]
    return [
        {"permission": rng.choice(roles), "user": dict(rng.choice(users))} for _ in range(count)
    ]


def raw_permission_frame(space_id: str, records: list[dict]):
    import pandas as pd

    frame = pd.json_normalize(records)
    frame = frame.rename(
        columns={
            "user.id": "user_id",
            "user.displayName": "display_name",
            "user.email": "email",
            "permission": "role",
        }
    )
    frame.insert(0, "space_id", space_id)
    return frame[["space_id", "user_id", "display_name", "email", "role"]]


def bench_frames(cfg: Settings) -> Row:
    from docsapi import frames

    records = permission_records(cfg.frame_records)
    frames.permission_users("sp", records[:100])  # warm up imports
    raw_permission_frame("sp", records[:100])
    speedups, doc_times, raw_times = [], [], []
    for repeat in range(cfg.frame_repeats):
        pair = [
            (lambda: frames.permission_users("sp", records), doc_times),
            (lambda: raw_permission_frame("sp", records), raw_times),
        ]
        if repeat % 2:
            pair.reverse()
        for function, times in pair:
            times.append(timed(function))
        speedups.append(raw_times[-1] / doc_times[-1])
    speedup = statistics.median(speedups)
    return Row(
        "3",
        f"{cfg.frame_records:,} permission records → DataFrame (x {cfg.frame_repeats})",
        f"{statistics.median(doc_times) * 1e3:.0f} ms",
        f"{statistics.median(raw_times) * 1e3:.0f} ms",
        f"{speedup:.2f}x faster",
        "≥ 2x",
        speedup >= 2.0,
        ["frames.permission_users vs json_normalize + rename + column selection"],
    )


# -- 4. audit crawl scaling ---------------------------------------------------------------------


def raw_crawl(url: str, token: str, org_id: str, workers: int) -> int:
    """The same reads as the audit's crawl, hand-written with requests and threads.

    No DataFrames and no analysis: the floor the sandbox allows on this machine.
    Returns the number of requests sent.
    """
    from concurrent.futures import ThreadPoolExecutor

    import requests

    session = requests.Session()
    session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=max(10, workers)))
    session.headers.update({"Authorization": f"Bearer {token}", "Accept": "application/json"})
    sent = [0]

    def items(path: str) -> list[dict]:
        found, params = [], {}
        while True:
            reply = session.get(url + path, params=params, timeout=REQUEST_TIMEOUT)
            sent[0] += 1
            reply.raise_for_status()
            page = reply.json()
            found.extend(page["items"])
            cursor = (page.get("next") or {}).get("page")
            if not cursor:
                return found
            params = {"page": cursor}

    spaces = items(f"/orgs/{org_id}/spaces")
    items(f"/orgs/{org_id}/members")
    teams = items(f"/orgs/{org_id}/teams")
    with ThreadPoolExecutor(workers) as pool:
        members = pool.map(lambda t: items(f"/orgs/{org_id}/teams/{t['id']}/members"), teams)
        grants = pool.map(
            lambda s: (
                items(f"/spaces/{s['id']}/permissions/users"),
                items(f"/spaces/{s['id']}/permissions/teams"),
            ),
            spaces,
        )
        list(members), list(grants)
    session.close()
    return sent[0]


def bench_crawl(cfg: Settings) -> list[Row]:
    import docsapi
    from docsapi.audit import analyze

    latency = cfg.crawl_latency
    top = max(cfg.crawl_workers)
    options = {"seed": SEED, "spaces": cfg.crawl_spaces, "latency": latency}
    log(f"4: starting a {cfg.crawl_spaces}-space sandbox with {latency * 1e3:.0f} ms latency")
    rows, seconds = [], {}
    with RemoteSandbox(options) as sb:

        def audit_once(workers: int) -> tuple[float, int, float]:
            client = docsapi.DocsClient(base_url=sb.url, token=sb.token, timeout=REQUEST_TIMEOUT)
            started = time.perf_counter()
            audit = docsapi.audit_permissions(
                client, sb.org_id, max_workers=workers, progress=False
            )
            elapsed = time.perf_counter() - started
            assert audit.count("errors") == 0, audit.errors
            client.close()
            return elapsed, client.transport.request_count, timed(lambda: analyze(audit.data))

        raw_times: list[float] = []
        for workers in cfg.crawl_workers:
            repeats = 1 if workers == 1 else cfg.crawl_repeats
            times, analysis = [], []
            for repeat in range(repeats):
                if workers == top and repeat % 2:
                    raw_times.append(timed(lambda: raw_crawl(sb.url, sb.token, sb.org_id, top)))
                elapsed, requests_sent, analysis_seconds = audit_once(workers)
                times.append(elapsed)
                analysis.append(analysis_seconds)
                if workers == top and not repeat % 2:
                    raw_times.append(timed(lambda: raw_crawl(sb.url, sb.token, sb.org_id, top)))
            seconds[workers] = statistics.median(times)
            ideal = requests_sent * latency / workers
            log(
                f"4: workers={workers:>2}: {seconds[workers]:.2f} s for {requests_sent} requests "
                f"(ideal {ideal:.2f} s, analysis {statistics.median(analysis):.2f} s)"
            )
            target, ok = "-", None
            notes = [
                f"{requests_sent} requests; the analysis (no I/O) takes "
                f"{statistics.median(analysis):.2f} s of it; median of {repeats}"
            ]
            if workers == top:
                target, ok = "≤ 1.5x ideal", seconds[workers] <= 1.5 * ideal
                raw = statistics.median(raw_times)
                notes.append(
                    f"hand-written requests + {top} threads, same reads, no DataFrames: "
                    f"{raw:.2f} s = {raw / ideal:.2f}x ideal (median of {len(raw_times)})"
                )
            rows.append(
                Row(
                    "4",
                    f"audit {cfg.crawl_spaces} spaces, {latency * 1e3:.0f} ms latency, "
                    f"max_workers={workers}",
                    f"{seconds[workers]:.2f} s",
                    f"ideal {ideal:.2f} s",
                    f"{seconds[workers] / ideal:.2f}x ideal; "
                    f"speedup {seconds[1] / seconds[workers]:.1f}x",
                    target,
                    ok,
                    notes,
                )
            )
        raw = statistics.median(raw_times)
        rows.append(
            Row(
                "4",
                f"audit {cfg.crawl_spaces} spaces, max_workers={top}: hand-written requests "
                "crawl (reference)",
                f"{seconds[top]:.2f} s",
                f"{raw:.2f} s",
                f"requests {raw / (requests_sent * latency / top):.2f}x ideal; "
                f"docsapi {seconds[top] / raw:.2f}x requests",
                "-",
                None,
            )
        )
    speedup = seconds[1] / seconds[top]
    rows.append(
        Row(
            "4",
            f"audit speedup, max_workers={top} vs 1",
            f"{seconds[top]:.2f} s",
            f"{seconds[1]:.2f} s",
            f"{speedup:.1f}x faster",
            "≥ 8x",
            speedup >= 8.0,
        )
    )
    return rows


# -- 5. memory ---------------------------------------------------------------------------------


def bench_memory(sb: RemoteSandbox, cfg: Settings) -> Row:
    import json

    command = [sys.executable, str(HERE / "_audit_child.py"), sb.url, sb.token, sb.org_id, "8"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"the audit process failed with status {child.returncode}")
    figures = json.loads(output)
    peak = usage.ru_maxrss / 1024
    return Row(
        "5",
        f"audit peak RSS, {figures['spaces']:,} spaces, {figures['grants']:,} grants "
        "(~{0} per space), max_workers=8".format(round(figures["grants"] / figures["spaces"])),
        f"{peak:.0f} MB",
        f"{figures['baseline_rss_mb']:.0f} MB after imports",
        f"{peak:.0f} MB peak",
        "≤ 400 MB",
        peak <= 400,
        [
            f"audit process only (sandbox in another process); {figures['seconds']:.1f} s, "
            f"{figures['requests']:,} requests, {figures['effective']:,} effective rows, "
            f"{figures['findings']:,} findings"
        ],
    )


# -- 6. import cost ------------------------------------------------------------------------------


def _import_seconds(statement: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], check=True, cwd=ROOT)
    return time.perf_counter() - started


def _heavy_imports(statement: str) -> list[str]:
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    names = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines()}
    return sorted(n for n in names if n.split(".")[0] in ("pandas", "matplotlib", "ipywidgets"))


def bench_imports(cfg: Settings) -> list[Row]:
    statements = {
        "docsapi": "import docsapi",
        "client": "from docsapi import DocsClient",
        "requests": "import requests",
    }
    best = {name: float("inf") for name in statements}
    for _ in range(cfg.import_runs):
        for name, statement in statements.items():
            best[name] = min(best[name], _import_seconds(statement))
    heavy = {name: _heavy_imports(statements[name]) for name in ("docsapi", "client")}
    rows = []
    for name, label, target in (
        ("docsapi", "import docsapi", 1.5),
        ("client", "from docsapi import DocsClient", None),
    ):
        ratio = best[name] / best["requests"]
        clean = not heavy[name]
        ok = clean and (ratio <= target if target else True)
        rows.append(
            Row(
                "6",
                f'`python -c "{label}"` vs `import requests` (best of {cfg.import_runs})',
                f"{best[name] * 1e3:.0f} ms",
                f"{best['requests'] * 1e3:.0f} ms",
                f"ratio {ratio:.2f}",
                f"≤ {target}; no heavy imports" if target else "no heavy imports",
                ok,
                ["heavy modules imported: " + (", ".join(heavy[name][:6]) or "none")],
            )
        )
    return rows


# -- report --------------------------------------------------------------------------------------


def table(rows: list[Row]) -> str:
    lines = [
        "| # | benchmark | docsapi | baseline | result | target | met |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.number} | {r.name} | {r.docsapi} | {r.baseline} | {r.result} | {r.target} "
        f"| {verdict(r.ok)} |"
        for r in rows
    ]
    return "\n".join(lines)


def machine() -> dict[str, str]:
    with open("/proc/meminfo", encoding="ascii") as info:
        total_kb = int(next(line for line in info if line.startswith("MemTotal")).split()[1])
    import pandas
    import requests

    return {
        "cores": str(os.cpu_count()),
        "memory": f"{total_kb / 1024**2:.1f} GiB",
        "python": platform.python_version(),
        "os": platform.platform(),
        "libraries": f"requests {requests.__version__}, pandas {pandas.__version__}",
    }


def write_results(rows: list[Row], command: str, seconds: float, loads: tuple[str, str]) -> None:
    kept = ""
    if RESULTS.exists():
        text = RESULTS.read_text(encoding="utf-8")
        if KEEP_MARKER in text:
            kept = text.split(KEEP_MARKER, 1)[1]
    facts = machine()
    notes = "\n".join(f"- **{r.number}** {r.name}: {'; '.join(r.notes)}" for r in rows if r.notes)
    body = f"""# docsapi benchmark results

Latest run: {dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}, `{command}`
(from the repository root), {seconds / 60:.1f} minutes in all.

Machine: {facts["cores"]} cores, {facts["memory"]} memory, Python {facts["python"]},
{facts["os"]}; {facts["libraries"]}.
Load average (1/5/15 min) at start: {loads[0]}; at end: {loads[1]} (near or above the
core count, other work shared the machine: the latency-bound rows 4 suffer most).

Placement: every sandbox runs in its own child process (`benchmarks/_server.py`), so the
server's work does not share the benchmark's GIL; benchmark 5's audit runs in a third process,
a fresh interpreter whose peak RSS (`os.wait4` rusage `ru_maxrss`) is the figure reported.
Seed {SEED} everywhere; docsapi and its baseline are interleaved within each row.

{table(rows)}

Notes per row:

{notes}

{KEEP_MARKER}{kept}"""
    RESULTS.write_text(body if kept else body + "\n", encoding="utf-8")


def load_average() -> str:
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smaller sizes and fewer repeats; does not write RESULTS.md",
    )
    parser.add_argument(
        "--only",
        metavar="DIGITS",
        help="run only these benchmarks, e.g. --only 14 (RESULTS.md is then not written)",
    )
    args = parser.parse_args()
    cfg = Settings.make(args.quick)
    started, start_load = time.perf_counter(), load_average()
    log(f"load average {start_load}; {'quick' if cfg.quick else 'full'} run")
    only = set(args.only or "123456")
    by_number: dict[str, list[Row]] = {}
    if "6" in only:
        log("6: import cost (fresh interpreters)")
        by_number["6"] = bench_imports(cfg)
    if "3" in only:
        log("3: frames.permission_users vs json_normalize")
        by_number["3"] = [bench_frames(cfg)]
    if only & set("125"):
        options = {
            "seed": SEED,
            "spaces": max(cfg.list_spaces, cfg.memory_spaces),
            "users": cfg.memory_users,
            "grants_per_space": cfg.memory_grants,
        }
        log(f"starting the large sandbox process: {options}")
        with RemoteSandbox(options) as sb:
            if "1" in only:
                log(f"1: per-request cost, {cfg.blocks} blocks of {cfg.per_block}")
                by_number["1"] = [bench_per_request(sb, cfg)]
            if "2" in only:
                log(f"2: list {options['spaces']} spaces into a DataFrame")
                by_number["2"] = [bench_listing(sb, cfg)]
            if "5" in only:
                log("5: audit memory in a child process")
                by_number["5"] = [bench_memory(sb, cfg)]
    if "4" in only:
        by_number["4"] = bench_crawl(cfg)
    rows = [row for number in sorted(by_number) for row in by_number[number]]

    seconds = time.perf_counter() - started
    print()
    print(table(rows))
    print()
    for row in rows:
        for note in row.notes:
            print(f"  {row.number}: {note}")
    print(
        f"\n{sum(r.ok is False for r in rows)} target(s) missed; {seconds:.0f} s in all; "
        f"load average {start_load} at start, {load_average()} at end"
    )
    if not cfg.quick and not args.only:
        python = (
            os.path.relpath(sys.executable, ROOT)
            if sys.executable.startswith(str(ROOT))
            else "python"
        )
        write_results(rows, f"{python} benchmarks/run.py", seconds, (start_load, load_average()))
        log(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
