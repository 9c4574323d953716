"""Space content: page trees with slug and path, lookups by id and URL-encoded path, markdown,
meta-links, files, reusable content, computed content and templates."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from contract import ApiSession


@pytest.fixture
def api(sandbox):
    session = ApiSession(sandbox.url, sandbox.token)
    yield session
    session.close()


def _flatten(pages, parent=None, depth=0):
    for page in pages:
        yield page, parent, depth
        yield from _flatten(page.get("pages", []), page, depth + 1)


def _tree(api, space):
    return list(_flatten(api.get(f"/spaces/{space}/content/pages").json()["pages"]))


def test_page_trees_have_groups_documents_and_links_several_levels_deep(sandbox, api):
    kinds, depths = set(), set()
    for space in sandbox.demo["space_ids"]:
        for page, parent, depth in _tree(api, space):
            kinds.add(page["type"])
            depths.add(depth)
            if page["type"] != "link":
                expected = f"{parent['path']}/{page['slug']}" if parent else page["slug"]
                assert page["path"] == expected
    assert kinds == {"document", "group", "link"}
    assert max(depths) >= 3


def test_empty_spaces_have_no_pages(sandbox, api):
    for space in sandbox.demo["empty_space_ids"]:
        assert api.get(f"/spaces/{space}/content/pages").json() == {"pages": []}
        assert api.get(f"/spaces/{space}/content/files").json()["items"] == []


def test_page_by_path_with_encoded_and_plain_slashes(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    nested = next(p for p, parent, _ in _tree(api, space) if parent and p["type"] == "document")
    encoded = api.get(f"/spaces/{space}/content/path/{quote(nested['path'], safe='')}")
    assert "%2F" in encoded.request.url
    assert encoded.status_code == 200
    assert encoded.json()["id"] == nested["id"]
    # the reference wants the slash encoded; the sandbox also accepts it plain (not a spec path)
    lenient = ApiSession(sandbox.url, sandbox.token, check=False)
    plain = lenient.get(f"/spaces/{space}/content/path/{nested['path']}")
    assert plain.json()["id"] == nested["id"]
    assert api.get(f"/spaces/{space}/content/path/no%2Fsuch%2Fpage").status_code == 404


def test_page_by_path_answers_groups_too(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    group = next(p for p, _, _ in _tree(api, space) if p["type"] == "group")
    body = api.get(f"/spaces/{space}/content/path/{group['path']}").json()
    assert body["type"] == "group"
    assert [child["id"] for child in body["pages"]] == [child["id"] for child in group["pages"]]


def test_page_document_by_default_markdown_on_request(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    page = next(p for p, _, _ in _tree(api, space) if p["type"] == "document")
    document = api.get(f"/spaces/{space}/content/page/{page['id']}").json()
    assert document["document"]["object"] == "document"
    assert document["document"]["nodes"][0]["type"] == "heading-1"
    assert "markdown" not in document
    markdown = api.get(
        f"/spaces/{space}/content/page/{page['id']}", params={"format": "markdown"}
    ).json()
    assert markdown["markdown"].startswith(f"# {page['title']}\n")
    assert "```" in markdown["markdown"]
    assert "document" not in markdown
    assert (
        api.get(f"/spaces/{space}/content/page/{page['id']}", params={"format": "pdf"}).status_code
        == 400
    )
    assert api.get(f"/spaces/{space}/content/page/ghost").status_code == 404


def test_meta_links_give_previous_next_and_parent(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    tree = _tree(api, space)
    documents = [p for p, _, _ in tree if p["type"] == "document"]
    middle = documents[1]
    parent = next(parent for p, parent, _ in tree if p["id"] == middle["id"])
    links = api.get(f"/spaces/{space}/content/page/{middle['id']}/meta-links").json()
    assert links["previous"]["page"] == documents[0]["id"]
    assert links["next"]["page"] == documents[2]["id"]
    assert links["canonical"] == {"kind": "page", "page": middle["id"], "space": space}
    if parent is None:
        assert "parent" not in links
    else:
        assert links["parent"]["page"] == parent["id"]
    first = api.get(f"/spaces/{space}/content/page/{documents[0]['id']}/meta-links").json()
    assert "previous" not in first


def test_files_have_types_sizes_and_image_dimensions(sandbox, api):
    types, images = set(), 0
    for space in sandbox.demo["space_ids"]:
        for item in api.get(f"/spaces/{space}/content/files").json()["items"]:
            types.add(item["contentType"])
            assert item["size"] > 0
            if item["contentType"].startswith("image/"):
                images += 1
                assert item["dimensions"]["width"] > 0 and item["dimensions"]["height"] > 0
            else:
                assert "dimensions" not in item
            single = api.get(f"/spaces/{space}/content/files/{item['id']}").json()
            assert single == item
    assert len(types) >= 5
    assert images > 0
    assert api.get(f"/spaces/{sandbox.demo['space_ids'][0]}/content/files/ghost").status_code == 404


def test_reusable_contents_are_reachable_and_referenced(sandbox, api):
    scan = ApiSession(sandbox.url, sandbox.token, check=False)  # revisions are validated elsewhere
    found = 0
    for space in sandbox.demo["space_ids"]:
        revision = scan.get(f"/spaces/{space}/content").json()
        for item in revision["reusableContents"]:
            found += 1
            assert api.get(f"/spaces/{space}/content/reusable-contents/{item['id']}").json() == item
    assert found > 0
    space = sandbox.demo["space_ids"][0]
    assert api.get(f"/spaces/{space}/content/reusable-contents/ghost").status_code == 404


def test_revision_matches_the_space(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    revision = api.get(f"/spaces/{space}/content").json()
    assert revision["id"] == api.get(f"/spaces/{space}").json()["revision"]
    assert [p["id"] for p in revision["pages"]] == [
        p["id"] for p in api.get(f"/spaces/{space}/content/pages").json()["pages"]
    ]


def test_computed_document_and_revision_are_deterministic(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    body = {"source": {"type": "integration:acme:toc", "props": {}}, "seed": "abc"}
    first = api.post(f"/spaces/{space}/content/computed/document", json=body).json()
    assert first == api.post(f"/spaces/{space}/content/computed/document", json=body).json()
    assert first["object"] == "document"
    revision = api.post(f"/spaces/{space}/content/computed/revision", json=body).json()
    assert [p["title"] for p in revision["pages"]] == ["Overview", "Models"]
    assert (
        api.post(f"/spaces/{space}/content/computed/document", json={"seed": "x"}).status_code
        == 400
    )
    assert (
        api.post(
            f"/spaces/{space}/content/computed/revision", json={"source": {"type": "x"}}
        ).status_code
        == 400
    )


def test_apply_template_adds_pages_and_bumps_the_revision(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    before = api.get(f"/spaces/{space}").json()["revision"]
    assert (
        api.post(f"/spaces/{space}/content/template", json={"id": "api-reference"}).status_code
        == 201
    )
    pages = api.get(f"/spaces/{space}/content/pages").json()["pages"]
    assert pages[-1]["title"] == "API reference"
    assert api.get(f"/spaces/{space}").json()["revision"] != before
    assert api.post(f"/spaces/{space}/content/template", json={"id": "nope"}).status_code == 404
    assert (
        api.post(
            f"/spaces/{space}/content/template",
            json={"id": "changelog", "changeRequestId": "ghost"},
        ).status_code
        == 404
    )
