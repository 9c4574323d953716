"""Validate sandbox responses against the vendored reference description of the API.

``validate(response)`` checks the status, headers and body of a ``requests`` response with
openapi-core against ``tests/openapi/gitbook-openapi-subset.json`` (a copy of the reference, so the
suite runs on a fresh clone).

Where the seed wins over the reference, validation is adapted explicitly:

* The description's only server is ``{host}/v1`` with ``host`` defaulting to
  ``https://api.gitbook.com``. The sandbox listens on 127.0.0.1, so each request is re-addressed to
  that host (same path and query) before the operation is looked up.
* ``GET /users/{userId}/spaces`` is in the seed but not in the reference subset. It is validated as
  ``GET /orgs/{organizationId}/spaces`` is: a List of Space.
* Error statuses an operation does not declare (401, 403, 405, 429, 5xx, and 400/404/409 where the
  reference lists none) are checked against the API's shared error body
  ``{"error": {"code": <status>, "message": <string>}}``, which the reference gives for
  BadRequestError, NotFoundError and ConflictError. Declared errors go through openapi-core.
* 204 and 205 answers must have an empty body (the reference declares no content for them).
* ``PlainObject`` declares ``properties`` and ``additionalProperties`` but no ``type``; read
  literally it also matches strings, so ``oneOf [PlainObject, string]`` (its own values) refuses
  every string. Untyped schemas with properties are read as objects, as the sandbox and the
  client read them (:func:`typed_plain_objects`, on the client's own `typed_objects`).
* ``Revision`` and ``RevisionPage`` carry a ``discriminator`` on ``type`` without a mapping.
  openapi-core then looks the value up as a schema name (``#/components/schemas/document``),
  which the API's values (``document``, ``group``, ``edits``...) are not, so every real page
  would fail. The discriminators are dropped: the ``oneOf`` alternatives, told apart by their
  ``type`` enums, still decide which schema a body must match.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
from openapi_core import OpenAPI
from openapi_core.contrib.requests import RequestsOpenAPIRequest, RequestsOpenAPIResponse

from docsapi.api._spec import typed_objects

SPEC_PATH = Path(__file__).parent / "openapi" / "gitbook-openapi-subset.json"
SPEC_HOST = "https://api.gitbook.com"
#: Operations of the seed missing from the reference, validated like an existing one.
SEED_ONLY = {("get", "/users/{userId}/spaces"): ("get", "/orgs/{organizationId}/spaces")}


class ContractError(AssertionError):
    """A response that does not match the reference description."""


def without_discriminators(node: Any) -> Any:
    """A copy of ``node`` without its ``discriminator`` keywords (see the module docstring)."""
    if isinstance(node, dict):
        return {k: without_discriminators(v) for k, v in node.items() if k != "discriminator"}
    if isinstance(node, list):
        return [without_discriminators(v) for v in node]
    return node


def _typed_content(node: Any) -> None:
    for body in (node or {}).values():
        if isinstance(body, dict) and "schema" in body:
            body["schema"] = typed_objects(body["schema"])


def typed_plain_objects(document: dict[str, Any]) -> dict[str, Any]:
    """A copy of an OpenAPI ``document`` whose untyped schemas with properties are objects."""
    document = copy.deepcopy(document)
    components = document.get("components", {})
    for name, schema in components.get("schemas", {}).items():
        components["schemas"][name] = typed_objects(schema)
    for section in ("parameters", "headers"):
        for item in components.get(section, {}).values():
            if "schema" in item:
                item["schema"] = typed_objects(item["schema"])
    for section in ("requestBodies", "responses"):
        for item in components.get(section, {}).values():
            _typed_content(item.get("content"))
    for item in document["paths"].values():
        for operation in item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for parameter in operation.get("parameters", []):
                if "schema" in parameter:
                    parameter["schema"] = typed_objects(parameter["schema"])
            _typed_content(operation.get("requestBody", {}).get("content"))
            for response in operation["responses"].values():
                _typed_content(response.get("content"))
    return document


@functools.cache
def spec() -> dict[str, Any]:
    """The reference description, extended with the seed-only operations."""
    document = typed_plain_objects(without_discriminators(json.loads(SPEC_PATH.read_text())))
    for (method, path), (like_method, like_path) in SEED_ONLY.items():
        operation = copy.deepcopy(document["paths"][like_path][like_method])
        operation["operationId"] = "seed_" + re.sub(r"\W+", "_", path).strip("_")
        operation["parameters"] = [
            {"in": "path", "name": "userId", "required": True, "schema": {"type": "string"}}
        ]
        document["paths"].setdefault(path, {})[method] = operation
    return document


@functools.cache
def openapi() -> OpenAPI:
    """The openapi-core view of :func:`spec`."""
    return OpenAPI.from_dict(spec())


@functools.cache
def _templates() -> list[tuple[re.Pattern[str], str]]:
    patterns = []
    for path in spec()["paths"]:
        regex = re.sub(r"\{pagePath\}", r".+", path)
        regex = re.sub(r"\{[^}]+\}", r"[^/]+", regex)
        patterns.append((re.compile(f"^{regex}$"), path))
    # literal segments first: /orgs/{id}/members beats /orgs/{id}/{anything}
    patterns.sort(key=lambda item: item[1].count("{"))
    return patterns


def operation_for(method: str, url: str) -> tuple[str, dict[str, Any]] | None:
    """The (path template, operation) of the description that a request hits, or None."""
    path = urlsplit(url).path
    relative = path[3:] if path.startswith("/v1/") else ("/" if path == "/v1" else None)
    if relative is None:
        return None
    for regex, template in _templates():
        if regex.match(relative):
            operation = spec()["paths"][template].get(method.lower())
            if operation is not None:
                return template, operation
    return None


def _check_error_body(response: requests.Response) -> None:
    try:
        body = response.json()
    except ValueError as error:
        raise ContractError(
            f"{response.status_code} answer is not JSON: {response.text[:200]!r}"
        ) from error
    error = body.get("error") if isinstance(body, dict) else None
    if not (
        isinstance(error, dict)
        and error.get("code") == response.status_code
        and isinstance(error.get("message"), str)
        and error["message"]
    ):
        raise ContractError(f"error body is not {{'error': {{'code', 'message'}}}}: {body!r}")


def validate(response: requests.Response) -> None:
    """Check a sandbox response against the reference description.

    Parameters
    ----------
    response
        A response obtained with ``requests`` from the sandbox (its ``.request`` is used to find
        the operation).

    Raises
    ------
    ContractError
        With the operation and the schema errors when the response does not conform.

    Examples
    --------
    >>> validate(requests.get(f"{sb.url}/", headers=auth))      # doctest: +SKIP
    """
    request = response.request
    found = operation_for(request.method, request.url)
    status = response.status_code
    label = f"{request.method} {urlsplit(request.url).path} -> {status}"
    if status in (204, 205) and response.content:
        raise ContractError(f"{label}: a {status} answer must have no body")
    if found is None or str(status) not in found[1]["responses"]:
        if status < 400:
            raise ContractError(f"{label}: status not declared by the reference for this operation")
        _check_error_body(response)
        return
    prepared = request.copy()
    parts = urlsplit(prepared.url)
    host = urlsplit(SPEC_HOST)
    prepared.url = urlunsplit((host.scheme, host.netloc, parts.path, parts.query, ""))
    try:
        openapi().validate_response(
            RequestsOpenAPIRequest(prepared), RequestsOpenAPIResponse(response)
        )
    except Exception as error:
        details = "; ".join(str(e) for e in getattr(error, "schema_errors", []) or [])[:2000]
        raise ContractError(f"{label}: {type(error).__name__}: {error} {details}") from error


class ApiSession:
    """A ``requests`` session for the sandbox that validates every response it receives.

    Parameters
    ----------
    base_url
        The sandbox's ``.url`` (``http://127.0.0.1:<port>/v1``).
    token
        Bearer token to send (None sends no Authorization header).
    check
        Validate each response with :func:`validate` (default True).

    Examples
    --------
    >>> api = ApiSession(sb.url, sb.token)                     # doctest: +SKIP
    >>> api.get(f"/spaces/{space_id}").json()["title"]         # doctest: +SKIP
    """

    def __init__(self, base_url: str, token: str | None = None, *, check: bool = True) -> None:
        self.base_url = base_url.rstrip("/")
        self.session = requests.Session()
        if token is not None:
            self.session.headers["Authorization"] = f"Bearer {token}"
        self.check = check

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        """Send a request to ``base_url + path`` and validate the answer."""
        kwargs.setdefault("timeout", 15)
        response = self.session.request(method, self.base_url + path, **kwargs)
        if self.check:
            validate(response)
        return response

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        """GET ``path``."""
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> requests.Response:
        """POST ``path``."""
        return self.request("POST", path, **kwargs)

    def put(self, path: str, **kwargs: Any) -> requests.Response:
        """PUT ``path``."""
        return self.request("PUT", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> requests.Response:
        """PATCH ``path``."""
        return self.request("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> requests.Response:
        """DELETE ``path``."""
        return self.request("DELETE", path, **kwargs)

    def close(self) -> None:
        """Release the connection pool."""
        self.session.close()
