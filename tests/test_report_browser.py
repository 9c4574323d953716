"""The demo organization's HTML report rendered by a real headless Chromium, offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import launched_chromium

from docsapi import audit_permissions

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


@pytest.fixture
def browser():
    with launched_chromium() as chromium:
        yield chromium


def test_report_renders_with_charts_and_every_finding(sandbox, browser, tmp_path):
    audit = audit_permissions(sandbox.client(), sandbox.org_id, progress=False)
    report = audit.to_html(tmp_path / "audit-report.html")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    outside: list[str] = []
    page.on(
        "request",
        lambda request: (
            outside.append(request.url) if not request.url.startswith(("file:", "data:")) else None
        ),
    )
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "audit-report.png"), full_page=True)

    sizes = page.eval_on_selector_all(
        "img.chart", "images => images.map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
    )
    assert len(sizes) == 3
    assert all(complete and width > 0 and height > 0 for complete, width, height in sizes)
    assert page.locator("tr[class^=sev-]").count() == len(audit.findings)
    assert page.locator("tr.sev-high").count() == audit.count("high", "severity")
    assert page.title() == f"Permission audit of {audit.org_name} ({sandbox.org_id})"
    assert outside == []
