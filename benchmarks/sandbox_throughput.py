"""Sandbox throughput: answered requests per second at 1, 8 and 32 client threads.

The sandbox runs in a child process (see ``_server.py``); each client thread has its own
``requests.Session`` (so connections are reused where the server keeps them alive) and sends a
mix of reads (a space, a page of members) and writes (a space title) for a fixed time.

Usage::

    python benchmarks/sandbox_throughput.py               # 1, 8, 32 threads, 4 s each
    python benchmarks/sandbox_throughput.py --seconds 2 --threads 1 8
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _server import RemoteSandbox


def _client(sandbox: RemoteSandbox, number: int, stop: threading.Event, counts: list[int]) -> None:
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {sandbox.token}"
    spaces = sandbox.space_ids
    base = sandbox.url
    sent = 0
    try:
        while not stop.is_set():
            space = spaces[(number + sent) % len(spaces)]
            step = sent % 4
            if step == 3:
                reply = session.patch(f"{base}/spaces/{space}", json={"title": f"t{sent}"})
            elif step == 2:
                reply = session.get(f"{base}/orgs/{sandbox.org_id}/members", params={"limit": 20})
            else:
                reply = session.get(f"{base}/spaces/{space}")
            reply.raise_for_status()
            sent += 1
    finally:
        session.close()
        counts[number] = sent


def measure(sandbox: RemoteSandbox, threads: int, seconds: float) -> float:
    """Requests answered per second with ``threads`` client threads for ``seconds``."""
    stop = threading.Event()
    counts = [0] * threads
    workers = [
        threading.Thread(target=_client, args=(sandbox, n, stop, counts)) for n in range(threads)
    ]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join()
    return sum(counts) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 8, 32])
    args = parser.parse_args()
    with RemoteSandbox({"seed": 0}) as sandbox:
        measure(sandbox, 1, 0.5)  # warm up
        for threads in args.threads:
            rate = measure(sandbox, threads, args.seconds)
            print(f"{threads:>3} client threads: {rate:7.0f} requests/s", flush=True)


if __name__ == "__main__":
    main()
