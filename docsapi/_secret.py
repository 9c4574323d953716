"""A wrapper that keeps credentials out of reprs, logs and tracebacks."""

from __future__ import annotations

__all__ = ["Secret"]


class Secret:
    """Hold a credential; its ``repr`` and ``str`` never show it.

    Parameters
    ----------
    value : str
        The credential. Read it back with :meth:`reveal`, only where it is sent.

    Examples
    --------
    >>> s = Secret("gb_api_abc")
    >>> s
    Secret('********')
    >>> s.reveal()
    'gb_api_abc'
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError("a token must be a string")
        if not value.strip():
            raise ValueError("a token must not be empty")
        self._value = value.strip()

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
