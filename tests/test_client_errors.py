"""Documented errors, method by method: an unknown space is a 404, a read-only token a 403."""

from __future__ import annotations

import pytest

import docsapi
from docsapi.errors import NotFoundError, PermissionDeniedError

UNKNOWN = "NoSuchSpace000000000"
SOURCE = {"type": "integration:acme:toc", "props": {"spec": "petstore"}}
REPO = {"url": "https://github.com/acme/docs", "ref": "main"}

# (group, method, extra positional args after space_id, keyword args)
READS = [
    ("spaces", "get", (), {}),
    ("spaces", "embed", ("https://example.com/video",), {}),
    ("spaces", "search", ("install",), {}),
    ("permissions", "users", (), {}),
    ("permissions", "teams", (), {}),
    ("content", "revision", (), {}),
    ("content", "pages", (), {}),
    ("content", "files", (), {}),
    ("content", "page_by_path", ("getting-started",), {}),
    ("content", "computed_document", (), {"source": SOURCE, "seed": "s"}),
    ("content", "computed_revision", (), {"source": SOURCE, "seed": "s"}),
    ("git", "info", (), {}),
    ("change_requests", "list", (), {}),
]
WRITES = [
    ("spaces", "update", (), {"title": "Renamed"}),
    ("spaces", "duplicate", (), {}),
    ("spaces", "move", (), {"position": {"after": "AnotherSpace00000000"}}),
    ("permissions", "invite", (), {"role": "read", "users": ["u1"]}),
    ("permissions", "set_user_role", ("u1", "edit"), {}),
    ("content", "apply_template", ("changelog",), {}),
    ("git", "import_repo", (), REPO),
    ("git", "export_repo", (), {**REPO, "commit_message": "sync"}),
    ("change_requests", "create", (), {"subject": "Fix"}),
]


def _call(client, group, method, space_id, args, kwargs):
    return getattr(getattr(client, group), method)(space_id, *args, **kwargs)


@pytest.mark.parametrize(
    ("group", "method", "args", "kwargs"),
    READS + WRITES,
    ids=[f"{g}.{m}" for g, m, _, _ in READS + WRITES],
)
def test_unknown_space_is_not_found(client, group, method, args, kwargs):
    with pytest.raises(NotFoundError) as info:
        _call(client, group, method, UNKNOWN, args, kwargs)
    assert info.value.status == 404
    assert "Check the id" in str(info.value)


@pytest.fixture
def read_only(sandbox):
    return docsapi.DocsClient(token=sandbox.tokens["oauth:space:read"], base_url=sandbox.url)


@pytest.mark.parametrize(
    ("group", "method", "args", "kwargs"), WRITES, ids=[f"{g}.{m}" for g, m, _, _ in WRITES]
)
def test_read_only_token_cannot_write(sandbox, client, read_only, group, method, args, kwargs):
    space_id = sandbox.demo["space_ids"][1]
    before = client.spaces.get(space_id).raw
    with pytest.raises(PermissionDeniedError) as info:
        _call(read_only, group, method, space_id, args, kwargs)
    assert "scope" in str(info.value)
    assert client.spaces.get(space_id).raw == before


def test_read_only_token_reads_content_but_not_permissions(sandbox, client, read_only):
    space_id = sandbox.demo["space_ids"][1]
    assert read_only.spaces.get(space_id).id == space_id
    assert read_only.content.pages(space_id).equals(client.content.pages(space_id))
    with pytest.raises(PermissionDeniedError):
        read_only.permissions.users(space_id)
