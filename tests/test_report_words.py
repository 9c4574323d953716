"""Reports and progress in plain words: headers as a person says them, charts that read at
800 pixels, one progress bar per phase named for what it reads."""

from __future__ import annotations

import base64
import re
import struct

import pytest

import docsapi
from docsapi.audit.crawl import LOG_SLICES
from docsapi.audit.creators import CREATE_ACTION_NAMES
from docsapi.audit.report.page import REPORT_DPI
from docsapi.audit.report.plots import CHART_WIDTH, matrix_is_indexed, plot_audit
from docsapi.audit.report.tables import header_words
from docsapi.sandbox import Sandbox

#: The narrowest screen every chart must read on, in full, without being scaled down.
SCREEN = 800


@pytest.fixture(scope="module")
def big_audit():
    """An organization whose role matrix is too large to name every user and space."""
    with Sandbox(seed=2, users=200, spaces=80) as sandbox:
        return docsapi.audit_permissions(sandbox.client(), sandbox.org_id, progress=False)


@pytest.fixture
def demo_audit(sandbox):
    return docsapi.audit_permissions(sandbox.client(), sandbox.org_id, progress=False)


def _png_sizes(page: str) -> list[tuple[int, int]]:
    """(width, height) in pixels of every PNG embedded in the page (from its IHDR chunk)."""
    sizes = []
    for data in re.findall(r'src="data:image/png;base64,([^"]+)"', page):
        header = base64.b64decode(data[:44])
        sizes.append(struct.unpack(">II", header[16:24]))
    return sizes


def test_every_header_is_in_words_with_the_name_on_hover(demo_audit, tmp_path):
    page = demo_audit.to_html(tmp_path / "report.html").read_text(encoding="utf-8")
    headers = re.findall(r"<th[^>]*\btitle=\"([^\"]+)\"[^>]*>([^<]*)</th>", page)
    assert len(headers) == len(re.findall(r"<th[ >]", page))  # each has its name on hover
    assert len(headers) > 40
    for name, shown in headers:
        assert shown == header_words(name)
        assert "_" not in shown and shown[:1].isupper(), shown
    assert ("share_link_age_days", "Share link age (days)") in headers
    assert ("principal_type", "Principal type") in headers


@pytest.mark.parametrize("which", ["demo_audit", pytest.param("big_audit", marks=pytest.mark.full)])
def test_every_chart_reads_at_800_pixels(which, request, tmp_path):
    audit = request.getfixturevalue(which)
    for name, figure in plot_audit(audit).items():
        width, height = figure.get_size_inches() * REPORT_DPI
        assert width <= SCREEN, (name, width, height)
    page = audit.to_html(tmp_path / "report.html").read_text(encoding="utf-8")
    sizes = _png_sizes(page)
    assert len(sizes) >= 4
    assert all(width <= SCREEN for width, _ in sizes), sizes
    assert CHART_WIDTH * REPORT_DPI == SCREEN


def test_a_large_matrix_is_numbered_and_the_report_names_the_numbers(big_audit, demo_audit):
    from docsapi.audit.report.html import render_html

    assert not matrix_is_indexed(demo_audit.matrix)  # the demo's names fit: they are shown
    assert matrix_is_indexed(big_audit.matrix)
    axes = plot_audit(big_audit)["role_matrix"].axes[0]
    numbers = [int(label.get_text()) for label in axes.get_yticklabels()]
    assert numbers[0] == 1 and numbers[-1] <= len(big_audit.matrix) and len(numbers) <= 26
    page = render_html(big_audit)
    index = page[page.index('<details class="index">') :]
    users, spaces = (
        re.findall(r"<li>([^<]*)</li>", part) for part in index.split("<h4>Spaces</h4>")
    )
    assert users == [str(user) for user in big_audit.matrix.index]
    assert spaces[: big_audit.matrix.shape[1]] == [str(s) for s in big_audit.matrix.columns]


def _bars(stderr: str) -> dict[str, list[tuple[int, int]]]:
    """Each progress bar's name -> the (done, total) it showed, in order."""
    bars: dict[str, list[tuple[int, int]]] = {}
    for line in re.split(r"[\r\n]+", stderr):
        shown = re.match(r"(.+?): +\d+%\|[^|]*\| (\d+)/(\d+) ", line)
        if shown:
            name, done, total = shown.groups()
            bars.setdefault(name, []).append((int(done), int(total)))
    return bars


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def test_one_progress_bar_per_phase_named_for_what_it_reads(sandbox, capsys):
    audit = docsapi.audit_permissions(sandbox.client(), sandbox.org_id, progress=True)
    stderr = capsys.readouterr().err
    data = audit.data
    assert list(_bars(stderr)) == [
        f"access of {_counted(len(data.spaces), 'space')}",
        f"members of {_counted(len(data.teams), 'team')}",
        f"access of {_counted(len(data.collections), 'collection')}",
        f"spaces, share links and access of {_counted(len(data.sites), 'site')}",
        # its year in slices, and each create action before it
        f"the audit log in {LOG_SLICES + len(CREATE_ACTION_NAMES)} reads",
    ]
    for name, shown in _bars(stderr).items():
        totals = {total for _, total in shown}
        assert len(totals) == 1, name  # the total is known from the start: it never restarts
        counts = [done for done, _ in shown]
        assert counts == sorted(counts) and counts[-1] == totals.pop(), name
    assert "target" not in stderr
    assert re.search(r"(\?|\d) space/s", stderr)  # the unit in words
