"""``docsapi review apply`` in a real process: killed mid-run it resumes without repeating
itself, and a second run of the same plan at the same time stops before sending anything.

The sandbox runs in this process (a server thread); each write it answers is counted from
its request log. Its latency keeps the command busy long enough to kill it, or to start a
second one, mid-run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import docsapi
from docsapi import AccessReview
from docsapi.credentials.signing import SIGNING_KEY_VARIABLE

#: Applies killed midway in real processes: `pytest --full` (and CI).
pytestmark = pytest.mark.full

WRITES = ("DELETE", "PATCH", "POST", "PUT")


def _signed_plan(sandbox, folder: Path, calls: int) -> list[str]:
    """A signed-off plan of ``calls`` removals saved in ``folder``; the paths it sends."""
    audit = docsapi.audit_permissions(
        sandbox.client(), sandbox.org_id, progress=False, model="highest"
    )
    review = AccessReview(audit, reviewer="Rita Reviewer")
    direct = review.decisions[review.decisions["sources"] == "direct"].drop_duplicates("space_id")
    review.decide(direct.index[:calls], "revoke")
    review.sign_off("Grace Owner")
    review.save_plan(folder / "plan.json")
    paths = review.plan()["path"].tolist()
    assert len(paths) == calls
    return [f"/v1{path}" for path in paths]


def _writes(sandbox) -> list[str]:
    return [path for method, path, _ in sandbox.request_log if method in WRITES]


def _apply(sandbox, folder: Path) -> subprocess.Popen[str]:
    environment = {
        **os.environ,
        "GITBOOK_API_TOKEN": sandbox.token,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    environment.pop(SIGNING_KEY_VARIABLE, None)
    command = [sys.executable, "-m", "docsapi.cli", "review", "apply", str(folder / "plan.json")]
    return subprocess.Popen(
        [*command, "--base-url", sandbox.url, "--no-progress"],
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(condition, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_killed_apply_resumes_and_sends_each_call_at_most_once_more(sandbox, tmp_path):
    n = 8
    paths = _signed_plan(sandbox, tmp_path, n)
    sandbox.set_latency(0.3)
    first = _apply(sandbox, tmp_path)
    _wait_for(lambda: len(_writes(sandbox)) >= 3)
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=60)
    assert first.returncode == -signal.SIGKILL
    time.sleep(1.0)  # a call in flight when the process died is answered all the same
    k = len(_writes(sandbox))
    assert 3 <= k < n

    sandbox.set_latency(0)
    resumed = _apply(sandbox, tmp_path)
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert f"{n} of {n} calls done." in out
    further = len(_writes(sandbox)) - k
    print(f"\nkilled after {k} of {n} writes; the resume sent {further} (n - k = {n - k})")
    assert n - k <= further <= n - k + 1
    sent = Counter(_writes(sandbox))
    assert set(sent) == set(paths)
    assert sum(count - 1 for count in sent.values()) == further - (n - k) <= 1
    if further == n - k + 1:  # the call in flight went again, and the run said so
        assert "in doubt" in out and "idempotent" in out
    (journal_file,) = (Path(os.environ["DOCSAPI_STATE_DIR"]) / "plans").glob("*.journal.jsonl")
    journal = journal_file.read_text().splitlines()
    assert sum('"event": "done"' in line for line in journal) >= n


def test_a_second_apply_during_the_first_exits_without_writing(sandbox, tmp_path):
    n = 6
    paths = _signed_plan(sandbox, tmp_path, n)
    sandbox.set_latency(1.0)
    first = _apply(sandbox, tmp_path)
    _wait_for(lambda: len(_writes(sandbox)) >= 1)
    second = _apply(sandbox, tmp_path)
    out, err = second.communicate(timeout=120)
    assert first.poll() is None, "the first apply ended before the second started"
    assert second.returncode == 4, out + err
    assert f"pid {first.pid}" in err and "Nothing was sent" in err
    assert "wait until it ends" in err
    first_out, first_err = first.communicate(timeout=120)
    assert first.returncode == 0, first_err
    assert f"{n} of {n} calls done." in first_out
    assert sorted(_writes(sandbox)) == sorted(paths)  # each call once: none from the second
