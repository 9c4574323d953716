"""Site secrets read through ``client.api``: masked in every display, attribute and table, kept
only in ``.raw``, and scrubbed from any text docsapi builds once they have been read."""

from __future__ import annotations

import pytest

from docsapi.api._secrets import conceal
from docsapi.core.redact import scrub
from docsapi.core.secret import SiteSecret


@pytest.fixture
def site(sandbox):
    """A site with share links, switched to visitor authentication."""
    state = sandbox._store.state
    site_id = next(s for s, links in state.share_links.items() if links)
    sandbox.client().sites.update(sandbox.org_id, site_id, visibility="visitor-auth")
    return site_id, state


def _shown(obj) -> str:
    return "\n".join([repr(obj), str(obj), obj._repr_html_(), obj._repr_markdown_()])


def test_the_private_key_is_masked_in_every_display(client, sandbox, site):
    site_id, state = site
    key = state.site_auth[site_id]["privateKey"]
    auth = client.api.site_publishing_auth.get_site_publishing_auth_by_id(sandbox.org_id, site_id)
    assert key not in _shown(auth)
    assert isinstance(auth.private_key, SiteSecret) and key not in repr(auth.private_key)
    assert isinstance(auth["privateKey"], SiteSecret)
    assert auth.private_key.reveal() == key
    assert auth.raw["privateKey"] == key  # the JSON untouched, as documented
    assert key not in scrub(f"a server echoed {key}")


def test_share_link_keys_are_masked_in_objects_and_frames(client, sandbox, site):
    site_id, state = site
    listed = client.api.site_share_links.list_site_share_links(sandbox.org_id, site_id)
    keys = [link["key"] for link in state.share_links[site_id].values()]
    assert keys and not any(key in listed.to_string() or key in listed.to_html() for key in keys)
    assert listed.urls_published.str.endswith("********").all()
    created = client.api.site_share_links.create_site_share_link(
        sandbox.org_id, site_id, name="Partner"
    )
    key = next(v["key"] for v in state.share_links[site_id].values() if v["name"] == "Partner")
    assert key not in _shown(created)
    assert key not in _shown(created.urls) and key not in created.urls.published
    assert key in created.raw["urls"]["published"]
    assert key not in scrub(f"GET /?share={key} failed")


def test_every_secret_field_of_the_description_is_masked_wherever_it_is_nested():
    answer = {
        "items": [{"apiToken": "tok-tok-tok", "nested": {"clientSecret": "sec-sec-sec"}}],
        "secrets": {"A": "one-one-one", "B": ["two-two-two"]},
        "jwtToken": None,
    }
    shown = conceal(answer, table=True)
    text = repr(shown)
    for value in ("tok-tok-tok", "sec-sec-sec", "one-one-one", "two-two-two"):
        assert value not in text
    assert shown["jwtToken"] is None


def test_a_site_switched_to_visitor_authentication_gets_a_private_key(client, sandbox):
    site_id = sandbox.demo["site_ids"][0]
    client.sites.update(sandbox.org_id, site_id, visibility="visitor-auth")
    auth = client.sites.publishing_auth(sandbox.org_id, site_id)
    assert auth.backend == "custom"
    assert len(auth.reveal_private_key() or "") >= 32


def test_a_share_key_a_server_echoes_in_an_error_is_masked_though_never_read():
    from scripted_server import Reply, ScriptedServer

    import docsapi
    from docsapi.core.config import RetryPolicy

    key = "k3yNeverReadBefore0123"
    message = f"No site answers at https://docs.example/handbook/?share={key}&lang=en"
    with ScriptedServer([Reply(404, {"error": {"code": 404, "message": message}})]) as server:
        client = docsapi.DocsClient(
            token="gb_api_echo", base_url=server.url + "/v1", retry=RetryPolicy(max_retries=0)
        )
        with pytest.raises(docsapi.NotFoundError) as caught:
            client.sites.share_links("org1", "site1")
    assert key not in str(caught.value) and key not in repr(caught.value)
    assert "share=********&lang=en" in str(caught.value)
