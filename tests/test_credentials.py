"""Where clients find their credential (argument, environment, keyring), and login/logout logic.

The keyring is an in-memory backend (``memory_keyring``, set for every test by conftest), or
keyring's own ``fail`` and ``null`` backends for systems without one.
"""

from __future__ import annotations

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail, null
from keyring.errors import KeyringError

from docsapi import AuthenticationError, DocsClient, MissingCredentialError, ValidationError
from docsapi.adnetwork import AdNetworkClient, InvalidAPIKeyError
from docsapi.client import find_token, token_service
from docsapi.credentials.keyring_store import KeyringUnavailableError, read_stored
from docsapi.credentials.logins import login, login_adnetwork, logout, logout_adnetwork
from docsapi.sandbox.adnetwork import AdNetworkSandbox

DEFAULT_SERVICE = "docsapi:https://api.gitbook.com/v1"


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv("GITBOOK_API_TOKEN", raising=False)
    monkeypatch.delenv("ADNETWORK_API_KEY", raising=False)


@pytest.fixture(scope="module")
def ad_network():
    with AdNetworkSandbox(seed=2, affiliates=20) as sandbox:
        yield sandbox


class BrokenKeyring(KeyringBackend):
    """A keyring that looks usable and fails on every call, as a locked one can."""

    priority = 1  # type: ignore[assignment]

    def get_password(self, service, username):
        raise KeyringError("locked")

    def set_password(self, service, username, password):
        raise KeyringError("locked")

    def delete_password(self, service, username):
        raise KeyringError("locked")


@pytest.fixture(params=["fail", "null", "broken"])
def unusable_keyring(request):
    backend = {"fail": fail.Keyring, "null": null.Keyring, "broken": BrokenKeyring}
    keyring.set_keyring(backend[request.param]())
    return request.param


# -- lookup ------------------------------------------------------------------------------------


def test_the_token_is_looked_for_in_argument_then_environment_then_keyring(
    no_env, monkeypatch, memory_keyring, canary_token
):
    memory_keyring.set_password(DEFAULT_SERVICE, "credential", canary_token)
    from_keyring = DocsClient()
    assert from_keyring.token_source == "keyring"
    assert "token=from keyring" in repr(from_keyring)
    monkeypatch.setenv("GITBOOK_API_TOKEN", "gb_env_token")
    assert "token=from GITBOOK_API_TOKEN" in repr(DocsClient())
    assert "token=from argument" in repr(DocsClient(token="gb_arg_token"))
    assert find_token(base_url="https://api.gitbook.com/v1").reveal() == "gb_env_token"
    monkeypatch.delenv("GITBOOK_API_TOKEN")
    assert find_token().reveal() == canary_token
    for text in (repr(from_keyring), repr(from_keyring.transport), from_keyring._repr_html_()):
        assert canary_token not in text


def test_the_keyring_token_is_sent(no_env, sandbox, memory_keyring, canary_token):
    sandbox.add_token(canary_token)
    memory_keyring.set_password(token_service(sandbox.url), "credential", canary_token)
    client = DocsClient(base_url=sandbox.url)
    assert client.users.me().id == sandbox.demo["owner_id"]


def test_each_api_address_has_its_own_keyring_entry(no_env, memory_keyring, sandbox):
    memory_keyring.set_password(token_service(sandbox.url), "credential", sandbox.token)
    assert DocsClient(base_url=sandbox.url + "/").token_source == "keyring"
    assert DocsClient().token_source is None  # the real API's entry is empty
    assert token_service("HTTPS://API.GitBook.com/v1/") == DEFAULT_SERVICE


def test_without_any_token_the_error_names_every_place_looked(no_env, memory_keyring):
    client = DocsClient()
    assert "token=missing" in repr(client)
    with pytest.raises(MissingCredentialError) as info:
        client.users.me()
    message = str(info.value)
    assert "GITBOOK_API_TOKEN" in message and "keyring" in message and "docsapi login" in message
    assert DEFAULT_SERVICE in message and "No keyring is available" not in message


def test_without_a_usable_keyring_clients_still_work_and_say_so(no_env, unusable_keyring):
    client = DocsClient()  # no crash
    assert client.token_source is None
    with pytest.raises(MissingCredentialError) as info:
        client.users.me()
    if unusable_keyring != "broken":
        assert "No keyring is available on this system" in str(info.value)
        assert "GITBOOK_API_TOKEN" in str(info.value)
    assert AdNetworkClient("ads.example.com").api_key_source is None
    assert read_stored(DEFAULT_SERVICE) is None
    assert "token=from argument" in repr(DocsClient(token="gb_x"))


def test_a_bad_stored_token_is_refused_without_being_repeated(no_env, memory_keyring):
    memory_keyring.set_password(DEFAULT_SERVICE, "credential", "gb_bad\x01token")
    with pytest.raises(ValidationError) as info:
        DocsClient()
    assert "keyring" in str(info.value) and "gb_bad" not in str(info.value)


def test_the_ad_network_key_comes_from_its_own_entry(no_env, memory_keyring, ad_network):
    ad_network.reset()
    service = f"docsapi-adnetwork:http://{ad_network.network}/api"
    memory_keyring.set_password(service, "credential", ad_network.api_key)
    client = AdNetworkClient(ad_network.network, scheme="http")
    assert client.api_key_source == "keyring" and "api_key=from keyring" in repr(client)
    assert len(client.affiliates()) == 20
    assert AdNetworkClient(ad_network.network).api_key_source is None  # https: another entry


# -- login, logout -----------------------------------------------------------------------------


def test_login_checks_the_token_then_stores_it(no_env, sandbox, memory_keyring, canary_token):
    sandbox.add_token(canary_token)
    result = login(canary_token, base_url=sandbox.url)
    assert memory_keyring.stored == {(token_service(sandbox.url), "credential"): canary_token}
    assert sandbox.request_log == [("GET", "/v1/user", 200)]
    assert result.service == token_service(sandbox.url) and result.shadowed_by is None
    assert "Logged in as" in str(result) and canary_token not in str(result) + repr(result)
    assert DocsClient(base_url=sandbox.url).users.me().id == sandbox.demo["owner_id"]
    assert logout(base_url=sandbox.url) is True
    assert memory_keyring.stored == {} and logout(base_url=sandbox.url) is False


def test_a_refused_token_is_not_stored(no_env, sandbox, memory_keyring, canary_token):
    with pytest.raises(AuthenticationError) as info:
        login(canary_token, base_url=sandbox.url)
    assert memory_keyring.stored == {} and canary_token not in str(info.value)


def test_login_says_when_the_environment_wins(sandbox, monkeypatch, memory_keyring):
    monkeypatch.setenv("GITBOOK_API_TOKEN", "gb_other")
    result = login(sandbox.token, base_url=sandbox.url)
    assert result.shadowed_by == "GITBOOK_API_TOKEN" and "is used before the keyring" in str(result)


def test_login_without_a_keyring_sends_nothing(no_env, sandbox, unusable_keyring, canary_token):
    sandbox.add_token(canary_token)
    with pytest.raises(KeyringUnavailableError) as info:
        login(canary_token, base_url=sandbox.url)
    message = str(info.value)
    assert "GITBOOK_API_TOKEN" in message and canary_token not in message
    if unusable_keyring == "broken":  # it looked usable: checked, then refused to store
        assert "refused to store" in message and sandbox.request_count == 1
    else:
        assert "No keyring is available" in message and sandbox.request_count == 0
    assert logout(base_url=sandbox.url) is False  # nothing was stored: nothing to remove


def test_ad_network_login_and_logout(no_env, memory_keyring, ad_network, canary_token):
    ad_network.reset()
    ad_network.add_key(canary_token)
    with pytest.raises(InvalidAPIKeyError):
        login_adnetwork("an_wrong_key_1234567890", ad_network.network, scheme="http")
    assert memory_keyring.stored == {}
    result = login_adnetwork(canary_token, ad_network.network, scheme="http")
    assert result.account == ad_network.network and canary_token not in str(result)
    assert memory_keyring.values() == [canary_token]
    assert AdNetworkClient(ad_network.network, scheme="http").api_key_source == "keyring"
    assert logout_adnetwork(ad_network.network, scheme="http") is True
    assert memory_keyring.stored == {}
