"""Many threads writing at once: no errors, every answer per the reference, no lost update."""

from __future__ import annotations

import random
import threading

import pytest
from contract import ApiSession, ContractError

THREADS, REQUESTS = 8, 500


def _worker(sandbox, number, owned, users, record, problems):
    api = ApiSession(sandbox.url, sandbox.token)
    rng = random.Random(number)
    sent = 0
    try:
        while sent < REQUESTS:
            space = owned[sent % len(owned)]
            step = sent % 6
            if step == 0:
                assert (
                    api.get(
                        f"/spaces/{rng.choice(sandbox.demo['space_ids'][3 * THREADS :])}"
                    ).status_code
                    == 200
                )
            elif step == 1:
                title = f"t{number}-{sent}"
                assert api.patch(f"/spaces/{space}", json={"title": title}).status_code == 200
                record["titles"][space] = title
            elif step == 2:
                user = rng.choice(users)
                assert (
                    api.post(
                        f"/spaces/{space}/permissions", json={"role": "read", "users": [user]}
                    ).status_code
                    == 204
                )
                record["invited"].setdefault(space, set()).add(user)
            elif step == 3:
                assert api.delete(f"/spaces/{space}").status_code == 205
                assert api.post(f"/spaces/{space}/restore").status_code == 200
                sent += 1
            elif step == 4:
                created = api.post(
                    f"/spaces/{space}/change-requests", json={"subject": f"t{number}-{sent}"}
                )
                assert created.status_code == 201
                record["changes"].setdefault(space, set()).add(created.json()["id"])
            else:
                assert (
                    api.get(f"/spaces/{space}/permissions/users", params={"limit": 5}).status_code
                    == 200
                )
            sent += 1
    except (AssertionError, ContractError, OSError) as error:
        problems.append(f"thread {number} after {sent} requests: {error}")
    finally:
        api.close()


@pytest.mark.full  # a thousand concurrent requests, about 15 s: `pytest --full` (and CI)
def test_concurrent_mixed_requests_lose_nothing(sandbox):
    demo = sandbox.demo
    users = demo["guest_ids"][1:]
    records = [{"titles": {}, "invited": {}, "changes": {}} for _ in range(THREADS)]
    problems: list[str] = []
    threads = [
        threading.Thread(
            target=_worker,
            args=(sandbox, n, demo["space_ids"][3 * n : 3 * n + 3], users, records[n], problems),
        )
        for n in range(THREADS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert problems == []
    assert sandbox.request_count == THREADS * REQUESTS
    assert all(status and status < 400 for _, _, status in sandbox.request_log)

    api = ApiSession(sandbox.url, sandbox.token)
    for record in records:
        for space, title in record["titles"].items():
            assert api.get(f"/spaces/{space}").json()["title"] == title
        for space, invited in record["invited"].items():
            granted = {
                i["user"]["id"]: i["permission"]
                for i in api.get(
                    f"/spaces/{space}/permissions/users", params={"limit": 1000}
                ).json()["items"]
            }
            assert all(granted.get(user) == "read" for user in invited)
        for space, changes in record["changes"].items():
            listed = {
                i["id"]
                for i in api.get(f"/spaces/{space}/change-requests", params={"limit": 1000}).json()[
                    "items"
                ]
            }
            assert changes <= listed
