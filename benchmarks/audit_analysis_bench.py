"""The audit's analysis alone (no I/O) on a large synthetic organization: time and memory.

The organization is built in memory, shaped like the sandbox's scaled organization:
2,000 spaces, 5,000 members (1 % organization admins, 3 % guests, 1 % disabled, 3 % not
seen for months), 83 teams
of about 60 members, collections two levels deep with their own grants, few spaces whose
default level is ``inherit``, 50 direct user grants and 2 team grants per space, sites with
share links, default levels and user and team permissions, the creator of every space and
collection, and the platform's aggregate equal to the audit's own answer (so the
cross-check runs over every space, under both rule sets).

Each run happens in a fresh interpreter, so the peak resident memory measured is the
analysis's own: ``rss_before`` after the raw tables are built, ``peak`` the process's
maximum. Usage::

    python benchmarks/audit_analysis_bench.py            # 5 runs, median [min-max]
    python benchmarks/audit_analysis_bench.py --runs 7 --profile   # + cProfile of one run

Wall time depends on the machine's load (on a shared 2-core machine a busy neighbour
doubles it); the process's CPU time is reported beside it.

:func:`bench_audit_analysis` returns the rows for ``benchmarks/run.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: The organization's size; ``DOCSAPI_BENCH_ORG="100,300,10"`` (spaces, users, grants per space)
#: shrinks it for a smoke run (``run.py --quick``).
SPACES, USERS, GRANTS_PER_SPACE = (
    int(n) for n in os.environ.get("DOCSAPI_BENCH_ORG", "2000,5000,50").split(",")
)
TEAMS, TEAM_GRANTS_PER_SPACE = 83, 2
TOP_COLLECTIONS, SUB_COLLECTIONS = 12, 4  # two levels: 12 + 48 collections
TIME_TARGET, MEMORY_TARGET = 0.5, 300.0


def build_organization(seed: int = 0):
    """The synthetic organization's raw tables as an ``AuditData`` (no aggregate yet)."""
    import numpy as np
    import pandas as pd

    from docsapi.audit.data import ROLES, AuditData

    rng = np.random.default_rng(seed)
    roles = np.array(ROLES[1:], dtype=object)
    now = pd.Timestamp("2026-01-01", tz="UTC")

    users = np.array([f"u{i:05d}" for i in range(USERS)], dtype=object)
    member_roles = rng.choice(roles[:-1], size=USERS).astype(object)
    member_roles[: USERS // 100] = "admin"
    member_roles[USERS // 100 : USERS // 100 + USERS * 3 // 100] = None  # guests
    disabled = np.zeros(USERS, dtype=bool)
    disabled[-USERS // 100 :] = True
    members = pd.DataFrame(
        {
            "user_id": users,
            "display_name": [f"User {i:05d}" for i in range(USERS)],
            "email": [f"u{i:05d}@example.com" for i in range(USERS)],
            "role": member_roles,
            "disabled": disabled,
            # most members were seen lately; 3 % not for months
            "last_seen_at": now
            - pd.to_timedelta(
                np.where(
                    rng.random(USERS) < 0.03,
                    rng.integers(91, 400, USERS),
                    rng.integers(0, 60, USERS),
                ),
                unit="D",
            ),
        }
    )

    team_ids = np.array([f"t{i:03d}" for i in range(TEAMS)], dtype=object)
    shuffled = rng.permutation(USERS)
    team_members = pd.DataFrame(
        {"team_id": team_ids[np.arange(USERS) % TEAMS], "user_id": users[shuffled]}
    )
    teams = pd.DataFrame({"id": team_ids, "title": [f"Team {i}" for i in range(TEAMS)]})

    top = [f"c{i:03d}" for i in range(TOP_COLLECTIONS)]
    sub = [f"c{TOP_COLLECTIONS + i:03d}" for i in range(TOP_COLLECTIONS * SUB_COLLECTIONS)]
    collection_ids = np.array(top + sub, dtype=object)
    parents = [None] * len(top) + [top[i // SUB_COLLECTIONS] for i in range(len(sub))]
    levels = rng.choice(np.array([None, None, None, "inherit"], dtype=object), len(collection_ids))
    levels[: len(top)] = None
    collections = pd.DataFrame(
        {
            "id": collection_ids,
            "title": [f"Collection {i}" for i in range(len(collection_ids))],
            "parent": parents,
            "default_level": levels,
        }
    )

    space_ids = np.array([f"s{i:05d}" for i in range(SPACES)], dtype=object)
    in_collection = rng.random(SPACES) < 0.8
    space_parent = np.where(in_collection, rng.choice(collection_ids, SPACES), None)
    space_levels = np.full(SPACES, None, dtype=object)
    space_levels[rng.choice(SPACES, SPACES // 50, replace=False)] = "inherit"
    space_levels[rng.choice(SPACES, SPACES // 100, replace=False)] = "read"
    spaces = pd.DataFrame(
        {
            "id": space_ids,
            "title": [f"Space {i:05d}" for i in range(SPACES)],
            "parent": space_parent,
            "default_level": space_levels,
            "visibility": np.where(rng.random(SPACES) < 0.02, "public", "private"),
        }
    )

    grant_spaces = np.repeat(space_ids, GRANTS_PER_SPACE)
    grant_users = np.concatenate(
        [rng.choice(USERS, GRANTS_PER_SPACE, replace=False) for _ in range(SPACES)]
    )
    grant_roles = rng.choice(roles, SPACES * GRANTS_PER_SPACE, p=[0.3, 0.2, 0.2, 0.1, 0.1, 0.1])
    collection_users = rng.choice(USERS, len(collection_ids) * 3)
    user_permissions = pd.DataFrame(
        {
            "target_type": ["space"] * len(grant_spaces) + ["collection"] * len(collection_users),
            "target_id": np.concatenate([grant_spaces, np.repeat(collection_ids, 3)]),
            "user_id": np.concatenate([users[grant_users], users[collection_users]]),
            "role": np.concatenate([grant_roles, rng.choice(roles, len(collection_users))]),
        }
    )
    team_spaces = np.repeat(space_ids, TEAM_GRANTS_PER_SPACE)
    team_permissions = pd.DataFrame(
        {
            "target_type": ["space"] * len(team_spaces) + ["collection"] * len(collection_ids),
            "target_id": np.concatenate([team_spaces, collection_ids]),
            "team_id": np.concatenate(
                [
                    np.concatenate(
                        [
                            rng.choice(team_ids, TEAM_GRANTS_PER_SPACE, replace=False)
                            for _ in space_ids
                        ]
                    ),
                    rng.choice(team_ids, len(collection_ids)),
                ]
            ),
            "role": rng.choice(roles, len(team_spaces) + len(collection_ids)),
        }
    )

    site_ids = np.array([f"site{i}" for i in range(20)], dtype=object)
    sites = pd.DataFrame(
        {
            "id": site_ids,
            "title": [f"Site {i}" for i in range(20)],
            "visibility": rng.choice(["public", "unlisted", "share-link", "visitor-auth"], 20),
            "default_level": rng.choice(
                np.array(["inherit", "inherit", "inherit", "read", None], dtype=object), 20
            ),
        }
    )
    site_users = pd.DataFrame(
        {
            "target_type": "site",
            "target_id": np.repeat(site_ids, 2),
            "user_id": users[rng.choice(USERS, 40)],
            "role": rng.choice(roles[:-1], 40),
        }
    )
    site_teams = pd.DataFrame(
        {
            "target_type": "site",
            "target_id": site_ids,
            "team_id": rng.choice(team_ids, 20),
            "role": rng.choice(roles[:3], 20),
        }
    )
    user_permissions = pd.concat([user_permissions, site_users], ignore_index=True)
    team_permissions = pd.concat([team_permissions, site_teams], ignore_index=True)
    # Every space and collection has its creator in the audit log (a random member).
    content = np.concatenate([space_ids, collection_ids])
    creators = pd.DataFrame(
        {
            "target_type": ["space"] * SPACES + ["collection"] * len(collection_ids),
            "target_id": content,
            "user_id": users[rng.choice(USERS, len(content))],
            "created_at": now - pd.to_timedelta(rng.integers(30, 900, len(content)), unit="D"),
        }
    )
    site_spaces = pd.DataFrame(
        {"site_id": rng.choice(site_ids, 300), "space_id": rng.choice(space_ids, 300)}
    )
    share_links = pd.DataFrame(
        {
            "site_id": rng.choice(site_ids, 40),
            "id": [f"link{i}" for i in range(40)],
            "name": [f"Link {i}" for i in range(40)],
            "active": rng.random(40) < 0.8,
            "created_at": now - pd.to_timedelta(rng.integers(0, 300, 40), unit="D"),
            "url_published": [f"https://docs.example/share/secret{i}" for i in range(40)],
        }
    )
    invite_links = pd.DataFrame(
        {"id": [f"inv{i}" for i in range(10)], "target_type": "organization", "role": "read"}
    )
    return AuditData(
        org_id="org",
        org_name="Benchmark organization",
        generated_at=now,
        token_role="admin",
        spaces_reported=SPACES,
        spaces=spaces,
        collections=collections,
        members=members,
        teams=teams,
        team_members=team_members,
        user_permissions=user_permissions,
        team_permissions=team_permissions,
        sites=sites,
        site_spaces=site_spaces,
        share_links=share_links,
        invite_links=invite_links,
        creators=creators,
    )


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def prepare(path: Path) -> None:
    """Build the organization, add the platform's aggregate, and pickle it to ``path``.

    The aggregate is the audit's own answer (so the cross-check runs over every space); it
    is computed here, in a process of its own, so the measured runs start from the tables.
    """
    import dataclasses
    import pickle

    from docsapi.audit import analyze

    data = build_organization()
    aggregate = analyze(data).effective[["space_id", "user_id", "display_name", "role"]]
    data = dataclasses.replace(data, aggregate=aggregate)
    path.write_bytes(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))


def child(path: Path, profile: bool) -> dict:
    """One measured analysis in this (fresh) process."""
    import gc
    import pickle

    from docsapi.audit import AuditData, analyze

    analyze(AuditData(org_id="warm-up"))  # first-use imports inside pandas, not measured
    data = pickle.loads(path.read_bytes())
    gc.collect()
    rss_before = _rss_mb()
    started, cpu_started = time.perf_counter(), time.process_time()
    if profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        audit = profiler.runcall(analyze, data)
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(30)
    else:
        audit = analyze(data)
    seconds = time.perf_counter() - started
    cpu_seconds = time.process_time() - cpu_started
    peak_analysis = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started = time.perf_counter()
    matrix_shape = audit.matrix.shape
    paths = len(audit.paths)
    lazy_seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "lazy_seconds": lazy_seconds,
        "rss_before_mb": rss_before,
        "peak_analysis_mb": peak_analysis,
        "peak_all_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "effective": len(audit.effective),
        "paths": paths,
        "grants": len(audit.grants),
        "findings": len(audit.findings),
        "mismatches": len(audit.aggregate_mismatches),
        "matrix": list(matrix_shape),
        "complete": audit.complete,
    }


def _run_child(path: Path, profile: bool = False) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(path)]
    if profile:
        command.append("--profile")
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    if profile:
        sys.stderr.write(done.stderr)
    return json.loads(done.stdout)


def _spread(values: list[float], unit: str, digits: int) -> str:
    return (
        f"{statistics.median(values):.{digits}f} {unit} "
        f"[{min(values):.{digits}f}-{max(values):.{digits}f}]"
    )


def bench_audit_analysis(runs: int = 5) -> list[dict[str, object]]:
    """Measure the analysis ``runs`` times, each in a fresh interpreter.

    Returns
    -------
    list of dict
        Rows with ``name``, ``result`` (median [min-max]), ``target`` and ``ok``.
    """
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "organization.pickle"
        subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--prepare", str(path)], check=True
        )
        results = [_run_child(path) for _ in range(runs)]
    first = results[0]
    seconds = [r["seconds"] for r in results]
    cpu = [r["cpu_seconds"] for r in results]
    lazy = [r["lazy_seconds"] for r in results]
    peak = [r["peak_analysis_mb"] for r in results]
    peak_all = [r["peak_all_mb"] for r in results]
    before = [r["rss_before_mb"] for r in results]
    size = (
        f"{SPACES:,} spaces x {USERS:,} users x {GRANTS_PER_SPACE} grants per space "
        f"({first['grants']:,} grants, {first['paths']:,} paths, {first['effective']:,} "
        f"effective rows, {first['findings']:,} findings)"
    )
    return [
        {
            "name": f"audit analysis (no I/O), {size}",
            "result": _spread(seconds, "s", 3),
            "target": f"<= {TIME_TARGET} s",
            "ok": statistics.median(seconds) <= TIME_TARGET,
        },
        {
            "name": "the same, CPU time of the process (what the machine's load does not stretch)",
            "result": _spread(cpu, "s", 3),
            "target": f"<= {TIME_TARGET} s",
            "ok": statistics.median(cpu) <= TIME_TARGET,
        },
        {
            "name": "lazy tables on first access: matrix "
            f"{first['matrix'][0]:,} x {first['matrix'][1]:,} and paths",
            "result": _spread(lazy, "s", 3),
            "target": "-",
            "ok": None,
        },
        {
            "name": "peak RSS of the process through the analysis (Python, pandas and the "
            f"raw tables before it: {statistics.median(before):.0f} MB)",
            "result": _spread(peak, "MB", 0),
            "target": f"<= {MEMORY_TARGET:.0f} MB",
            "ok": statistics.median(peak) <= MEMORY_TARGET,
        },
        {
            "name": "peak RSS including the lazy matrix and paths",
            "result": _spread(peak_all, "MB", 0),
            "target": f"<= {MEMORY_TARGET:.0f} MB",
            "ok": statistics.median(peak_all) <= MEMORY_TARGET,
        },
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="also profile one run (stderr)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--prepare", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.prepare:
        prepare(args.prepare)
        return
    if args.child:
        print(json.dumps(child(args.child, args.profile)))
        return
    load = " / ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"{os.cpu_count()} cores; load average (1/5/15 min) at start: {load}")
    for row in bench_audit_analysis(args.runs):
        met = {True: "yes", False: "NO", None: "-"}[row["ok"]]
        print(f"{row['name']}\n    {row['result']}   target {row['target']}   met: {met}")
    print(f"load average at end: {' / '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if args.profile:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "organization.pickle"
            prepare(path)
            _run_child(path, profile=True)


if __name__ == "__main__":
    main()
