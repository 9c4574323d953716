"""Offline simulators of the APIs docsapi talks to.

:class:`Sandbox` serves the documentation-platform API (GitBook API v1) on 127.0.0.1 with a
seeded demo organization; :func:`serve` runs it in the foreground; ``AdNetworkSandbox`` does
the same for the ad-network API. :class:`Fault` names the failures a sandbox can inject.

The package, bottom to top (imports point down; ``lint-imports`` checks it): ``core`` (data,
access model, HTTP plumbing), ``demo`` (the seeded organization), ``routes`` (the API's
handlers), then ``_app`` (the WSGI app), ``_control`` (the ``/_sandbox/`` controls) and
``_sandbox_changes``, ``_sandbox`` (the :class:`Sandbox`) and ``_serve``. ``adnetwork`` uses
the core only.

Examples
--------
>>> from docsapi.sandbox import Sandbox
>>> with Sandbox(seed=0) as sb:
...     client = sb.client()
...     title = client.orgs.get(sb.org_id).title
>>> title
'Stark Devices'
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from docsapi.sandbox._sandbox import Sandbox
from docsapi.sandbox._serve import serve
from docsapi.sandbox.core._faults import Fault
from docsapi.sandbox.core._server import ServerThread

if TYPE_CHECKING:
    from docsapi.sandbox.adnetwork import AdNetworkSandbox

__all__ = ["AdNetworkSandbox", "Fault", "Sandbox", "ServerThread", "serve"]


def __getattr__(name: str) -> Any:
    if name == "AdNetworkSandbox":
        value = import_module("docsapi.sandbox.adnetwork").AdNetworkSandbox
        globals()[name] = value
        return value
    raise AttributeError(f"module 'docsapi.sandbox' has no attribute {name!r}")
