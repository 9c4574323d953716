"""The secrets a site hands out: share-link keys and its visitor-authentication private key.

Whoever holds either reads the site: both are masked wherever docsapi shows them, and
registered with the log redaction (:mod:`docsapi.core.redact`) as soon as they are read, so a
log line or an error message that happens to carry one shows ``********``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Self

from docsapi.core.redact import register_secret
from docsapi.core.secret import SiteSecret
from docsapi.data.columns import text
from docsapi.data.fields import share_keys
from docsapi.models import Model

__all__ = ["SitePublishingAuth", "SiteSecret", "conceal_share_keys", "share_keys"]


#: Shorter values are not keys; registering one would mask it in every log line it occurs in.
MIN_KEY_CHARS = 8


def _conceal(value: str) -> SiteSecret:
    secret = SiteSecret(value)
    if len(value) >= MIN_KEY_CHARS:
        register_secret(secret)
    return secret


def conceal_share_keys(links: Iterable[Mapping[str, Any]]) -> None:
    """Register the key of each share link (in ``urls.published``) with the log redaction."""
    for link in links:
        urls = link.get("urls")
        if isinstance(urls, Mapping):
            for key in share_keys(urls.get("published")):
                _conceal(key)


@dataclass(kw_only=True, repr=False)
class SitePublishingAuth(Model):
    """How a site's visitors authenticate (``visibility="visitor-auth"``).

    ``private_key`` signs the visitors' tokens: whoever holds it reads the site. It is a
    :class:`SiteSecret` (masked in ``repr``, ``str`` and the notebook table); read it
    with :meth:`reveal_private_key`. ``.raw`` is the answer without it.

    Examples
    --------
    >>> auth = SitePublishingAuth.from_api({"backend": "custom", "privateKey": "k"})
    >>> auth
    SitePublishingAuth(backend='custom', private_key=SiteSecret('********'))
    >>> auth.reveal_private_key(), "privateKey" in auth.raw
    ('k', False)
    """

    _summary = ("backend", "integration", "fallback_url", "logout_url", "private_key")

    backend: str | None = text(doc="custom or integration")
    integration: str | None = text(doc="the integration authenticating visitors")
    fallback_url: str | None = text("fallbackURL")
    logout_url: str | None = text("logoutURL")
    private_key: SiteSecret | None = None

    @classmethod
    def from_api(cls, data: Mapping[str, Any]) -> Self:
        key = data.get("privateKey") if isinstance(data, Mapping) else None
        public = {k: v for k, v in data.items() if k != "privateKey"} if key else data
        auth = super().from_api(public)
        auth.private_key = _conceal(key) if isinstance(key, str) and key else None
        return auth

    def reveal_private_key(self) -> str | None:
        """The private key itself, for the one place that signs visitors' tokens."""
        return None if self.private_key is None else self.private_key.reveal()
