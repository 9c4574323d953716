"""Keep credentials out of log records and error text."""

from __future__ import annotations

import logging
import re
import threading

from docsapi._secret import Secret

__all__ = ["install_log_redaction", "register_secret", "scrub"]

_MASK = "********"
_HEADER_PATTERN = re.compile(
    r"(?i)((?:authorization|x-api-key)['\"]?\s*[:=]\s*['\"]?(?:bearer\s+)?)[^\s'\",}]+"
)
_LOGGERS = (
    "docsapi",
    "docsapi.http",
    "urllib3",
    "urllib3.connectionpool",
    "urllib3.poolmanager",
    "urllib3.response",
    "urllib3.util.retry",
    "requests",
)

_lock = threading.Lock()
_secrets: set[str] = set()
_installed = False


def register_secret(secret: Secret) -> None:
    """Remember a credential so :func:`scrub` and the log filter can mask it."""
    with _lock:
        _secrets.add(secret.reveal())


def scrub(text: str) -> str:
    """Mask every registered credential and every Authorization / X-Api-Key header value.

    Examples
    --------
    >>> scrub("Authorization: Bearer abc123")
    'Authorization: Bearer ********'
    """
    for value in tuple(_secrets):
        if value in text:
            text = text.replace(value, _MASK)
    return _HEADER_PATTERN.sub(lambda m: m.group(1) + _MASK, text)


class _RedactingFilter(logging.Filter):
    """Rewrite a record whose message carries a credential."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is the logging module's problem
            return True
        cleaned = scrub(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def install_log_redaction() -> None:
    """Attach the redacting filter to docsapi's, requests' and urllib3's loggers (once)."""
    global _installed
    with _lock:
        if _installed:
            return
        redactor = _RedactingFilter()
        for name in _LOGGERS:
            logging.getLogger(name).addFilter(redactor)
        _installed = True
