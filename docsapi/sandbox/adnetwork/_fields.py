"""Validation of affiliate bodies (POST, PUT, PATCH) in the ad-network sandbox.

Rules: unknown fields, bad types and bad values are code 20; ``id``, ``createdAt`` and
``updatedAt`` are read-only (sending a different value is code 60, the same value is
ignored); POST and PUT need ``name`` and ``email``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from docsapi.sandbox.adnetwork._data import AFFILIATE_STATUSES, CURRENCIES
from docsapi.sandbox.adnetwork.codes import AppError

#: Largest amount a payout field accepts.
MAX_AMOUNT = 1e12

__all__ = ["READ_ONLY", "REQUIRED", "WRITABLE", "check_fields"]

#: Fields the server sets; a body may repeat them unchanged.
READ_ONLY: tuple[str, ...] = ("id", "createdAt", "updatedAt")
#: Fields a body may set.
WRITABLE: tuple[str, ...] = (
    "name",
    "email",
    "company",
    "status",
    "country",
    "currency",
    "manager",
    "payout",
)
#: Fields POST and PUT must carry.
REQUIRED: tuple[str, ...] = ("name", "email")

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_COUNTRY = re.compile(r"^[A-Z]{2}$")
_PAYOUT_FIELDS = ("totalPaid", "pending")


def _text(name: str, value: Any, *, max_length: int, required: bool) -> str:
    if not isinstance(value, str):
        raise AppError(20, f"{name} must be a string, got {type(value).__name__}")
    if required and not value.strip():
        raise AppError(20, f"{name} must not be empty")
    if len(value) > max_length:
        raise AppError(20, f"{name} must have at most {max_length} characters")
    return value


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise AppError(20, f"{name} must be a number, got {type(value).__name__}")
    if value < 0:
        raise AppError(20, f"{name} must be 0 or more, got {value}")
    if value > MAX_AMOUNT:
        raise AppError(20, f"{name} must be at most {MAX_AMOUNT:g}")
    return round(float(value), 2)


def _manager(value: Any, managers: Mapping[int, str]) -> dict[str, Any]:
    if not isinstance(value, Mapping) or "id" not in value:
        raise AppError(20, 'manager must be an object with an id, e.g. {"id": 2}')
    manager_id = value["id"]
    if isinstance(manager_id, bool) or not isinstance(manager_id, int):
        raise AppError(20, f"manager.id must be an integer, got {type(manager_id).__name__}")
    if manager_id not in managers:
        known = ", ".join(str(i) for i in sorted(managers))
        raise AppError(20, f"manager.id {manager_id} is not an account manager (ids: {known})")
    return {"id": manager_id, "name": managers[manager_id]}


def _payout(value: Any, base: Mapping[str, float]) -> dict[str, float]:
    if not isinstance(value, Mapping):
        raise AppError(20, "payout must be an object with totalPaid and pending")
    unknown = sorted(set(value) - set(_PAYOUT_FIELDS))
    if unknown:
        raise AppError(
            20, f"unknown payout field(s) {', '.join(unknown)}; use {', '.join(_PAYOUT_FIELDS)}"
        )
    merged = dict(base)
    for key, number in value.items():
        merged[key] = _number(f"payout.{key}", number)
    return merged


def _value(name: str, value: Any, current: Mapping[str, Any], managers: Mapping[int, str]) -> Any:
    if name == "name":
        return _text(name, value, max_length=100, required=True).strip()
    if name == "email":
        email = _text(name, value, max_length=254, required=True).strip()
        if not _EMAIL.match(email):
            raise AppError(20, f"email {email!r} is not an email address")
        return email
    if name == "company":
        return _text(name, value, max_length=100, required=False)
    if name == "status":
        if value not in AFFILIATE_STATUSES:
            raise AppError(20, f"status must be one of {', '.join(AFFILIATE_STATUSES)}")
        return value
    if name == "country":
        if not isinstance(value, str) or not _COUNTRY.match(value):
            raise AppError(20, "country must be a two-letter ISO code in capitals, e.g. 'FR'")
        return value
    if name == "currency":
        if value not in CURRENCIES:
            raise AppError(20, f"currency must be one of {', '.join(CURRENCIES)}")
        return value
    if name == "manager":
        return _manager(value, managers)
    return _payout(value, current.get("payout") or {"totalPaid": 0.0, "pending": 0.0})


def check_fields(
    body: Any,
    *,
    current: Mapping[str, Any],
    managers: Mapping[int, str],
    partial: bool,
) -> dict[str, Any]:
    """Check a request body and return the writable fields it sets, normalised.

    Parameters
    ----------
    body : Any
        The decoded JSON body.
    current : Mapping
        The stored record (empty for a POST): read-only fields must match it, and a
        partial ``payout`` is merged into it.
    managers : Mapping[int, str]
        The account managers: id → name.
    partial : bool
        True for PATCH (any subset, at least one field); False for POST and PUT
        (``name`` and ``email`` required).

    Returns
    -------
    dict
        Field → value to store.

    Raises
    ------
    AppError
        20 for bad fields or values, 60 for a changed read-only field.

    Examples
    --------
    >>> check_fields({"name": "Ada", "email": "ada@x.example"}, current={}, managers={},
    ...              partial=False)
    {'name': 'Ada', 'email': 'ada@x.example'}
    """
    if not isinstance(body, Mapping):
        raise AppError(20, f"the body must be a JSON object, got {type(body).__name__}")
    unknown = sorted(set(body) - set(WRITABLE) - set(READ_ONLY))
    if unknown:
        raise AppError(
            20, f"unknown field(s) {', '.join(unknown)}; fields are {', '.join(WRITABLE)}"
        )
    for name in READ_ONLY:
        if name in body and body[name] != current.get(name):
            raise AppError(60, f"{name} is read-only and cannot be set or changed")
    fields = {
        name: _value(name, body[name], current, managers) for name in WRITABLE if name in body
    }
    if partial and not fields:
        raise AppError(20, "the body changes nothing; send at least one field to change")
    missing = [name for name in REQUIRED if name not in fields and not partial]
    if missing:
        raise AppError(20, f"missing required field(s) {', '.join(missing)}")
    return fields
