"""The table and the load lines the standalone benchmark scripts print (run.py has its own)."""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["print_results"]


def _table(rows: list[dict[str, Any]]) -> str:
    header = ["figure", "docsapi", "baseline", "result", "target", "met"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        met = {True: "yes", False: "**MISS**", None: "-"}[row["ok"]]
        cells = [row["name"], row["docsapi"], row["baseline"], row["result"], row["target"], met]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def print_results(measure: Any, *, versions: str = "") -> None:
    """Print the interpreter, the load average, the rows ``measure()`` returns, and the load
    average after them (each row a dict: name, docsapi, baseline, result, target, ok)."""
    print(f"python {sys.version.split()[0]}{versions}, load average {_load()}")
    print(_table(measure()))
    print(f"load average after: {_load()}")
