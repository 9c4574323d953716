"""``docsapi.login()`` headless: fill the password box, click, check keyring and widget state."""

from __future__ import annotations

import json

import keyring
import pytest
from keyring.backends import fail

import docsapi
from docsapi.client import token_service
from docsapi.sandbox.adnetwork import AdNetworkSandbox
from docsapi.widgets import LoginForm


def widget_states(form: LoginForm) -> str:
    """Everything the front end would be sent (and a saved notebook could hold)."""
    return json.dumps([child.get_state() for child in _walk(form)], default=str)


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    monkeypatch.delenv("GITBOOK_API_TOKEN", raising=False)


def test_building_the_form_sends_nothing(sandbox):
    form = docsapi.login(sandbox.url)
    assert isinstance(form, LoginForm)
    assert sandbox.request_count == 0 and not form.login_button.disabled
    assert form.token_password.value == "" and sandbox.url in form.heading_html.value


def test_click_checks_stores_and_clears_the_box(sandbox, memory_keyring, canary_token):
    sandbox.add_token(canary_token)
    form = docsapi.login(sandbox.url)
    form.token_password.value = canary_token
    form.login_button.click()
    assert memory_keyring.stored == {(token_service(sandbox.url), "credential"): canary_token}
    assert form.token_password.value == ""
    assert "Logged in as" in form.status and form.result is not None
    assert canary_token not in widget_states(form) + form.status + repr(form.result)
    assert docsapi.DocsClient(base_url=sandbox.url).token_source == "keyring"


def test_a_refused_token_is_not_stored_and_not_kept(sandbox, memory_keyring, canary_token):
    form = docsapi.login(sandbox.url)
    form.token_password.value = canary_token
    form.login_button.click()
    assert memory_keyring.stored == {} and form.result is None
    assert form.token_password.value == "" and canary_token not in widget_states(form)
    assert form.status.startswith("Not logged in: 401")
    assert not form.login_button.disabled  # ready for another try


def test_an_empty_box_asks_for_a_token(sandbox, memory_keyring):
    form = docsapi.login(sandbox.url)
    form.login_button.click()
    assert "Paste your API token" in form.status and sandbox.request_count == 0


def test_without_a_keyring_the_form_says_what_to_do(sandbox):
    keyring.set_keyring(fail.Keyring())
    form = docsapi.login(sandbox.url)
    assert form.login_button.disabled
    assert "No keyring is available" in form.status and "GITBOOK_API_TOKEN" in form.status
    form.token_password.value = sandbox.token
    assert form.login() is None  # driven from code, it still refuses
    assert form.token_password.value == "" and sandbox.request_count == 0


def test_ad_network_login_form(memory_keyring, canary_token):
    with AdNetworkSandbox(seed=4, affiliates=3) as ads:
        ads.add_key(canary_token)
        form = docsapi.login(network=ads.network, scheme="http")
        assert form.token_password.description == "Key"
        form.token_password.value = canary_token
        form.login_button.click()
        assert memory_keyring.values() == [canary_token]
        assert form.token_password.value == "" and canary_token not in widget_states(form)
