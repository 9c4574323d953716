"""Requests built by client.api are valid requests of the full API description.

For every operation, hypothesis draws arguments from the description's own schemas (path,
query and header parameters, and the body, given as keywords or as ``body=``); the method is
called on a client whose session records the prepared request instead of sending it; and
openapi-core validates the recorded method, path, query, headers and body against the vendored
full description. Nothing here needs a server.
"""

from __future__ import annotations

import json
import re
import warnings
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from api_recording import BASE_URL, TOKEN, RecordingSession, canned, validate_request
from api_strategies import strategy_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from suite_scope import examples

import docsapi
from docsapi.api import StreamingNotSupportedError, catalog
from docsapi.api._results import list_shape
from docsapi.api._validate_args import _segment, schema_validator

CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
OPERATIONS = {op.operation_id: op for ops in catalog().values() for op in ops}
SHORT = settings(
    max_examples=examples(2),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def _answer_for(operation):
    """A canned success answer of the operation's own shape (empty lists end pagination)."""
    status = min(operation.responses) if operation.responses else 200
    schema = operation.responses.get(status)
    shape = list_shape(schema)
    if schema is None:
        return canned(status)
    if shape is None:
        return canned(status, {})
    return canned(status, [] if shape.kind == "array" else {"items": []})


def _one_segment(parameter, value) -> bool:
    try:
        _segment(parameter, value)
    except docsapi.ValidationError:
        return False
    return True


def _valid(parameter):
    validator = schema_validator(parameter.pointer)
    values = strategy_of(parameter.schema).filter(validator.is_valid)
    if parameter.location == "path":
        # Refused before sending, and tested as such elsewhere: anything but one segment.
        if parameter.schema == {"type": "string"}:
            values = st.from_regex(r"[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,30}", fullmatch=True)
        values = values.filter(lambda v: _one_segment(parameter, v))
    if parameter.location == "query":
        # Refused before sending, and tested as such elsewhere: empty values (the description
        # allows none) and control characters in the query string.
        values = values.filter(
            lambda v: (
                v not in ("", [])
                and not any(CONTROL.search(str(one)) for one in (v if isinstance(v, list) else [v]))
            )
        )
    if parameter.location == "header":
        values = values.filter(lambda v: str(v).isascii() and str(v).isprintable())
    return values


def _arguments(operation):
    """Keyword arguments for one call: required parameters always, optional ones sometimes."""
    required = {p.python_name: _valid(p) for p in operation.parameters if p.required}
    optional = {p.python_name: _valid(p) for p in operation.parameters if not p.required}
    params = st.fixed_dictionaries(required, optional=optional)
    body = operation.body
    if body is None:
        return st.tuples(params, st.just(None), st.just(False))
    whole = strategy_of(body.schema).filter(schema_validator(body.pointer).is_valid)
    if not body.required:
        whole = st.none() | whole
    return st.tuples(params, whole, st.booleans())


def _split_body(operation, whole, as_keywords):
    """Pass offered body fields as keywords (when asked), the rest in ``body=``."""
    if whole is None:
        return {}
    if not (as_keywords and isinstance(whole, dict) and whole):
        return {"body": whole}
    fields = {f.name: f.python_name for f in operation.body.fields}
    keywords = {fields[k]: v for k, v in whole.items() if k in fields}
    rest = {k: v for k, v in whole.items() if k not in fields}
    return {**keywords, "body": rest} if rest else keywords


def _check_sent(operation, request, params, whole):
    validate_request(request)
    url = urlsplit(request.url)
    assert request.method == operation.method
    assert url.path.startswith("/v1/")
    segments = url.path[len("/v1") :].split("/")
    template = operation.path.split("/")
    assert len(segments) == len(template)
    for segment, part in zip(segments, template, strict=True):
        if part.startswith("{"):
            name = next(p.python_name for p in operation.path_parameters if p.name == part[1:-1])
            value = params[name]
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            assert unquote(segment) == str(value)
        else:
            assert segment == part
    query = parse_qs(url.query, keep_blank_values=True)
    for parameter in operation.parameters:
        if parameter.location == "query" and parameter.python_name in params:
            assert parameter.name in query
    if whole is None:
        assert not request.body
    else:
        assert json.loads(request.body) == whole


@pytest.mark.filterwarnings("ignore:unmasked parameter is deprecated:DeprecationWarning")
@pytest.mark.parametrize("operation_id", sorted(OPERATIONS))
def test_generated_requests_are_valid_requests_of_the_description(operation_id):
    operation = OPERATIONS[operation_id]
    session = RecordingSession(lambda request: _answer_for(operation))
    client = docsapi.DocsClient(token=TOKEN, base_url=BASE_URL, session=session, max_retries=0)
    group = next(g for g, ops in catalog().items() if operation in ops)
    method = getattr(getattr(client.api, group), operation.python_name)
    if operation.streaming:
        with pytest.raises(StreamingNotSupportedError, match="server-sent events"):
            method()
        assert session.sent == []
        return

    @SHORT
    @given(_arguments(operation))
    def check(drawn):
        params, whole, as_keywords = drawn
        session.sent.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            method(**params, **_split_body(operation, whole, as_keywords))
        assert len(session.sent) == 1
        _check_sent(operation, session.sent[0], params, whole)

    check()
