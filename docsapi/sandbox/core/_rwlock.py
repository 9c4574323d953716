"""A readers-writer lock: reads share it, a write holds it alone; every write is counted.

Requests that only read the sandbox's state run side by side; a request that changes it waits
for the reads under way and holds back new ones (writers are not starved) until it is done.
:attr:`ReadWriteLock.version` grows with every write, so anything computed from the state can
be kept until the next write (see ``Store.memo``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ReadWriteLock:
    """Shared reads, exclusive and re-entrant writes.

    ``with lock:`` (or :meth:`writing`) writes; :meth:`reading` reads. A thread that writes
    may read or write again inside; a thread that reads may read again inside, but may not
    start writing (two readers doing so would wait for each other forever): that raises
    RuntimeError.

    Examples
    --------
    >>> lock = ReadWriteLock()
    >>> with lock.reading():
    ...     with lock.reading():
    ...         pass
    >>> before = lock.version
    >>> with lock:
    ...     lock.version > before
    True
    """

    def __init__(self) -> None:
        self._condition = threading.Condition(threading.Lock())
        self._readers = 0
        self._writer: int | None = None
        self._writes = 0  # nesting depth of the writing thread
        self._waiting_writers = 0
        self._local = threading.local()
        #: Grows when a write starts and when it ends.
        self.version = 0

    def _reads(self) -> int:
        return getattr(self._local, "reads", 0)

    # -- writing ----------------------------------------------------------------------
    def acquire(self) -> None:
        """Start writing (wait until no one reads or writes)."""
        me = threading.get_ident()
        with self._condition:
            if self._writer == me:
                self._writes += 1
                return
            if self._reads():
                raise RuntimeError(
                    "a thread reading the sandbox's state cannot start writing it; "
                    "take the write lock first"
                )
            self._waiting_writers += 1
            try:
                while self._writer is not None or self._readers:
                    self._condition.wait()
            finally:
                self._waiting_writers -= 1
            self._writer, self._writes = me, 1
            self.version += 1

    def release(self) -> None:
        """End one level of writing."""
        with self._condition:
            if self._writer != threading.get_ident():
                raise RuntimeError("release of a write lock this thread does not hold")
            self._writes -= 1
            if self._writes == 0:
                self._writer = None
                self.version += 1
                self._condition.notify_all()

    def __enter__(self) -> ReadWriteLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def writing(self) -> ReadWriteLock:
        """The lock itself, for ``with lock.writing():``."""
        return self

    @property
    def written(self) -> bool:
        """Whether a thread is writing now (what it computes may not last)."""
        return self._writer is not None

    # -- reading ----------------------------------------------------------------------
    @contextmanager
    def reading(self) -> Iterator[None]:
        """Read: wait for the write under way (and those waiting), then share the lock."""
        me = threading.get_ident()
        depth = self._reads()
        with self._condition:
            if self._writer == me or depth:
                shared = False  # already inside this thread's write or read
            else:
                while self._writer is not None or self._waiting_writers:
                    self._condition.wait()
                self._readers += 1
                shared = True
        self._local.reads = depth + 1
        try:
            yield
        finally:
            self._local.reads = depth
            if shared:
                with self._condition:
                    self._readers -= 1
                    if not self._readers:
                        self._condition.notify_all()
