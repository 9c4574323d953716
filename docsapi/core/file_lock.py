"""Exclusive locks on open files (``flock``; ``msvcrt.locking`` on Windows).

The operating system releases a lock when its file is closed or its process ends, however
it ends, so a lock never outlives the run that took it.
"""

from __future__ import annotations

import sys
from typing import IO

__all__ = ["lock_file"]


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def lock_file(handle: IO[str], *, wait: bool) -> None:
        """Lock ``handle`` exclusively; without ``wait``, ``OSError`` when another holds it."""
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)

else:
    import fcntl

    def lock_file(handle: IO[str], *, wait: bool) -> None:
        """Lock ``handle`` exclusively; without ``wait``, ``OSError`` when another holds it."""
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
