"""client.content, client.git and client.change_requests over real HTTP against the sandbox."""

from __future__ import annotations

import pytest

from docsapi import frames
from docsapi.errors import NotFoundError
from docsapi.models import (
    ChangeRequest,
    ComputedRevision,
    Document,
    GitSyncState,
    ReusableContent,
    Revision,
    RevisionFile,
    RevisionPage,
    RevisionPageMetaLinks,
)

SOURCE = {"type": "integration:acme:toc", "props": {"spec": "petstore"}}


@pytest.fixture
def space_id(sandbox):
    return sandbox.demo["space_ids"][0]


def nested_page(client, space_id):
    pages = client.content.pages(space_id)
    return pages[(pages["depth"] >= 1) & (pages["kind"] == "document")].iloc[0]


def test_revision_holds_the_page_tree_and_files(client, space_id):
    revision = client.content.revision(space_id)
    assert isinstance(revision, Revision)
    assert revision.page_count == len(client.content.pages(space_id))
    assert revision.file_count == len(client.content.files(space_id))
    assert all(isinstance(p, RevisionPage) for p in revision.pages)


def test_pages_frame_is_the_flattened_tree(client, space_id):
    pages = client.content.pages(space_id)
    assert list(pages.columns) == list(frames.SCHEMAS["pages"])
    assert pages["id"].is_unique
    top = pages[pages["depth"] == 0]
    assert top["parent_id"].isna().all()
    assert top["position"].tolist() == list(range(len(top)))
    children = pages[pages["depth"] > 0]
    assert set(children["parent_id"]) <= set(pages["id"])
    by_id = pages.set_index("id")
    for _, child in children.iterrows():
        assert by_id.loc[child["parent_id"], "depth"] == child["depth"] - 1


def test_empty_space_has_an_empty_typed_pages_frame(client, sandbox):
    empty = sandbox.demo["empty_space_ids"][0]
    pages = client.content.pages(empty)
    assert pages.empty
    assert list(pages.columns) == list(frames.SCHEMAS["pages"])


def test_files_and_one_file(client, space_id):
    files = client.content.files(space_id)
    assert list(files.columns) == list(frames.SCHEMAS["files"])
    assert len(files) > 0
    first = files.iloc[0]
    file = client.content.file(space_id, first["id"])
    assert isinstance(file, RevisionFile)
    assert file.name == first["name"] and file.size == first["size"]


def test_unknown_file_is_404(client, space_id):
    with pytest.raises(NotFoundError):
        client.content.file(space_id, "no_such_file")


def test_page_by_id_in_markdown(client, space_id):
    row = nested_page(client, space_id)
    page = client.content.page(space_id, row["id"], format="markdown")
    assert page.id == row["id"]
    assert page.markdown and row["title"] in page.markdown
    document = client.content.page(space_id, row["id"], format="document", evaluated=True)
    assert document.document is not None


def test_page_by_path_encodes_the_slashes(client, sandbox, space_id):
    row = nested_page(client, space_id)
    assert "/" in row["path"]
    page = client.content.page_by_path(space_id, row["path"])
    assert page.id == row["id"]
    assert page.path == row["path"]
    _, logged_path, status = sandbox.request_log[-1]
    assert "%2F" in logged_path and status == 200
    assert client.content.page_by_path(space_id, "/" + row["path"] + "/").id == row["id"]


def test_unknown_page_or_path_is_404(client, space_id):
    with pytest.raises(NotFoundError):
        client.content.page(space_id, "no_such_page")
    with pytest.raises(NotFoundError):
        client.content.page_by_path(space_id, "no/such/path")


def test_meta_links(client, space_id):
    row = nested_page(client, space_id)
    links = client.content.meta_links(space_id, row["id"])
    assert isinstance(links, RevisionPageMetaLinks)
    assert links.canonical["page"] == row["id"]
    assert links.raw.get("parent", {}).get("page") == row["parent_id"]


def test_reusable_content(client, sandbox):
    for space in sandbox.demo["space_ids"]:
        revision = client.content.revision(space)
        if revision.reusable_contents:
            wanted = revision.reusable_contents[0]
            found = client.content.reusable_content(space, wanted.id)
            assert isinstance(found, ReusableContent)
            assert (found.id, found.title) == (wanted.id, wanted.title)
            with pytest.raises(NotFoundError):
                client.content.reusable_content(space, "no_such_block")
            return
    pytest.fail("the demo organization has no reusable content")


def test_computed_document_and_revision(client, space_id):
    document = client.content.computed_document(space_id, source=SOURCE, seed="s1", schema="next")
    assert isinstance(document, Document)
    assert document.object == "document" and document.node_count > 0
    again = client.content.computed_document(space_id, source=SOURCE, seed="s1")
    assert again.nodes == document.nodes
    revision = client.content.computed_revision(space_id, source=SOURCE, seed="s1")
    assert isinstance(revision, ComputedRevision)
    assert revision.page_count > 0


def test_apply_template_adds_pages(client, space_id):
    before = client.content.pages(space_id)
    assert client.content.apply_template(space_id, "api-reference") is None
    after = client.content.pages(space_id)
    assert len(after) > len(before)


def test_apply_template_in_a_change_request(client, space_id):
    change = client.change_requests.create(space_id, subject="Template")
    client.content.apply_template(space_id, "changelog", change_request_id=change.id)
    with pytest.raises(NotFoundError):
        client.content.apply_template(space_id, "changelog", change_request_id="no_such_cr")
    with pytest.raises(NotFoundError):
        client.content.apply_template(space_id, "no-such-template")


def test_git_info_of_a_synced_space(client, sandbox):
    state = client.git.info(sandbox.demo["git_space_ids"][0])
    assert isinstance(state, GitSyncState)
    assert state.installation_status == "active"
    assert state.installation_provider in ("github", "gitlab", "github-legacy")


def test_git_info_without_provider_is_404(client, sandbox):
    plain = next(
        s for s in sandbox.demo["space_ids"] if s not in set(sandbox.demo["git_space_ids"])
    )
    with pytest.raises(NotFoundError):
        client.git.info(plain)


def test_git_import_runs_asynchronously_and_replaces_content(client, sandbox):
    space = next(
        s for s in sandbox.demo["space_ids"] if s not in set(sandbox.demo["git_space_ids"])
    )
    url = "https://github.com/acme/handbook.git"
    result = client.git.import_repo(
        space, url=url, ref="refs/heads/main", force=True, repo_project_directory="docs"
    )
    assert result is None
    running = client.git.info(space)
    assert (running.operation_state, running.operation_direction) == ("running", "import")
    sandbox.advance_clock(seconds=10)
    done = client.git.info(space)
    assert done.operation_state == "success"
    assert done.repo_name == "acme/handbook"
    assert "README" in client.content.pages(space)["title"].tolist()


def test_git_export(client, sandbox):
    space = sandbox.demo["git_space_ids"][0]
    client.git.export_repo(
        space,
        url="https://github.com/acme/export.git",
        ref="refs/heads/docs",
        commit_message="Sync from docsapi",
    )
    state = client.git.info(space)
    assert state.operation_direction == "export"


def test_git_import_into_unknown_space_is_404(client):
    with pytest.raises(NotFoundError):
        client.git.import_repo("no_such_space", url="https://github.com/a/b", ref="main")


def test_create_and_list_change_requests(client, space_id):
    change = client.change_requests.create(space_id, subject="Fix typos")
    assert isinstance(change, ChangeRequest)
    assert change.subject == "Fix typos" and change.space == space_id
    assert change.raw["changeRequest"] == change.id  # the deprecated property stays in raw
    listed = client.change_requests.list(space_id, status=change.status)
    assert list(listed.columns) == list(frames.SCHEMAS["change_requests"])
    assert change.id in set(listed["id"])
    assert (listed["status"] == change.status).all()
    untitled = client.change_requests.create(space_id)
    assert untitled.number == change.number + 1


def test_change_requests_of_unknown_space_is_404(client):
    with pytest.raises(NotFoundError):
        client.change_requests.create("no_such_space")
