"""docsapi: a Jupyter-friendly toolkit for the documentation-platform API.

Lists come back as pandas DataFrames, single resources as model objects, edits happen
through ipywidgets forms, and :mod:`docsapi.sandbox` runs the whole API offline.

Examples
--------
>>> import docsapi
>>> from docsapi.sandbox import Sandbox
>>> with Sandbox() as sb:                                   # doctest: +SKIP
...     client = sb.client()
...     spaces = client.spaces.list(org_id=sb.org_id)
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from docsapi._config import RetryPolicy, Timeout
from docsapi.errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    DocsAPIError,
    NotFoundError,
    PaginationError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ValidationError,
)

__version__ = "0.1.0"

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "DocsAPIError",
    "DocsClient",
    "NotFoundError",
    "PaginationError",
    "PermissionAudit",
    "PermissionDeniedError",
    "RateLimitError",
    "RetryPolicy",
    "ServerError",
    "Timeout",
    "ValidationError",
    "__version__",
    "audit_permissions",
]

# Heavy pieces load on first use so that `import docsapi` stays cheap.
_LAZY = {
    "DocsClient": "docsapi.client",
    "audit_permissions": "docsapi.audit",
    "PermissionAudit": "docsapi.audit",
}

if TYPE_CHECKING:
    from docsapi.audit import PermissionAudit, audit_permissions
    from docsapi.client import DocsClient


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'docsapi' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
