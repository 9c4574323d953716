"""The key that signs snapshots, plans and evidence: made once per user, then reused.

Where the key comes from, in order:

1. ``DOCSAPI_SIGNING_KEY`` (at least 32 characters; ``python -c "import secrets;
   print(secrets.token_hex(32))"`` makes one). ``DOCSAPI_SIGNING_KEY=none`` says there is
   no key: what is written is sealed with digests alone, and nothing is checked against
   a key.
2. The keyring entry ``docsapi-signing``.
3. The file ``signing-key`` in the user's configuration folder (see
   :mod:`docsapi.credentials.user_folders`), readable by its owner only.

The first time docsapi writes a snapshot, a plan or evidence and finds no key
(:func:`writing_key`), it makes one (256 random bits), keeps it in the keyring, or where
there is no usable keyring in that file (created with mode 600), and logs it (``INFO`` on
the ``docsapi.signing`` logger) with its fingerprint; from then on it is found and used.
Two processes making it at once agree (the making is locked). The key is masked wherever
credentials are (reprs, logs, error messages, saved texts); only its fingerprint
(:func:`~docsapi.core.integrity.key_id`) is ever shown.

A signature is an HMAC-SHA256: it shows that a holder of this key wrote, or last sealed,
the file; it shows nothing to someone without the key (see ``docs/access-reviews.md``).
"""

from __future__ import annotations

import logging
import os
import secrets
import sys
from pathlib import Path

from docsapi.core.file_lock import lock_file
from docsapi.core.integrity import MIN_KEY_LENGTH, key_id
from docsapi.core.redact import register_secret
from docsapi.core.secret import Secret, find_credential
from docsapi.credentials.keyring_store import KeyringUnavailableError, read_stored, store
from docsapi.credentials.user_folders import config_folder
from docsapi.errors import ValidationError

__all__ = [
    "KEY_FILE_NAME",
    "NO_KEY",
    "SIGNING_KEY_VARIABLE",
    "SIGNING_SERVICE",
    "key_file",
    "signing_key",
    "writing_key",
]

logger = logging.getLogger("docsapi.signing")

#: The environment variable holding the signing key.
SIGNING_KEY_VARIABLE = "DOCSAPI_SIGNING_KEY"
#: Its value that says "no key": write unsigned, check nothing against a key.
NO_KEY = "none"
#: The keyring service holding it when the variable is not set.
SIGNING_SERVICE = "docsapi-signing"
#: The key's file in the configuration folder, where there is no usable keyring.
KEY_FILE_NAME = "signing-key"


def key_file() -> Path:
    """Where the key is kept when there is no usable keyring."""
    return config_folder() / KEY_FILE_NAME


def _read_key_file() -> str | None:
    """The key in :func:`key_file`, or None when there is none.

    Raises
    ------
    ValidationError
        When other users may read the file (the key would not be the user's alone).
    """
    path = key_file()
    try:
        with path.open(encoding="ascii") as stream:
            mode = os.fstat(stream.fileno()).st_mode
            value = stream.read(1024).strip()
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None
    if sys.platform != "win32" and mode & 0o077:
        raise ValidationError(
            "signing_key",
            f"the key file {path} can be read or written by other users: make it yours alone "
            f"(chmod 600 {path}), or remove it and docsapi makes a new key",
        )
    return value or None


def _stored() -> str | None:
    return read_stored(SIGNING_SERVICE) or _read_key_file()


def signing_key() -> Secret | None:
    """The signing key, or None when there is none (never makes one).

    Returns
    -------
    Secret or None
        Its ``source`` says where it was found (the variable's name, ``"keyring"`` for the
        keyring or the key file).

    Raises
    ------
    ValidationError
        For a key shorter than 32 characters, one that is not printable text, or a key file
        other users may read (the message never repeats the key).

    Examples
    --------
    >>> signing_key()  # reads the system keyring  # doctest: +SKIP
    Secret('********')
    """
    if os.environ.get(SIGNING_KEY_VARIABLE, "").strip().lower() == NO_KEY:
        return None
    key = find_credential(
        None,
        argument="signing_key",
        env_var=SIGNING_KEY_VARIABLE,
        stored=_stored,
        stored_name=f"the keyring entry {SIGNING_SERVICE} or {key_file()}",
    )
    if key is None:
        return None
    if len(key.reveal()) < MIN_KEY_LENGTH:
        where = key.source if key.source == "keyring" else f"the {key.source} variable"
        raise ValidationError(
            "signing_key",
            f"the key in {where} is shorter than {MIN_KEY_LENGTH} characters: make one with "
            'python -c "import secrets; print(secrets.token_hex(32))" (it is not shown)',
        )
    register_secret(key)
    return key


def writing_key() -> Secret | None:
    """The key to sign what is being written: :func:`signing_key`, made first when there is
    none (see the module); None only with ``DOCSAPI_SIGNING_KEY=none``.

    Raises
    ------
    ValidationError
        As :func:`signing_key`.
    OSError
        When there is no usable keyring and the key file cannot be written.
    """
    key = signing_key()
    if key is not None or os.environ.get(SIGNING_KEY_VARIABLE, "").strip().lower() == NO_KEY:
        return key
    folder = config_folder(create=True)
    with (folder / f"{KEY_FILE_NAME}.lock").open("a", encoding="utf-8") as lock:
        lock_file(lock, wait=True)  # two processes making the key at once agree on one
        key = signing_key()
        if key is None:
            where = _keep(secrets.token_hex(32))
            key = signing_key()
            if key is None:  # pragma: no cover - a keyring that drops what it stores
                raise OSError(f"the signing key kept in {where} cannot be read back")
            logger.info("made a signing key (fingerprint %s), kept in %s", key_id(key), where)
    return key


def _keep(value: str) -> str:
    """Keep a new key in the keyring, else in the key file; where it went, in words."""
    try:
        store(SIGNING_SERVICE, value, env_var=SIGNING_KEY_VARIABLE)
        if read_stored(SIGNING_SERVICE) == value:
            return f"the keyring entry {SIGNING_SERVICE}"
    except KeyringUnavailableError:
        pass
    path = key_file()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as stream:
        stream.write(value + "\n")
        stream.flush()
        os.fsync(stream.fileno())
    return str(path)
