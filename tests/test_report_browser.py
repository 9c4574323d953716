"""The demo organization's HTML report rendered by a real headless Chromium, offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import launched_chromium

from docsapi import audit_permissions
from docsapi.audit.report.html import effective_view
from docsapi.audit.report.words import rule_words

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"

#: The shown rows as {column: text}; a cell showing a name also gives its id column's value,
#: and a cell showing an id for want of a name gives an empty name.
RECORDS = """rows => rows.filter(r => !r.hidden).map(r => {
  const heads = r.closest("table").tHead.rows[0].cells;
  const record = {};
  Array.from(r.cells).forEach((cell, i) => {
    record[heads[i].dataset.name] = cell.querySelector(".id") ? "" : cell.textContent;
    if (heads[i].dataset.idColumn) record[heads[i].dataset.idColumn] = cell.dataset.id || "";
  });
  return record;
})"""

#: A real browser: `pytest --full` (and CI) runs these; `pytest` leaves them out.
pytestmark = pytest.mark.full


def strings(frame, columns: list[str]) -> list[tuple[str, ...]]:
    """The ``columns`` of each row of ``frame`` as the report shows them (missing: empty;
    rules in words)."""
    if "rule" in frame.columns:
        frame = frame.assign(rule=frame["rule"].astype(str).map(rule_words))
    cells = frame[columns].astype(object).fillna("").astype(str)
    return list(cells.itertuples(index=False, name=None))


def shown(box, columns: list[str]) -> list[tuple[str, ...]]:
    """The ``columns`` of each row the table in ``box`` shows."""
    return [tuple(r[c] for c in columns) for r in box.locator("tbody tr").evaluate_all(RECORDS)]


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
    assert not audit.exposure.empty  # the demo exposes content, and has a log: six charts
    assert len(sizes) == 6
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

    box.locator("select[data-name='rule']").select_option(rule_words(str(rule)))
    columns = ["target_id", "target_title", "rule"]
    assert shown(box, columns) == strings(expected, columns)
    assert box.locator(".shown").text_content() == f"{len(expected)} of {len(audit.findings)} rows"

    box.locator("input.filter-text").fill(str(expected["target_title"].iloc[0]))
    narrowed = containing(expected, str(expected["target_title"].iloc[0]))
    assert shown(box, columns) == strings(narrowed, columns)
    assert page.outside == [] and page.errors == []


def test_effective_access_sorts_by_role_rank_then_filters(report, browser):
    audit, path = report
    page = open_offline(browser, path)
    label = "Effective access per space and user"
    page.locator("summary", has_text=label).click()
    box = page.locator(f"div.interactive:has(input[aria-label='Filter {label}'])")
    view = effective_view(audit)
    pairs = ["space_id", "user_id", "role"]

    header = box.locator("th[data-name='role']")
    header.locator("button").click()
    assert header.get_attribute("aria-sort") == "ascending"
    assert shown(box, pairs) == strings(view.sort_values("role", kind="stable"), pairs)
    header.locator("button").click()
    assert header.get_attribute("aria-sort") == "descending"
    expected = view.sort_values("role", ascending=False, kind="stable")
    assert shown(box, pairs) == strings(expected, pairs)
    roles = [role for _, _, role in shown(box, pairs)]
    assert roles[0] == "admin" and roles[-1] == view["role"].min()

    box.locator("select[data-name='role']").select_option("edit")
    assert shown(box, pairs) == strings(expected[expected["role"] == "edit"], pairs)
    team = audit.data.teams["title"].iloc[0]
    box.locator("input.filter-text").fill(team)
    chosen = containing(expected[expected["role"] == "edit"], team)
    assert len(chosen) > 0 and shown(box, pairs) == strings(chosen, pairs)
    assert page.outside == [] and page.errors == []


def test_report_fits_1280_px_and_names_things_with_their_ids_on_hover(report, browser):
    audit, path = report
    page = open_offline(browser, path)
    page.eval_on_selector_all("details", "sections => sections.forEach(d => (d.open = true))")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 1280  # wide tables scroll
    box = page.locator("div.interactive:has(input[aria-label='Filter findings'])")
    # the findings fit their box: no sideways scrolling to read a finding's detail
    widths = box.locator(".table-scroll").evaluate("b => [b.scrollWidth, b.clientWidth]")
    assert widths[0] <= widths[1]
    heads = box.locator("th").evaluate_all("hs => hs.map(h => h.dataset.name)")
    assert "target_title" in heads and not [h for h in heads if h.endswith("_id")]
    menus = box.locator("select").evaluate_all("s => s.map(m => m.dataset.name)")
    assert set(menus) <= {"severity", "rule", "target_type", "principal_type"}

    titles = box.locator("th[data-name='target_title']")
    column = box.locator("th").evaluate_all(
        "hs => hs.findIndex(h => h.dataset.name === 'target_title')"
    )
    cells = box.locator(f"tbody tr td:nth-child({column + 1})")
    assert titles.count() == 1 and cells.count() == len(audit.findings)
    first = audit.findings.iloc[0]
    assert cells.nth(0).text_content() == first["target_title"]
    assert first["target_id"] in cells.nth(0).get_attribute("title")  # the id on hover

    # an id appears in no cell's text, yet pasting it in the filter box finds its rows
    user = audit.findings["principal_id"].dropna().iloc[0]
    assert user not in box.locator("tbody").inner_text()
    box.locator("input.filter-text").fill(user)
    columns = ["principal_id", "principal_name", "rule", "target_id"]
    assert shown(box, columns) == strings(containing(audit.findings, user), columns)
    assert page.outside == [] and page.errors == []


def _screenshot_tool():
    """``tools/report_screenshot.py``, the README picture's maker, as a module."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "tools" / "report_screenshot.py"
    spec = importlib.util.spec_from_file_location("report_screenshot", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: What the first screen must show above the fold, by its CSS selector.
FIRST_SCREEN = {
    "the state sentence": "p.state",
    "Fix first": "section.fix-first h2",
    "its first finding": "ol.fix-list li",
    "What changed": "section.changed h2",
    "the first change": "ul.change-list li",
}


def test_the_first_screen_shows_the_state_fix_first_and_what_changed(sandbox, browser, tmp_path):
    tool = _screenshot_tool()
    path = tool.demo_report(tmp_path, sandbox)  # saved, changed, audited again
    width, height = tool.WINDOW
    page = browser.new_page(viewport={"width": width, "height": height})
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    for what, selector in FIRST_SCREEN.items():
        box = page.locator(selector).first.bounding_box()
        assert box is not None and box["height"] > 0, what
        assert box["y"] + box["height"] <= height, f"{what} is below the fold ({box})"
    assert (
        page.locator("p.state")
        .inner_text()
        .startswith(
            "The organization follows the platform's current rules: the nearest level decides;"
        )
    )
    assert page.locator("section.changed h2").inner_text().startswith("What changed since ")
    # each "Fix first" link leads to its finding's row
    link = page.locator("ol.fix-list li a").first
    row = page.locator(f"tr{link.get_attribute('href')}")
    assert row.count() == 1 and row.locator("td").nth(1).inner_text() == link.inner_text()
    # no chart runs into the page's edge: each ends inside the page, with a margin
    edges = page.eval_on_selector_all(
        "img.chart", "images => images.map(i => i.getBoundingClientRect().right)"
    )
    assert edges and max(edges) <= width - 16
    assert errors == []
    raw = tmp_path / "first-screen.png"
    page.screenshot(path=str(raw))  # the viewport: the first screen
    ARTIFACTS.mkdir(exist_ok=True)
    tool.small_png(raw, ARTIFACTS / "first-screen.png")
    tool.small_png(raw, tool.TARGET)  # the README's picture, taken from what was checked
