"""Tokens, security schemes and OAuth scopes: who may call which operation.

Sandbox tokens start with ``sbx_`` so they can never be mistaken for real ones.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from docsapi.sandbox.core._errors import ApiError

#: Every security scheme of the API.
SCHEMES = (
    "user",
    "user-internal",
    "user-staff",
    "integration",
    "integration-installation",
    "oauth",
)
#: Schemes accepted by operations that declare none of their own.
DEFAULT_SECURITY = (
    "user",
    "user-internal",
    "user-staff",
    "integration",
    "integration-installation",
)
#: Every OAuth scope the API defines.
OAUTH_SCOPES = (
    "user:read",
    "space:read",
    "space:write",
    "space:permissions:read",
    "space:permissions:write",
    "change-request:merge",
    "organization:read",
    "organization:write",
    "organization:members:read",
    "organization:members:write",
    "organization:search",
    "organization:ask",
    "site:read",
    "site:write",
    "site:publish",
    "site:permissions:read",
    "site:permissions:write",
    "site:auth:read",
    "site:auth:write",
)


@dataclass(frozen=True)
class Credential:
    """What a token stands for: scheme, OAuth scopes, acting user (None for integrations)."""

    scheme: str
    scopes: frozenset[str]
    user_id: str | None

    def __repr__(self) -> str:
        scopes = sorted(self.scopes)
        return f"Credential(scheme={self.scheme!r}, scopes={scopes!r}, user_id={self.user_id!r})"


def security(*alternatives: str) -> tuple[str, ...]:
    """Declare the accepted schemes of an operation: ``"user"``, ``"oauth:space:read"``, ...

    Examples
    --------
    >>> security("user", "oauth:space:read")
    ('user', 'oauth:space:read')
    """
    for alternative in alternatives:
        scheme = alternative.split(":", 1)[0]
        if scheme not in SCHEMES:
            raise ValueError(f"unknown security scheme {scheme!r}")
    return alternatives


def allowed(credential: Credential, accepted: Sequence[str]) -> bool:
    """True when the credential satisfies one of the accepted alternatives."""
    for alternative in accepted:
        scheme, _, scope = alternative.partition(":")
        if scheme != credential.scheme:
            continue
        if scheme != "oauth" or scope in credential.scopes:
            return True
    return False


def describe(accepted: Sequence[str]) -> str:
    """Readable list of accepted schemes for an error message."""
    parts = [
        f"an OAuth token with scope {a.split(':', 1)[1]}"
        if a.startswith("oauth:")
        else f"a {a} token"
        for a in accepted
    ]
    return ", ".join(parts[:-1]) + (" or " if len(parts) > 1 else "") + parts[-1]


class TokenRegistry:
    """The tokens the sandbox accepts.

    Parameters
    ----------
    seed
        Seeds the token values (same seed, same tokens).
    owner_id
        User behind the full-access tokens.
    other_user_id
        User behind the ``"other-user"`` token (a member with few rights).
    """

    def __init__(self, seed: int, owner_id: str, other_user_id: str) -> None:
        rng = random.Random(f"tokens:{seed}")

        def value(kind: str) -> str:
            return f"sbx_{kind}_" + "".join(rng.choice("0123456789abcdef") for _ in range(24))

        self._lock = threading.Lock()
        self.named: dict[str, str] = {
            "user": value("user"),
            "user-internal": value("internal"),
            "integration": value("integration"),
            "oauth:space:read": value("oauth"),
            "oauth:all": value("oauth"),
            "other-user": value("user"),
        }
        self._seeded: dict[str, Credential] = {
            self.named["user"]: Credential("user", frozenset(), owner_id),
            self.named["user-internal"]: Credential("user-internal", frozenset(), owner_id),
            self.named["integration"]: Credential("integration", frozenset(), None),
            self.named["oauth:space:read"]: Credential(
                "oauth", frozenset({"space:read"}), owner_id
            ),
            self.named["oauth:all"]: Credential("oauth", frozenset(OAUTH_SCOPES), owner_id),
            self.named["other-user"]: Credential("user", frozenset(), other_user_id),
        }
        self._default_user = owner_id
        self._credentials = dict(self._seeded)

    def add(
        self,
        value: str,
        *,
        scheme: str = "user",
        scopes: Iterable[str] = (),
        user_id: str | None = None,
    ) -> None:
        """Accept ``value`` as a token (for the owner unless ``user_id`` is given)."""
        if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value):
            raise ValueError("a token must be a non-empty string without spaces")
        if scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}; got {scheme!r}")
        scopes = frozenset(scopes)
        unknown = scopes - set(OAUTH_SCOPES)
        if unknown:
            raise ValueError(
                f"unknown OAuth scopes {sorted(unknown)}; known: {', '.join(OAUTH_SCOPES)}"
            )
        if scopes and scheme != "oauth":
            raise ValueError("only oauth tokens carry scopes")
        if user_id is None and scheme not in ("integration", "integration-installation"):
            user_id = self._default_user
        with self._lock:
            self._credentials[value] = Credential(scheme, scopes, user_id)

    def reset(self) -> None:
        """Forget tokens added with :meth:`add`."""
        with self._lock:
            self._credentials = dict(self._seeded)

    def authenticate(self, header: str | None) -> Credential:
        """The credential of an ``Authorization: Bearer <token>`` header.

        Raises
        ------
        ApiError
            401 when the header is missing, malformed or names an unknown token.
        """
        if not header:
            raise ApiError(
                401, "Authentication required: send an 'Authorization: Bearer <token>' header."
            )
        kind, _, token = header.strip().partition(" ")
        if kind.lower() != "bearer" or not token.strip():
            raise ApiError(401, "Malformed Authorization header: use 'Bearer <token>'.")
        with self._lock:
            credential = self._credentials.get(token.strip())
        if credential is None:
            raise ApiError(401, "Invalid or expired token: check the token you are sending.")
        return credential
