r"""Text from a server is data, never markup or control: one function per output medium.

A name a server sends (an organization's title, a user's display name, a log actor's label)
can hold anything: ``$`` and mathtext, backslashes, NUL, ESC sequences, BEL, bidirectional
controls such as U+202E, lone surrogates, a hundred kilobytes. Each medium docsapi writes to
has one function that makes any string safe there, and every output goes through it:

=================  ===================================================================
medium             function
=================  ===================================================================
terminal line      :func:`terminal_line` (and :class:`TerminalStream`, which applies it
                   to everything a command prints)
chart label        :func:`chart_label` (every title, label, legend and tick of a chart)
HTML               ``docsapi.audit.report.tables.text`` (escaped, wrapped where long)
spreadsheet cell   ``docsapi.audit.report.page.write_sheet`` / ``write_table_csv``
                   (formulas stay text; what XML cannot hold is shown as a picture)
=================  ===================================================================

What is escaped is one rule: every character Python does not call printable
(:meth:`str.isprintable`: control characters, format characters such as the bidirectional
controls and zero-width joiners, surrogates, private-use and unassigned code points, line
and paragraph separators, spaces other than U+0020) is shown as its escape, as Python writes
it in a string literal (``\x1b``, ``\u202e``, ``\x00``, ``\n``).
"""

from __future__ import annotations

import io
import sys
from typing import TextIO

__all__ = [
    "CHART_LABEL_LIMIT",
    "TerminalStream",
    "chart_label",
    "print_line",
    "progress_stream",
    "terminal_line",
]

#: The longest a chart label is drawn (characters); longer ones end in "…".
CHART_LABEL_LIMIT = 60
_ELLIPSIS = "…"


def _escaped(text: str) -> str:
    """``text`` with every character that is not printable shown as its escape."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def terminal_line(text: object, limit: int | None = None) -> str:
    r"""``text`` as one terminal line: nothing in it can move the cursor, change colours,
    reorder what follows, ring the bell or start a new line.

    Every character that is not printable (see the module's docstring) is shown as its
    escape; with ``limit``, the middle of a longer result is elided ("…") so that both ends
    stay in view.

    Parameters
    ----------
    text : object
        What to show (``str()`` of anything else).
    limit : int, optional
        The most characters to show.

    Returns
    -------
    str

    Examples
    --------
    >>> print(terminal_line("Stark\x1b[2J Devices\u202e\x00\nPARTIAL"))
    Stark\x1b[2J Devices\u202e\x00\nPARTIAL
    >>> terminal_line("a" * 300, limit=21)
    'aaaaaaaaaa…aaaaaaaaaa'
    """
    raw = str(text)
    if limit is None or len(raw) <= limit:
        shown = _escaped(raw)
        if limit is None or len(shown) <= limit:
            return shown
    keep = max(limit - 1, 0)
    # escaping only lengthens a text: each end is escaped from at most ``limit`` characters
    head, tail = _escaped(raw[:limit])[: keep // 2], _escaped(raw[-limit:] if limit else "")
    return f"{head}{_ELLIPSIS}{tail[len(tail) - (keep - keep // 2) :]}"


def print_line(text: object, *, file: TextIO | None = None, limit: int | None = None) -> None:
    r"""Print ``text`` as one :func:`terminal_line` (to ``file``, standard output by default):
    how the command line prints every line.

    Examples
    --------
    >>> print_line("Space\nPARTIAL AUDIT: none")
    Space\nPARTIAL AUDIT: none\x07
    """
    print(terminal_line(text, limit), file=sys.stdout if file is None else file)


def chart_label(text: object, limit: int = CHART_LABEL_LIMIT) -> str:
    r"""``text`` as a chart's title, label, legend entry or tick: drawn as written.

    matplotlib reads a text holding two ``$`` as mathtext (and raises on one it cannot
    parse, such as ``a $\frac{1}{$ b``); every ``$`` is escaped, so the text is never parsed
    and a ``$`` is drawn as itself. Characters that are not printable are shown as their
    escapes (no glyph is missing for them, so no warning quotes them raw), and a text longer
    than ``limit`` characters ends in "…".

    Parameters
    ----------
    text : object
        The label (``str()`` of anything else).
    limit : int, default :data:`CHART_LABEL_LIMIT`
        The most characters drawn.

    Returns
    -------
    str

    Examples
    --------
    >>> chart_label(r"a $\frac{1}{$ b")
    'a \\$\\frac{1}{\\$ b'
    >>> chart_label("Ops\x00\x1b[31m")
    'Ops\\x00\\x1b[31m'
    >>> len(chart_label("x" * 1000, limit=24))
    24
    """
    raw = str(text)
    shown = _escaped(raw[: limit + 1])  # escaping only lengthens: the rest is never drawn
    if len(shown) > limit:
        shown = shown[: max(limit - 1, 0)] + _ELLIPSIS
    return shown.replace("$", r"\$")


class TerminalStream(io.TextIOBase):
    r"""A text stream that writes every line through :func:`terminal_line`.

    Line breaks are kept (they are the stream's own structure); every other character that
    is not printable is escaped, and what the terminal's encoding cannot show is written as
    a backslash escape rather than raising. The command line wraps ``sys.stdout`` and
    ``sys.stderr`` in one while it runs, so that nothing it prints (its own lines, a
    warning, a traceback) can hold a raw control character, whatever a server sent.

    Parameters
    ----------
    stream : TextIO
        Where the text goes.

    Examples
    --------
    >>> out = io.StringIO()
    >>> print("Ops\x1b[31m team\u202e", file=TerminalStream(out))
    >>> out.getvalue()
    'Ops\\x1b[31m team\\u202e\n'
    """

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        #: The stream wrapped: a progress bar draws on it (see :func:`progress_stream`).
        self.unguarded = stream

    def write(self, text: str) -> int:
        shown = "\n".join(terminal_line(line) for line in str(text).split("\n"))
        encoding = getattr(self.unguarded, "encoding", None) or "utf-8"
        try:
            shown.encode(encoding)
        except (UnicodeEncodeError, LookupError):
            shown = shown.encode("ascii", "backslashreplace").decode("ascii")
        self.unguarded.write(shown)
        return len(text)

    def flush(self) -> None:
        self.unguarded.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.unguarded, "isatty", lambda: False)())

    def fileno(self) -> int:
        return self.unguarded.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.unguarded, "encoding", None) or "utf-8"


def progress_stream() -> TextIO:
    """Where a progress bar draws: standard error, past a :class:`TerminalStream` guarding it.

    A progress bar redraws its line with a carriage return, which the guard would escape;
    its text is docsapi's own (never a server's), so it is written to the stream the guard
    wraps.
    """
    stream = sys.stderr
    return stream.unguarded if isinstance(stream, TerminalStream) else stream
