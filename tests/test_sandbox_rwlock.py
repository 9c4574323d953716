"""The sandbox's readers-writer lock and what is kept until the next write (issue 38)."""

from __future__ import annotations

import threading

import pytest
import requests

from docsapi.sandbox import Sandbox
from docsapi.sandbox.core._rwlock import ReadWriteLock

#: Long enough never to be reached when the lock works; a deadlock fails instead of hanging.
_GUARD = 30


def test_two_threads_read_at_once():
    lock = ReadWriteLock()
    inside = [threading.Event(), threading.Event()]

    def read(me: int) -> None:
        with lock.reading():
            inside[me].set()
            assert inside[1 - me].wait(_GUARD)  # the other reader got in meanwhile

    threads = [threading.Thread(target=read, args=(n,)) for n in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(_GUARD)
    assert all(event.is_set() for event in inside)


def test_a_write_waits_for_the_reads_and_holds_back_new_ones():
    lock = ReadWriteLock()
    order: list[str] = []
    reading, release_read = threading.Event(), threading.Event()

    def first_reader() -> None:
        with lock.reading():
            reading.set()
            release_read.wait(_GUARD)
            order.append("read ends")

    def writer() -> None:
        with lock:
            order.append("write")

    def late_reader() -> None:
        with lock.reading():
            order.append("late read")

    threads = [threading.Thread(target=first_reader)]
    threads[0].start()
    assert reading.wait(_GUARD)
    threads.append(threading.Thread(target=writer))
    threads[1].start()
    while not lock._waiting_writers:  # the writer is queued behind the read
        threading.Event().wait(0.001)
    threads.append(threading.Thread(target=late_reader))
    threads[2].start()
    release_read.set()
    for thread in threads:
        thread.join(_GUARD)
    assert order == ["read ends", "write", "late read"]


def test_writes_nest_reads_nest_and_a_reader_may_not_start_writing():
    lock = ReadWriteLock()
    start = lock.version
    with lock, lock, lock.reading():
        pass
    assert lock.version > start
    with (
        lock.reading(),
        lock.reading(),
        pytest.raises(RuntimeError, match="cannot start writing"),
    ):
        lock.acquire()
    with lock:  # the refused upgrade left the lock free
        pass


def test_an_aggregate_kept_between_reads_follows_a_write():
    with Sandbox(seed=5) as sandbox, requests.Session() as session:
        session.headers["Authorization"] = f"Bearer {sandbox.token}"
        space = sandbox.demo["space_ids"][0]
        url = f"{sandbox.url}/spaces/{space}/permissions/aggregate?limit=1000"
        before = {
            item["user"]["id"]: item["permission"] for item in session.get(url).json()["items"]
        }
        again = {
            item["user"]["id"]: item["permission"] for item in session.get(url).json()["items"]
        }
        assert again == before
        outsider = next(u for u in sandbox.demo["guest_ids"] if before.get(u) != "admin")
        answer = session.post(
            f"{sandbox.url}/spaces/{space}/permissions",
            json={"role": "admin", "users": [outsider]},
        )
        assert answer.status_code == 204
        after = {
            item["user"]["id"]: item["permission"] for item in session.get(url).json()["items"]
        }
        assert after[outsider] == "admin"
