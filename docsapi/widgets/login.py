"""LoginForm and :func:`login`: paste a token into a password box, check it, keep it in the keyring.

The token is never shown, printed or kept by the form: the box is emptied as soon as the
button is pressed (so neither the widget's state nor a saved notebook holds it), the token
is checked with the API and stored in the keyring (see :mod:`docsapi.credentials.logins`), and
only who it belongs to is shown. Nothing is sent while the form is built.
"""

from __future__ import annotations

from html import escape
from typing import Any

import ipywidgets as widgets

from docsapi.adnetwork._checks import check_network, check_scheme
from docsapi.adnetwork.client import API_KEY_ENV
from docsapi.client import API_VERSION_SUFFIX, TOKEN_ENV_VAR
from docsapi.core.checks import check_base_url
from docsapi.core.config import DEFAULT_BASE_URL
from docsapi.credentials import logins as credentials
from docsapi.credentials.keyring_store import keyring_problem
from docsapi.errors import DocsAPIError
from docsapi.widgets._base import LABEL_STYLE, StatusMessage, describe_error

__all__ = ["LoginForm", "login"]


class LoginForm(widgets.VBox):
    """A password box and a Log in button that store a checked credential in the keyring.

    Parameters
    ----------
    base_url : str
        The documentation platform's address (the token is stored for it alone).
    network : str, optional
        Log in to this ad network instead (its API key).
    scheme : {"https", "http"}
        How the ad network is reached.
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Attributes
    ----------
    heading_html : ipywidgets.HTML
        What the form logs in to.
    token_password : ipywidgets.Password
        Where the token (or key) is pasted; emptied when Log in is pressed.
    login_button : ipywidgets.Button
        Checks the credential with the API and stores it; disabled without a keyring.
    status_output : ipywidgets.Output
        The outcome: who the credential belongs to, or what went wrong.
    status : str
        The last status line, as text.
    result : LoginResult or None
        What the last successful login stored.

    Examples
    --------
    >>> form = LoginForm("http://127.0.0.1:8765/v1")
    >>> form.token_password.value, form.login_button.description
    ('', 'Log in')
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        *,
        network: str | None = None,
        scheme: str = "https",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.network = None if network is None else check_network(network)
        self.scheme = check_scheme(scheme)
        self.base_url = check_base_url(base_url, suffix=API_VERSION_SUFFIX)
        self.result: credentials.LoginResult | None = None
        self.status = ""
        self._build()
        self._wire()
        self.children = (
            self.heading_html,
            widgets.HBox((self.token_password, self.login_button)),
            self.status_output,
        )
        problem = keyring_problem(TOKEN_ENV_VAR if self.network is None else API_KEY_ENV)
        if problem is not None:
            self.login_button.disabled = True
            self._report(problem, "error")

    @property
    def _what(self) -> str:
        return "API token" if self.network is None else "API key"

    def _build(self) -> None:
        what = self._what
        target = self.base_url if self.network is None else f"{self.scheme}://{self.network}"
        self.heading_html = widgets.HTML(
            f"<b>Log in to {escape(target)}</b>: paste your {what}; it is checked with the "
            "API, then kept in your system's keyring, never in the notebook."
        )
        self.token_password = widgets.Password(
            description=what.removeprefix("API ").capitalize(),
            placeholder=f"paste your {what}",
            style=LABEL_STYLE,
            layout=widgets.Layout(width="420px"),
        )
        self.login_button = widgets.Button(
            description="Log in", button_style="primary", icon="sign-in"
        )
        self.status_output = widgets.Output()

    def _wire(self) -> None:
        self.login_button.on_click(lambda _button: self.login())

    def login(self) -> credentials.LoginResult | None:
        """Do what the Log in button does: empty the box, check the credential, store it.

        Returns
        -------
        LoginResult or None
            None when the box was empty or the API or keyring refused (the status says why).
        """
        value = self.token_password.value
        self.token_password.value = ""  # the widget's state never keeps the credential
        if not value.strip():
            self._report(f"Paste your {self._what} into the box first.", "error")
            return None
        self.login_button.disabled = True
        self._report("Checking with the API…")
        try:
            if self.network is None:
                self.result = credentials.login(value, base_url=self.base_url)
            else:
                self.result = credentials.login_adnetwork(value, self.network, scheme=self.scheme)
        except DocsAPIError as exc:
            self._report(f"Not logged in: {describe_error(exc)}", "error")
            return None
        finally:
            value = ""
            self.login_button.disabled = False
        self._report(str(self.result), "success")
        return self.result

    def _report(self, message: str, level: str = "info") -> None:
        self.status = message
        self.status_output.outputs = ()
        self.status_output.append_display_data(StatusMessage(message, level))


def login(
    base_url: str = DEFAULT_BASE_URL, *, network: str | None = None, scheme: str = "https"
) -> LoginForm:
    """Show a form that stores an API token (or an ad network's key) in the keyring.

    Afterwards ``docsapi.DocsClient(base_url=...)`` (or ``AdNetworkClient(network)``) finds
    the credential without it appearing in the notebook. Nothing is sent until Log in is
    pressed.

    Parameters
    ----------
    base_url : str
        The documentation platform's address.
    network : str, optional
        Log in to this ad network instead.
    scheme : {"https", "http"}
        How the ad network is reached.

    Returns
    -------
    LoginForm
        Evaluate it as a cell's last line to show it.

    Raises
    ------
    ValidationError
        A bad ``base_url``, ``network`` or ``scheme``.

    Examples
    --------
    >>> import docsapi
    >>> form = docsapi.login()  # a cell's last line: it shows the form
    >>> type(form).__name__
    'LoginForm'
    """
    return LoginForm(base_url, network=network, scheme=scheme)
