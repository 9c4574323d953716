"""One real browser round trip of the review panel: voila serves it, chromium decides and applies.

In the page, two accesses (a former member's, listed by the "former_member" finding filter)
are picked and marked revoke; Plan shows the calls, Apply sends them, and the status says
so. The sandbox then no longer lists the permissions. The notebook is served by
``voila_server.serving`` (the token reaches the kernel through its environment, never the
notebook file). The screenshot is kept under ``test-artifacts/``.
"""

from __future__ import annotations

import pytest
from browser import launched_chromium
from voila_server import ARTIFACTS, serving

NOTEBOOK_SOURCE = """\
import os

import docsapi

# The token comes from GITBOOK_API_TOKEN, set in the kernel's environment.
client = docsapi.DocsClient(base_url=os.environ["DOCSAPI_BASE_URL"])
audit = docsapi.audit_permissions(client, os.environ["DOCSAPI_ORG_ID"], progress=False)
review = docsapi.AccessReview(audit, reviewer="Browser Reviewer", client=client)
panel = review.panel()
panel.finding_dropdown.value = "former_member"
panel
"""


@pytest.fixture
def browser():
    """A headless Chromium (the test is skipped before voila starts when there is none)."""
    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture
def review_url(sandbox, tmp_path):
    """Serve a notebook showing the review panel of the sandbox; stop voila afterwards."""
    env = {
        "DOCSAPI_BASE_URL": sandbox.url,
        "DOCSAPI_ORG_ID": sandbox.org_id,
        "GITBOOK_API_TOKEN": sandbox.token,
    }
    with serving(NOTEBOOK_SOURCE, env, tmp_path) as url:
        yield url


def test_two_rows_marked_revoke_are_planned_applied_and_gone(browser, sandbox, review_url):
    pairs = sandbox.demo["former_member"]
    client = sandbox.client()
    for space_id, user_id in pairs:
        assert user_id in set(client.permissions.users(space_id)["user_id"])
    ARTIFACTS.mkdir(exist_ok=True)

    page = browser.new_page(viewport={"width": 1100, "height": 1300})
    page.goto(review_url, timeout=60_000)
    rows = page.locator(".docsapi-rows select")
    rows.wait_for(timeout=90_000)
    assert rows.locator("option").count() == 2
    rows.select_option(index=[0, 1])
    page.get_by_text("2 picked").wait_for(timeout=30_000)
    page.locator(".docsapi-comment input").fill("former member")
    page.locator(".docsapi-revoke").click()
    page.get_by_text("Recorded revoke on 2 accesses.").wait_for(timeout=30_000)
    page.locator(".docsapi-plan").click()
    page.get_by_text("Plan: 2 call(s)").wait_for(timeout=30_000)
    page.locator(".docsapi-apply").click()
    page.get_by_text("Applied: 2 call(s) done.").wait_for(timeout=30_000)
    page.screenshot(path=str(ARTIFACTS / "voila_review_panel.png"), full_page=True)

    for space_id, user_id in pairs:
        assert user_id not in set(client.permissions.users(space_id)["user_id"])
