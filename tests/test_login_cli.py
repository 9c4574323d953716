"""``docsapi login`` and ``docsapi logout``: the token is typed at a getpass prompt (fed here by
replacing ``getpass.getpass``), checked with the sandbox, kept in the (in-memory) keyring."""

from __future__ import annotations

import getpass
import logging

import keyring
import pytest
from keyring.backends import fail, null

from docsapi.cli import main
from docsapi.client import token_service
from docsapi.sandbox.adnetwork import AdNetworkSandbox


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    monkeypatch.delenv("GITBOOK_API_TOKEN", raising=False)
    monkeypatch.delenv("ADNETWORK_API_KEY", raising=False)


@pytest.fixture
def typed(monkeypatch):
    """What the user types at the prompt; the prompts shown are kept in ``typed.prompts``."""

    class Typed:
        value = ""
        prompts: list[str] = []

    def fake_getpass(prompt: str = "Password: ", stream=None) -> str:
        Typed.prompts.append(prompt)
        return Typed.value

    Typed.prompts = []
    monkeypatch.setattr(getpass, "getpass", fake_getpass)
    return Typed


def test_login_stores_a_checked_token_and_never_prints_it(
    sandbox, typed, memory_keyring, canary_token, capsys, caplog
):
    caplog.set_level(logging.DEBUG)
    sandbox.add_token(canary_token)
    typed.value = canary_token
    assert main(["login", "--base-url", sandbox.url]) == 0
    out, err = capsys.readouterr()
    assert typed.prompts == [f"API token for {sandbox.url} (not shown): "]
    assert "Logged in as" in out and token_service(sandbox.url) in out
    assert memory_keyring.values() == [canary_token]
    for text in (out, err, caplog.text):
        assert canary_token not in text
    assert main(["logout", "--base-url", sandbox.url]) == 0
    assert "Logged out" in capsys.readouterr().out and memory_keyring.stored == {}
    assert main(["logout", "--base-url", sandbox.url]) == 0
    assert "No credential was stored" in capsys.readouterr().out


def test_a_refused_token_exits_1_and_stores_nothing(
    sandbox, typed, memory_keyring, canary_token, capsys
):
    typed.value = canary_token  # not a sandbox token
    assert main(["login", "--base-url", sandbox.url]) == 1
    out, err = capsys.readouterr()
    assert err.startswith("docsapi: error: not logged in:") and "401" in err
    assert memory_keyring.stored == {} and canary_token not in out + err


@pytest.mark.parametrize("typed_value", ["", "   ", "gb_line\nbreak"])
def test_an_empty_or_malformed_token_is_a_usage_error(sandbox, typed, typed_value, capsys):
    typed.value = typed_value
    assert main(["login", "--base-url", sandbox.url]) == 2
    err = capsys.readouterr().err
    assert "token" in err and "gb_line" not in err
    assert sandbox.request_count == 0


@pytest.mark.parametrize("backend", [fail.Keyring, null.Keyring])
def test_without_a_keyring_login_says_so_before_prompting(sandbox, typed, backend, capsys):
    keyring.set_keyring(backend())
    assert main(["login", "--base-url", sandbox.url]) == 2
    err = capsys.readouterr().err
    assert "No keyring is available on this system" in err and "GITBOOK_API_TOKEN" in err
    assert typed.prompts == [] and sandbox.request_count == 0
    assert main(["logout", "--base-url", sandbox.url]) == 0
    assert "no keyring is available" in capsys.readouterr().out


def test_login_to_an_ad_network(typed, memory_keyring, canary_token, capsys):
    with AdNetworkSandbox(seed=3, affiliates=5) as ads:
        ads.add_key(canary_token)
        typed.value = canary_token
        assert main(["login", "--adnetwork", ads.network, "--scheme", "http"]) == 0
        out = capsys.readouterr().out
        assert typed.prompts == [f"API key for http://{ads.network} (not shown): "]
        assert f"Logged in as {ads.network}" in out and canary_token not in out
        assert memory_keyring.values() == [canary_token]
        typed.value = "an_not_a_key_0000000000"
        assert main(["login", "--adnetwork", ads.network, "--scheme", "http"]) == 1
        assert memory_keyring.values() == [canary_token]  # the good key stays
        assert main(["logout", "--adnetwork", ads.network, "--scheme", "http"]) == 0
        assert memory_keyring.stored == {}
