"""The text-safety rules of the terminal and of charts (``docsapi.core.safe_text``)."""

from __future__ import annotations

import io
import sys
import warnings

import pandas as pd
import pytest
from matplotlib.figure import Figure

from docsapi import cli
from docsapi.audit.report.plots import stacked_bars_figure
from docsapi.core.safe_text import (
    CHART_LABEL_LIMIT,
    TerminalStream,
    chart_label,
    print_line,
    progress_stream,
    terminal_line,
)

#: One character of each kind a terminal acts on, and how it is shown.
SHOWN = {
    "\x00": "\\x00",
    "\x07": "\\x07",
    "\x1b": "\\x1b",
    "\x9b": "\\x9b",
    "\r": "\\r",
    "\n": "\\n",
    "\t": "\\t",
    "\u202e": "\\u202e",
    "\u2066": "\\u2066",
    "\u200b": "\\u200b",
    "\u2028": "\\u2028",
    "\ud800": "\\ud800",
    "\U000e0001": "\\U000e0001",
}
MATHTEXT = ("a $\\frac{1}{$ b", "$x^{2}$", "$\\undefined$", "$$", "\\$", "$", "100$ and 5$")


@pytest.mark.parametrize(("raw", "shown"), SHOWN.items(), ids=repr)
def test_a_terminal_line_shows_every_control_character_escaped(raw, shown):
    assert terminal_line(f"a{raw}b") == f"a{shown}b"
    assert terminal_line(f"a{raw}b").isprintable()


def test_a_terminal_line_keeps_printable_text_and_elides_the_middle():
    assert terminal_line("Ada Lovelace, 東京, $x$ \\ ok") == "Ada Lovelace, 東京, $x$ \\ ok"
    shown = terminal_line("start" + "\x1b" * 500 + "end", limit=41)
    assert len(shown) == 41 and shown.startswith("start\\x1b") and shown.endswith("end")
    assert terminal_line(None) == "None"


@pytest.mark.parametrize("text", [*MATHTEXT, *SHOWN, "x" * 100_000], ids=lambda t: repr(t[:20]))
def test_every_chart_label_is_drawn_as_written(text):
    label = chart_label(text)
    figure = Figure(figsize=(3, 1))
    axes = figure.add_subplot()
    axes.set_title(label)
    axes.set_xticks([0], labels=[label])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure.savefig(io.BytesIO(), format="png", dpi=30)  # mathtext would raise here
    assert not [w for w in caught if "Glyph" in str(w.message)]  # nothing drawn is missing
    assert label.replace("\\$", "$").isprintable()
    assert len(label.replace("\\$", "$")) <= CHART_LABEL_LIMIT
    if len(text) < CHART_LABEL_LIMIT and text.isprintable():
        assert axes.title.get_text() == label and label.replace("\\$", "$") == text


def test_names_that_read_alike_or_start_with_an_underscore_are_all_shown():
    counts = pd.DataFrame(
        [[1, 2], [3, 4]],
        index=pd.Index(["Docs", "Docs"], dtype=object),
        columns=pd.Index(["_hidden", "$x$"], dtype=object),
    )
    axes = stacked_bars_figure(counts).axes[0]
    assert [t.get_text() for t in axes.get_yticklabels()] == ["Docs", "Docs"]  # two bars
    assert [t.get_text() for t in axes.get_legend().get_texts()] == ["_hidden", "\\$x\\$"]


def test_a_terminal_stream_keeps_lines_and_escapes_the_rest():
    out = io.StringIO()
    print("one\x1b[2J\ntwo\u202e\r", file=TerminalStream(out))
    assert out.getvalue() == "one\\x1b[2J\ntwo\\u202e\\r\n"
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    guarded = TerminalStream(ascii_out)
    guarded.write("Zoë 東\n")  # a terminal that cannot show it gets escapes, not an error
    guarded.flush()
    assert ascii_out.buffer.getvalue() == b"Zo\\xeb \\u6771\n"


def test_print_line_and_progress_stream(capsys):
    print_line("PARTIAL\nfake\x07")
    assert capsys.readouterr().out == "PARTIAL\\nfake\\x07\n"
    raw = sys.stderr
    with cli._terminal_output():
        assert isinstance(sys.stderr, TerminalStream)
        assert progress_stream() is raw  # a progress bar's carriage returns are its own
    assert sys.stderr is raw and progress_stream() is raw


def test_the_command_line_shows_a_warning_as_one_escaped_line(capsys):
    with cli._terminal_output():
        warnings.warn("Glyph 27 (\x1b) missing from font(s) \u202eDejaVu\nSans.", stacklevel=1)
        print("raw \x1b[31m name", file=sys.stderr)
    err = capsys.readouterr().err
    assert err == (
        "docsapi: warning: Glyph 27 (\\x1b) missing from font(s) \\u202eDejaVu\\nSans.\n"
        "raw \\x1b[31m name\n"
    )
