"""How long the sandbox takes to answer one request, as the organization grows.

The sandbox runs in a child process (see ``_server.py``); this process sends the same request
over one keep-alive connection and prints the median [min-max] of the per-request time at
each size. A request whose cost does not depend on the number of spaces N answers in about
the same time at N = 100 and N = 2,000. Usage::

    python benchmarks/sandbox_request_cost.py            # N = 100 and 2,000, 5,000 users
    python benchmarks/sandbox_request_cost.py --sizes 100 500 2000 --repeats 400
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _server import RemoteSandbox


def _timed(session: requests.Session, url: str, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        response = session.get(url, timeout=60)
        times.append((time.perf_counter() - start) * 1000)
        response.raise_for_status()
    return times


def _requests(sb: RemoteSandbox, session: requests.Session) -> dict[str, str]:
    base = sb.url
    space = sb.space_ids[len(sb.space_ids) // 2]
    teams = session.get(f"{base}/orgs/{sb.org_id}/teams", timeout=60).json()["items"]
    member = session.get(f"{base}/orgs/{sb.org_id}/members", timeout=60).json()["items"][5]["id"]
    return {
        "team permissions of a space": f"{base}/spaces/{space}/permissions/teams",
        "members, 100 per page": f"{base}/orgs/{sb.org_id}/members?limit=100",
        "teams, 100 per page": f"{base}/orgs/{sb.org_id}/teams?limit=100",
        "one member": f"{base}/orgs/{sb.org_id}/members/{member}",
        "one team": f"{base}/orgs/{sb.org_id}/teams/{teams[0]['id']}",
        "user permissions of a space": f"{base}/spaces/{space}/permissions/users",
        "aggregate of a space": f"{base}/spaces/{space}/permissions/aggregate?limit=1000",
    }


def measure(spaces: int, users: int, grants: int, repeats: int) -> dict[str, list[float]]:
    """Per-request milliseconds of each request against one sandbox size."""
    options = {"seed": 0, "spaces": spaces, "users": users, "grants_per_space": grants}
    with RemoteSandbox(options) as sb, requests.Session() as session:
        session.headers["Authorization"] = f"Bearer {sb.token}"
        results = {}
        for label, url in _requests(sb, session).items():
            _timed(session, url, 20)  # warm-up
            results[label] = _timed(session, url, repeats)
        return results


def _summary(times: list[float]) -> str:
    return f"{statistics.median(times):7.2f} [{min(times):.2f}-{max(times):.2f}]"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 2000])
    parser.add_argument("--users", type=int, default=5000)
    parser.add_argument("--grants", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args(argv)
    by_size: dict[int, dict[str, list[float]]] = {}
    for size in args.sizes:
        by_size[size] = measure(size, args.users, args.grants, args.repeats)
    print(
        f"users={args.users} grants_per_space={args.grants} repeats={args.repeats} "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    labels: list[str] = list(next(iter(by_size.values())))
    header = "request".ljust(30) + "".join(f"N={size} ms".rjust(28) for size in args.sizes)
    print(header)
    for label in labels:
        cells = "".join(_summary(by_size[size][label]).rjust(28) for size in args.sizes)
        print(label.ljust(30) + cells)


if __name__ == "__main__":
    main()
