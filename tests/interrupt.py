"""Start a command that SIGINT stops the way Ctrl-C stops it in a terminal.

A shell that starts a job in the background without job control (``nohup pytest &``, a
script, some CI runners) starts it with SIGINT ignored, and every child inherits that; a
Python child then never sees a KeyboardInterrupt, so a test sending SIGINT would wait in
vain. Ignoring it there is right (Ctrl-C at the terminal must not reach background jobs),
so the commands keep honouring it; the tests start them as a terminal's foreground job
would be: through a tiny launcher that puts SIGINT back to its default, then replaces
itself with the command (``exec``, the same process id).
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

#: Put SIGINT back to its default, then become the command given as the arguments.
_LAUNCHER = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execvp(sys.argv[1], sys.argv[1:])"
)


def interruptible(command: list[str], **popen: Any) -> subprocess.Popen:
    """``subprocess.Popen(command, **popen)`` with SIGINT at its default in the child."""
    return subprocess.Popen([sys.executable, "-c", _LAUNCHER, *command], **popen)
