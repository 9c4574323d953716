"""ShareLinkPanel against the sandbox: links listed with keys masked, deactivate, delete."""

from __future__ import annotations

import ipywidgets as widgets
import pytest
from client_checks import share_link_keys

import docsapi
from docsapi.errors import NotFoundError, PermissionDeniedError, ValidationError
from docsapi.widgets import ShareLinkPanel


@pytest.fixture
def org_id(sandbox) -> str:
    return sandbox.demo["org_id"]


@pytest.fixture
def site_id(sandbox) -> str:
    return sandbox.demo["sites"]["share-link"]


def _active(sandbox, org_id: str, site_id: str) -> dict[str, bool]:
    links = sandbox.client().sites.share_links(org_id, site_id)
    return dict(zip(links.id, links.active, strict=True))


def _shown(widget: widgets.Widget) -> str:
    """Every text the panel shows: values, option labels, status outputs."""
    texts: list[str] = []
    pending = [widget]
    while pending:
        current = pending.pop()
        value = getattr(current, "value", None)
        texts.append(repr(value))
        texts.extend(repr(option) for option in getattr(current, "options", ()))
        texts.extend(repr(output) for output in getattr(current, "outputs", ()))
        if isinstance(current, widgets.Box):
            pending.extend(current.children)
    return "\n".join(texts)


def test_links_are_listed_with_their_age_and_no_key(sandbox, client, org_id, site_id):
    links = client.sites.share_links(org_id, site_id)
    panel = ShareLinkPanel(client, org_id, site_id)
    panel.load()

    active = int(links.active.sum())
    assert panel.status == f"Loaded {len(links)} share links ({active} active)."
    assert [value for _label, value in panel.links_select.options] == list(links.id)
    stale = sandbox.demo["share_link_ids"]["stale"]
    label = dict((value, text) for text, value in panel.links_select.options)[stale]
    assert " — active — created " in label and "days old)" in label
    assert "share-link" in panel.site_html.value
    keys = share_link_keys(sandbox, org_id, site_id)
    assert keys and all(len(key) >= 8 for key in keys)
    shown = _shown(panel)
    assert not [key for key in keys if key in shown]


def test_deactivate_the_picked_stale_links(sandbox, client, org_id, site_id):
    before = _active(sandbox, org_id, site_id)
    stale = [link for _site, link in sandbox.demo["stale_share_link"]]
    panel = ShareLinkPanel(client, org_id, site_id)
    panel.load()
    panel.links_select.value = tuple(stale)
    assert not panel.deactivate_button.disabled
    panel.deactivate_button.click()

    assert _active(sandbox, org_id, site_id) == {**before, **dict.fromkeys(stale, False)}
    assert panel.status.startswith("Deactivated 2 share link(s): ")
    assert panel.error is None
    assert panel.links_select.value == ()
    assert not panel.links.set_index("id").active[stale].any()
    assert not [key for key in share_link_keys(sandbox, org_id, site_id) if key in _shown(panel)]


def test_inactive_links_are_skipped_and_nothing_picked_sends_nothing(
    sandbox, client, org_id, site_id
):
    panel = ShareLinkPanel(client, org_id, site_id)
    panel.load()
    count = sandbox.request_count

    assert panel.deactivate_selected() is None
    assert panel.status == "Nothing deactivated: links: pick at least one share link."
    with pytest.raises(ValidationError, match="links"):
        panel.delete_selected(raise_errors=True)
    assert sandbox.request_count == count

    panel.links_select.value = (sandbox.demo["share_link_ids"]["inactive"],)
    assert panel.deactivate_selected() is None
    assert panel.status == "Deactivated 0 share link(s) (1 already inactive)."
    assert not [entry for entry in sandbox.request_log if entry[0] != "GET"]


def test_delete_asks_first_then_deletes(sandbox, client, org_id, site_id):
    recent = sandbox.demo["share_link_ids"]["recent"]
    panel = ShareLinkPanel(client, org_id, site_id)
    panel.load()
    panel.links_select.value = (recent,)
    count = sandbox.request_count
    panel.delete_button.click()

    assert panel.armed and panel.confirm_button.layout.display == ""
    assert sandbox.request_count == count
    panel.cancel_button.click()
    assert panel.status == "Deletion cancelled."
    assert recent in _active(sandbox, org_id, site_id)

    panel.delete_button.click()
    panel.confirm_button.click()
    assert recent not in _active(sandbox, org_id, site_id)
    assert panel.status.startswith("Deleted 1 share link(s): ")
    assert recent not in {value for _label, value in panel.links_select.options}


def test_a_token_that_may_not_edit_the_site_cannot_load(sandbox, org_id, site_id):
    other = docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["other-user"])
    panel = ShareLinkPanel(other, org_id, site_id)
    panel.load()

    assert not panel.loaded
    assert isinstance(panel.error, PermissionDeniedError)
    assert panel.status.startswith("Loading failed: 403 PermissionDeniedError")
    assert panel.links_select.options == ()
    assert panel.deactivate_button.disabled and panel.delete_button.disabled


def test_a_link_deleted_meanwhile_is_reported_and_the_rest_done(sandbox, client, org_id, site_id):
    stale, stale_2 = (link for _site, link in sandbox.demo["stale_share_link"])
    panel = ShareLinkPanel(client, org_id, site_id)
    panel.load()
    panel.links_select.value = (stale, stale_2)
    sandbox.client().sites.delete_share_link(org_id, site_id, stale)
    panel.deactivate_button.click()

    assert isinstance(panel.error, NotFoundError)
    assert panel.status.startswith("Deactivated 1 share link(s): ")
    assert "; 1 failed: 404" in panel.status
    assert not _active(sandbox, org_id, site_id)[stale_2]
    assert stale not in {value for _label, value in panel.links_select.options}


def test_bad_ids_are_refused_before_anything_is_sent(sandbox, client, org_id):
    with pytest.raises(ValidationError, match="site_id"):
        ShareLinkPanel(client, org_id, "")
    assert sandbox.request_count == 0
