"""Space content: the live revision, its pages and files, documents, templates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from docsapi.core.checks import (
    DOCUMENT_FORMATS,
    DOCUMENT_SCHEMAS,
    MARKDOWN_REFS_FORMATS,
    check_choice,
    check_entity_id,
    check_id,
    check_mapping,
    check_page_path,
    check_text,
)
from docsapi.errors import ResponseFormatError, ValidationError
from docsapi.models import (
    ComputedRevision,
    Document,
    ReusableContent,
    Revision,
    RevisionFile,
    RevisionPage,
    RevisionPageMetaLinks,
)
from docsapi.resources._base import ResourceGroup, api_path, query_flag

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Content"]


def _flag_or(value: Any, word: str, argument: str) -> bool | str | None:
    """A query option that is a boolean or one special word (``None``: server default)."""
    if value is None or isinstance(value, bool) or value == word:
        return value
    raise ValidationError(
        argument, f"must be True, False or {word!r}; got {type(value).__name__} {value!r:.40}"
    )


def _page_params(
    format: str | None,
    markdown_refs: str | None,
    evaluated: bool | str | None,
    dereferenced: bool | str | None,
) -> dict[str, Any]:
    """Query parameters shared by the page-by-id and page-by-path operations."""
    return {
        "format": None if format is None else check_choice(format, DOCUMENT_FORMATS, "format"),
        "format.markdown.refs": (
            None
            if markdown_refs is None
            else check_choice(markdown_refs, MARKDOWN_REFS_FORMATS, "markdown_refs")
        ),
        "evaluated": query_flag(_flag_or(evaluated, "deterministic-only", "evaluated")),
        "dereferenced": query_flag(_flag_or(dereferenced, "reusable-contents", "dereferenced")),
    }


def _computed_body(source: Any, seed: Any) -> dict[str, Any]:
    return {
        "source": check_mapping(source, "source", non_empty=True),
        "seed": check_text(seed, "seed", min_length=1),
    }


class Content(ResourceGroup):
    """The published content of spaces: ``client.content``."""

    _name = "content"

    def revision(self, space_id: str) -> Revision:
        """Return the live (published) revision of a space: its page tree and files.

        Parameters
        ----------
        space_id : str
            The space's id.

        Returns
        -------
        Revision

        Raises
        ------
        NotFoundError
            No such space.

        Examples
        --------
        >>> revision = client.content.revision(space_id)
        >>> revision.page_count == len(client.content.pages(space_id))
        True
        """
        check_entity_id(space_id, "space_id")
        return Revision.from_api(self._get(api_path("spaces", space_id, "content")))

    def pages(self, space_id: str) -> pd.DataFrame:
        """List every page of a space's live revision, the tree flattened.

        Parameters
        ----------
        space_id : str
            The space's id.

        Returns
        -------
        pandas.DataFrame
            One row per page, parents before children: space_id, id, title, kind, type,
            slug, path, parent_id, depth, position.

        Raises
        ------
        NotFoundError
            No such space.

        Examples
        --------
        >>> pages = client.content.pages(space_id)
        >>> top = pages.query("depth == 0")
        >>> top.title.iloc[0]
        'Overview'
        """
        from docsapi.data import frames

        check_entity_id(space_id, "space_id")
        path = api_path("spaces", space_id, "content", "pages")
        pages = self._get(path).get("pages")
        if not isinstance(pages, list) or not all(isinstance(page, dict) for page in pages):
            raise ResponseFormatError(f"GET {path}: the answer has no 'pages' list of objects")
        return frames.pages(space_id, pages)

    def files(self, space_id: str) -> pd.DataFrame:
        """List the files of a space's live revision (all pages are fetched).

        Parameters
        ----------
        space_id : str
            The space's id.

        Returns
        -------
        pandas.DataFrame
            space_id, id, name, content_type, size, width, height, download_url.

        Raises
        ------
        NotFoundError
            No such space.

        Examples
        --------
        >>> files = client.content.files(space_id)
        >>> list(files.columns)[:5]
        ['space_id', 'id', 'name', 'content_type', 'size']
        >>> int(files["size"].sum()) > 0  # bytes (files.size would count the frame's cells)
        True
        """
        from docsapi.data import frames

        check_entity_id(space_id, "space_id")
        items = self._items(api_path("spaces", space_id, "content", "files"))
        return frames.files(space_id, items)

    def file(self, space_id: str, file_id: str) -> RevisionFile:
        """Return one file of a space's live revision.

        Parameters
        ----------
        space_id, file_id : str
            The space and the file.

        Returns
        -------
        RevisionFile

        Raises
        ------
        NotFoundError
            No such space or file.

        Examples
        --------
        >>> client.content.file(space_id, file_id).download_url.startswith("http")
        True
        """
        check_entity_id(space_id, "space_id")
        check_entity_id(file_id, "file_id")
        data = self._get(api_path("spaces", space_id, "content", "files", file_id))
        return RevisionFile.from_api(data)

    def page(
        self,
        space_id: str,
        page_id: str,
        *,
        format: str | None = None,
        markdown_refs: str | None = None,
        evaluated: bool | str | None = None,
        dereferenced: bool | str | None = None,
    ) -> RevisionPage:
        """Return one page of a space's live revision, by id.

        Parameters
        ----------
        space_id, page_id : str
            The space and the page.
        format : {"document", "markdown"}, optional
            The body's form: ``.document`` (JSON) or ``.markdown``.
        markdown_refs : {"relative", "stable"}, optional
            How Markdown writes links to other content.
        evaluated : bool or "deterministic-only", optional
            Evaluate expressions in the document.
        dereferenced : bool or "reusable-contents", optional
            Inline referenced content.

        Returns
        -------
        RevisionPage

        Raises
        ------
        ValidationError
            An unknown option value.
        NotFoundError
            No such space or page.

        Examples
        --------
        >>> page = client.content.page(space_id, page_id, format="markdown")
        >>> page.markdown.startswith(f"# {page.title}")
        True
        """
        check_entity_id(space_id, "space_id")
        check_entity_id(page_id, "page_id")
        params = _page_params(format, markdown_refs, evaluated, dereferenced)
        data = self._get(api_path("spaces", space_id, "content", "page", page_id), params)
        return RevisionPage.from_api(data)

    def page_by_path(
        self,
        space_id: str,
        path: str,
        *,
        format: str | None = None,
        markdown_refs: str | None = None,
        evaluated: bool | str | None = None,
        dereferenced: bool | str | None = None,
    ) -> RevisionPage:
        """Return one page (a document or a group) of a space's live revision, by its path.

        Parameters
        ----------
        space_id : str
            The space's id.
        path : str
            The page's full path, e.g. ``"guides/install"`` (it is URL-encoded for you,
            slashes included; leading and trailing slashes are ignored). Empty, ``.``
            and ``..`` segments are refused.
        format, markdown_refs, evaluated, dereferenced
            As for :meth:`page`.

        Returns
        -------
        RevisionPage

        Raises
        ------
        ValidationError
            An empty path, a dot segment, or an unknown option value.
        NotFoundError
            No page at this path, or no such space.

        Examples
        --------
        >>> client.content.page_by_path(space_id, "getting-started/quickstart").title
        'Quickstart'
        """
        check_entity_id(space_id, "space_id")
        page_path = check_page_path(path)
        params = _page_params(format, markdown_refs, evaluated, dereferenced)
        data = self._get(api_path("spaces", space_id, "content", "path", page_path), params)
        return RevisionPage.from_api(data)

    def meta_links(self, space_id: str, page_id: str) -> RevisionPageMetaLinks:
        """Return a page's canonical and alternate links.

        Parameters
        ----------
        space_id, page_id : str
            The space and the page.

        Returns
        -------
        RevisionPageMetaLinks

        Raises
        ------
        NotFoundError
            No such space or page.

        Examples
        --------
        >>> client.content.meta_links(space_id, page_id).canonical["page"] == page_id
        True
        """
        check_entity_id(space_id, "space_id")
        check_entity_id(page_id, "page_id")
        path = api_path("spaces", space_id, "content", "page", page_id, "meta-links")
        return RevisionPageMetaLinks.from_api(self._get(path))

    def reusable_content(self, space_id: str, reusable_content_id: str) -> ReusableContent:
        """Return a block of reusable content of a space's live revision.

        Parameters
        ----------
        space_id, reusable_content_id : str
            The space and the reusable content.

        Returns
        -------
        ReusableContent

        Raises
        ------
        NotFoundError
            No such space or reusable content.

        Examples
        --------
        >>> payments = client.spaces.list(org_id=org_id).set_index("title").id["Payments API"]
        >>> block = client.content.revision(payments).reusable_contents[0]
        >>> client.content.reusable_content(payments, block.id).title == block.title
        True
        """
        check_entity_id(space_id, "space_id")
        check_entity_id(reusable_content_id, "reusable_content_id")
        path = api_path("spaces", space_id, "content", "reusable-contents", reusable_content_id)
        return ReusableContent.from_api(self._get(path))

    def computed_document(
        self,
        space_id: str,
        *,
        source: Mapping[str, Any],
        seed: str,
        schema: str | None = None,
    ) -> Document:
        """Compute a document from a source (an integration, an OpenAPI spec, a translation).

        Parameters
        ----------
        space_id : str
            The space's id.
        source : dict
            A ``ComputedContentSourceDocument`` object, e.g.
            ``{"type": "integration:<integration>:<source>", "props": {...}}``.
        seed : str
            Seed for the ids generated in the document.
        schema : {"current", "next"}, optional
            The document schema version.

        Returns
        -------
        Document

        Raises
        ------
        ValidationError
            An empty source or seed, or an unknown schema.

        Examples
        --------
        >>> src = {"type": "integration:openapi:petstore", "props": {"page": "pets"}}
        >>> client.content.computed_document(space_id, source=src, seed="1").object
        'document'
        """
        check_entity_id(space_id, "space_id")
        body = _computed_body(source, seed)
        params = {
            "schema": None if schema is None else check_choice(schema, DOCUMENT_SCHEMAS, "schema")
        }
        path = api_path("spaces", space_id, "content", "computed", "document")
        return Document.from_api(self._object("POST", path, params=params, json=body))

    def computed_revision(
        self, space_id: str, *, source: Mapping[str, Any], seed: str
    ) -> ComputedRevision:
        """Compute pages and files from a revision source.

        Parameters
        ----------
        space_id : str
            The space's id.
        source : dict
            A ``ComputedContentSourceRevision`` object.
        seed : str
            Seed for the generated ids.

        Returns
        -------
        ComputedRevision

        Raises
        ------
        ValidationError
            An empty source or seed.

        Examples
        --------
        >>> src = {"type": "integration:openapi:petstore", "props": {"models": True}}
        >>> computed = client.content.computed_revision(space_id, source=src, seed="1")
        >>> computed.page_count == len(computed.pages) > 0
        True
        """
        check_entity_id(space_id, "space_id")
        body = _computed_body(source, seed)
        path = api_path("spaces", space_id, "content", "computed", "revision")
        return ComputedRevision.from_api(self._object("POST", path, json=body))

    def apply_template(
        self,
        space_id: str,
        template_id: str,
        *,
        params: Mapping[str, Any] | None = None,
        change_request_id: str | None = None,
    ) -> None:
        """Apply a space template to a space's content.

        Parameters
        ----------
        space_id : str
            The space's id.
        template_id : str
            The template's id.
        params : dict, optional
            Template parameters (``SpaceTemplateParams``, e.g. ``{"contentRefs": {...}}``).
        change_request_id : str, optional
            Apply it in this change request instead of the main content.

        Raises
        ------
        ValidationError
            An empty template id.
        NotFoundError
            No such space, template or change request.

        Examples
        --------
        >>> client.content.apply_template(space_id, "team-handbook")
        >>> "Team handbook" in set(client.content.pages(space_id).title)
        True
        """
        check_entity_id(space_id, "space_id")
        body: dict[str, Any] = {"id": check_id(template_id, "template_id")}
        if params is not None:
            body["params"] = check_mapping(params, "params")
        if change_request_id is not None:
            body["changeRequestId"] = check_entity_id(change_request_id, "change_request_id")
        path = api_path("spaces", space_id, "content", "template")
        self._transport.request("POST", path, json=body)
