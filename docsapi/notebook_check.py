"""Find tokens and keys saved in Jupyter notebooks: in cell sources, outputs and metadata.

A notebook is saved with its outputs, so a token typed into a cell, printed by one, or kept in
a widget's state ends up in the file and in every copy of it. :func:`check_notebooks` reads
``.ipynb`` files (or every notebook under a folder) and reports what looks like a credential.

- ``platform token``: ``gb_api_…``, the documentation platform's API tokens;
- ``sandbox token``: ``sbx_<kind>_<hex>``, the offline sandbox's tokens (credentials of a
  running server: never to be saved either);
- ``ad-network key``: ``an_<role>_<32 hex>``, the ad-network sandbox's keys;
- ``bearer credential``: ``Authorization: Bearer <credential>``;
- ``api key header``: ``X-Api-Key: <key>``, also as a dict entry;
- ``JSON web token``: ``eyJ….eyJ….<signature>``;
- ``private key``: ``-----BEGIN … PRIVATE KEY-----``;
- ``secret assigned to a name``: a long, random-looking value assigned to a name that ends
  in ``token``, ``secret``, ``password``, ``api_key``, ``credentials``….

Known fakes can be allowed: a line that contains ``notebook-check: allow`` (for example in
a ``#`` comment) is not reported, and exact values passed as ``allow`` are skipped wherever
they appear. Images stored in outputs are not read. Values are always reported masked.

Examples
--------
>>> notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [],
...                        "source": 'client = DocsClient(token="gb_api_Zx81kLq0pWm2nB7c")'}],
...             "metadata": {}}
>>> [str(finding) for finding in scan_notebook(notebook, path="demo.ipynb")]
['demo.ipynb: cell 1 source, line 1: platform token gb_ap… (23 chars)']
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docsapi.core.json_files import JSONFileError, read_json_file

__all__ = ["ALLOW_MARKER", "Finding", "check_notebooks", "notebook_paths", "scan_notebook"]

#: A line containing this text is never reported.
ALLOW_MARKER = "notebook-check: allow"

# A name that ends in a secret word: ``token``, ``GITBOOK_API_TOKEN``, ``client_secret``...
_SECRET_NAME = (
    r"[A-Za-z0-9_.-]*?(?:token|secret|passw(?:or)?d|pwd|pass[_-]?phrase|api[_-]?key|apikey"
    r"|(?:access|secret|private|signing)[_-]?key|credential)s?(?![A-Za-z0-9])"
)
# Most specific first: a value reported by one pattern is not reported again by a later one.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----")),
    ("platform token", re.compile(r"(?<![A-Za-z0-9])gb_api_[A-Za-z0-9_-]{8,}")),
    ("sandbox token", re.compile(r"(?<![A-Za-z0-9])sbx_[a-z]+_[0-9a-f]{16,}(?![0-9a-f])")),
    ("ad-network key", re.compile(r"(?<![A-Za-z0-9])an_[a-z]+_[0-9a-f]{32}(?![0-9a-f])")),
    (
        "JSON web token",
        re.compile(
            r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
        ),
    ),
    (
        "bearer credential",
        re.compile(r"(?i)\bbearer\s+(?P<value>[A-Za-z0-9\-._~+/]{8,}=*)"),
    ),
    (
        "api key header",
        re.compile(r"(?i)\bx-api-key[\"']?\s*[:=,]\s*[\"']?(?P<value>[^\s\"',;)}\]]{8,})"),
    ),
    (
        "secret assigned to a name",
        re.compile(
            rf"(?i)(?<![A-Za-z0-9])(?P<name>{_SECRET_NAME})[\"']?\]?\s*(?::=|=|:)\s*"
            r"[rbuRBU]?[\"']?(?P<value>[^\s\"'`,;()\[\]{}<>]{12,})"
        ),
    ),
)
_GENERIC = "secret assigned to a name"
_SECRET_KEY = re.compile(_SECRET_NAME, re.IGNORECASE)
_TEXT_MIME = re.compile(r"^(text/|application/(json|javascript|.*\+json))")
_PLACEHOLDER = re.compile(r"(?i)^(x+|\*+|\.+|your[-_]?.*|<.*>|\$\{?.*|example.*|changeme.*)$")


@dataclass(frozen=True)
class Finding:
    """Something in a notebook that looks like a credential.

    Attributes
    ----------
    path : str
        The notebook file.
    cell : int or None
        The cell, counting from 1 as Jupyter lists them; None for the notebook's metadata.
    part : str
        Where: ``"source"``, ``"output 2"`` (counting from 1), or ``"metadata"`` followed by
        the keys leading to the value (``"metadata widgets/state/…/value"``).
    line : int
        The line within that part, counting from 1.
    kind : str
        What it looks like (see the module's list).
    masked : str
        The value with all but its first characters hidden.
    """

    path: str
    cell: int | None
    part: str
    line: int
    kind: str
    masked: str

    def __str__(self) -> str:
        place = f"cell {self.cell} {self.part}" if self.cell is not None else self.part
        return f"{self.path}: {place}, line {self.line}: {self.kind} {self.masked}"


def _mask(value: str) -> str:
    shown = value[: min(6, len(value) // 4)]
    return f"{shown}… ({len(value)} chars)"


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _random_looking(value: str) -> bool:
    """True for a value that looks generated rather than written: long, mixed, high entropy.

    Examples
    --------
    >>> _random_looking("Q7vT2mX9pL4kR8sW"), _random_looking("iFJfWOQgUQudDfZFUWdGvIkg")
    (True, True)
    >>> _random_looking("sandbox.tokens"), _random_looking("<your token here>")
    (False, False)
    """
    if len(value) < 12 or "://" in value or _PLACEHOLDER.match(value):
        return False
    digits = any(c.isdigit() for c in value)
    letters = any(c.isalpha() for c in value)
    upper, lower = sum(c.isupper() for c in value), sum(c.islower() for c in value)
    mixed_case = min(upper, lower) >= 0.25 * (upper + lower)  # not camelCase words
    return ((digits and letters) or (mixed_case and len(value) >= 16)) and _entropy(value) >= 3.0


def _scan_line(line: str, allow: frozenset[str]) -> Iterator[tuple[str, str]]:
    """(kind, value) of each credential-like value on one line."""
    if ALLOW_MARKER in line:
        return
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(line):
            group = "value" if "value" in pattern.groupindex else 0
            start, end = match.span(group)
            value = match.group(group)
            if any(start < stop and begin < end for begin, stop in taken):
                continue
            if kind == _GENERIC and (not _random_looking(value) or line[end : end + 1] == "("):
                continue  # not random enough, or a function call: code, not a secret
            taken.append((start, end))
            if value in allow:
                continue
            yield kind, (value if kind == "private key" else _mask(value))


def _json_texts(value: Any, keys: tuple[str, ...] = ()) -> Iterator[tuple[str, str]]:
    """(key path, text) of each string in a JSON value.

    A one-line string under a secret-sounding key is given as ``key = "value"`` so that the
    name is seen with the value.
    """
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _json_texts(item, (*keys, str(key)))
    elif isinstance(value, list):
        for item in value:
            yield from _json_texts(item, keys)
    elif isinstance(value, str):
        where = "/".join(keys)
        if keys and "\n" not in value and _SECRET_KEY.fullmatch(keys[-1]):
            yield where, f'{keys[-1]} = "{value}"'
        else:
            yield where, value


def _output_texts(output: Any) -> Iterator[str]:
    """The text an output stores: stream text, text-like data, error, traceback, metadata.

    A part that is not of nbformat's shape is read as JSON: every string in it is text.
    """
    if not isinstance(output, dict):
        yield from (text for _, text in _json_texts(output))
        return
    if "text" in output:
        yield _source(output["text"])
    data = output.get("data") or {}
    if not isinstance(data, dict):
        data = {"text/plain": data}
    for mime, value in data.items():
        if not _TEXT_MIME.match(str(mime)):
            continue
        if isinstance(value, str):
            yield value
        else:
            yield from (text for _, text in _json_texts(value))
    for field in ("ename", "evalue"):
        if output.get(field):
            yield str(output[field])
    traceback = output.get("traceback")
    if isinstance(traceback, list) and all(isinstance(line, str) for line in traceback):
        yield "\n".join(traceback)
    elif traceback:
        yield from (text for _, text in _json_texts(traceback))
    yield from (text for _, text in _json_texts(output.get("metadata") or {}))


def _findings_in(
    text: str, allow: frozenset[str], path: str, cell: int | None, part: str
) -> Iterator[Finding]:
    for number, line in enumerate(text.splitlines(), start=1):
        for kind, masked in _scan_line(line, allow):
            yield Finding(path, cell, part, number, kind, masked)


def _metadata_findings(
    metadata: Any, allow: frozenset[str], path: str, cell: int | None
) -> Iterator[Finding]:
    for where, text in _json_texts(metadata or {}):
        yield from _findings_in(text, allow, path, cell, f"metadata {where}".rstrip())


def scan_notebook(
    notebook: dict[str, Any], *, path: str = "<notebook>", allow: Iterable[str] = ()
) -> list[Finding]:
    """Every credential-like value in a notebook's sources, outputs and metadata.

    Parameters
    ----------
    notebook : dict
        The notebook as read from its JSON file (nbformat 4).
    path : str, optional
        The name to report findings under.
    allow : iterable of str, optional
        Exact values known to be harmless fakes; they are not reported.

    Returns
    -------
    list of Finding
        In file order: the notebook's metadata, then each cell's source, outputs, metadata.

    Examples
    --------
    >>> scan_notebook({"cells": [], "metadata": {"note": "all clear"}})
    []
    >>> leaky = {"cells": [], "metadata": {"api_token": "Q7vT2mX9pL4kR8sW"}}
    >>> [str(finding) for finding in scan_notebook(leaky)]
    ['<notebook>: metadata api_token, line 1: secret assigned to a name Q7vT… (16 chars)']
    """
    allowed = frozenset(allow)
    findings = list(_metadata_findings(notebook.get("metadata"), allowed, path, None))
    for number, cell in enumerate(notebook.get("cells") or [], start=1):
        if not isinstance(cell, dict):
            findings += _metadata_findings(cell, allowed, path, number)
            continue
        findings += _findings_in(_source(cell.get("source", "")), allowed, path, number, "source")
        outputs = cell.get("outputs") or []
        for index, output in enumerate(outputs if isinstance(outputs, list) else [outputs], 1):
            for text in _output_texts(output):
                findings += _findings_in(text, allowed, path, number, f"output {index}")
        findings += _metadata_findings(cell.get("metadata"), allowed, path, number)
    return findings


def _source(value: Any) -> str:
    """A cell's source: a string or a list of lines, else every string found in it."""
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "".join(value)
    if isinstance(value, str):
        return value
    return "\n".join(text for _, text in _json_texts(value))


def notebook_paths(paths: Iterable[str | Path]) -> list[Path]:
    """The notebooks named: files as given, folders searched for ``*.ipynb``.

    Checkpoint copies (``.ipynb_checkpoints``) are skipped.

    Raises
    ------
    FileNotFoundError
        When a path does not exist.
    """
    found: list[Path] = []
    for entry in map(Path, paths):
        if entry.is_dir():
            found += sorted(
                candidate
                for candidate in entry.rglob("*.ipynb")
                if ".ipynb_checkpoints" not in candidate.parts and candidate.is_file()
            )
        elif entry.is_file():
            found.append(entry)
        elif entry.exists():
            raise FileNotFoundError(f"neither a notebook file nor a folder: {entry}")
        else:
            raise FileNotFoundError(f"no such file or folder: {entry}")
    return found


def check_notebooks(paths: Iterable[str | Path], *, allow: Iterable[str] = ()) -> list[Finding]:
    """Scan notebook files and folders for tokens and keys.

    Parameters
    ----------
    paths : iterable of str or Path
        Notebook files, or folders searched recursively for ``*.ipynb``.
    allow : iterable of str, optional
        Exact values known to be harmless fakes.

    Returns
    -------
    list of Finding
        Empty when nothing looks like a credential.

    Raises
    ------
    FileNotFoundError
        When a path does not exist.
    ValueError
        When a file is not a notebook (not JSON, or no ``cells`` list).

    Examples
    --------
    >>> import json, pathlib
    >>> folder = pathlib.Path("notebooks")
    >>> folder.mkdir()
    >>> clean = {"cells": [], "metadata": {}}
    >>> _ = (folder / "clean.ipynb").write_text(json.dumps(clean))
    >>> check_notebooks(["notebooks"])
    []
    >>> leaky = {"cells": [], "metadata": {"api_token": "Q7vT2mX9pL4kR8sW"}}
    >>> _ = (folder / "leaky.ipynb").write_text(json.dumps(leaky))
    >>> [finding.kind for finding in check_notebooks(["notebooks"])]
    ['secret assigned to a name']
    """
    allowed = tuple(allow)
    findings: list[Finding] = []
    for path in notebook_paths(paths):
        try:
            notebook = read_json_file(path)
            if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
                raise ValueError(f"{path} is not a notebook: it has no list of cells")
            findings += scan_notebook(notebook, path=str(path), allow=allowed)
        except JSONFileError as exc:
            raise ValueError(f"{path} is not a notebook: it {exc.reason}") from None
    return findings
