"""What the two clients share: building the transport, closing it, the context manager."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self

from docsapi.core.clock import SYSTEM_CLOCK, Clock
from docsapi.core.config import RetryPolicy, Timeout
from docsapi.core.secret import Secret
from docsapi.errors import ValidationError
from docsapi.wire.transport import ErrorParser, Transport, parse_platform_error

if TYPE_CHECKING:
    from docsapi.wire.cache import ResponseCache

__all__ = ["BaseClient"]


class BaseClient:
    """Base of :class:`~docsapi.client.DocsClient` and
    :class:`~docsapi.adnetwork.AdNetworkClient`.

    Subclasses look their credential up, then call :meth:`_connect` once.
    """

    _transport: Transport

    def _connect(
        self,
        base_url: str,
        *,
        credential: Secret | None,
        missing_credential: str,
        timeout: Any,
        retry: Any,
        max_retries: Any,
        max_rate_limit_wait: Any,
        session: Any,
        headers: Mapping[str, str] | None,
        clock: Clock | None,
        user_agent: str,
        auth_header: str = "Authorization",
        auth_prefix: str = "Bearer ",
        error_parser: ErrorParser = parse_platform_error,
        cache: Any = None,
    ) -> None:
        """Check the common settings and build the transport.

        Raises
        ------
        ValidationError
            A setting of the wrong type or out of range.
        """
        if retry is None:
            retry = RetryPolicy(max_retries=max_retries, max_rate_limit_wait=max_rate_limit_wait)
        elif not isinstance(retry, RetryPolicy):
            raise ValidationError("retry", f"must be a RetryPolicy, got {type(retry).__name__}")
        if clock is not None and not all(
            callable(getattr(clock, name, None)) for name in ("time", "monotonic", "sleep")
        ):
            raise ValidationError("clock", "must have time(), monotonic() and sleep(seconds)")
        cache_settings = None
        if cache is not None and cache is not False:
            from docsapi.wire.cache import CacheSettings  # loaded only for a client with a cache

            cache_settings = CacheSettings.coerce(cache)
        self._transport = Transport(
            base_url,
            credential=credential,
            timeout=Timeout.coerce(timeout),
            retry=retry,
            session=session,
            headers=headers,
            auth_header=auth_header,
            auth_prefix=auth_prefix,
            error_parser=error_parser,
            missing_credential=missing_credential,
            user_agent=user_agent,
            clock=clock or SYSTEM_CLOCK,
            cache=cache_settings,
        )

    @property
    def transport(self) -> Transport:
        """The wire layer: request counts, ``history`` of attempts, retry settings."""
        return self._transport

    @property
    def cache(self) -> ResponseCache | None:
        """The cache of GET answers (``cache=``), or None: ``.clear()``, ``.entries``,
        ``.hits``, ``.misses``, ``.path``."""
        return self._transport.cache

    @property
    def base_url(self) -> str:
        """The API's address."""
        return self._transport.base_url

    def close(self) -> None:
        """Close the client's connections and cache file (a session passed in stays open)."""
        self._transport.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
