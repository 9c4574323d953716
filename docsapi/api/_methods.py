"""Generated methods: one Python function per operation, sending through the client's transport.

A generated method checks its arguments against the description
(:mod:`docsapi.api._validate_args`), sends through the same
:class:`~docsapi.wire.transport.Transport`
as the hand-written groups (one retry policy, one error tree), and shapes the answer
(:mod:`docsapi.api._results`): a DataFrame for a list, following every page of a paginated one,
an :class:`~docsapi.api._results.ApiObject` for an object, None for no content.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from docsapi.api._docstring import docstring, returns_text
from docsapi.api._operation import NOT_GIVEN, Operation
from docsapi.api._results import Column, ListShape, frame, item_columns, list_shape, wrap
from docsapi.api._spec import Schema, reader
from docsapi.api._validate_args import prepare
from docsapi.errors import DocsAPIError
from docsapi.wire.transport import Transport

__all__ = ["Caller", "StreamingNotSupportedError", "build_method"]

#: Items asked per page when the caller does not choose a page size.
PAGE_SIZE = 100


class StreamingNotSupportedError(DocsAPIError, NotImplementedError):
    """The operation answers with server-sent events, which docsapi does not read.

    Raised before anything is sent, so a call never hangs waiting for a stream.
    """


@dataclass(frozen=True)
class _Answer:
    """How to shape the answers of one operation."""

    shape: ListShape | None
    columns: tuple[Column, ...]
    paginated: bool
    page_size: int | None


def _page_size(operation: Operation) -> int | None:
    limit = next(
        (p for p in operation.parameters if p.location == "query" and p.name == "limit"), None
    )
    if limit is None:
        return None
    schema = reader().resolve(limit.schema)
    maximum = schema.get("maximum")
    return min(PAGE_SIZE, int(maximum)) if isinstance(maximum, int | float) else PAGE_SIZE


def _answer(operation: Operation) -> _Answer:
    shape = list_shape(operation.success_schema)
    if shape is None:
        return _Answer(None, (), False, None)
    paginated = shape.kind == "pages" and operation.method == "GET"
    return _Answer(
        shape,
        item_columns(shape.item_schema),
        paginated,
        _page_size(operation) if paginated else None,
    )


class Caller:
    """Calls operations for one client: its transport, and which deprecations it has shown.

    Parameters
    ----------
    transport : Transport
        The client's wire layer.
    """

    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        self._answers: dict[str, _Answer] = {}
        self._warned: set[str] = set()
        self._lock = threading.Lock()

    def answer(self, operation: Operation) -> _Answer:
        """The (cached) answer shape of ``operation``."""
        answer = self._answers.get(operation.operation_id)
        if answer is None:
            answer = self._answers.setdefault(operation.operation_id, _answer(operation))
        return answer

    def _warn_deprecated(self, operation: Operation) -> None:
        with self._lock:
            if operation.operation_id in self._warned:
                return
            self._warned.add(operation.operation_id)
        warnings.warn(
            f"{operation.python_name} ({operation.method} {operation.path}) is deprecated in "
            "the API description; it may stop working. Look for a replacement in the same group.",
            DeprecationWarning,
            stacklevel=4,
        )

    def __call__(self, operation: Operation, args: tuple[Any, ...], kwargs: Mapping[str, Any]):
        if operation.streaming:
            raise StreamingNotSupportedError(
                f"{operation.python_name} ({operation.method} {operation.path}) answers with "
                "server-sent events (text/event-stream), which docsapi does not read; nothing "
                "was sent. Use a streaming HTTP client for this operation."
            )
        if operation.deprecated:
            self._warn_deprecated(operation)
        call = prepare(operation, args, kwargs)
        answer = self.answer(operation)
        if answer.paginated and answer.shape is not None:
            params = dict(call.params)
            if answer.page_size is not None:
                params.setdefault("limit", answer.page_size)
            items = list(
                self._transport.paginate(call.path, params=params, headers=call.headers or None)
            )
            return frame(items, answer.columns)
        response = self._transport.request(
            call.method,
            call.path,
            params=call.params or None,
            json=None if call.body is NOT_GIVEN else call.body,
            headers=call.headers or None,
        )
        return self._shape(operation, answer, response.status, response.data)

    @staticmethod
    def _shape(operation: Operation, answer: _Answer, status: int, data: Any) -> Any:
        if data is None:
            return None
        schema: Schema | None = operation.responses.get(status, operation.success_schema)
        if answer.shape is not None and schema is not None:
            if answer.shape.kind == "array" and isinstance(data, list):
                return frame(data, answer.columns)
            if isinstance(data, Mapping) and isinstance(data.get("items"), list):
                return frame(data["items"], answer.columns)
        return wrap(data, schema)


def build_method(operation: Operation, caller: Callable[..., Any], group: str, aliases=()):
    """A function with the operation's name, signature and docstring that calls ``caller``.

    Parameters
    ----------
    operation : Operation
        The operation.
    caller : callable
        ``caller(operation, args, kwargs)`` does the work (a :class:`Caller`).
    group : str
        The ``client.api`` attribute the method is read from.
    aliases : sequence of str
        Other groups offering it (mentioned in the docstring).
    """

    def method(*args: Any, **kwargs: Any) -> Any:
        return caller(operation, args, kwargs)

    method.__name__ = operation.python_name
    method.__qualname__ = f"{group}.{operation.python_name}"
    method.__module__ = "docsapi.api"
    method.__doc__ = docstring(operation, group, aliases)
    returns = returns_text(operation)[0]
    method.__signature__ = operation.signature(reader()).replace(  # type: ignore[attr-defined]
        return_annotation=returns
    )
    method.operation = operation  # type: ignore[attr-defined]
    return method
