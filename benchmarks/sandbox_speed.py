"""The sandbox's speed where users feel it, each figure beside the previous run's (issue 38).

Rows:

- the sandbox's CPU per request while an audit (audit log read, 16 workers) crawls it, at
  500 and 2,000 spaces (5,000 users, 50 grants per space): the CPU time of the sandbox's
  own process (``/proc/<pid>/stat``, user + system) over the audit, divided by the requests;
- the 2,000-space audit's wall time and the client's CPU (the audit runs in a fresh process,
  ``_audit_child.py``);
- 500 spaces with 30 ms added per request, 16 workers, against the ideal
  (requests x latency / workers);
- ``docsapi demo`` end to end (a fresh process, wall) and its phases in another fresh
  process: the sandbox built and started, its first request, the audit, ``to_html``
  (the matplotlib import included, as the demo pays it).

The machine may be loaded: CPU figures are steadier than wall ones, and the load average is
printed beside every row. The figures of each run are kept in ``sandbox_speed.json``; the next
run shows them as its baseline and the ratio now / before, so a regression shows as a ratio
above 1. Usage::

    python benchmarks/sandbox_speed.py                  # every row
    python benchmarks/sandbox_speed.py --only demo      # demo rows only (audit, latency)
    python benchmarks/sandbox_speed.py --no-save        # do not replace the previous figures
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _server import RemoteSandbox  # noqa: E402
from _table import print_results  # noqa: E402

PREVIOUS = HERE / "sandbox_speed.json"
WORKERS = 16
LATENCY = 0.030
_TICKS = os.sysconf("SC_CLK_TCK")

_PHASES = """
import json, sys, time
marks = [(time.perf_counter(), time.process_time())]
import requests
from docsapi.sandbox import Sandbox
from docsapi.audit import audit_permissions
marks.append((time.perf_counter(), time.process_time()))
with Sandbox(seed=0) as sandbox:
    marks.append((time.perf_counter(), time.process_time()))
    headers = {"Authorization": f"Bearer {sandbox.token}"}
    requests.get(f"{sandbox.url}/orgs/{sandbox.org_id}", headers=headers, timeout=60)
    marks.append((time.perf_counter(), time.process_time()))
    client = sandbox.client()
    audit = audit_permissions(client, sandbox.org_id, max_workers=8, progress=False)
    marks.append((time.perf_counter(), time.process_time()))
audit.to_html(sys.argv[1])
marks.append((time.perf_counter(), time.process_time()))
names = ["import", "start", "first request", "audit", "to_html"]
found = {}
for name, (wall0, cpu0), (wall1, cpu1) in zip(names, marks, marks[1:]):
    found[name] = wall1 - wall0
    found[name + " cpu"] = cpu1 - cpu0
print(json.dumps(found))
"""


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far, from ``/proc/<pid>/stat``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _audit_child(sb: RemoteSandbox) -> dict[str, Any]:
    command = [sys.executable, str(HERE / "_audit_child.py"), sb.url, sb.token, sb.org_id]
    output = subprocess.run([*command, str(WORKERS)], capture_output=True, text=True, check=True)
    return json.loads(output.stdout)


def audit_figures(spaces: int, latency: float = 0.0) -> dict[str, float]:
    """One audit (log read, 16 workers) of a sandbox in its own process: the sandbox's CPU per
    request (ms), the audit's wall and CPU (s) and its requests."""
    options = {"seed": 0, "spaces": spaces, "users": 5000, "grants_per_space": 50}
    with RemoteSandbox(options) as sb:
        if latency:
            sb.set_latency(latency)
        before = process_cpu(sb.pid)
        found = _audit_child(sb)
        used = process_cpu(sb.pid) - before
    figures = {
        "sandbox_ms_per_request": used / found["requests"] * 1000,
        "wall_s": found["seconds"],
        "client_cpu_s": found["cpu_seconds"],
        "requests": found["requests"],
        "load": os.getloadavg()[0],
    }
    if latency:  # the ideal: every worker always waiting on a request
        figures["vs_ideal"] = found["seconds"] / (found["requests"] * latency / WORKERS)
    return figures


def demo_figures() -> dict[str, float]:
    """``docsapi demo`` end to end (wall), then its phases in another fresh process."""
    with tempfile.TemporaryDirectory() as folder:
        out = str(Path(folder) / "report.html")
        started, cpu = time.perf_counter(), _children_cpu()
        # run from the temporary folder: the code imported is PYTHONPATH's, not the cwd's
        subprocess.run(
            [sys.executable, "-m", "docsapi.cli", "demo", "--no-progress", "--out", out],
            capture_output=True,
            check=True,
            cwd=folder,
        )
        wall, cpu = time.perf_counter() - started, _children_cpu() - cpu
        phases = subprocess.run(
            [sys.executable, "-c", _PHASES, out],
            capture_output=True,
            text=True,
            check=True,
            cwd=folder,
        )
    found = json.loads(phases.stdout)
    return {"demo_s": wall, "demo cpu": cpu, **found, "load": os.getloadavg()[0]}


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _row(
    name: str, now: float, before: float | None, unit: str, target: float | None, load: float
) -> dict[str, Any]:
    digits = 2 if now < 10 else 1
    ratio = "-" if not before else f"{now / before:.2f}x"
    return {
        "name": f"{name} (load {load:.1f})",
        "docsapi": f"{now:.{digits}f} {unit}",
        "baseline": "-" if before is None else f"{before:.{digits}f} {unit} (previous run)",
        "result": ratio,
        "target": "-" if target is None else f"≤ {target:g} {unit}",
        "ok": None if target is None else now <= target,
    }


def measure(only: str | None = None, save: bool = True) -> list[dict[str, Any]]:
    """The rows, each beside the previous run's figure; the new figures replace them."""
    previous = json.loads(PREVIOUS.read_text()) if PREVIOUS.exists() else {}
    figures: dict[str, dict[str, float]] = {}
    work: dict[str, Any] = {
        "demo": ("demo", demo_figures),
        "audit 500": ("audit", lambda: audit_figures(500)),
        "audit 2000": ("audit", lambda: audit_figures(2000)),
        "latency 500": ("latency", lambda: audit_figures(500, LATENCY)),
    }
    for key, (group, run) in work.items():
        if only in (None, group):
            figures[key] = run()
            if save:  # each figure kept as soon as it is measured
                kept = json.loads(PREVIOUS.read_text()) if PREVIOUS.exists() else {}
                PREVIOUS.write_text(json.dumps({**kept, key: figures[key]}, indent=1) + "\n")
    rows = []

    def add(key: str, field: str, name: str, unit: str, target: float | None) -> None:
        if key in figures:
            now = figures[key][field]
            before = previous.get(key, {}).get(field)
            rows.append(_row(name, now, before, unit, target, figures[key]["load"]))

    for spaces in (500, 2000):
        key = f"audit {spaces}"
        add(
            key,
            "sandbox_ms_per_request",
            f"sandbox CPU per request, audit of {spaces:,} "
            "spaces x 5,000 users x 50 grants, log read, 16 workers",
            "ms",
            1.5,
        )
    add("audit 2000", "wall_s", "audit of 2,000 spaces against the sandbox, wall", "s", 15)
    add("audit 2000", "client_cpu_s", "audit of 2,000 spaces, client CPU", "s", 10)
    add(
        "latency 500",
        "vs_ideal",
        "500 spaces at 30 ms latency, 16 workers: wall / ideal",
        "x",
        1.8,
    )
    add("demo", "demo_s", "`docsapi demo` end to end, wall", "s", 4)
    add("demo", "demo cpu", "`docsapi demo` end to end, CPU", "s", 4)
    for phase, target in (
        ("import", None),
        ("start", None),
        ("first request", 0.5),
        ("audit", None),
        ("to_html", 1.5),
    ):
        add("demo", phase, f"`docsapi demo` phase: {phase}, wall", "s", target)
        add("demo", f"{phase} cpu", f"`docsapi demo` phase: {phase}, CPU", "s", target)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("audit", "latency", "demo"))
    parser.add_argument("--no-save", action="store_true", help="keep the previous figures")
    args = parser.parse_args()
    print_results(lambda: measure(args.only, not args.no_save))


if __name__ == "__main__":
    main()
