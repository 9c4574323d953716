"""One real browser round trip: voila serves a SpaceSettingsForm; chromium edits and saves it.

The form sends nothing when it is built and loads when the notebook displays it, so the
page shows the space's current title before it is edited.

The notebook is served by ``voila_server.serving`` (the token reaches the kernel through
its environment, never the notebook file). The screenshot is kept under ``test-artifacts/``.
"""

from __future__ import annotations

import pytest
from browser import launched_chromium
from client_checks import share_link_keys
from voila_server import ARTIFACTS, serving

NOTEBOOK_SOURCE = """\
import os

import docsapi
from docsapi.widgets import SpaceSettingsForm

# The token comes from GITBOOK_API_TOKEN, set in the kernel's environment.
client = docsapi.DocsClient(base_url=os.environ["DOCSAPI_BASE_URL"])
form = SpaceSettingsForm(client, os.environ["DOCSAPI_SPACE_ID"])
form
"""

#: A real browser: `pytest --full` (and CI) runs these; `pytest` leaves them out.
pytestmark = pytest.mark.full


@pytest.fixture
def browser():
    """A headless Chromium (the test is skipped before voila starts when there is none)."""
    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture
def voila_url(sandbox, tmp_path):
    """Serve a notebook showing a SpaceSettingsForm of the sandbox; stop voila afterwards."""
    env = {
        "DOCSAPI_BASE_URL": sandbox.url,
        "DOCSAPI_SPACE_ID": sandbox.demo["space_ids"][0],
        "GITBOOK_API_TOKEN": sandbox.token,
    }
    with serving(NOTEBOOK_SOURCE, env, tmp_path) as url:
        yield url


def test_title_edited_in_the_browser_is_saved(browser, sandbox, voila_url):
    from playwright.sync_api import expect

    space_id = sandbox.demo["space_ids"][0]
    new_title = "Edited in the browser"
    loaded_title = sandbox.client().spaces.get(space_id).title
    assert loaded_title != new_title
    ARTIFACTS.mkdir(exist_ok=True)

    page = browser.new_page(viewport={"width": 1000, "height": 1100})
    page.goto(voila_url, timeout=60_000)
    title_input = page.locator(".docsapi-title input")
    title_input.wait_for(timeout=60_000)
    # The form loaded when the notebook displayed it: the title is the space's own.
    expect(title_input).to_have_value(loaded_title, timeout=30_000)
    title_input.fill(new_title)
    # Save becomes enabled once the kernel has checked the new title.
    page.locator(".docsapi-save").click(timeout=30_000)
    page.get_by_text("Saved title.").wait_for(timeout=30_000)
    page.screenshot(path=str(ARTIFACTS / "voila_space_settings.png"), full_page=True)

    assert sandbox.client().spaces.get(space_id).title == new_title


SHARE_LINKS_SOURCE = """\
import os

import docsapi
from docsapi.widgets import ShareLinkPanel

client = docsapi.DocsClient(base_url=os.environ["DOCSAPI_BASE_URL"])
panel = ShareLinkPanel(client, os.environ["DOCSAPI_ORG_ID"], os.environ["DOCSAPI_SITE_ID"])
panel
"""


def test_a_share_link_deactivated_in_the_browser_is_closed(browser, sandbox, tmp_path):
    """Act on an audit finding: pick a stale share link in the page, deactivate it."""
    from playwright.sync_api import expect

    org_id, site_id = sandbox.demo["org_id"], sandbox.demo["sites"]["share-link"]
    stale = sandbox.demo["share_link_ids"]["stale"]
    links = sandbox.client().sites.share_links(org_id, site_id).set_index("id")
    name = links.name[stale]
    assert links.active[stale]
    env = {
        "DOCSAPI_BASE_URL": sandbox.url,
        "DOCSAPI_ORG_ID": org_id,
        "DOCSAPI_SITE_ID": site_id,
        "GITBOOK_API_TOKEN": sandbox.token,
    }
    ARTIFACTS.mkdir(exist_ok=True)

    with serving(SHARE_LINKS_SOURCE, env, tmp_path) as url:
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        page.goto(url, timeout=60_000)
        select = page.locator(".docsapi-share-links select")
        select.wait_for(timeout=60_000)
        # The panel loaded when the notebook displayed it: every link is listed.
        expect(select.locator("option")).to_have_count(len(links), timeout=30_000)
        label = select.locator("option", has_text=f"{name} — active").inner_text()
        select.select_option(label=label)
        page.locator(".docsapi-deactivate").click(timeout=30_000)
        page.get_by_text(f"Deactivated 1 share link(s): {name}.").wait_for(timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "voila_share_links.png"), full_page=True)
        html = page.content()

    after = sandbox.client().sites.share_links(org_id, site_id).set_index("id")
    assert not after.active[stale]
    assert after.drop(index=stale).active.equals(links.drop(index=stale).active)
    keys = share_link_keys(sandbox, org_id, site_id)
    assert keys and not [key for key in keys if key in html]
