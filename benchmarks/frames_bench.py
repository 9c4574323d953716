"""Frames and models: docsapi against the same work written directly with pandas.

For three lists (spaces: 18 columns with nested URLs and three timestamps; organization
members: 12 columns with a nested user, flags, counts and timestamps; permission users:
5 columns with a nested user) at 100, 1,000 and 10,000 records, each run builds:

- docsapi: ``frames.spaces(records)`` etc.;
- the baseline: ``pd.DataFrame.from_records`` then, column by column, the same selection,
  renaming, nested reads (``.str.get``), dtype conversions (``string[python]``, ``Int64``,
  ``boolean``) and ``pd.to_datetime(..., utc=True, format="ISO8601")`` to ns: the same
  columns with the same dtypes (checked before timing).

Runs alternate between the two, and each figure is the median [min-max] of the runs,
in CPU time of the process (the machine is shared; no I/O happens here).
The fixed cost is docsapi's time for a one-record list. Model construction is the time per
``Model.from_api`` call on a realistic object. Usage::

    python benchmarks/frames_bench.py            # 9 runs
    python benchmarks/frames_bench.py --quick    # 5 runs, sizes 100 and 1,000

:func:`run` returns the rows (dicts) for ``benchmarks/run.py``.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _table import print_results

SEED = 0
SIZES = (100, 1_000, 10_000)
RUNS = 9
#: Targets: docsapi at most this multiple of the baseline; empty-list cost; model construction.
MAX_RATIO = 1.0
MAX_FIXED_MS = 0.3
MAX_MODEL_US = 5.0

API = "https://api.gitbook.com/v1"
APP = "https://app.gitbook.com"


# -- records shaped like the API's -----------------------------------------------------------------


def _stamp(rng: random.Random) -> str:
    return (
        f"20{rng.randint(19, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        f"T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
        f".{rng.randint(0, 999):03d}Z"
    )


def _user(rng: random.Random, n: int) -> dict[str, Any]:
    user = {
        "object": "user",
        "id": f"u{n:07d}",
        "displayName": f"User {n}",
        "urls": {"location": f"{API}/users/u{n:07d}"},
    }
    if rng.random() < 0.8:
        user["email"] = f"user{n}@example.com"
    return user


def space_records(count: int) -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    records = []
    for n in range(count):
        space_id = f"sp{n:07d}"
        urls = {"app": f"{APP}/o/org/s/{space_id}/", "location": f"{API}/spaces/{space_id}"}
        record: dict[str, Any] = {
            "object": "space",
            "id": space_id,
            "title": f"Space {n}",
            "emoji": rng.choice(["1f4da", "", "1f680"]),
            "visibility": rng.choice(["private", "public", "unlisted", "in-collection"]),
            "editMode": rng.choice(["live", "locked"]),
            "defaultLevel": rng.choice(["inherit", "read", None]),
            "language": rng.choice(["en", "fr", "de"]),
            "organization": "org",
            "revision": f"rev{n}",
            "createdAt": _stamp(rng),
            "updatedAt": _stamp(rng),
            "urls": urls,
            "permissions": {"view": True, "admin": rng.random() < 0.2},
        }
        if rng.random() < 0.7:
            record["parent"] = f"col{rng.randint(0, 50)}"
        if rng.random() < 0.1:
            record["deletedAt"] = _stamp(rng)
        if record["visibility"] in ("public", "unlisted"):
            urls["published"] = f"https://docs.example/{space_id}/"
            urls["public"] = urls["published"]
        if rng.random() < 0.3:
            urls["icon"] = f"https://files.example/{space_id}.png"
        records.append(record)
    return records


def member_records(count: int) -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    records = []
    for n in range(count):
        record = {
            "object": "member",
            "id": f"u{n:07d}",
            "role": rng.choice(["admin", "create", "edit", "read", None]),
            "user": _user(rng, n),
            "disabled": rng.random() < 0.05,
            "joinedAt": _stamp(rng),
            "sso": rng.random() < 0.5,
            "spaces": rng.randint(0, 40),
            "teams": rng.randint(0, 5),
            "sites": rng.randint(0, 3),
        }
        if rng.random() < 0.9:
            record["lastSeenAt"] = _stamp(rng)
        records.append(record)
    return records


def permission_records(count: int) -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    roles = ["admin", "create", "review", "edit", "comment", "read"]
    return [{"permission": rng.choice(roles), "user": _user(rng, n)} for n in range(count)]


# -- the baseline: pandas by hand ------------------------------------------------------------------

#: column -> (JSON key, nested key or None, dtype), as someone writing it by hand would list it
BASELINE_COLUMNS: dict[str, dict[str, tuple[str, str | None, str]]] = {
    "spaces": {
        "id": ("id", None, "string"),
        "title": ("title", None, "string"),
        "emoji": ("emoji", None, "string"),
        "visibility": ("visibility", None, "string"),
        "edit_mode": ("editMode", None, "string"),
        "default_level": ("defaultLevel", None, "string"),
        "language": ("language", None, "string"),
        "organization": ("organization", None, "string"),
        "parent": ("parent", None, "string"),
        "revision": ("revision", None, "string"),
        "created_at": ("createdAt", None, "time"),
        "updated_at": ("updatedAt", None, "time"),
        "deleted_at": ("deletedAt", None, "time"),
        "url_app": ("urls", "app", "string"),
        "url_location": ("urls", "location", "string"),
        "url_published": ("urls", "published", "string"),
        "url_public": ("urls", "public", "string"),
        "url_icon": ("urls", "icon", "string"),
    },
    "org_members": {
        "org_id": ("", None, "given"),
        "user_id": ("user", "id", "string"),
        "display_name": ("user", "displayName", "string"),
        "email": ("user", "email", "string"),
        "role": ("role", None, "string"),
        "disabled": ("disabled", None, "boolean"),
        "joined_at": ("joinedAt", None, "time"),
        "last_seen_at": ("lastSeenAt", None, "time"),
        "sso": ("sso", None, "boolean"),
        "spaces": ("spaces", None, "Int64"),
        "teams": ("teams", None, "Int64"),
        "sites": ("sites", None, "Int64"),
    },
    "permission_users": {
        "space_id": ("", None, "given"),
        "user_id": ("user", "id", "string"),
        "display_name": ("user", "displayName", "string"),
        "email": ("user", "email", "string"),
        "role": ("permission", None, "string"),
    },
}


def baseline(name: str, records: list[dict[str, Any]], given: str | None = None):
    """``from_records`` + nested reads + ``astype`` + ``to_datetime``: the same frame."""
    import pandas as pd

    string = pd.StringDtype("python")
    raw = pd.DataFrame.from_records(records)
    columns = {}
    for column, (key, nested, dtype) in BASELINE_COLUMNS[name].items():
        if dtype == "given":
            columns[column] = pd.Series([given] * len(raw), dtype=string)
            continue
        values = raw[key] if key in raw else pd.Series([None] * len(raw), dtype=object)
        if nested is not None:
            values = values.str.get(nested)
        if dtype == "time":
            parsed = pd.to_datetime(values, utc=True, format="ISO8601", errors="coerce")
            columns[column] = parsed.astype("datetime64[ns, UTC]")
        else:
            columns[column] = values.astype(string if dtype == "string" else dtype)
    return pd.DataFrame(columns)


# -- measuring -------------------------------------------------------------------------------------


def _seconds(function: Callable[[], object]) -> float:
    """CPU time of one call (the process's: no I/O here, and other work on the shared
    machine does not count), with the garbage collector paused (as ``timeit`` does)."""
    gc.disable()
    try:
        started = time.process_time()
        function()
        return time.process_time() - started
    finally:
        gc.enable()


def _spread(values: list[float], scale: float, digits: int) -> str:
    return (
        f"{statistics.median(values) * scale:.{digits}f} "
        f"[{min(values) * scale:.{digits}f}-{max(values) * scale:.{digits}f}]"
    )


def _docsapi(name: str) -> Callable[[list[dict[str, Any]]], Any]:
    from docsapi import frames

    if name == "spaces":
        return frames.spaces
    if name == "org_members":
        return lambda records: frames.org_members("org", records)
    return lambda records: frames.permission_users("sp", records)


_RECORDS = {
    "spaces": space_records,
    "org_members": member_records,
    "permission_users": permission_records,
}


def _check_same_frame(name: str) -> None:
    """The baseline builds exactly docsapi's frame (values, columns and dtypes)."""
    import pandas as pd

    records = _RECORDS[name](200)
    given = None if name == "spaces" else ("org" if name == "org_members" else "sp")
    pd.testing.assert_frame_equal(_docsapi(name)(records), baseline(name, records, given))


def bench_frame(name: str, size: int, runs: int) -> dict[str, Any]:
    records = _RECORDS[name](size)
    given = None if name == "spaces" else ("org" if name == "org_members" else "sp")
    build = _docsapi(name)
    pair = [
        (lambda: build(records), []),
        (lambda: baseline(name, records, given), []),
    ]
    build(records[:10]), baseline(name, records[:10], given)  # warm up
    ratios = []
    for run_number in range(runs):
        for function, times in pair if run_number % 2 == 0 else pair[::-1]:
            times.append(_seconds(function))
        ratios.append(pair[0][1][-1] / pair[1][1][-1])
    ratio = statistics.median(ratios)
    return {
        "name": f"frames.{name}, {size:,} records",
        "docsapi": _spread(pair[0][1], 1e3, 2) + " ms",
        "baseline": _spread(pair[1][1], 1e3, 2) + " ms",
        "result": f"{ratio:.2f}x [{min(ratios):.2f}-{max(ratios):.2f}]",
        "target": f"<= {MAX_RATIO:.1f}x",
        "ok": ratio <= MAX_RATIO,
        "notes": ["baseline: from_records + .str.get + astype + to_datetime, same dtypes"],
    }


def bench_fixed_cost(name: str, runs: int) -> dict[str, Any]:
    """The cost every call pays: a one-record list (the empty list's figure beside it)."""
    from docsapi import frames

    build = _docsapi(name)
    one = _RECORDS[name](1)
    build(one), frames.empty(name)
    times, empty_times = [], []
    for _ in range(runs):
        times.append(min(_seconds(lambda: build(one)) for _ in range(20)))
        empty_times.append(min(_seconds(lambda: frames.empty(name)) for _ in range(20)))
    median_ms = statistics.median(times) * 1e3
    return {
        "name": f"frames.{name}, one record (fixed cost)",
        "docsapi": _spread(times, 1e3, 3) + " ms",
        "baseline": "-",
        "result": f"{median_ms:.3f} ms",
        "target": f"<= {MAX_FIXED_MS} ms",
        "ok": median_ms <= MAX_FIXED_MS,
        "notes": [
            f"{len(frames.SCHEMAS[name])} columns; each run the best of 20 calls; an empty "
            f"list (a copy of a frame built once): {_spread(empty_times, 1e3, 3)} ms"
        ],
    }


def bench_model(model_name: str, record: dict[str, Any], runs: int, calls: int) -> dict[str, Any]:
    from docsapi import models

    model = getattr(models, model_name)
    model.from_api(record)

    def calls_in_a_row() -> None:
        for _ in range(calls):
            model.from_api(record)

    times = [_seconds(calls_in_a_row) / calls for _ in range(runs)]
    median_us = statistics.median(times) * 1e6
    return {
        "name": f"{model_name}.from_api",
        "docsapi": _spread(times, 1e6, 2) + " µs",
        "baseline": "-",
        "result": f"{median_us:.2f} µs",
        "target": f"<= {MAX_MODEL_US:.0f} µs",
        "ok": median_us <= MAX_MODEL_US,
        "notes": [f"{len(record)} JSON keys; each run {calls:,} calls"],
    }


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure every figure; returns one dict per row (name, docsapi, baseline, result, ...)."""
    runs = 5 if quick else RUNS
    sizes = SIZES[:2] if quick else SIZES
    rows = []
    for name in _RECORDS:
        _check_same_frame(name)
        rows.append(bench_fixed_cost(name, runs))
        rows += [bench_frame(name, size, runs) for size in sizes]
    sites = {
        "object": "site",
        "id": "site1",
        "type": "premium",
        "appliedType": "premium",
        "title": "Docs",
        "visibility": "public",
        "defaultLevel": "inherit",
        "published": True,
        "siteSpaces": 3,
        "createdAt": "2024-01-02T03:04:05.000Z",
        "urls": {"app": f"{APP}/o/org/sites/site1/", "location": f"{API}/orgs/org/sites/site1"},
        "permissions": {"view": True, "admin": True},
        "features": [],
    }
    calls = 2_000 if quick else 20_000
    for model_name, record in (
        ("Space", space_records(1)[0]),
        ("OrganizationMember", member_records(1)[0]),
        ("Site", sites),
        ("User", member_records(1)[0]["user"]),
    ):
        rows.append(bench_model(model_name, record, runs, calls))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 runs, sizes 100 and 1,000")
    quick = parser.parse_args().quick
    import pandas as pd

    print_results(lambda: run(quick), versions=f", pandas {pd.__version__}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
