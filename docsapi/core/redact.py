"""Keep credentials out of log records, error text and anything built from a response."""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from typing import Any, Protocol
from urllib.parse import quote

__all__ = ["MASK", "excerpt", "register_secret", "scrub", "scrub_data"]

#: What a credential is replaced with.
MASK = "********"
_EXCERPT_CHARS = 200
_HEADER_PATTERN = re.compile(
    r"(?i)((?:authorization|x-api-key)['\"]?\s*[:=]\s*['\"]?(?:bearer\s+)?)[^\s'\",}]+"
)
#: A share-link key or a visitor token in a URL's query (``?share=…``, ``&jwt_token=…``): masked
#: even when docsapi never read the link itself (a server echoing an address in an error).
_QUERY_SECRET = re.compile(
    r"(?i)([?&](?:share|sharekey|share_key|jwt_token|visitor_token|token|key|api_key)=)"
    r"[^&\s'\"<>#]+"
)


class Revealable(Protocol):
    """A credential wrapper (:class:`~docsapi.core.secret.Secret`) that hands out its value."""

    def reveal(self) -> str: ...


_lock = threading.Lock()
#: Every registered credential in each form a server might echo it, longest first.
_secrets: tuple[str, ...] = ()


def _forms(value: str) -> set[str]:
    """The credential as sent, URL-encoded (a cursor or a query) and JSON-escaped."""
    import json  # not at module level: errors (and so ``import docsapi``) load this module

    return {value, quote(value, safe=""), json.dumps(value)[1:-1]}


def register_secret(secret: Revealable) -> None:
    """Remember a credential so :func:`scrub` and the log filter can mask it."""
    global _secrets
    with _lock:
        known = set(_secrets) | _forms(secret.reveal())
        _secrets = tuple(sorted(known, key=len, reverse=True))


def scrub(text: Any) -> str:
    """Mask every registered credential and every Authorization / X-Api-Key header value.

    Parameters
    ----------
    text : Any
        Text to clean; anything else is turned into text first.

    Returns
    -------
    str

    Examples
    --------
    >>> scrub("Authorization: Bearer abc123")
    'Authorization: Bearer ********'
    >>> scrub("see https://docs.example/guide/?share=k3y&lang=en")
    'see https://docs.example/guide/?share=********&lang=en'
    """
    text = text if isinstance(text, str) else str(text)
    for value in _secrets:
        if value in text:
            text = text.replace(value, MASK)
    text = _QUERY_SECRET.sub(lambda m: m.group(1) + MASK, text)
    return _HEADER_PATTERN.sub(lambda m: m.group(1) + MASK, text)


def scrub_data(value: Any) -> Any:
    """A copy of decoded JSON (or headers) with every string, keys included, scrubbed.

    Examples
    --------
    >>> scrub_data({"error": {"message": "Authorization: Bearer abc"}, "n": 1})
    {'error': {'message': 'Authorization: Bearer ********'}, 'n': 1}
    """
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, Mapping):
        return {scrub(key): scrub_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_data(item) for item in value]
    return value


def excerpt(text: str, limit: int = _EXCERPT_CHARS) -> str:
    """The start of a body on one line, credentials masked, at most ``limit`` characters.

    Examples
    --------
    >>> excerpt("<html>\\n  <h1>Sign in</h1>\\n</html>")
    '<html> <h1>Sign in</h1> </html>'
    """
    flat = scrub(re.sub(r"\s+", " ", text).strip())
    return flat[:limit] + ("…" if len(flat) > limit else "")
