"""A keyring backend for tests: credentials kept in a dict, nothing touches the system's keyring."""

from __future__ import annotations

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    """An in-memory keyring; ``stored`` maps ``(service, username)`` to the password."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.stored: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.stored.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.stored[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.stored.pop((service, username), None) is None:
            raise PasswordDeleteError("nothing stored")

    def values(self) -> list[str]:
        """Every stored password."""
        return list(self.stored.values())
