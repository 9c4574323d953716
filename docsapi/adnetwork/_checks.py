"""Argument checks of the ad-network client, run before any request is sent."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from docsapi.core.checks import check_id
from docsapi.errors import ValidationError

__all__ = ["check_changes", "check_network", "check_record_id", "check_resource", "check_scheme"]

_HOST_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_NETWORK = re.compile(
    rf"(?:{_HOST_LABEL}(?:\.{_HOST_LABEL})*\.?|\[[0-9A-Fa-f:.]+\])(?::(?P<port>\d{{1,5}}))?"
)
_RESOURCE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")


def check_network(value: Any) -> str:
    """Check a network address: a host with an optional port, without scheme or path.

    Parameters
    ----------
    value : Any
        What the caller passed as ``network``.

    Returns
    -------
    str
        The address, without surrounding whitespace.

    Raises
    ------
    ValidationError
        If it is not a string, or holds a scheme, a path, credentials or anything else
        than ``host[:port]``.

    Examples
    --------
    >>> check_network("demo.offerslook.com"), check_network("127.0.0.1:8080")
    ('demo.offerslook.com', '127.0.0.1:8080')
    """
    if not isinstance(value, str):
        raise ValidationError(
            "network", f"must be a str such as 'demo.example.com', got {type(value).__name__}"
        )
    network = value.strip()
    if "://" in network:
        raise ValidationError(
            "network",
            f"pass the host only, without scheme (use scheme=... for http or https); "
            f"got {value!r}, try {network.split('://', 1)[1].split('/', 1)[0]!r}",
        )
    match = _NETWORK.fullmatch(network)
    if match is None:
        raise ValidationError(
            "network",
            "must be the network's host with an optional port, such as "
            f"'demo.example.com' or '127.0.0.1:8080' (no path, no '/api'); got {value!r:.80}",
        )
    port = match.group("port")
    if port is not None and not 1 <= int(port) <= 65535:
        raise ValidationError("network", f"the port must be between 1 and 65535, got {port}")
    return network


def check_scheme(value: Any) -> str:
    """Check the URL scheme: ``"https"`` or ``"http"``.

    Examples
    --------
    >>> check_scheme("HTTP")
    'http'
    """
    if not isinstance(value, str) or value.lower() not in ("http", "https"):
        raise ValidationError("scheme", f"must be 'https' or 'http', got {value!r:.40}")
    return value.lower()


def check_resource(value: Any) -> str:
    """Check a resource (collection) name such as ``"affiliate"``.

    Raises
    ------
    ValidationError
        If it is not a string, is empty or longer than 64 characters, or holds a slash
        or other characters than letters, digits, ``_.-`` (it starts with a letter).

    Examples
    --------
    >>> check_resource("affiliate")
    'affiliate'
    """
    if not isinstance(value, str):
        raise ValidationError(
            "resource", f"must be a str such as 'affiliate', got {type(value).__name__}"
        )
    check_id(value, "resource")  # one path segment, by the rule every id follows
    if not _RESOURCE.fullmatch(value):
        raise ValidationError(
            "resource",
            "must be one collection name such as 'affiliate': a letter, then letters, "
            f"digits, '_', '.', '-', no slashes; got {value!r:.80}",
        )
    return value


def check_record_id(value: Any) -> str:
    """Check a resource id: a non-negative int, or a string that is one path segment.

    Returns
    -------
    str
        The id as it goes in the path.

    Raises
    ------
    ValidationError
        Another type, a negative number, or a string that is not an id by
        :func:`docsapi.core.checks.check_id` (the rule every id follows: one path segment,
        read decoded and NFKC-normalised).

    Examples
    --------
    >>> check_record_id(1042)
    '1042'
    """
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValidationError("id", f"must be an int or a str, got {type(value).__name__}")
    if isinstance(value, int):
        if value < 0:
            raise ValidationError("id", f"must be a non-negative int, got {value}")
        return str(value)
    return check_id(value, "id")


def check_changes(
    changes: Any, current: Mapping[str, Any] | None, argument: str = "changes"
) -> dict[str, Any]:
    """Keep only the fields of ``changes`` that differ from ``current``.

    Parameters
    ----------
    changes : Mapping
        The fields to change and their new values.
    current : Mapping or None
        The resource as last read; fields equal to it are dropped. None sends all changes.
    argument : str
        The argument's name, used in the error message.

    Returns
    -------
    dict
        The fields to send.

    Raises
    ------
    ValidationError
        If ``changes`` or ``current`` is not a mapping, or nothing is left to send.

    Examples
    --------
    >>> check_changes({"name": "A", "status": "paused"}, {"name": "A", "status": "active"})
    {'status': 'paused'}
    """
    if not isinstance(changes, Mapping):
        raise ValidationError(argument, f"must be a dict of fields, got {type(changes).__name__}")
    if current is not None and not isinstance(current, Mapping):
        raise ValidationError(
            "current", f"must be a dict (the resource as read), got {type(current).__name__}"
        )
    missing = object()
    body = {
        key: value
        for key, value in changes.items()
        if current is None or current.get(key, missing) != value
    }
    if not body:
        why = "every field equals the current value" if changes else "it is empty"
        raise ValidationError(
            argument, f"nothing to send: {why}. Pass at least one field with a new value."
        )
    return body
