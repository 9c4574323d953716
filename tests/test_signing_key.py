"""The signing key made by default: once per user, in the keyring or else a file only the
user reads, reused, agreed on by processes that make it at once, and never shown."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import keyring
import pytest
from keyring.backends import null

from docsapi.core.integrity import key_id
from docsapi.credentials.signing import (
    KEY_FILE_NAME,
    NO_KEY,
    SIGNING_KEY_VARIABLE,
    SIGNING_SERVICE,
    signing_key,
    writing_key,
)
from docsapi.errors import ValidationError


@pytest.fixture
def config(tmp_path, monkeypatch):
    folder = tmp_path / "config"
    monkeypatch.setenv("DOCSAPI_CONFIG_DIR", str(folder))
    monkeypatch.delenv(SIGNING_KEY_VARIABLE, raising=False)
    return folder


def test_the_key_is_made_in_the_keyring_once_and_reused(config, memory_keyring):
    assert signing_key() is None
    key = writing_key()
    assert key is not None and len(key.reveal()) == 64
    assert memory_keyring.stored == {(SIGNING_SERVICE, "credential"): key.reveal()}
    assert not (config / KEY_FILE_NAME).exists()
    assert writing_key().reveal() == key.reveal() == signing_key().reveal()
    assert key.reveal() not in repr(key)


def test_without_a_keyring_the_key_is_a_file_only_the_user_reads(config):
    keyring.set_keyring(null.Keyring())
    key = writing_key()
    path = config / KEY_FILE_NAME
    assert path.read_text().strip() == key.reveal()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(config.stat().st_mode) == 0o700
    assert writing_key().reveal() == key.reveal()


def test_a_key_file_others_can_read_is_refused_without_showing_it(config):
    keyring.set_keyring(null.Keyring())
    key = writing_key().reveal()
    (config / KEY_FILE_NAME).chmod(0o644)
    with pytest.raises(ValidationError) as refused:
        signing_key()
    assert "chmod 600" in str(refused.value) and key not in str(refused.value)


def test_none_means_no_key_and_none_is_made(config, monkeypatch, memory_keyring):
    monkeypatch.setenv(SIGNING_KEY_VARIABLE, NO_KEY)
    assert writing_key() is None and signing_key() is None
    assert memory_keyring.stored == {} and not config.exists()


def test_processes_making_the_key_at_once_agree_on_one(config):
    environment = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "DOCSAPI_CONFIG_DIR": str(config),
    }
    environment.pop(SIGNING_KEY_VARIABLE, None)
    code = (
        "from docsapi.core.integrity import key_id; "
        "from docsapi.credentials.signing import writing_key; print(key_id(writing_key()))"
    )
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", code], env=environment, stdout=subprocess.PIPE, text=True
        )
        for _ in range(6)
    ]
    fingerprints = {process.communicate(timeout=120)[0].strip() for process in processes}
    assert all(process.returncode == 0 for process in processes)
    keyring.set_keyring(null.Keyring())
    assert fingerprints == {key_id(signing_key())}
