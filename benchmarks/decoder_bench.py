"""The JSON decoder alone, on the audit's own answers: before (``json.loads``) and after.

The answers are those the concurrency benchmark records from the sandbox (every answer of
one audit); each is decoded as the client decodes it:

- before: ``json.loads`` of the text (what the transport did until issue 25);
- after: msgspec, into the crawl's shapes for the large lists (a space's, a collection's
  and a site's user and team permissions, a space's aggregate, the audit log's pages:
  structs of the kept columns)
  and as plain JSON for the rest (what the transport does now);
- beside them, for the record: msgspec and orjson (if installed) decoding to plain objects.

CPU time of this process, the best of 5 passes over every answer; the garbage collector is
paused while decoding (as ``timeit`` does), so the figures are the decoders' alone (the
crawl's figure, row C, has the collector's share of keeping decoded objects alive).

Usage: ``python benchmarks/decoder_bench.py RECORDING.pickle`` (a file of
``replay_server.save``).
"""

from __future__ import annotations

import gc
import json
import pickle
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _table import print_results  # noqa: E402

PASSES = 5


def _shape(path: str) -> Any:
    """The shape the crawl decodes an answer to ``path`` into (None: plain JSON)."""
    from docsapi.audit import crawl

    route = path.split("?", 1)[0]
    if route.endswith("/aggregate") and "/spaces/" in route:
        return crawl._AGGREGATE.page
    if route.endswith("/permissions/users"):
        return crawl._USERS.page
    if route.endswith("/permissions/teams"):
        return crawl._TEAMS.page
    if route.endswith("/audit-events"):
        return crawl.EVENT_SHAPE.page
    return None


def _cpu(decode: Callable[[bytes, Any], Any], answers: list[tuple[bytes, Any]]) -> float:
    """The best CPU time of ``PASSES`` passes decoding every answer."""
    best = float("inf")
    for _ in range(PASSES):
        gc.disable()
        try:
            started = time.process_time()
            for body, shape in answers:
                decode(body, shape)
            best = min(best, time.process_time() - started)
        finally:
            gc.enable()
    return best


def measure(recording: Path, label: str) -> dict[str, Any]:
    """One row: every successful answer of ``recording`` decoded before and after."""
    import msgspec

    from docsapi.wire.transport import _parse_json

    recorded = pickle.loads(recording.read_bytes())
    answers = [(body, _shape(key[1])) for key, (status, body) in recorded.items() if body]
    megabytes = sum(len(body) for body, _ in answers) / 1e6
    plain = msgspec.json.Decoder().decode
    decoders: dict[str, Callable[[bytes, Any], Any]] = {
        "before": lambda body, _: json.loads(body.decode("utf-8")),
        "after": lambda body, shape: _parse_json(body, "", "utf-8", shape),
        "msgspec, plain objects": lambda body, _: plain(body),
    }
    try:
        import orjson

        decoders["orjson, plain objects"] = lambda body, _: orjson.loads(body)
    except ImportError:
        pass
    seconds = {name: _cpu(decode, answers) for name, decode in decoders.items()}
    per_answer = {name: value / len(answers) * 1e6 for name, value in seconds.items()}
    before, after = seconds["before"], seconds["after"]
    others = "; ".join(
        f"{name} {seconds[name]:.3f} s ({per_answer[name]:.0f} µs per answer)"
        for name in decoders
        if name not in ("before", "after")
    )
    return {
        "name": f"JSON decoder alone, the audit's answers, {label} ({len(answers):,} answers, "
        f"{megabytes:.1f} MB)",
        "docsapi": f"after: {after:.3f} s CPU, {per_answer['after']:.0f} µs per answer",
        "baseline": f"before (json.loads): {before:.3f} s, {per_answer['before']:.0f} µs per "
        "answer",
        "result": f"{after / before:.2f}x",
        "target": "-",
        "ok": None,
        "notes": [
            "after: msgspec into the crawl's shapes for permission and aggregate lists, plain "
            f"JSON otherwise; best of {PASSES} passes, CPU time, collector paused; beside: "
            f"{others or 'orjson not installed'}"
        ],
    }


def main() -> None:
    recording = Path(sys.argv[1])
    print_results(lambda: [measure(recording, recording.stem)])


if __name__ == "__main__":
    main()
