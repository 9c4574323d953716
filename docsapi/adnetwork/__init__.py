"""A client for an ad network's management API (affiliates and any other collection).

Examples
--------
>>> from docsapi.adnetwork import AdNetworkClient
>>> client = AdNetworkClient("demo.example.com", api_key="k-123")
>>> client.base_url
'https://demo.example.com/api'
>>> from docsapi.sandbox.adnetwork import AdNetworkSandbox
>>> with AdNetworkSandbox(affiliates=120) as ans:
...     frame = ans.client().affiliates(status="active")
>>> set(frame.status)
{'active'}
"""

from __future__ import annotations

from docsapi.adnetwork import errors
from docsapi.adnetwork.client import API_KEY_ENV, MAX_PAGE_SIZE, AdNetworkClient
from docsapi.adnetwork.errors import *  # noqa: F403  (the error classes, listed once in errors.__all__)

__all__ = ["API_KEY_ENV", "MAX_PAGE_SIZE", "AdNetworkClient", *errors.__all__]
