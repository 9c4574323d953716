"""Run one permission audit against a running sandbox and print its figures as JSON.

Run by ``benchmarks/run.py`` in a fresh interpreter so that the peak resident memory
measured is the audit's own (the sandbox serves from another process).

Usage: ``python benchmarks/_audit_child.py URL TOKEN ORG_ID WORKERS [READ_LOG]``
(``READ_LOG`` 0 audits without reading the audit log; default 1).
"""

from __future__ import annotations

import json
import resource
import sys
import time


def _rss_mb(field: str = "VmRSS") -> float:
    """This process's resident set size (``VmRSS``), or its peak since it started this
    program (``VmHWM``), in MB (from /proc)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    url, token, org_id, workers = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    read_log = len(sys.argv) < 6 or sys.argv[5] != "0"
    import pandas  # noqa: F401  (the audit needs it; counted in the baseline)

    import docsapi
    from docsapi.audit import audit_permissions

    baseline = _rss_mb()
    client = docsapi.DocsClient(base_url=url, token=token, timeout=60.0)
    started, cpu_started = time.perf_counter(), time.process_time()
    audit = audit_permissions(
        client, org_id, max_workers=workers, progress=False, read_log=read_log
    )
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    print(
        json.dumps(
            {
                "baseline_rss_mb": baseline,
                "final_rss_mb": _rss_mb(),
                "peak_rss_mb_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                # ru_maxrss (here and from wait4) also counts the parent's pages between fork
                # and exec: a runner holding 1 GB made every audit seem to; VmHWM is this
                # program's own peak
                "peak_rss_mb": _rss_mb("VmHWM"),
                "seconds": elapsed,
                "cpu_seconds": cpu,
                "requests": client.transport.request_count,
                "spaces": audit.count("spaces"),
                "grants": audit.count("grants"),
                "effective": len(audit.effective),
                "findings": audit.count("findings"),
                "errors": audit.count("errors"),
                "events": len(audit.data.events),
                "complete": audit.complete,
            }
        )
    )


if __name__ == "__main__":
    main()
