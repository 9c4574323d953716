"""docsapi: a Jupyter-friendly toolkit for the documentation-platform API.

Lists come back as pandas DataFrames, single resources as model objects, edits happen
through ipywidgets forms, and :mod:`docsapi.sandbox` runs the whole API offline.

Examples
--------
>>> import docsapi
>>> from docsapi.sandbox import Sandbox
>>> with Sandbox() as sb:
...     client = sb.client()
...     spaces = client.spaces.list(org_id=sb.org_id)
>>> list(spaces.columns)[:4]
['id', 'title', 'emoji', 'visibility']
"""

import importlib as _importlib
import types as _types
import typing as _typing

from docsapi.core.config import ReadBounds, RetryPolicy, Timeout
from docsapi.errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    DocsAPIError,
    MissingCredentialError,
    NotFoundError,
    PaginationError,
    PermissionDeniedError,
    RateLimitError,
    ReadBoundError,
    ResponseFormatError,
    ServerError,
    SnapshotError,
    ValidationError,
)

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AccessReview",
    "AuthenticationError",
    "BadRequestError",
    "CacheSettings",
    "ConflictError",
    "DocsAPIError",
    "DocsClient",
    "MissingCredentialError",
    "NotFoundError",
    "PaginationError",
    "PermissionAudit",
    "PermissionDeniedError",
    "RateLimitError",
    "ReadBoundError",
    "ReadBounds",
    "ResponseFormatError",
    "RetryPolicy",
    "ServerError",
    "SnapshotError",
    "Timeout",
    "ValidationError",
    "__version__",
    "audit_permissions",
    "load_audit",
    "login",
]

# Heavy pieces load on first use so that `import docsapi` stays cheap.
_LAZY = {
    "CacheSettings": "docsapi.wire.cache",
    "DocsClient": "docsapi.client",
    "login": "docsapi.widgets.login",
    "audit_permissions": "docsapi.audit",
    "PermissionAudit": "docsapi.audit",
    "load_audit": "docsapi.audit",
    "AccessReview": "docsapi.review",
}

if _typing.TYPE_CHECKING:
    from docsapi.audit import PermissionAudit, audit_permissions, load_audit
    from docsapi.client import DocsClient
    from docsapi.review import AccessReview
    from docsapi.widgets.login import login
    from docsapi.wire.cache import CacheSettings

    __version__: str


def __getattr__(name: str) -> object:
    if name == "__version__":
        value: object = _importlib.import_module("docsapi.core.version").version()
    elif name in _LAZY:
        value = getattr(_importlib.import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'docsapi' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    submodules = {
        name
        for name, value in globals().items()
        if isinstance(value, _types.ModuleType) and not name.startswith("_")
    }
    return sorted(set(__all__) | submodules)
