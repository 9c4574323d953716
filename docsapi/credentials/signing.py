"""The key that signs snapshots, plans and evidence: an environment variable, else the keyring.

``DOCSAPI_SIGNING_KEY`` holds it (at least 32 characters; ``python -c "import secrets;
print(secrets.token_hex(32))"`` makes one), or the keyring entry ``docsapi-signing``
(``keyring set docsapi-signing credential``). Without either, docsapi seals what it writes
with digests alone (see :mod:`docsapi.core.integrity`). The key is masked wherever
credentials are (reprs, logs, error messages, saved texts).
"""

from __future__ import annotations

from docsapi.core.integrity import MIN_KEY_LENGTH
from docsapi.core.redact import register_secret
from docsapi.core.secret import Secret, find_credential
from docsapi.credentials.keyring_store import read_stored
from docsapi.errors import ValidationError

__all__ = ["SIGNING_KEY_VARIABLE", "SIGNING_SERVICE", "signing_key"]

#: The environment variable holding the signing key.
SIGNING_KEY_VARIABLE = "DOCSAPI_SIGNING_KEY"
#: The keyring service holding it when the variable is not set.
SIGNING_SERVICE = "docsapi-signing"


def signing_key() -> Secret | None:
    """The signing key, or None when none is set.

    Returns
    -------
    Secret or None
        Its ``source`` says where it was found (the variable's name, or ``"keyring"``).

    Raises
    ------
    ValidationError
        For a key shorter than 32 characters, or one that is not printable text (the
        message never repeats it).

    Examples
    --------
    >>> signing_key()  # reads the system keyring  # doctest: +SKIP
    Secret('********')
    """
    key = find_credential(
        None,
        argument="signing_key",
        env_var=SIGNING_KEY_VARIABLE,
        stored=lambda: read_stored(SIGNING_SERVICE),
        stored_name=f"the keyring entry {SIGNING_SERVICE}",
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
