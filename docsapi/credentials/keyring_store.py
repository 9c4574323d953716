"""Credentials kept in the system's keyring (the ``keyring`` package), one entry per API address.

Each API address has its own keyring *service*, so a sandbox token and a real token (or two
ad networks' keys) never overwrite each other: ``docsapi:https://api.gitbook.com/v1`` for the
documentation platform, ``docsapi-adnetwork:https://demo.example.com/api`` for a network.

Reading never fails: without a usable keyring (keyring's ``fail`` or ``null`` backends, a
locked or broken one) :func:`read_stored` answers None and the client goes on without a
credential from there. Storing says clearly why it cannot, and what to do instead.
``keyring`` is imported on first use.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from docsapi.errors import DocsAPIError

__all__ = [
    "ADNETWORK_SERVICE",
    "DOCS_SERVICE",
    "KeyringUnavailableError",
    "backend_name",
    "forget",
    "keyring_problem",
    "read_stored",
    "service_name",
    "store",
]

logger = logging.getLogger("docsapi.keyring")

#: Service-name prefixes: the documentation platform and the ad networks.
DOCS_SERVICE = "docsapi"
ADNETWORK_SERVICE = "docsapi-adnetwork"
#: The keyring's "user name" under a service: one credential per API address.
_USERNAME = "credential"


class KeyringUnavailableError(DocsAPIError):
    """No keyring can store the credential on this system (the message says what to do)."""


def service_name(prefix: str, base_url: str) -> str:
    """The keyring service of an API address (scheme and host lowercased, no trailing slash).

    Examples
    --------
    >>> service_name(DOCS_SERVICE, "https://API.gitbook.com/v1/")
    'docsapi:https://api.gitbook.com/v1'
    """
    parts = urlsplit(base_url.strip())
    address = urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, "", ""))
    return f"{prefix}:{address.rstrip('/')}"


def _backend() -> Any:
    import keyring

    return keyring.get_keyring()


def backend_name() -> str:
    """The keyring backend in use, e.g. ``keyring.backends.SecretService.Keyring``."""
    backend = _backend()
    return f"{type(backend).__module__}.{type(backend).__qualname__}"


def keyring_problem(env_var: str = "GITBOOK_API_TOKEN", *, action: str = "store") -> str | None:
    """Why no credential can be stored in the keyring, or None when one can.

    Parameters
    ----------
    env_var : str
        The environment variable to suggest instead.
    action : str
        What cannot be done, for the message ("store", "remove").

    Examples
    --------
    >>> import keyring, keyring.backends.fail
    >>> previous = keyring.get_keyring()
    >>> keyring.set_keyring(keyring.backends.fail.Keyring())
    >>> keyring_problem().split(",")[0]
    'No keyring is available on this system (keyring backend: keyring.backends.fail.Keyring)'
    >>> keyring.set_keyring(previous)
    """
    from keyring.backends import chainer, fail, null

    backend = _backend()
    unusable = isinstance(backend, fail.Keyring | null.Keyring) or (
        isinstance(backend, chainer.ChainerBackend) and not backend.backends
    )
    if not unusable:
        return None
    return (
        f"No keyring is available on this system (keyring backend: {backend_name()}), so "
        f"docsapi cannot {action} the credential. Set the {env_var} environment variable "
        "instead, or install and configure a keyring backend (see "
        "https://pypi.org/project/keyring/)."
    )


def read_stored(service: str) -> str | None:
    """The credential stored under ``service``, or None (also when no keyring is usable).

    Never raises: a missing, locked or broken keyring reads as "nothing stored".

    Examples
    --------
    >>> read_stored("docsapi:https://nowhere.invalid/v1") is None
    True
    """
    try:
        import keyring

        value = keyring.get_password(service, _USERNAME)
    except Exception as exc:  # any backend failure means "nothing usable stored"
        logger.debug("keyring not read for %s: %s", service, type(exc).__name__)
        return None
    return value if isinstance(value, str) and value.strip() else None


def store(service: str, value: str, *, env_var: str = "GITBOOK_API_TOKEN") -> None:
    """Store ``value`` under ``service``, replacing what was there.

    Raises
    ------
    KeyringUnavailableError
        No usable keyring, or the backend refused (the message never holds the value).
    """
    import keyring
    from keyring.errors import KeyringError

    problem = keyring_problem(env_var)
    if problem is not None:
        raise KeyringUnavailableError(problem)
    failure = None
    try:
        keyring.set_password(service, _USERNAME, value)
    except KeyringError as exc:
        failure = f"the keyring ({backend_name()}) refused to store it: {type(exc).__name__}"
    finally:
        value = ""  # this frame keeps no copy
    if failure is not None:
        raise KeyringUnavailableError(f"{failure}. Set {env_var} instead.")


def forget(service: str) -> bool:
    """Delete what is stored under ``service``; True if something was, False otherwise.

    Without a usable keyring nothing can be stored, so nothing is deleted (False).

    Raises
    ------
    KeyringUnavailableError
        The backend refused to delete an entry it holds.
    """
    import keyring
    from keyring.errors import KeyringError, PasswordDeleteError

    if keyring_problem() is not None or read_stored(service) is None:
        return False
    try:
        keyring.delete_password(service, _USERNAME)
    except PasswordDeleteError:
        return False
    except KeyringError as exc:
        raise KeyringUnavailableError(
            f"the keyring ({backend_name()}) refused to delete it: {type(exc).__name__}"
        ) from None
    return True
