"""The cost of ``client.api``: import time, first access, and per-call overhead vs typed groups.

Figures (each the median [min-max] of at least 5 runs):

A. ``python -c "import docsapi"`` in this tree, and in a baseline given with ``--baseline``
   (compared by their best runs, as ``run.py`` does):
   a git revision (its ``docsapi/`` is extracted to a temporary directory with ``git archive``)
   or a directory holding a ``docsapi`` package. ``client.api`` must leave the import unchanged
   (within 10 %).
B. In a fresh interpreter: the first ``client.api`` (reads the packaged description), the first
   group and method (builds a signature and docstring), and the first checked call (imports
   jsonschema, builds the validator), against a canned answer.
C. Per call, against the sandbox in a child process: ``client.api.spaces.get_space_by_id`` vs
   ``client.spaces.get``, and the organization's members as a DataFrame through
   ``client.api.organization_members.list_members_in_organization_by_id`` vs
   ``client.orgs.members``; blocks interleaved. Also the client-side cost alone, with a session
   that answers from memory.

Usage::

    python benchmarks/api_overhead.py [--quick] [--baseline REVISION_OR_DIRECTORY]

``measure(quick, baseline)`` returns the rows as dicts with the fields of ``run.py``'s ``Row``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _server import RemoteSandbox  # noqa: E402

FIRST_ACCESS = """
import json, time
import requests
import docsapi

class Canned(requests.Session):
    def send(self, request, **kwargs):
        response = requests.Response()
        response.status_code = 200
        response._content = b'{"id": "sp1", "title": "Docs"}'
        response.headers["Content-Type"] = "application/json"
        response.request = request
        return response

client = docsapi.DocsClient(token="t", session=Canned())
t0 = time.perf_counter(); api = client.api
t1 = time.perf_counter(); method = api.spaces.get_space_by_id
t2 = time.perf_counter(); method("sp1")
t3 = time.perf_counter(); method("sp2")
t4 = time.perf_counter()
print(json.dumps({"api": t1 - t0, "method": t2 - t1, "first_call": t3 - t2, "next_call": t4 - t3}))
"""


def spread(values: list[float], scale: float = 1e3, unit: str = "ms", digits: int = 1) -> str:
    """``median [min-max] unit`` of ``values`` times ``scale``."""
    low, mid, high = (v * scale for v in (min(values), statistics.median(values), max(values)))
    return f"{mid:.{digits}f} [{low:.{digits}f}-{high:.{digits}f}] {unit}".rstrip()


def _python(code: str, pythonpath: str | None = None) -> float:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd="/")
    return time.perf_counter() - started


def baseline_tree(baseline: str, into: Path) -> str:
    """A directory holding the baseline's ``docsapi`` package (extracted if a git revision)."""
    if Path(baseline, "docsapi").is_dir():
        return baseline
    archive = subprocess.run(
        ["git", "archive", baseline, "docsapi"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return str(into)


def bench_import(runs: int, baseline: str | None) -> dict[str, Any]:
    here, base = [], []
    for _ in range(runs):
        here.append(_python("import docsapi", str(ROOT)))
        if baseline:
            base.append(_python("import docsapi", baseline))
    # The best run is the import's own cost; slower runs measure the machine's other load.
    ratio = min(here) / min(base) if base else None
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, docsapi; docsapi.DocsClient(token='t'); "
            "print(sorted(m for m in sys.modules if m.startswith(('docsapi.api', 'jsonschema'))))",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout.strip()
    return {
        "number": "A",
        "name": f'`python -c "import docsapi"` ({runs} runs, interleaved)',
        "docsapi": spread(here),
        "baseline": spread(base) if base else "-",
        "result": f"best-of ratio {ratio:.3f}" if ratio else "-",
        "target": "≤ 1.10",
        "ok": None if ratio is None else ratio <= 1.10,
        "notes": [
            f"baseline tree: {baseline or 'none given'}",
            f"docsapi.api / jsonschema modules after import + DocsClient(): {loaded}",
        ],
    }


def bench_first_access(runs: int) -> dict[str, Any]:
    samples: dict[str, list[float]] = {}
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", FIRST_ACCESS],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout
        for key, value in json.loads(out).items():
            samples.setdefault(key, []).append(value)
    return {
        "number": "B",
        "name": f"first `client.api` in a fresh interpreter ({runs} runs)",
        "docsapi": spread(samples["api"]),
        "baseline": "-",
        "result": f"first method {spread(samples['method'])}",
        "target": "-",
        "ok": None,
        "notes": [
            f"first checked call (jsonschema import, validator): {spread(samples['first_call'])}",
            f"second call: {spread(samples['next_call'], 1e6, 'µs')}",
        ],
    }


def _blocks(
    generated: Callable[[], object], typed: Callable[[], object], blocks: int, per_block: int
) -> tuple[list[float], list[float]]:
    gen_times, typed_times = [], []
    for block in range(blocks):
        pair = [(generated, gen_times), (typed, typed_times)]
        if block % 2:
            pair.reverse()
        for function, times in pair:
            started = time.perf_counter()
            for _ in range(per_block):
                function()
            times.append((time.perf_counter() - started) / per_block)
    return gen_times, typed_times


def _row(number: str, name: str, gen: list[float], typed: list[float], note: str) -> dict:
    ratios = [g / t for g, t in zip(gen, typed, strict=True)]
    overhead = statistics.median(gen) - statistics.median(typed)
    return {
        "number": number,
        "name": name,
        "docsapi": spread(gen, 1e6, "µs"),
        "baseline": spread(typed, 1e6, "µs"),
        "result": f"ratio {spread(ratios, 1, '', 2)}",
        "target": "-",
        "ok": None,
        "notes": [f"{note}; overhead per call {overhead * 1e6:+.0f} µs (medians)"],
    }


def bench_calls(blocks: int, per_block: int) -> list[dict[str, Any]]:
    import requests

    import docsapi

    rows = []
    with RemoteSandbox({"seed": 0}) as sb:
        client = docsapi.DocsClient(base_url=sb.url, token=sb.token)
        space_id = sb.space_ids[0]
        get_generated = client.api.spaces.get_space_by_id
        members_generated = client.api.organization_members.list_members_in_organization_by_id
        for _ in range(20):  # warm up: connections, lazy imports, validators
            get_generated(space_id)
            client.spaces.get(space_id)
        members_generated(sb.org_id)
        client.orgs.members(sb.org_id)
        gen, typed = _blocks(
            lambda: get_generated(space_id), lambda: client.spaces.get(space_id), blocks, per_block
        )
        rows.append(
            _row(
                "C1",
                f"GET /spaces/{{id}}: client.api vs client.spaces.get "
                f"({blocks} blocks of {per_block})",
                gen,
                typed,
                "against the sandbox in a child process",
            )
        )
        gen, typed = _blocks(
            lambda: members_generated(sb.org_id),
            lambda: client.orgs.members(sb.org_id),
            blocks,
            max(1, per_block // 10),
        )
        rows.append(
            _row(
                "C2",
                "org members → DataFrame: client.api vs client.orgs.members "
                f"({blocks} blocks of {max(1, per_block // 10)})",
                gen,
                typed,
                "against the sandbox; the generated frame has every field of the item schema",
            )
        )
        client.close()

    body = json.dumps({"object": "space", "id": "sp1", "title": "Docs"}).encode()

    class Canned(requests.Session):
        def send(self, request, **kwargs):
            response = requests.Response()
            response.status_code = 200
            response._content = body
            response.headers["Content-Type"] = "application/json"
            response.request = request
            return response

    offline = docsapi.DocsClient(token="t", session=Canned())
    method = offline.api.spaces.get_space_by_id
    for _ in range(50):
        method("sp1")
        offline.spaces.get("sp1")
    gen, typed = _blocks(
        lambda: method("sp1"), lambda: offline.spaces.get("sp1"), blocks, per_block * 5
    )
    rows.append(
        _row(
            "C3",
            "client-side cost alone (answer from memory): get_space_by_id vs spaces.get",
            gen,
            typed,
            "argument checks (jsonschema), path building, answer shaping; no network",
        )
    )
    return rows


def measure(quick: bool = False, baseline: str | None = None) -> list[dict[str, Any]]:
    """Every row of this benchmark, as dicts with the fields of ``run.py``'s ``Row``.

    Parameters
    ----------
    quick : bool
        Fewer runs and calls.
    baseline : str, optional
        A git revision or a directory to compare ``import docsapi`` with.
    """
    runs = 5 if quick else 15
    blocks, per_block = (6, 20) if quick else (10, 100)
    with tempfile.TemporaryDirectory() as scratch:
        tree = baseline_tree(baseline, Path(scratch)) if baseline else None
        rows = [bench_import(runs, tree)]
        rows[0]["notes"][0] = f"baseline: {baseline or 'none given'}"
    return [*rows, bench_first_access(runs), *bench_calls(blocks, per_block)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and calls")
    parser.add_argument(
        "--baseline", help="a git revision or directory to compare `import docsapi` with"
    )
    args = parser.parse_args()
    rows = measure(args.quick, args.baseline)
    print("| # | benchmark | client.api | baseline | result | target | met |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        met = {True: "yes", False: "**MISS**", None: "-"}[row["ok"]]
        print(
            f"| {row['number']} | {row['name']} | {row['docsapi']} | {row['baseline']} | "
            f"{row['result']} | {row['target']} | {met} |"
        )
    for row in rows:
        for note in row["notes"]:
            print(f"  {row['number']}: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
