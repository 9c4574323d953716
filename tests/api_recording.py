"""A ``requests.Session`` that records what a client would send and answers from a script.

``RecordingSession`` is a real Session: the client prepares requests exactly as it would for
the network (URL, query string, headers, JSON body), then ``send`` keeps the
``PreparedRequest`` and returns a canned ``requests.Response`` instead of opening a socket.
Pass it as ``DocsClient(session=...)``. The full API description (``tests/openapi/``)
validates the recorded requests with openapi-core.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests
from contract import typed_plain_objects, without_discriminators
from openapi_core import Config, OpenAPI
from openapi_core.contrib.requests import RequestsOpenAPIRequest

FULL_SPEC_PATH = Path(__file__).parent / "openapi" / "gitbook-openapi.json"
BASE_URL = "https://api.gitbook.com/v1"
TOKEN = "gb_api_recording_token"


def canned(status: int = 200, body: Any = None, headers: dict[str, str] | None = None):
    """A ``requests.Response`` with a JSON body (none for ``body=None``)."""
    response = requests.Response()
    response.status_code = status
    response._content = b"" if body is None else json.dumps(body).encode()
    response.headers.update({"Content-Type": "application/json", **(headers or {})})
    response.encoding = "utf-8"
    return response


Responder = Callable[[requests.PreparedRequest], requests.Response]


class RecordingSession(requests.Session):
    """Keeps every prepared request in ``sent``; answers with ``responder(request)``.

    Parameters
    ----------
    responder : callable, optional
        Makes the answer of each request; an empty 200 JSON object by default.
    """

    def __init__(self, responder: Responder | None = None) -> None:
        super().__init__()
        self.sent: list[requests.PreparedRequest] = []
        self.responder = responder or (lambda request: canned(200, {}))

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        self.sent.append(request)
        response = self.responder(request)
        response.request = request
        response.url = request.url or ""
        return response


@functools.cache
def full_spec() -> dict[str, Any]:
    """The full API description, parsed (the vendored copy)."""
    return json.loads(FULL_SPEC_PATH.read_text())


@functools.cache
def full_openapi() -> OpenAPI:
    """openapi-core over the full description.

    Read as the sandbox contract reads the subset (see ``contract.py``): discriminators
    without a mapping are dropped, and untyped schemas with properties (``PlainObject``) are
    objects. The description itself is not re-validated (that takes seconds and is not what is
    tested).
    """
    document = typed_plain_objects(without_discriminators(full_spec()))
    return OpenAPI.from_dict(document, config=Config(spec_validator_cls=None))


def validate_request(request: requests.PreparedRequest) -> None:
    """Raise openapi-core's error when ``request`` is not a valid request of the description."""
    full_openapi().validate_request(RequestsOpenAPIRequest(request))
