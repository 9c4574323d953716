"""Log in and out: check a token (or an ad network's key) with the API, then keep it in the keyring.

``docsapi login`` (the terminal) and ``docsapi.login()`` (a notebook) both call
:func:`login` / :func:`login_adnetwork`; ``docsapi logout`` calls :func:`logout` /
:func:`logout_adnetwork`. A credential is stored only after the API accepted it, under a
keyring service named after the API's address (so a sandbox token and a real one, or two
networks' keys, are kept apart); the clients then find it on their own::

    docsapi.DocsClient()                       # token=from keyring
    AdNetworkClient("demo.example.com")        # api_key=from keyring

The environment variables (``GITBOOK_API_TOKEN``, ``ADNETWORK_API_KEY``) are looked at
before the keyring: when one is set, it wins, and the result says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from docsapi.adnetwork._checks import check_network, check_scheme
from docsapi.adnetwork.client import API_KEY_ENV, AdNetworkClient, api_key_service
from docsapi.client import API_VERSION_SUFFIX, TOKEN_ENV_VAR, DocsClient, token_service
from docsapi.core.checks import check_base_url
from docsapi.core.config import DEFAULT_BASE_URL
from docsapi.core.secret import Secret
from docsapi.credentials.keyring_store import (
    KeyringUnavailableError,
    backend_name,
    forget,
    keyring_problem,
    store,
)

__all__ = [
    "KeyringUnavailableError",
    "LoginResult",
    "keyring_problem",
    "login",
    "login_adnetwork",
    "logout",
    "logout_adnetwork",
]


@dataclass(frozen=True)
class LoginResult:
    """What :func:`login` stored, and for whom; its text is what to tell the user.

    Attributes
    ----------
    service : str
        The keyring service the credential is stored under.
    account : str
        Who the credential belongs to (the user's name and email, or the network).
    backend : str
        The keyring backend that holds it.
    shadowed_by : str or None
        An environment variable that is set and is used before the keyring.
    """

    service: str
    account: str
    backend: str
    shadowed_by: str | None = None

    def __str__(self) -> str:
        text = (
            f"Logged in as {self.account}. The credential is stored in the keyring "
            f"({self.backend}) under {self.service!r}."
        )
        if self.shadowed_by:
            text += (
                f" Note: {self.shadowed_by} is set and is used before the keyring; unset it "
                "to use the stored credential."
            )
        return text


def _shadowing(env_var: str) -> str | None:
    return env_var if os.environ.get(env_var, "").strip() else None


def _refuse_without_keyring(env_var: str) -> None:
    problem = keyring_problem(env_var)
    if problem is not None:
        raise KeyringUnavailableError(problem)


def login(token: str, *, base_url: str = DEFAULT_BASE_URL) -> LoginResult:
    """Check ``token`` with ``GET /user`` at ``base_url``, then store it in the keyring.

    Parameters
    ----------
    token : str
        The API token (never repeated in messages).
    base_url : str
        The API's address; the token is stored for this address only.

    Returns
    -------
    LoginResult

    Raises
    ------
    KeyringUnavailableError
        No usable keyring: nothing was sent or stored (set ``GITBOOK_API_TOKEN`` instead).
    ValidationError
        A value that cannot be a token, or a bad ``base_url``; nothing was sent.
    AuthenticationError
        The API refused the token; nothing was stored.
    DocsAPIError
        The API could not be reached or failed; nothing was stored.

    Examples
    --------
    >>> from docsapi.credentials.logins import login
    >>> print(login(getpass.getpass("Token: ")))  # a real token, the keyring  # doctest: +SKIP
    Logged in as Ada Lovelace <ada@example.com>. The credential is stored in the keyring ...
    """
    secret = Secret(token, "token")
    token = ""  # from here on only the wrapper holds it
    _refuse_without_keyring(TOKEN_ENV_VAR)
    with DocsClient(token=secret.reveal(), base_url=base_url) as client:
        user = client.users.me()
        service = token_service(client.base_url)
    store(service, secret.reveal(), env_var=TOKEN_ENV_VAR)
    name = user.display_name or user.id or "this token's user"
    account = f"{name} <{user.email}>" if user.email else name
    return LoginResult(service, account, backend_name(), _shadowing(TOKEN_ENV_VAR))


def logout(*, base_url: str = DEFAULT_BASE_URL) -> bool:
    """Remove the token stored for ``base_url``; True if there was one.

    Without a usable keyring nothing can have been stored: False.

    Raises
    ------
    ValidationError
        A bad ``base_url``.

    Examples
    --------
    >>> from docsapi.credentials.logins import logout
    >>> logout()  # changes the system keyring  # doctest: +SKIP
    True
    """
    return forget(token_service(check_base_url(base_url, suffix=API_VERSION_SUFFIX)))


def login_adnetwork(api_key: str, network: str, *, scheme: str = "https") -> LoginResult:
    """Check an ad network's API key with one small request, then store it in the keyring.

    Parameters
    ----------
    api_key : str
        The key from the network's admin settings (never repeated in messages).
    network : str
        The network's host (and port), e.g. ``"demo.example.com"``.
    scheme : {"https", "http"}
        How the network is reached.

    Returns
    -------
    LoginResult

    Raises
    ------
    KeyringUnavailableError
        No usable keyring: nothing was sent or stored (set ``ADNETWORK_API_KEY`` instead).
    ValidationError
        A value that cannot be a key, or a bad network or scheme; nothing was sent.
    AdNetworkError
        The network refused the key (e.g. ``InvalidAPIKeyError``, ``IPNotWhitelistedError``);
        nothing was stored.

    Examples
    --------
    >>> print(login_adnetwork(getpass.getpass(), "demo.example.com"))  # real key  # doctest: +SKIP
    Logged in as demo.example.com. The credential is stored in the keyring ...
    """
    secret = Secret(api_key, "api_key")
    api_key = ""
    _refuse_without_keyring(API_KEY_ENV)
    with AdNetworkClient(network, api_key=secret.reveal(), scheme=scheme) as client:
        client.get("affiliate", params={"limit": 1})
        service = api_key_service(client.network, client.scheme)
        account = client.network
    store(service, secret.reveal(), env_var=API_KEY_ENV)
    return LoginResult(service, account, backend_name(), _shadowing(API_KEY_ENV))


def logout_adnetwork(network: str, *, scheme: str = "https") -> bool:
    """Remove the key stored for ``network``; True if there was one.

    Raises
    ------
    ValidationError
        A bad network or scheme.

    Examples
    --------
    >>> logout_adnetwork("demo.example.com")  # changes the system keyring  # doctest: +SKIP
    False
    """
    return forget(api_key_service(check_network(network), check_scheme(scheme)))
