"""Secrets in answers of ``client.api``: masked wherever they are shown, kept in ``.raw``.

The description names the fields that carry a credential (a site's ``privateKey``, tokens,
API keys, client secrets, share keys), and a share link (``"object": "share-link"``) carries
its key in ``urls.published``. :func:`conceal` returns a copy of an answer with those values
replaced: by a :class:`~docsapi.core.secret.SiteSecret` for attribute access (read it with
``.reveal()``), or by ``********`` for a table. Each value is registered with the log
redaction as it is read, so an error message or a log line that carries it is masked too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docsapi.core.redact import register_secret
from docsapi.core.secret import SiteSecret
from docsapi.data.fields import MASK, mask_share_url, share_keys

__all__ = ["SECRET_FIELDS", "conceal"]

#: Fields of the description whose value is a credential.
SECRET_FIELDS = frozenset(
    {
        "accessToken",
        "apiKey",
        "apiToken",
        "clientSecret",
        "jwtToken",
        "privateKey",
        "refreshToken",
        "secrets",
        "shareKey",
        "siteShareKey",
        "token",
        "visitorAuthToken",
    }
)
#: Shorter values are not keys; registering one would mask it in every log line it occurs in.
_MIN_KEY_CHARS = 8


def _register(value: str) -> None:
    if len(value) >= _MIN_KEY_CHARS:
        register_secret(SiteSecret(value))


def _hidden(value: Any, *, table: bool) -> Any:
    """A secret field's value, masked (every string in it registered)."""
    if isinstance(value, SiteSecret) or value is None or value == MASK:
        return value
    if isinstance(value, str):
        _register(value)
        return MASK if table else SiteSecret(value)
    if isinstance(value, Mapping):
        return {k: _hidden(v, table=table) for k, v in value.items()}
    if isinstance(value, list):
        return [_hidden(v, table=table) for v in value]
    return value


def _share_urls(urls: Any) -> Any:
    if not isinstance(urls, Mapping) or not isinstance(urls.get("published"), str):
        return urls
    for key in share_keys(urls["published"]):
        _register(key)
    return {**urls, "published": mask_share_url(urls["published"])}


def conceal(value: Any, *, table: bool = False) -> Any:
    """A copy of a JSON answer with every credential masked.

    Parameters
    ----------
    value : Any
        The JSON value.
    table : bool
        Mask with ``********`` (for a DataFrame) instead of a SiteSecret.

    Examples
    --------
    >>> conceal({"backend": "custom", "privateKey": "k3y-k3y-k3y"})
    {'backend': 'custom', 'privateKey': SiteSecret('********')}
    >>> link = {"object": "share-link", "urls": {"published": "https://d.example/?share=k"}}
    >>> conceal(link, table=True)["urls"]["published"]
    'https://d.example/?share=********'
    """
    if isinstance(value, list):
        return [conceal(v, table=table) for v in value]
    if not isinstance(value, Mapping):
        return value
    out = {
        key: _hidden(item, table=table) if key in SECRET_FIELDS else conceal(item, table=table)
        for key, item in value.items()
    }
    if out.get("object") == "share-link" and "urls" in out:
        out["urls"] = _share_urls(out["urls"])
    return out
