"""An offline ad network: the ad-network API served on 127.0.0.1 with seeded affiliates.

It answers like the real API (``X-Api-Key``, the ``{"code", "message", "data"}`` envelope,
pages in ``data.rowset``, every application code) and can be told to misbehave: refuse
this machine's IP, limit the rate, go into maintenance, or fail the next requests.

Public: :class:`AdNetworkSandbox` and :mod:`~docsapi.sandbox.adnetwork.codes` (the application
codes and their HTTP statuses). The modules starting with ``_`` are the implementation.

Examples
--------
>>> from docsapi.sandbox.adnetwork import AdNetworkSandbox
>>> with AdNetworkSandbox(seed=0, affiliates=300) as ans:
...     client = ans.client()
...     frame = client.affiliates(status="active")
...     ans.inject("50", count=2)        # the next two requests meet a system upgrade
...     client.get("affiliate", 1001)["id"]    # retried, then answered
1001
"""

from __future__ import annotations

from docsapi.sandbox.adnetwork._sandbox import AdNetworkSandbox
from docsapi.sandbox.adnetwork.codes import CODES

__all__ = ["CODES", "AdNetworkSandbox"]
