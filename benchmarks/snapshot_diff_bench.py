"""Snapshots and diffs of a large organization: time to save, load and compare, and size.

The organization is the analysis benchmark's (``audit_analysis_bench.build_organization``:
2,000 spaces, 5,000 members, 50 direct grants per space). A second audit changes it the
way a month might: 1 % of the direct grants removed, 1 % raised, 40 new direct grants, a
team added to 20 spaces, 10 spaces whose default level becomes ``read``. Usage::

    python benchmarks/snapshot_diff_bench.py            # 3 runs, median [min-max]

Wall time depends on the machine's load; the test suite never asserts on time.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def changed(data):
    """The organization a month later (see the module docstring)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    users = data.user_permissions.astype(object)
    on_spaces = np.flatnonzero((users["target_type"] == "space").to_numpy())
    picked = rng.choice(on_spaces, len(on_spaces) // 50, replace=False)
    removed, raised = picked[: len(picked) // 2], picked[len(picked) // 2 :]
    users.loc[users.index[raised], "role"] = "admin"
    users = users.drop(index=users.index[removed])
    spaces = data.spaces["id"].to_numpy(dtype=object)
    members = data.members["user_id"].to_numpy(dtype=object)
    added = pd.DataFrame(
        {
            "target_type": "space",
            "target_id": rng.choice(spaces, 40),
            "user_id": rng.choice(members, 40),
            "role": "edit",
        }
    )
    teams = data.team_permissions.astype(object)
    team = data.teams["id"].iloc[0]
    teams = pd.concat(
        [
            teams,
            pd.DataFrame(
                {
                    "target_type": "space",
                    "target_id": rng.choice(spaces, 20, replace=False),
                    "team_id": team,
                    "role": "comment",
                }
            ),
        ]
    )
    space_table = data.spaces.copy()
    space_table.loc[rng.choice(len(spaces), 10, replace=False), "default_level"] = "read"
    return dataclasses.replace(
        data,
        generated_at=data.generated_at + pd.Timedelta(days=30),
        user_permissions=pd.concat([users, added], ignore_index=True),
        team_permissions=teams,
        spaces=space_table,
    )


def _timed(action):
    started = time.perf_counter()
    result = action()
    return result, time.perf_counter() - started


def run_once() -> dict[str, float]:
    from audit_analysis_bench import build_organization

    import docsapi
    from docsapi.audit import analyze

    data = build_organization()
    for_platform = analyze(data).effective[["space_id", "user_id", "display_name", "role"]]
    data = dataclasses.replace(data, aggregate=for_platform)  # the platform agrees
    before, after = analyze(data), analyze(changed(data))
    before.paths, after.paths  # noqa: B018  (computed before timing: the save writes them)
    before.matrix, after.matrix  # noqa: B018
    with tempfile.TemporaryDirectory() as folder:
        saved, save_seconds = _timed(lambda: before.save(Path(folder) / "before"))
        after.save(Path(folder) / "after")
        size = sum(p.stat().st_size for p in saved.rglob("*") if p.is_file()) / 1e6
        loaded, load_seconds = _timed(lambda: docsapi.load_audit(saved))
        reloaded = docsapi.load_audit(Path(folder) / "after")
        diff, diff_seconds = _timed(lambda: after.diff(before))
        _, loaded_diff_seconds = _timed(lambda: reloaded.diff(loaded))
        _, html_seconds = _timed(lambda: diff.to_html(Path(folder) / "changes.html"))
    return {
        "effective rows": len(before.effective),
        "paths rows": len(before.paths),
        "snapshot MB": size,
        "save s": save_seconds,
        "load s": load_seconds,
        "diff s": diff_seconds,
        "diff of loaded s": loaded_diff_seconds,
        "html s": html_seconds,
        "granted": diff.count("granted"),
        "revoked": diff.count("revoked"),
        "raised": diff.count("raised"),
        "lowered": diff.count("lowered"),
        "rerouted": diff.count("rerouted"),
        "changed paths": len(diff.changed_paths),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs = [run_once() for _ in range(args.runs)]
    for key in runs[0]:
        values = [run[key] for run in runs]
        if key.endswith(" s"):
            print(
                f"{key:>18}: {statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"
            )
        else:
            print(f"{key:>18}: {statistics.median(values):,.1f}")


if __name__ == "__main__":
    main()
