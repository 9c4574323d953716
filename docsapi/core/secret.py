"""A wrapper that keeps credentials out of reprs, logs and tracebacks, and the lookup of one."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from docsapi.errors import ValidationError

__all__ = ["Secret", "SiteSecret", "credential_problem", "describe_sources", "find_credential"]

_MAX_CREDENTIAL = 4096


def credential_problem(value: object) -> str | None:
    """Why ``value`` cannot be sent as a credential, or None when it can.

    The answer never repeats the value. A credential travels in an HTTP header, so it
    must be Latin-1 text without control characters.

    Examples
    --------
    >>> credential_problem("gb_api_abc") is None
    True
    >>> credential_problem("gb\\napi")
    'must not contain control characters such as line breaks (the value is not shown)'
    """
    if not isinstance(value, str):
        return f"must be a str, got {type(value).__name__}"
    text = value.strip()
    if not text:
        return "must not be empty"
    if len(text) > _MAX_CREDENTIAL:
        return f"must have at most {_MAX_CREDENTIAL} characters (the value is not shown)"
    if any(ord(char) > 0xFF for char in text):
        return (
            "must hold only Latin-1 characters, as HTTP headers do; check that it was "
            "copied whole (the value is not shown)"
        )
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in text):
        return "must not contain control characters such as line breaks (the value is not shown)"
    return None


class Secret:
    """Hold a credential; its ``repr`` and ``str`` never show it.

    Parameters
    ----------
    value : str
        The credential (surrounding whitespace is dropped). Read it back with
        :meth:`reveal`, only where it is sent.
    argument : str
        The argument's name, used in the error message.
    source : str, optional
        Where the credential was found (``"argument"``, an environment variable's name,
        ``"keyring"``), for reprs that say so without showing it.

    Raises
    ------
    ValidationError
        The value cannot be sent in a header (see :func:`credential_problem`); the
        message never repeats it.

    Examples
    --------
    >>> s = Secret("gb_api_abc")
    >>> s
    Secret('********')
    >>> s.reveal()
    'gb_api_abc'
    """

    __slots__ = ("_value", "source")

    def __init__(self, value: str, argument: str = "token", source: str | None = None) -> None:
        problem = credential_problem(value)
        if problem is not None:
            value = ""  # keep the refused value out of this frame's locals
            raise ValidationError(argument, problem)
        self._value = value.strip()
        self.source = source

    def reveal(self) -> str:
        """Return the credential itself, for the one place that sends it."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('********')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __reduce__(self):
        raise TypeError("a Secret cannot be pickled")


def find_credential(
    value: str | None,
    *,
    argument: str,
    env_var: str,
    stored: Callable[[], str | None] | None = None,
    stored_name: str = "the keyring",
) -> Secret | None:
    """The credential from an argument, else an environment variable, else a store; or None.

    Parameters
    ----------
    value : str or None
        What the caller passed; None means "look elsewhere".
    argument : str
        The argument's name, for error messages.
    env_var : str
        The environment variable read when ``value`` is None (blank counts as unset).
    stored : callable, optional
        Reads the credential kept for this API (the keyring), or None; called only when
        the argument and the variable hold none. It must not raise.
    stored_name : str
        What ``stored`` reads, for error messages.

    Returns
    -------
    Secret or None
        Its ``source`` is ``"argument"``, ``env_var``, or ``"keyring"``.

    Raises
    ------
    ValidationError
        A value that cannot be a credential (never repeated in the message).

    Examples
    --------
    >>> secret = find_credential("k-1", argument="api_key", env_var="NO_SUCH_VARIABLE")
    >>> secret, secret.source
    (Secret('********'), 'argument')
    >>> find_credential(None, argument="api_key", env_var="NO_SUCH_VARIABLE",
    ...                 stored=lambda: "k-2").source
    'keyring'
    """
    source = "argument"
    if value is None:
        value = os.environ.get(env_var)
        source, argument = env_var, f"the {env_var} environment variable"
        if value is None or not value.strip():
            value = stored() if stored is not None else None
            source, argument = "keyring", f"the credential stored in {stored_name}"
        if value is None or not value.strip():
            return None
    try:
        return Secret(value, argument, source=source)
    finally:
        value = None  # the frame of a refusal keeps no copy


def describe_sources(sources: Sequence[str]) -> str:
    """Join credential sources for a message: ``"a, then b"``.

    Examples
    --------
    >>> describe_sources(["the token= argument", "the GITBOOK_API_TOKEN environment variable"])
    'the token= argument, then the GITBOOK_API_TOKEN environment variable'
    """
    return ", then ".join(sources)


class SiteSecret(Secret):
    """A secret a site hands out (a share-link key, a visitor-authentication private key):
    masked in ``repr`` and ``str``, read with :meth:`reveal`.

    Unlike a token, it never travels in a header, so any text is accepted (a PEM key
    spans several lines).

    Examples
    --------
    >>> SiteSecret("-----BEGIN KEY-----\\nabc\\n-----END KEY-----")
    SiteSecret('********')
    """

    __slots__ = ()

    def __init__(self, value: str) -> None:
        self._value = value
        self.source = "site"

    def __repr__(self) -> str:
        return "SiteSecret('********')"

    __str__ = __repr__
