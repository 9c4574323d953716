"""A server echoing the credential as item ids and page cursors: the PaginationError it causes
holds the credential nowhere, neither in its text nor in any local of any frame it went through.

The pagination guards remember what they saw as keyed digests, never as the values, and the
callers of a paginated list drop the items of an unfinished read when it fails. Each way of
reading a list is tried over a real HTTP server that copies the request's credential header
into every item's id and into the next page's cursor (or, for the ad network, answers the
first page again whatever page is asked). Every frame below the test's is inspected the way
``pytest -l`` and debuggers show it: ``traceback.TracebackException(capture_locals=True)``,
exceptions chained to it included.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

import pytest
from scripted_server import Reply, ScriptedServer

import docsapi
from docsapi.adnetwork import AdNetworkClient

CANARY_KEY = "an_CANARY_5e8b2d7f1c9a4e6b3d0f"


def _echo_pages(request) -> dict[str, Any]:
    """A page whose item id and next cursor are the credential the client sent."""
    echoed = request.headers["authorization"]
    return {"items": [{"id": echoed, "title": echoed}], "next": {"page": echoed}}


def _echo_rows(request) -> dict[str, Any]:
    """The ad network's first page, whatever page was asked, its row id the key sent."""
    echoed = request.headers["x-api-key"]
    return {"code": 0, "data": {"rowset": [{"id": echoed}], "offset": 1, "totalPages": 3}}


def _shown_locals(error: BaseException) -> str:
    """Every local of every frame below the test's, as a traceback with locals shows it."""
    assert error.__traceback__ is not None
    below = error.__traceback__.tb_next
    summary = traceback.TracebackException(type(error), error, below, capture_locals=True)
    return "".join(summary.format())


DOCS_READS: dict[str, Callable[[docsapi.DocsClient], Any]] = {
    "client.paginate": lambda client: list(client.paginate("/orgs")),
    "client.orgs.list": lambda client: client.orgs.list(),
    "client.api (a paginated list)": lambda client: (
        client.api.organizations.list_organizations_for_authenticated_user()
    ),
}


@pytest.mark.parametrize("read", list(DOCS_READS))
def test_an_echoed_token_is_nowhere_in_the_pagination_error(read, canary_token):
    with ScriptedServer([Reply(200, _echo_pages)]) as server:
        client = docsapi.DocsClient(token=canary_token, base_url=server.url + "/v1", max_retries=0)
        with pytest.raises(docsapi.PaginationError) as caught:
            DOCS_READS[read](client)
        assert len(server.seen) == 2  # the first page, then its cursor sent back
        assert canary_token in server.seen[1].path  # the server did echo it
    error = caught.value
    assert "twice" in str(error)
    for text in (str(error), repr(error), _shown_locals(error)):
        assert canary_token not in text
        assert canary_token[-12:] not in text


@pytest.mark.parametrize("read", ["paginate", "affiliates"])
def test_an_echoed_key_is_nowhere_in_the_ad_network_pagination_error(read):
    with ScriptedServer([Reply(200, _echo_rows)]) as server:
        client = AdNetworkClient(
            f"127.0.0.1:{server.port}", api_key=CANARY_KEY, scheme="http", max_retries=0
        )
        with pytest.raises(docsapi.PaginationError) as caught:
            if read == "paginate":
                list(client.paginate("affiliate"))
            else:
                client.affiliates()
        assert len(server.seen) == 2
    error = caught.value
    assert "page 1 when page 2" in str(error)
    for text in (str(error), repr(error), _shown_locals(error)):
        assert CANARY_KEY not in text
        assert CANARY_KEY[-12:] not in text
