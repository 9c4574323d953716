"""Identifiers that look like the API's: 20 characters of letters and digits."""

from __future__ import annotations

import random
import string

_ALPHABET = string.ascii_letters + string.digits


def new_id(rng: random.Random, length: int = 20) -> str:
    """Draw an API-style identifier from ``rng``.

    Examples
    --------
    >>> new_id(random.Random(0))
    '2yW4Acq9GFz6Y1t9EwL5'
    """
    return "".join(rng.choice(_ALPHABET) for _ in range(length))


def new_hex(rng: random.Random, length: int = 32) -> str:
    """Draw a lowercase hexadecimal string of ``length`` characters from ``rng``."""
    return "".join(rng.choice("0123456789abcdef") for _ in range(length))
