"""The one reader of the JSON files docsapi reads: a size limit and a depth limit, then JSON.

Plans, results, journals, manifests (``snapshot.json``, ``<file>.manifest.json``) and
the JSON values kept in a snapshot's tables all come from files someone else may have
written. :func:`read_json_file` and :func:`parse_json` refuse, before the parser runs, a
file larger than its limit or nested deeper than :data:`MAX_DEPTH` levels (brackets
counted outside strings), with one line naming the file and the limit: a hostile file
never ends in a ``RecursionError`` or a ``MemoryError``.

Examples
--------
>>> parse_json('{"calls": [1, 2]}', name="plan.json")
{'calls': [1, 2]}
>>> try:
...     parse_json("[" * 200_000, name="plan.json")
... except JSONFileError as refused:
...     print(refused)  # doctest: +ELLIPSIS
plan.json: nests deeper than 64 levels (the limit for a JSON file docsapi reads); ...
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from docsapi.core.reprs import shown_path
from docsapi.errors import ValidationError

__all__ = ["MAX_BYTES", "MAX_DEPTH", "JSONFileError", "parse_json", "read_json_file"]

#: The deepest nesting read (docsapi writes at most 5 levels).
MAX_DEPTH = 64
#: The largest JSON file read unless the caller says otherwise (a plan of 100,000 calls
#: with their blast radius fits).
MAX_BYTES = 256 * 2**20
#: An escape (a backslash and the character after it), the ASCII characters other than
#: quotes and brackets (to delete: what is not ASCII can only be inside a string, or make
#: the text invalid), a string of what is left, and a pair of brackets with no bracket inside.
_ESCAPE = re.compile(r"\\.", re.DOTALL)
_NOT_STRUCTURE = {code: None for code in range(128) if chr(code) not in '"[]{}'}
_STRING = re.compile(r'"[^"]*"')
_INNERMOST = re.compile(r"\[\]|\{\}")
_OPENING = re.compile(r"[\[{]+")


class JSONFileError(ValidationError):
    """A JSON file is too large, too deeply nested, or not JSON (its name, then why)."""

    def __init__(self, name: str, reason: str) -> None:
        self.reason = reason
        super().__init__(name, reason)


def _nesting_problem(text: str, max_depth: int) -> str | None:
    """Why ``text`` cannot be parsed safely (nested deeper than ``max_depth``, or brackets
    that do not match), or None. Escapes go first, then everything but quotes and
    brackets, then strings (with the brackets in them); then the innermost pairs of
    brackets are removed, one level per round, in at most ``max_depth`` rounds (each a
    regular expression, so a deep file costs no recursion and no Python loop per
    character)."""
    skeleton = _STRING.sub("", _ESCAPE.sub("", text).translate(_NOT_STRUCTURE))
    if max(map(len, _OPENING.findall(skeleton)), default=0) > max_depth:
        return _too_deep(max_depth)
    removed = 0
    for _ in range(max_depth):
        if not skeleton:
            return None
        skeleton, removed = _INNERMOST.subn("", skeleton)
        if not removed:
            break
    if not skeleton:
        return None
    if removed == 0:
        return "is not valid JSON (its brackets do not match)"
    return _too_deep(max_depth)


def _too_deep(max_depth: int) -> str:
    return (
        f"nests deeper than {max_depth} levels (the limit for a JSON file docsapi reads); "
        "docsapi never writes such a file"
    )


def parse_json(text: str, *, name: str, max_depth: int = MAX_DEPTH) -> Any:
    """``text`` as JSON, refused first when it nests deeper than ``max_depth``.

    Parameters
    ----------
    text : str
        The JSON text.
    name : str
        What it is, for the message (a file's name).
    max_depth : int
        The deepest nesting accepted.

    Returns
    -------
    Any
        The value.

    Raises
    ------
    JSONFileError
        When it nests too deeply or is not JSON (one line naming ``name`` and the limit).
    """
    problem = _nesting_problem(text, max_depth)
    if problem is not None:
        raise JSONFileError(name, problem)
    try:
        return json.loads(text)
    except RecursionError:  # pragma: no cover - the depth was checked above
        raise JSONFileError(name, f"nests deeper than {max_depth} levels") from None
    except ValueError as exc:
        raise JSONFileError(name, f"is not valid JSON ({exc})") from None


def read_json_file(path: Path, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value in the file ``path``, read within a size and a depth limit.

    Parameters
    ----------
    path : Path
        The file.
    max_bytes : int
        The largest file read (never more than this many bytes are read).
    max_depth : int
        The deepest nesting accepted.

    Returns
    -------
    Any
        The value.

    Raises
    ------
    JSONFileError
        When it is larger than ``max_bytes``, nests deeper than ``max_depth``, is not UTF-8
        or not JSON: one line naming the file and the limit.
    OSError
        When it cannot be read (``FileNotFoundError`` when it is not there).
    """
    name = shown_path(path)
    with path.open("rb") as stream:
        data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise JSONFileError(
            name,
            f"is larger than {_size(max_bytes)} (the limit for this file); docsapi never "
            "writes one that large",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONFileError(name, f"is not UTF-8 text ({exc.reason})") from None
    return parse_json(text, name=name, max_depth=max_depth)


def _size(count: int) -> str:
    """A byte count in words: ``64 MiB``, ``512 KiB``, ``100 bytes``."""
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if count >= scale and count % scale == 0:
            return f"{count // scale} {unit}"
    return f"{count} bytes"
