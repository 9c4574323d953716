"""Run the suite as if it were another moment: ``DOCSAPI_TEST_NOW=2026-11-25T23:59:30Z pytest``.

With the variable set, the session's clock starts at that instant and ticks on from there
(time-machine): every ``time.time()``, ``datetime.now()`` and ``pd.Timestamp.now()`` of the
test processes (the xdist workers too) and of the notebook kernels nbval starts. The kernels
are other processes, so the session points ``IPYTHONDIR`` at a folder whose one IPython
startup file starts the same travel in each kernel. Each process starts its clock at the
instant when it starts, so one at 23:59:30 crosses midnight half a minute in.

Subprocesses that are not kernels (the ``docsapi`` command started by the CLI tests) keep
the real clock; each of them reads all its times from one clock of its own. ``time.monotonic``
is never moved (timeouts and durations stay real).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import time_machine

#: The environment variable naming the instant the session starts at (ISO 8601, with a zone).
VARIABLE = "DOCSAPI_TEST_NOW"

_STARTUP = f"""\
import os

import time_machine

time_machine.travel(os.environ[{VARIABLE!r}], tick=True).start()
"""


class FixedClock:
    """The travel of one test process, and the IPython folder its kernels start from."""

    def __init__(self, instant: str) -> None:
        self.instant = instant
        self.travel = time_machine.travel(instant, tick=True)
        self.folder = tempfile.TemporaryDirectory(prefix="docsapi-test-now-")
        profile = Path(self.folder.name, "profile_default")
        (profile / "startup").mkdir(parents=True)
        (profile / "startup" / "00-docsapi-test-now.py").write_text(_STARTUP, encoding="utf-8")
        # no history database in a folder removed when the session ends
        (profile / "ipython_kernel_config.py").write_text(
            "c.HistoryManager.enabled = False\n", encoding="utf-8"
        )

    def start(self) -> None:
        self.travel.start()
        self.previous = os.environ.get("IPYTHONDIR")
        os.environ["IPYTHONDIR"] = self.folder.name

    def stop(self) -> None:
        self.travel.stop()
        if self.previous is None:
            os.environ.pop("IPYTHONDIR", None)
        else:
            os.environ["IPYTHONDIR"] = self.previous
        self.folder.cleanup()


def from_environment() -> FixedClock | None:
    """The fixed clock :data:`VARIABLE` asks for, started; None when it is unset."""
    instant = os.environ.get(VARIABLE, "").strip()
    if not instant:
        return None
    clock = FixedClock(instant)
    clock.start()
    return clock
