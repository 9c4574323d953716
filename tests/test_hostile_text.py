"""Whatever names a server sends, every output completes and no raw control character is shown.

Hypothesis draws texts from pieces an adversary would use (``$`` and mathtext, backslashes,
NUL, ESC sequences, BEL, bidirectional controls, lone surrogates, line breaks, formulas) and
from arbitrary Unicode, and puts them into every name the sandbox serves: the organization's
title, user display names, team, collection, space, site, site-space and section titles,
share link names, and the log's actor and target labels; one hundred kilobytes go into a
few of them. Then, in the test process, the audit, its HTML report, every chart (drawn to
PNG), the workbook and the CSV files; and, as real subprocesses, ``docsapi audit``,
``history``, ``diff`` and ``review apply --dry-run``, whose standard output and error must
hold no character a terminal would act on (anything not printable but the line break).
"""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import warnings
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import docsapi
from docsapi import AccessReview
from docsapi.audit.report import plots
from docsapi.audit.snapshot.store import save_dated
from docsapi.core.safe_text import CHART_LABEL_LIMIT, chart_label, terminal_line
from docsapi.credentials.signing import SIGNING_KEY_VARIABLE, writing_key

#: Property runs through every output and real CLI processes: `pytest --full` (and CI).
pytestmark = pytest.mark.full

REPO = Path(__file__).resolve().parent.parent

#: What an adversary would put in a name.
PIECES = (
    "$",
    "\\",
    "\\$",
    "$$",
    "a $\\frac{1}{$ b",
    "$x^{2}$",
    "$\\undefinedcommand$",
    "\x00",
    "\x07",
    "\x1b[31m",
    "\x1b[2J\x1b[H",
    "\x1b]0;owned\x07",
    "\x9b31m",
    "\u202e",
    "\u2066\u2069",
    "\u200b",
    "\ud800",
    "\udfff",
    "\r",
    "\n",
    "\t",
    "\u2028",
    "_",
    "=1+1",
    "<script>alert(1)</script>",
    "%s{0}",
    " ",
)
#: One hundred kilobytes, with mathtext and controls in it.
BIG = ("a $\\frac{1}{$ b\x1b[31m\u202e\x00" * 5000)[:100_000]

piece = st.one_of(
    st.sampled_from(PIECES),
    st.text(max_size=6),
    st.characters(categories=["Cc", "Cf", "Cs", "Zl", "Zp", "Co", "Cn"]),
)
hostile_text = st.lists(piece, max_size=6).map("".join)
#: A few texts, given in turn to the names; and whether a few names get :data:`BIG`.
names = st.tuples(st.lists(hostile_text, min_size=1, max_size=4), st.booleans())

WORST = (["a $\\frac{1}{$ b", "\x1b[31mOps\x00\u202e\x07\ud800", "_hidden\n$x$", ""], True)


def _unsafe(text: str) -> list[str]:
    """The characters of ``text`` a terminal would act on (all but printable ones and \\n)."""
    return sorted({c for c in text if not c.isprintable() and c != "\n"})


def rename_everything(sandbox, texts: list[str], big: bool) -> dict[str, str]:
    """Give every name the sandbox serves one of ``texts`` in turn (each name ends with a
    counter, so that not all are the same); with ``big``, :data:`BIG` goes into the
    organization's title, a team's, a collection's and three log actors' labels, and two
    kilobytes of it into a space's title and a user's name. The names of note."""
    store = sandbox._store
    counter = iter(range(1_000_000))

    def name() -> str:
        number = next(counter)
        return f"{texts[number % len(texts)]}{number}"

    with store.lock:
        state = store.state
        org = state.orgs[sandbox.org_id]
        org["title"] = BIG if big else name()
        for user in state.users.values():
            user["displayName"] = name()
        for records in (state.teams, state.collections, state.spaces, state.sites):
            for record in records.values():
                record["title"] = name()
        for site_spaces in state.site_spaces.values():
            for site_space in site_spaces:
                site_space["title"] = name()
        for sections in state.site_sections.values():
            for section in sections:
                section["title"] = name()
        for links in state.share_links.values():
            for link in links.values():
                link["name"] = name()
        for events in state.events.values():
            for event in events:
                event["actor"]["label"] = name()
                if "label" in event["target"]:
                    event["target"]["label"] = name()
        if big:  # in names that few rows repeat (the HTML report shows every row in full)
            next(iter(state.teams.values()))["title"] = BIG
            next(iter(state.collections.values()))["title"] = BIG
            for event in state.events[sandbox.org_id][-3:]:
                event["actor"]["label"] = BIG
            owner = state.users[sandbox.demo["owner_id"]]
            for record in (next(iter(state.spaces.values())), owner):
                key = "displayName" if "displayName" in record else "title"
                record[key] = BIG[:2000]
        return {"org": org["title"]}


def _draw(figure) -> list[str]:
    """Draw ``figure`` to PNG (mathtext is parsed then); every text it holds."""
    figure.savefig(io.BytesIO(), format="png", dpi=30)
    return [text.get_text() for text in figure.findobj(lambda artist: hasattr(artist, "get_text"))]


def _check_chart_texts(texts: list[str]) -> None:
    for text in texts:
        assert text.isprintable() or text == "", repr(text[:80])
        assert len(text) <= 2 * CHART_LABEL_LIMIT + 40, len(text)


@pytest.mark.timeout(900)  # a few minutes on a loaded machine
@settings(
    max_examples=3,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(drawn=names)
@example(drawn=WORST)
def test_every_output_completes_whatever_the_names(sandbox_server, tmp_path_factory, drawn):
    texts, big = drawn
    sandbox_server.reset()
    rename_everything(sandbox_server, texts, big)
    folder = tmp_path_factory.mktemp("outputs")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        audit = docsapi.audit_permissions(
            sandbox_server.client(), sandbox_server.org_id, progress=False
        )
        audit.to_html(folder / "audit.html")
        figures = {  # every chart function (plot draws each of the audit's charts once)
            **audit.plot(),
            "exposure": plots.exposure_figure(audit.exposure),
            "weeks": plots.timeline_figure(audit.events, freq="W"),
            "bars": plots.stacked_bars_figure(
                pd.DataFrame(  # object labels: lone surrogates are kept
                    [[1] * len(texts), [2] * len(texts)],
                    index=pd.Index([texts[0], texts[-1]], dtype=object),
                    columns=pd.Index(texts, dtype=object),
                ),
                xlabel=texts[0],
                title=texts[-1],
                legend_title=texts[0],
            ),
        }
        chart_texts = {name: _draw(figure) for name, figure in figures.items()}
        for texts_drawn in chart_texts.values():
            _check_chart_texts(texts_drawn)
        for by in ("actor", "action"):
            counts = audit.timeline(by=by)
            assert all(str(label).isprintable() for label in counts.columns), by
        workbook = openpyxl.load_workbook(audit.to_excel(folder / "audit.xlsx"), read_only=True)
        assert "effective" in workbook.sheetnames
        for path in audit.to_csv(folder / "csv"):
            with path.open(newline="", encoding="utf-8") as stream:
                assert next(csv.reader(stream))  # a header row, readable as UTF-8
    for warning in caught:  # matplotlib's missing glyphs among them: none quotes a control
        assert not _unsafe(str(warning.message)), repr(str(warning.message)[:200])
    actors = {chart_label(label) for label in audit.timeline(by="actor").columns}
    assert actors & set(chart_texts["weeks"])  # the actors are named in the legend, escaped


# -- the command line, as real subprocesses ---------------------------------------------------
def _command() -> list[str]:
    script = Path(sys.executable).parent / "docsapi"
    return [str(script)] if script.exists() else [sys.executable, "-m", "docsapi.cli"]


def _run(arguments: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [*_command(), *arguments], cwd=cwd, env=env, capture_output=True, timeout=300
    )
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")  # strict UTF-8
    shown = " ".join(arguments[:2])
    assert not _unsafe(out), f"{shown}: raw {_unsafe(out)} on stdout"
    assert not _unsafe(err), f"{shown}: raw {_unsafe(err)} on stderr"
    return subprocess.CompletedProcess(done.args, done.returncode, out, err)


@pytest.mark.timeout(900)
@settings(
    max_examples=1,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(drawn=names)
@example(drawn=WORST)
def test_the_command_line_shows_hostile_names_escaped(
    highest_sandbox_server, tmp_path_factory, drawn
):
    sandbox = highest_sandbox_server
    texts, big = drawn
    sandbox.reset()
    noted = rename_everything(sandbox, texts, big)
    folder = tmp_path_factory.mktemp("cli")
    env = {**os.environ, "PYTHONPATH": str(REPO), "GITBOOK_API_TOKEN": sandbox.token}
    # the commands sign and check with the key this process signs with (its keyring is its own)
    key = writing_key()
    if key is not None:
        env[SIGNING_KEY_VARIABLE] = key.reveal()

    # an earlier snapshot and a signed plan, made in this process
    audit = docsapi.audit_permissions(
        sandbox.client(), sandbox.org_id, progress=False, model="highest"
    )
    earlier = save_dated(audit, folder / "kept")
    review = AccessReview(audit, reviewer="Rita Reviewer")
    direct = review.decisions[review.decisions["sources"] == "direct"]
    review.decide(direct.drop_duplicates("space_id").head(3), "revoke", comment=texts[-1])
    review.sign_off("Grace Owner", note=texts[0][:200])
    plan = review.save_plan(folder / "plan.json")

    sandbox.advance_clock(hours=1)  # the next snapshot is another folder
    audited = _run(
        [
            *("audit", "--org", sandbox.org_id, "--base-url", sandbox.url, "--no-progress"),
            *("--model", "highest", "--out", "r.html", "--save", "kept", "--allow-partial"),
        ],
        env,
        folder,
    )
    assert audited.returncode == 0, audited.stderr
    assert terminal_line(noted["org"], 80) in audited.stdout
    later = [p for p in (folder / "kept").glob("*/*") if p.is_dir() and p != earlier]
    assert len(later) == 1

    history = _run(["history", "kept"], env, folder)
    assert history.returncode == 0, history.stderr
    assert len(history.stdout.splitlines()) == 3  # a header and one line per snapshot

    diff = _run(["diff", str(earlier), str(later[0]), "--allow-partial"], env, folder)
    assert diff.returncode == 0, diff.stderr

    dry = _run(["review", "apply", str(plan), "--dry-run"], env, folder)
    assert dry.returncode == 0, dry.stderr
    assert "Dry run: 3 of 3 calls would be sent" in dry.stdout
