"""The API description's regular expressions read as JSON Schema means them (ECMA-262).

JSON Schema's ``pattern`` is an ECMA-262 regular expression, where ``$`` (without the
multiline flag) matches only at the very end of the text. Python's ``$`` also matches before
a final line break, so ``re.search("^[a-z]+$", "abc\\n")`` succeeds and an id or a title
ending in ``"\\n"`` would pass a check the API states. :func:`search_pattern` is the
``pattern`` keyword with ECMA's ``$``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["ecma_pattern", "search_pattern"]


@functools.lru_cache(maxsize=1024)
def ecma_pattern(pattern: str) -> re.Pattern[str]:
    """Compile ``pattern`` with every ``$`` outside a character class matching only at the end.

    Examples
    --------
    >>> bool(ecma_pattern("^[a-z]+$").search("abc\\n"))
    False
    >>> bool(ecma_pattern("^[a-z$]+$").search("a$c"))
    True
    """
    out: list[str] = []
    in_class = escaped = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "$":
            out.append(r"\Z")
            continue
        out.append(char)
    return re.compile("".join(out))


def search_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    """jsonschema's ``pattern`` keyword with ECMA-262's ``$`` (for ``validators.extend``)."""
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not ecma_pattern(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")
