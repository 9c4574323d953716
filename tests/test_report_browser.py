"""The demo organization's HTML report rendered by a real headless Chromium, offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import launched_chromium

from docsapi import audit_permissions
from docsapi.report import effective_view

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"

CELLS = "rows => rows.filter(r => !r.hidden).map(r => Array.from(r.cells, c => c.textContent))"


def containing(frame, text: str):
    """The rows of ``frame`` with ``text`` in any cell, ignoring case (the filter box's rule)."""
    cells = frame.astype(object).fillna("").astype(str)
    return frame[
        cells.apply(
            lambda column: column.str.casefold().str.contains(text.casefold(), regex=False)
        ).any(axis=1)
    ]


@pytest.fixture
def browser():
    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture
def report(sandbox, tmp_path):
    audit = audit_permissions(sandbox.client(), sandbox.org_id, progress=False)
    return audit, audit.to_html(tmp_path / "audit-report.html")


def open_offline(browser, path: Path):
    """A page showing ``path``, with every request that is not the file itself recorded in
    ``page.outside`` and every console error (a CSP refusal among them) in ``page.errors``."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.outside, page.errors = [], []
    page.on(
        "request",
        lambda request: (
            page.outside.append(request.url)
            if not request.url.startswith(("file:", "data:"))
            else None
        ),
    )
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page


def test_report_renders_with_charts_and_every_finding(report, browser):
    audit, path = report
    page = open_offline(browser, path)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "audit-report.png"), full_page=True)

    sizes = page.eval_on_selector_all(
        "img.chart", "images => images.map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
    )
    assert not audit.exposure.empty  # the demo exposes content: five charts
    assert len(sizes) == 5
    assert all(complete and width > 0 and height > 0 for complete, width, height in sizes)
    assert page.locator("tr[class^=sev-]").count() == len(audit.findings)
    assert page.locator("tr.sev-high").count() == audit.count("high", "severity")
    assert page.title() == f"Permission audit of {audit.org_name} ({audit.org_id})"
    alts = page.eval_on_selector_all("img.chart", "images => images.map(i => i.alt)")
    assert alts[:2] == ["How users reach spaces", "Spaces readable without an account"]
    assert page.outside == [] and page.errors == []


def test_findings_filtered_by_rule_show_exactly_that_rule(report, browser):
    audit, path = report
    page = open_offline(browser, path)
    box = page.locator("div.interactive:has(input[aria-label='Filter findings'])")
    assert box.locator(".filters").is_visible()  # the script ran: CSP admitted it
    rule = audit.findings["rule"].value_counts().index[0]
    expected = audit.findings[audit.findings["rule"] == rule]
    assert 1 < len(expected) < len(audit.findings)

    box.locator(f"select[data-column='{audit.findings.columns.get_loc('rule')}']").select_option(
        str(rule)
    )
    shown = box.locator("tbody tr").evaluate_all(CELLS)
    targets = audit.findings.columns.get_loc("target_id")
    assert [row[targets] for row in shown] == expected["target_id"].astype(str).tolist()
    assert {row[audit.findings.columns.get_loc("rule")] for row in shown} == {rule}
    assert box.locator(".shown").text_content() == f"{len(expected)} of {len(audit.findings)} rows"

    box.locator("input.filter-text").fill(str(expected["target_title"].iloc[0]))
    both = box.locator("tbody tr").evaluate_all(CELLS)
    narrowed = containing(expected, str(expected["target_title"].iloc[0]))
    assert [row[targets] for row in both] == narrowed["target_id"].astype(str).tolist()
    assert page.outside == [] and page.errors == []


def test_effective_access_sorts_by_role_rank_then_filters(report, browser):
    audit, path = report
    page = open_offline(browser, path)
    label = "Effective access per space and user"
    page.locator("summary", has_text=label).click()
    box = page.locator(f"div.interactive:has(input[aria-label='Filter {label}'])")
    view = effective_view(audit)
    pairs = ["space_id", "user_id", "role"]
    columns = [view.columns.get_loc(name) for name in pairs]

    def shown() -> list[tuple[str, ...]]:
        rows = box.locator("tbody tr").evaluate_all(CELLS)
        return [tuple(row[i] for i in columns) for row in rows]

    def answer(frame) -> list[tuple[str, ...]]:
        return list(frame[pairs].astype(str).itertuples(index=False, name=None))

    header = box.locator("th").nth(view.columns.get_loc("role"))
    header.locator("button").click()
    assert header.get_attribute("aria-sort") == "ascending"
    assert shown() == answer(view.sort_values("role", kind="stable"))
    header.locator("button").click()
    assert header.get_attribute("aria-sort") == "descending"
    expected = view.sort_values("role", ascending=False, kind="stable")
    assert shown() == answer(expected)
    assert shown()[0][2] == "admin" and shown()[-1][2] == view["role"].min()

    box.locator(f"select[data-column='{view.columns.get_loc('role')}']").select_option("edit")
    assert shown() == answer(expected[expected["role"] == "edit"])
    team = audit.data.teams["title"].iloc[0]
    box.locator("input.filter-text").fill(team)
    chosen = containing(expected[expected["role"] == "edit"], team)
    assert len(chosen) > 0 and shown() == answer(chosen)
    assert page.outside == [] and page.errors == []
