"""The audit's crawl at 16 workers against its ideal, on the sandbox and on a replay server.

"Ideal" is ``requests x latency / workers``: the wall time of the crawl if each of the 16
workers always had a request in flight and each request took exactly the added latency (no
server or client time, no waiting on a list before the reads it enables). It is a floor no
client reaches: the organization's lists must arrive before the per-space reads start (a few
latencies in a row), and the client's CPU per request is serialized by the GIL.

Two servers, each in its own process:

- the sandbox at N spaces (5,000 users, 50 grants per space), with 30 ms added to each
  request (its own handling, a few hundred µs of Python per request, comes on top);
- the replay server (:mod:`replay_server`): the same sandbox's answers recorded once and
  served from memory by ``asyncio`` with the same 30 ms as a non-blocking sleep: a server
  with no CPU cost to speak of, so what is left above the ideal is the client's.

Beside them, the client's CPU per request while it crawls (``crawl_organization`` alone, on
the replay server: process CPU ÷ requests) and the JSON decoder alone on the recorded answers
(:mod:`decoder_bench`).

Baseline: the same reads written by hand with ``requests`` and a 16-thread pool, submitted in
the same order and with the same overlap as the audit's crawl (organization-wide lists on the
pool while the spaces are listed, then per space, team, collection and site), JSON decoded,
no DataFrames and no analysis. docsapi's figure is the whole ``audit_permissions`` call
(crawl and analysis).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _server import RemoteSandbox  # noqa: E402
from replay_server import Recorder, ReplayServer, save  # noqa: E402

WORKERS = 16
LATENCY = 0.030
#: Issue 25: the audit against the sandbox in its own process (was 2.0x), and the client's own
#: CPU per request while crawling.
SANDBOX_TARGET = 1.8
CPU_PER_REQUEST_MS = 0.4
TIMEOUT = (10.0, 120.0)


def log_since() -> Any:
    """Where an audit's log read starts by default (:data:`docsapi.audit.EVENT_WINDOW` back,
    at a whole day), the same moment for the audit and the hand-written crawl."""
    import pandas as pd

    from docsapi.audit.facade import EVENT_WINDOW

    return (pd.Timestamp.now(tz="UTC") - EVENT_WINDOW).floor("D")


def hand_crawl(
    base_url: str, token: str, org_id: str, workers: int = WORKERS, read_log: bool = True
) -> int:
    """The audit's reads, hand-written with ``requests`` and a thread pool; with
    ``read_log``, the audit log's year too (the same slices of time, and the create actions
    before it, 100 events a page as the API allows).

    Returns the number of requests sent.
    """
    session = requests.Session()
    adapter = requests.adapters.HTTPAdapter(pool_maxsize=max(10, 2 * workers))
    session.mount("http://", adapter)
    session.headers.update({"Authorization": f"Bearer {token}", "Accept": "application/json"})
    sent = [0]
    org = f"/orgs/{org_id}"

    def get(path: str, **params: object) -> Any:
        reply = session.get(base_url + path, params=params, timeout=TIMEOUT)
        sent[0] += 1
        reply.raise_for_status()
        return reply.json()

    def items(path: str, limit: int = 1000, **params: object) -> list:
        found: list = []
        params = {"limit": limit, **params}
        while True:
            page = get(path, **params)
            found.extend(page["items"])
            cursor = (page.get("next") or {}).get("page")
            if not cursor:
                return found
            params = {**params, "page": cursor}

    def space(space_id: str) -> tuple:
        path = f"/spaces/{space_id}/permissions"
        return items(f"{path}/users"), items(f"{path}/teams"), items(f"{path}/aggregate")

    def collection(collection_id: str) -> tuple:
        path = f"/collections/{collection_id}/permissions"
        return items(f"{path}/users"), items(f"{path}/teams")

    def log_reads() -> list[dict[str, object]]:
        from docsapi.audit.crawl import log_slices
        from docsapi.audit.creators import CREATE_ACTION_NAMES

        since = log_since()
        now = pd_now().floor("D")
        reads: list[dict[str, object]] = []
        for start, end in log_slices(since, now, workers):
            bounds = {"from": start.isoformat()}
            reads.append(bounds if end is None else {**bounds, "to": end.isoformat()})
        reads += [{"action": a, "to": since.isoformat()} for a in CREATE_ACTION_NAMES]
        return reads

    def site(site_id: str) -> tuple:
        path = f"{org}/sites/{site_id}"
        return tuple(
            items(f"{path}/{what}")
            for what in ("site-spaces", "share-links", "permissions/users", "permissions/teams")
        )

    with ThreadPoolExecutor(workers) as pool:
        first = [
            pool.submit(get, org),
            pool.submit(items, f"{org}/members"),
            pool.submit(get, "/user"),
            pool.submit(get, f"{org}/spaces", limit=1),
            pool.submit(items, f"{org}/link-invites"),
        ]
        teams_job = pool.submit(items, f"{org}/teams", limit=100)
        collections_job = pool.submit(items, f"{org}/collections", nested="true")
        sites_job = pool.submit(items, f"{org}/sites")
        first += [  # the log is read beside the rest, from the start, as the audit does
            pool.submit(items, f"{org}/audit-events", limit=100, **bounds)
            for bounds in (log_reads() if read_log else [])
        ]
        spaces = items(f"{org}/spaces")
        jobs = [pool.submit(space, s["id"]) for s in spaces]
        jobs += [
            pool.submit(items, f"{org}/teams/{t['id']}/members", limit=100)
            for t in teams_job.result()
        ]
        jobs += [pool.submit(collection, c["id"]) for c in collections_job.result()]
        jobs += [pool.submit(site, s["id"]) for s in sites_job.result()]
        for job in first + jobs:
            job.result()
    session.close()
    return sent[0]


def pd_now() -> Any:
    import pandas as pd

    return pd.Timestamp.now(tz="UTC")


def _with_log(read_log: bool) -> str:
    return "the log read" if read_log else "`read_log=False`"


def _audit(base_url: str, token: str, org_id: str, read_log: bool) -> tuple[float, int]:
    import docsapi

    client = docsapi.DocsClient(base_url=base_url, token=token, timeout=TIMEOUT)
    started = time.perf_counter()
    audit = docsapi.audit_permissions(
        client, org_id, max_workers=WORKERS, progress=False, read_log=read_log
    )
    elapsed = time.perf_counter() - started
    client.close()
    if audit.count("errors"):
        raise RuntimeError(f"the audit had read errors: {audit.errors.head()}")
    return elapsed, client.transport.request_count


def crawl_cpu(
    label: str, base_url: str, token: str, org_id: str, runs: int, read_log: bool
) -> dict[str, Any]:
    """The client's CPU per request while it crawls (``crawl_organization`` alone, no
    analysis, the log read from :func:`log_since` or not at all): process CPU time (all
    threads) divided by the requests sent."""
    import docsapi
    from docsapi.audit.crawl import crawl_organization

    per_request, sent = [], 0
    for _ in range(runs + 1):  # the first run warms up (imports, connections)
        client = docsapi.DocsClient(base_url=base_url, token=token, timeout=TIMEOUT)
        started = time.process_time()
        crawl_organization(
            client,
            org_id,
            max_workers=WORKERS,
            progress=False,
            events_since=log_since() if read_log else None,
        )
        used = time.process_time() - started
        client.close()
        sent = client.transport.request_count
        per_request.append(used / sent * 1e3)
    per_request = per_request[1:]
    median = statistics.median(per_request)
    return {
        "what": f"client CPU per request during the audit's crawl, {WORKERS} workers: {label}, "
        f"{_with_log(read_log)}",
        "docsapi": f"{_spread(per_request, 3)} ms per request",
        "baseline": f"{sent:,} requests",
        "ratio": f"{median:.3f} ms",
        "target": f"≤ {CPU_PER_REQUEST_MS} ms",
        "met": median <= CPU_PER_REQUEST_MS,
        "notes": [
            f"`crawl_organization` alone (the analysis is in the audit rows), {runs} runs "
            "after one warm-up; process CPU time (user + system, every thread) ÷ requests sent"
        ],
    }


def record(sb: RemoteSandbox, path: Path) -> int:
    """Record the answers of one audit (and of ``GET /spaces/{id}``) into ``path``."""
    import docsapi

    session = requests.Session()
    recorder = Recorder(pool_maxsize=2 * WORKERS)
    session.mount("http://", recorder)
    client = docsapi.DocsClient(base_url=sb.url, token=sb.token, session=session, timeout=TIMEOUT)
    docsapi.audit_permissions(client, sb.org_id, max_workers=WORKERS, progress=False)
    for space_id in sb.space_ids[:50]:
        client.spaces.get(space_id)
    client.close()
    save(recorder.answers, path)
    return len(recorder.answers)


def _spread(values: list[float], digits: int = 2) -> str:
    return (
        f"{statistics.median(values):.{digits}f} "
        f"[{min(values):.{digits}f}-{max(values):.{digits}f}]"
    )


def compare(
    label: str, base_url: str, token: str, org_id: str, runs: int, target: float, read_log: bool
) -> dict[str, Any]:
    """``runs`` audits and hand-written crawls doing the same reads (the log or not),
    interleaved; one result row."""
    _audit(base_url, token, org_id, read_log)  # warm up (imports, connections)
    doc_times, raw_times, sent, raw_sent = [], [], 0, 0
    cpu: dict[str, list[float]] = {"docsapi": [], "raw": []}
    for run in range(runs):
        order = ["docsapi", "raw"] if run % 2 == 0 else ["raw", "docsapi"]
        for side in order:
            cpu_started = time.process_time()
            if side == "docsapi":
                seconds, sent = _audit(base_url, token, org_id, read_log)
                doc_times.append(seconds)
            else:
                started = time.perf_counter()
                raw_sent = hand_crawl(base_url, token, org_id, read_log=read_log)
                raw_times.append(time.perf_counter() - started)
            cpu[side].append(time.process_time() - cpu_started)
    ideal = sent * LATENCY / WORKERS
    doc, raw = statistics.median(doc_times), statistics.median(raw_times)
    print(
        f"    {label}: docsapi {_spread(doc_times)} s, hand-written {_spread(raw_times)} s, "
        f"ideal {ideal:.2f} s",
        flush=True,
    )
    return {
        "what": f"audit, {WORKERS} workers, {LATENCY * 1e3:.0f} ms latency: {label}, "
        f"{_with_log(read_log)}",
        "docsapi": f"{_spread(doc_times)} s = {doc / ideal:.2f}x ideal",
        "baseline": f"hand-written {_spread(raw_times)} s = {raw / ideal:.2f}x ideal",
        "ratio": f"{doc / ideal:.2f}x ideal ({doc / raw:.2f}x hand-written)",
        "target": f"≤ {target}x ideal",
        "met": doc <= target * ideal,
        "notes": [
            f"{sent:,} requests (hand-written: {raw_sent:,}); ideal {sent:,} x "
            f"{LATENCY * 1e3:.0f} ms / {WORKERS} = {ideal:.2f} s; {runs} runs each, interleaved",
            f"client CPU per run (all threads): docsapi {_spread(cpu['docsapi'])} s "
            f"({statistics.median(cpu['docsapi']) / sent * 1e3:.2f} ms per request, analysis "
            f"included), hand-written {_spread(cpu['raw'])} s",
        ],
    }


def run(sizes: tuple[int, ...], runs: int, users: int = 5000, grants: int = 50) -> list[dict]:
    """Rows for each size: the sandbox (target 1.8x ideal) and the replay server (1.3x), the
    client's CPU per request while crawling, and the JSON decoder alone on the answers."""
    import decoder_bench

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            options = {"seed": 0, "spaces": size, "users": users, "grants_per_space": grants}
            with RemoteSandbox(options) as sb:
                recording = Path(folder) / f"replay-{size}.pickle"
                answers = record(sb, recording)
                sb.set_latency(LATENCY)
                for read_log in (True, False):
                    rows.append(
                        compare(
                            f"sandbox (own process), N = {size:,}",
                            sb.url,
                            sb.token,
                            sb.org_id,
                            runs,
                            SANDBOX_TARGET,
                            read_log,
                        )
                    )
                token, org_id, prefix = sb.token, sb.org_id, urlsplit(sb.url).path
            with ReplayServer(recording, LATENCY) as replay:
                for read_log in (True, False):
                    row = compare(
                        f"replay server (no server CPU), N = {size:,}",
                        replay.url + prefix,
                        token,
                        org_id,
                        runs,
                        1.3,
                        read_log,
                    )
                    row["notes"].append(
                        f"{answers:,} recorded answers; unrecorded requests: {replay.misses()}"
                    )
                    rows.append(row)
                for read_log in (True, False):
                    rows.append(
                        crawl_cpu(
                            f"replay server, N = {size:,}",
                            replay.url + prefix,
                            token,
                            org_id,
                            runs,
                            read_log,
                        )
                    )
            rows.append(decoder_bench.measure(recording, f"N = {size:,}"))
    return rows
