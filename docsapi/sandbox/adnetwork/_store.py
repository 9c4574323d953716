"""The ad-network sandbox's affiliates, kept behind one lock so concurrent writes never collide."""

from __future__ import annotations

import copy
import math
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from docsapi.sandbox.adnetwork._data import (
    FIRST_AFFILIATE_ID,
    iso,
    make_affiliates,
    make_managers,
)
from docsapi.sandbox.adnetwork._fields import check_fields
from docsapi.sandbox.adnetwork.codes import AppError

__all__ = ["FILTER_FIELDS", "MAX_LIMIT", "AffiliateStore"]

#: The largest page size.
MAX_LIMIT = 100
#: The fields a list can be filtered on (``filters[<field>]=v1,v2``): the flattened names.
FILTER_FIELDS: tuple[str, ...] = (
    "id",
    "name",
    "email",
    "company",
    "status",
    "country",
    "currency",
    "manager_id",
    "manager_name",
)

_DEFAULTS: dict[str, Any] = {
    "company": "",
    "status": "pending",
    "country": "US",
    "currency": "USD",
    "manager": {"id": 1},
}


def _filter_value(record: Mapping[str, Any], field: str) -> str:
    if field.startswith("manager_"):
        return str(record["manager"][field.removeprefix("manager_")])
    return str(record[field])


class AffiliateStore:
    """The affiliates of one sandbox network.

    Parameters
    ----------
    seed : int
        Seed of the demo data.
    count : int
        How many affiliates to seed.

    Examples
    --------
    >>> store = AffiliateStore(seed=0, count=30)
    >>> page = store.page({}, offset=2, limit=20)
    >>> page["totalRows"], page["totalPages"], len(page["rowset"])
    (30, 2, 10)
    """

    def __init__(self, seed: int, count: int) -> None:
        self.seed = seed
        self.count = count
        self.managers = make_managers()
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Go back to the seeded affiliates."""
        with self._lock:
            self._rows = {row["id"]: row for row in make_affiliates(self.seed, self.count)}
            self._next_id = FIRST_AFFILIATE_ID + self.count

    # -- reads --------------------------------------------------------------------------------

    def page(self, filters: Mapping[str, set[str]], *, offset: int, limit: int) -> dict[str, Any]:
        """One page of the list, ordered by id.

        Parameters
        ----------
        filters : Mapping[str, set[str]]
            Field of :data:`FILTER_FIELDS` → accepted values (as strings).
        offset : int
            The page number, from 1.
        limit : int
            Rows per page.

        Returns
        -------
        dict
            ``{"rowset", "totalRows", "totalPages", "offset", "limit"}``.
        """
        with self._lock:
            rows = [
                copy.deepcopy(row)
                for _, row in sorted(self._rows.items())
                if all(_filter_value(row, f) in accepted for f, accepted in filters.items())
            ]
        start = (offset - 1) * limit
        return {
            "rowset": rows[start : start + limit],
            "totalRows": len(rows),
            "totalPages": math.ceil(len(rows) / limit),
            "offset": offset,
            "limit": limit,
        }

    def get(self, affiliate_id: int) -> dict[str, Any]:
        """A copy of one affiliate; code 31 if absent."""
        with self._lock:
            return copy.deepcopy(self._require(affiliate_id))

    def __len__(self) -> int:
        with self._lock:
            return len(self._rows)

    # -- writes -------------------------------------------------------------------------------

    def create(self, body: Any) -> dict[str, Any]:
        """Add an affiliate from a POST body; code 20/60 for a bad body, 33 for a known email."""
        fields = check_fields(body, current={}, managers=self.managers, partial=False)
        record = {**copy.deepcopy(_DEFAULTS), **fields}
        with self._lock:
            self._check_unique_email(record["email"], None)
            now = iso(datetime.now(UTC))
            row = {
                "id": self._next_id,
                **self._complete(record),
                "createdAt": now,
                "updatedAt": now,
            }
            self._next_id += 1
            self._rows[row["id"]] = row
            return copy.deepcopy(row)

    def replace(self, affiliate_id: int, body: Any) -> dict[str, Any]:
        """Replace an affiliate (PUT): fields left out go back to their defaults."""
        return self._write(affiliate_id, body, partial=False)

    def patch(self, affiliate_id: int, body: Any) -> dict[str, Any]:
        """Change the fields of a PATCH body, keeping the others."""
        return self._write(affiliate_id, body, partial=True)

    def delete(self, affiliate_id: int) -> dict[str, Any]:
        """Remove an affiliate; code 11 while it is active."""
        with self._lock:
            row = self._require(affiliate_id)
            if row["status"] == "active":
                raise AppError(
                    11,
                    f"affiliate {affiliate_id} is active; pause it "
                    "(status 'paused') before deleting it",
                )
            del self._rows[affiliate_id]
        return {"id": affiliate_id, "deleted": True}

    # -- helpers ------------------------------------------------------------------------------

    def _write(self, affiliate_id: int, body: Any, *, partial: bool) -> dict[str, Any]:
        with self._lock:
            current = self._require(affiliate_id)
            fields = check_fields(body, current=current, managers=self.managers, partial=partial)
            base = (
                current
                if partial
                else {
                    **current,
                    **copy.deepcopy(_DEFAULTS),
                    "payout": {"totalPaid": 0.0, "pending": 0.0},
                }
            )
            record = {**base, **fields}
            if "email" in fields:
                self._check_unique_email(record["email"], affiliate_id)
            row = {
                "id": affiliate_id,
                **self._complete(record),
                "createdAt": current["createdAt"],
                "updatedAt": iso(datetime.now(UTC)),
            }
            self._rows[affiliate_id] = row
            return copy.deepcopy(row)

    def _complete(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """Fill the manager's name and the payout in a record about to be stored."""
        manager_id = record["manager"]["id"]
        payout = record.get("payout") or {}
        return {
            "name": record["name"],
            "email": record["email"],
            "company": record["company"],
            "status": record["status"],
            "country": record["country"],
            "currency": record["currency"],
            "manager": {"id": manager_id, "name": self.managers[manager_id]},
            "payout": {
                "totalPaid": payout.get("totalPaid", 0.0),
                "pending": payout.get("pending", 0.0),
            },
        }

    def _require(self, affiliate_id: int) -> dict[str, Any]:
        row = self._rows.get(affiliate_id)
        if row is None:
            raise AppError(31, f"no affiliate has id {affiliate_id}")
        return row

    def _check_unique_email(self, email: str, own_id: int | None) -> None:
        wanted = email.casefold()
        for row in self._rows.values():
            if row["email"].casefold() == wanted and row["id"] != own_id:
                raise AppError(33, f"affiliate {row['id']} already has the email {email}")
