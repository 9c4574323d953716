"""Rich displays for Jupyter: small HTML tables for models, method listings for API groups.

:func:`safe_display` makes a display method total: an object whose ``__init__`` stopped
half-way is shown, never raises again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from docsapi.core.safe_text import terminal_line

__all__ = [
    "field_table_html",
    "method_listing",
    "methods_html",
    "methods_markdown",
    "safe_display",
    "short_signature",
    "shown_path",
]

_Shown = TypeVar("_Shown")

_MAX_CELL = 120


def shown_path(path: object, limit: int = _MAX_CELL) -> str:
    r"""A path for a message: one line (:func:`~docsapi.core.safe_text.terminal_line`), the
    middle elided past ``limit`` characters, so a hostile or generated name cannot flood or
    split the line.

    Examples
    --------
    >>> print(shown_path("reviews/x\ny"))
    reviews/x\ny
    >>> shown = shown_path("reports/" + "a" * 500 + "/audit.html")
    >>> len(shown), shown[:9], shown[-11:], "…" in shown
    (120, 'reports/a', '/audit.html', True)
    """
    return terminal_line(path, limit)


def escape(text: str) -> str:
    """``html.escape`` (quotes too); :mod:`html` loads with the first display, not on import."""
    import html

    return html.escape(text)


def safe_display(display: Callable[[_Shown], str]) -> Callable[[_Shown], str]:
    """Make a display method (``__repr__``, ``_repr_html_``, ``_repr_markdown_``) never raise.

    A constructor that refuses an argument leaves its half-built object as ``self`` in the
    failing frame, where ``pytest -l``, debuggers and
    ``traceback.TracebackException(capture_locals=True)`` show it; a display reading an
    attribute not yet set would raise there and hide the real error. Wrapped, such an object
    (or one built around values of the wrong type) reads as
    ``<DocsClient, incomplete: AttributeError while showing it>`` (HTML-escaped for the rich
    displays). Only the exception's type is shown: its message might quote a value.

    Examples
    --------
    >>> class Half:
    ...     def __init__(self, name):
    ...         if not isinstance(name, str):
    ...             raise TypeError("name must be a str")
    ...         self.name = name
    ...     @safe_display
    ...     def __repr__(self):
    ...         return f"Half({self.name!r})"
    >>> half = Half.__new__(Half)
    >>> half
    <Half, incomplete: AttributeError while showing it>
    """

    @functools.wraps(display)
    def shown(self: _Shown) -> str:
        try:
            return display(self)
        except Exception as error:  # a display must not raise, whatever the object holds
            text = f"<{type(self).__name__}, incomplete: {type(error).__name__} while showing it>"
            return text if display.__name__ == "__repr__" else escape(text)

    return shown


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    if len(text) > _MAX_CELL:
        text = text[: _MAX_CELL - 1] + "…"
    return escape(text)


def field_table_html(title: str, rows: Iterable[tuple[str, Any]]) -> str:
    """Render ``(name, value)`` pairs as a two-column HTML table under a bold title.

    Examples
    --------
    >>> "<table" in field_table_html("User", [("id", "u1")])
    True
    """
    body = "".join(
        f"<tr><th style='text-align:left'>{escape(name)}</th>"
        f"<td style='text-align:left'>{_cell(value)}</td></tr>"
        for name, value in rows
    )
    return f"<div><strong>{escape(title)}</strong><table>{body}</table></div>"


def short_signature(function: Any) -> str:
    """A method's signature without ``self`` and type hints, defaults kept by their repr.

    Examples
    --------
    >>> def move(self, space_id: str, *, parent: str | None = None) -> None: ...
    >>> short_signature(move)
    '(space_id, *, parent=None) -> None'
    """
    import inspect  # on first display: ``from docsapi import DocsClient`` does not load it

    signature = inspect.signature(function)
    parts: list[str] = []
    keyword_only_marked = False
    for parameter in signature.parameters.values():
        if parameter.name == "self":
            continue
        if parameter.kind is parameter.KEYWORD_ONLY and not keyword_only_marked:
            parts.append("*")
            keyword_only_marked = True
        if parameter.kind is parameter.VAR_POSITIONAL:
            keyword_only_marked = True
            parts.append(f"*{parameter.name}")
        elif parameter.kind is parameter.VAR_KEYWORD:
            parts.append(f"**{parameter.name}")
        elif parameter.default is parameter.empty:
            parts.append(parameter.name)
        else:
            parts.append(f"{parameter.name}={parameter.default!r}")
    returns = signature.return_annotation
    arrow = ""
    if returns is not signature.empty:
        arrow = " -> " + (returns if isinstance(returns, str) else getattr(returns, "__name__", ""))
    return f"({', '.join(parts)}){arrow}"


def method_listing(obj: object) -> list[tuple[str, str, str]]:
    """List the public methods of ``obj`` as ``(name, signature, first docstring line)``.

    Properties and attributes are skipped, as are names starting with ``_``.
    """
    listing = []
    import inspect

    for name, member in inspect.getmembers(type(obj)):
        if name.startswith("_") or not inspect.isfunction(member):
            continue
        doc = inspect.getdoc(member) or ""
        listing.append((name, short_signature(member), doc.splitlines()[0] if doc else ""))
    return listing


def methods_markdown(title: str, obj: object, *, prefix: str = "") -> str:
    """Markdown bullet list of ``obj``'s public methods with signatures and one-line docs."""
    lines = [f"**{title}**", ""]
    for name, signature, doc in method_listing(obj):
        lines.append(f"- `{prefix}{name}{signature}`: {doc}")
    return "\n".join(lines)


def methods_html(title: str, obj: object, *, prefix: str = "") -> str:
    """HTML table of ``obj``'s public methods with signatures and one-line docs."""
    rows = "".join(
        f"<tr><td style='text-align:left'><code>{escape(prefix + name + signature)}</code></td>"
        f"<td style='text-align:left'>{escape(doc)}</td></tr>"
        for name, signature, doc in method_listing(obj)
    )
    return f"<div><strong>{escape(title)}</strong><table>{rows}</table></div>"
