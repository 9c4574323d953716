"""Deterministic demo data of the ad-network sandbox: managers, affiliates and API keys.

The same seed always gives the same affiliates (ids, names, emails, numbers, timestamps)
and the same keys, so notebooks and tests can rely on them.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = [
    "AFFILIATE_STATUSES",
    "COUNTRY_CURRENCIES",
    "CURRENCIES",
    "FIRST_AFFILIATE_ID",
    "KEY_ROLES",
    "iso",
    "make_affiliates",
    "make_keys",
    "make_managers",
]

#: The states of an affiliate.
AFFILIATE_STATUSES: tuple[str, ...] = ("active", "pending", "paused", "rejected")
#: Countries of the demo data and the currency their affiliates are paid in.
COUNTRY_CURRENCIES: dict[str, str] = {
    "US": "USD",
    "GB": "GBP",
    "DE": "EUR",
    "FR": "EUR",
    "ES": "EUR",
    "BR": "BRL",
    "IN": "INR",
    "JP": "JPY",
    "CN": "CNY",
    "CA": "CAD",
    "AU": "AUD",
    "NL": "EUR",
}
#: Currencies an affiliate can be paid in.
CURRENCIES: tuple[str, ...] = tuple(sorted(set(COUNTRY_CURRENCIES.values())))
#: The id of the first seeded affiliate; later ones count up from it.
FIRST_AFFILIATE_ID = 1001
#: The roles of the sandbox's API keys (see :func:`make_keys`).
KEY_ROLES: tuple[str, ...] = ("admin", "readonly", "locked", "expired", "other-dc")

_FIRST = (
    "Ava",
    "Liam",
    "Noah",
    "Emma",
    "Mia",
    "Lucas",
    "Sofia",
    "Arjun",
    "Yuki",
    "Chen",
    "Lea",
    "Hugo",
    "Ines",
    "Mateo",
    "Priya",
    "Omar",
    "Nora",
    "Felix",
    "Zoe",
    "Kenji",
)
_LAST = (
    "Lee",
    "Garcia",
    "Muller",
    "Martin",
    "Silva",
    "Patel",
    "Tanaka",
    "Wang",
    "Smith",
    "Dubois",
    "Rossi",
    "Novak",
    "Jensen",
    "Khan",
    "Costa",
    "Brown",
    "Schmidt",
    "Ito",
)
_COMPANY_A = (
    "Bright",
    "Blue",
    "Prime",
    "Rapid",
    "Nova",
    "Clever",
    "Urban",
    "Peak",
    "Swift",
    "Green",
    "Solid",
    "Lucky",
)
_COMPANY_B = (
    "Leads",
    "Media",
    "Clicks",
    "Traffic",
    "Digital",
    "Reach",
    "Partners",
    "Ads",
    "Growth",
    "Funnel",
)
_COMPANY_C = ("Ltd", "LLC", "GmbH", "SAS", "Inc", "BV")
_MANAGERS = ("Maya Chen", "Tom Becker", "Sara Okafor", "Luis Moreno", "Anna Kowalski", "Raj Mehta")
_STATUS_WEIGHTS = (55, 20, 15, 10)
_EPOCH = datetime(2022, 1, 1, tzinfo=UTC)


def iso(moment: datetime) -> str:
    """Format a UTC moment the way the API does: ``2024-03-05T14:07:09Z``.

    Examples
    --------
    >>> iso(datetime(2024, 3, 5, 14, 7, 9, tzinfo=UTC))
    '2024-03-05T14:07:09Z'
    """
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def make_managers() -> dict[int, str]:
    """The account managers affiliates can be assigned to: id → name.

    Examples
    --------
    >>> make_managers()[1]
    'Maya Chen'
    """
    return {index: name for index, name in enumerate(_MANAGERS, start=1)}


def make_keys(seed: int) -> dict[str, str]:
    """The sandbox's API keys, one per role in :data:`KEY_ROLES`.

    ``admin`` may do everything, ``readonly`` only read, ``locked`` belongs to a locked
    account, ``expired`` and ``other-dc`` are refused as unauthorized.

    Examples
    --------
    >>> sorted(make_keys(0)) == sorted(KEY_ROLES)
    True
    """
    rng = random.Random(f"adnetwork-keys-{seed}")
    return {role: f"an_{role.replace('-', '')}_{rng.getrandbits(128):032x}" for role in KEY_ROLES}


def make_affiliates(seed: int, count: int) -> list[dict[str, Any]]:
    """Generate ``count`` affiliates as the API returns them, ids from 1001 upwards.

    Parameters
    ----------
    seed : int
        Same seed, same affiliates.
    count : int
        How many to make.

    Returns
    -------
    list of dict
        Records with ``id``, ``name``, ``email``, ``company``, ``status``, ``country``,
        ``currency``, ``manager`` ``{id, name}``, ``payout`` ``{totalPaid, pending}``,
        ``createdAt`` and ``updatedAt``.

    Examples
    --------
    >>> first = make_affiliates(0, 3)[0]
    >>> first["id"], sorted(first["manager"])
    (1001, ['id', 'name'])
    """
    rng = random.Random(f"adnetwork-affiliates-{seed}")
    managers = make_managers()
    countries = list(COUNTRY_CURRENCIES)
    records = []
    for index in range(count):
        first, last = rng.choice(_FIRST), rng.choice(_LAST)
        company = f"{rng.choice(_COMPANY_A)} {rng.choice(_COMPANY_B)} {rng.choice(_COMPANY_C)}"
        domain = company.rsplit(" ", 1)[0].replace(" ", "").lower()
        status = rng.choices(AFFILIATE_STATUSES, weights=_STATUS_WEIGHTS)[0]
        country = rng.choice(countries)
        manager_id = rng.randint(1, len(managers))
        created = _EPOCH + timedelta(seconds=rng.randint(0, 730 * 86400))
        updated = created + timedelta(seconds=rng.randint(0, 120 * 86400))
        paid = round(rng.uniform(0, 25000), 2) if status in ("active", "paused") else 0.0
        records.append(
            {
                "id": FIRST_AFFILIATE_ID + index,
                "name": f"{first} {last}",
                "email": f"{first}.{last}.{index + 1}@{domain}.example".lower(),
                "company": company,
                "status": status,
                "country": country,
                "currency": COUNTRY_CURRENCIES[country],
                "manager": {"id": manager_id, "name": managers[manager_id]},
                "payout": {"totalPaid": paid, "pending": round(rng.uniform(0, paid / 10), 2)},
                "createdAt": iso(created),
                "updatedAt": iso(updated),
            }
        )
    return records
