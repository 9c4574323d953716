"""Credentials masked in log records of docsapi, requests and urllib3 (:mod:`docsapi.core.redact`).

Kept apart from ``_redact`` so that importing the error classes does not import ``logging``;
the transport installs the filter when the first client is made.
"""

from __future__ import annotations

import logging
import threading

from docsapi.core.redact import scrub

__all__ = ["install_log_redaction"]

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
_installed = False


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
