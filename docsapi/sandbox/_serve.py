"""Run a sandbox in the foreground until Ctrl-C (used by ``docsapi sandbox``)."""

from __future__ import annotations

import threading
from typing import Any

from docsapi.sandbox._sandbox import Sandbox


def serve(port: int = 8765, seed: int = 0, host: str = "127.0.0.1", **size: Any) -> None:
    """Serve the documentation-platform sandbox until interrupted, printing how to call it.

    Parameters
    ----------
    port
        Port to listen on (0 picks a free one).
    seed
        Seed of the demo organization.
    host
        Interface to listen on.
    **size
        ``spaces``, ``users``, ``teams``, ``grants_per_space``, ``latency`` and ``model``
        (the access model's rule set), as for :class:`Sandbox`.

    Raises
    ------
    OSError
        When the port is already in use.
    ValueError
        A size below the demo organization's minimum.

    Examples
    --------
    >>> serve(port=8765)  # serves until Ctrl-C  # doctest: +SKIP
    """
    sandbox = Sandbox(seed=seed, host=host, port=port, **size)
    with sandbox:
        print(f"docsapi sandbox listening on {sandbox.url}  (seed {seed}, model {sandbox.model})")
        print(f"organization: {sandbox.org_id}")
        for name, token in sandbox.tokens.items():
            print(f"token {name:<17} {token}")
        print(
            f"try: curl -H 'Authorization: Bearer {sandbox.token}' "
            f"{sandbox.url}/orgs/{sandbox.org_id}/spaces"
        )
        print("press Ctrl-C to stop", flush=True)
        forever = threading.Event()
        try:
            while not forever.wait(0.5):
                pass
        except KeyboardInterrupt:
            print("\nsandbox stopped")
