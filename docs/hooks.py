"""MkDocs hooks of the documentation site (``hooks:`` in ``mkdocs.yml``).

- The README (the home page), the worked notebooks, the benchmark results and the contributing
  guide stay where they are in the repository; they are added to the site under their
  repository paths, so their links resolve as they do on a code host. Links from them into
  ``docs/`` are pointed at the pages those files become.
- The ``Notebooks`` section of the navigation lists every ``notebooks/*.ipynb`` in name order.
- Notebook pages must work offline: nbconvert's loaders of third-party scripts (the widget
  renderer, MathJax, Mermaid, all fetched from a CDN) are removed, and each stored widget
  view is replaced by a sentence saying it is interactive in Jupyter.
- The stylesheets nbconvert repeats in every notebook page are written once, linked from each.
- Each notebook page links to its ``.ipynb`` file, copied beside it by mkdocs-jupyter.
- Sphinx roles in docstrings (``:class:`…```) become links to the API reference.
- Code spans in the README's tables escape ``|`` as GitHub requires; the site shows a plain one.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from html import escape
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = "notebooks/*.ipynb"
EXTRA_PAGES = ("README.md", "benchmarks/RESULTS.md", "CONTRIBUTING.md")
NOTEBOOK_SECTION = "Notebooks"

_EXTERNAL_SCRIPT = re.compile(
    r"<script\b[^>]*\bsrc=[\"']?https?://[^>]*>\s*</script>", re.IGNORECASE | re.DOTALL
)
_WIDGET_LOADER = re.compile(
    r"<script>\s*\(function\(\) \{\s*function addWidgetsRenderer\(\).*?</script>", re.DOTALL
)
_MERMAID_LOADER = re.compile(
    r"<script type=\"module\">(?:(?!</script>).)*?mermaid(?:(?!</script>).)*</script>", re.DOTALL
)
_EMPTY_SCRIPT = re.compile(r"<script src=[\"']{2}>\s*</script>")
_WIDGET_STATE = re.compile(
    r"<script type=\"application/vnd\.jupyter\.widget-state\+json\">.*?</script>", re.DOTALL
)
_WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
_WIDGET_VIEW = re.compile(
    r"<script type=\"application/vnd\.jupyter\.widget-view\+json\">.*?</script>", re.DOTALL
)
_SPHINX_ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj):<code>(~?)([\w.]+)</code>")
_MARKDOWN_LINK = re.compile(r"(\]\()([^)\s#]+)")
_STYLE = re.compile(r"<style type=\"text/css\">.*?</style>", re.DOTALL)
_NOTEBOOK_START = '<div class="jupyter-wrapper">'
_TABLE_CELL = re.compile(r"<td\b[^>]*>.*?</td>", re.DOTALL)
_CODE = re.compile(r"<code>[^<]*</code>")
_WIDGET_NOTE = (
    '<p class="docsapi-widget-note"><em>An interactive form is shown here when the notebook '
    "runs in Jupyter.</em></p>"
)


def _notebook_paths() -> list[str]:
    return [path.relative_to(ROOT).as_posix() for path in sorted(ROOT.glob(NOTEBOOKS))]


def on_config(config):
    """Fill the notebooks' section of the navigation; list the contributing guide if present."""
    for item in config.nav or []:
        if isinstance(item, dict) and NOTEBOOK_SECTION in item:
            item[NOTEBOOK_SECTION] = _notebook_paths()
    if (ROOT / "CONTRIBUTING.md").is_file() and config.nav is not None:
        config.nav.append({"Contributing": "CONTRIBUTING.md"})
    return config


@event_priority(100)  # before mkdocs-jupyter looks for notebooks among the files
def on_files(files: Files, config) -> Files:
    """Add the pages kept outside ``docs/`` under their repository paths."""
    wanted = _notebook_paths() + [path for path in EXTRA_PAGES if (ROOT / path).is_file()]
    for path in wanted:
        files.append(
            File(
                path,
                src_dir=str(ROOT),
                dest_dir=config.site_dir,
                use_directory_urls=config.use_directory_urls,
            )
        )
    return files


def widget_reprs(notebook: Path) -> list[str]:
    """The plain-text fallbacks (``Form(children=(…``) stored with the notebook's widget views."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [
        "".join(output["data"]["text/plain"])
        for cell in cells
        for output in cell.get("outputs", [])
        if _WIDGET_MIME in output.get("data", {}) and "text/plain" in output["data"]
    ]


def repository_links(markdown: str, path: str) -> str:
    """Links written between files of the repository, made relative to the site's pages.

    ``path`` is the page's path in the repository. Pages of ``docs/`` sit at the site's root,
    every other file under its repository path: ``docs/access-model.md`` from the README
    becomes ``access-model.md``, ``../notebooks/a.ipynb`` from a guide ``notebooks/a.ipynb``.

    Examples
    --------
    >>> repository_links("[m](docs/access-model.md#roles), [nb](notebooks/a.ipynb)", "README.md")
    '[m](access-model.md#roles), [nb](notebooks/a.ipynb)'
    >>> repository_links("[tables](../docs/audit-tables.md)", "benchmarks/RESULTS.md")
    '[tables](../audit-tables.md)'
    >>> repository_links("[nb](../notebooks/a.ipynb), [m](audit.md)", "docs/client.md")
    '[nb](notebooks/a.ipynb), [m](audit.md)'
    """
    base = posixpath.dirname(path)
    site_base = posixpath.dirname(_site_path(path))

    def relink(match: re.Match[str]) -> str:
        opening, target = match.groups()
        if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:|/", target):
            return match.group(0)
        resolved = _site_path(posixpath.normpath(posixpath.join(base, target)))
        return opening + posixpath.relpath(resolved, site_base or ".")

    return _MARKDOWN_LINK.sub(relink, markdown)


def _site_path(path: str) -> str:
    """Where a file of the repository is in the site: ``docs/`` is the site's root."""
    return path.removeprefix("docs/")


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Links between repository files (see :func:`repository_links`)."""
    source = page.file.src_uri
    path = source if source in EXTRA_PAGES else f"docs/{source}"
    return repository_links(markdown, path)


def offline_notebook_html(html: str, reprs: list[str]) -> str:
    """A rendered notebook without scripts from other hosts and with widget views explained.

    Parameters
    ----------
    html : str
        A notebook page's content as nbconvert renders it.
    reprs : list of str
        The plain-text fallbacks of the notebook's widget views (see :func:`widget_reprs`):
        shown by nbconvert when the notebook was saved without widget state.

    Returns
    -------
    str
        The same content with the CDN loaders and the stored widget state removed, and each
        widget view (or its plain-text fallback) replaced by a short note.
    """
    html = _WIDGET_LOADER.sub("", html)
    html = _MERMAID_LOADER.sub("", html)
    html = _EXTERNAL_SCRIPT.sub("", html)
    html = _EMPTY_SCRIPT.sub("", html)
    html = _WIDGET_STATE.sub("", html)
    html = _WIDGET_VIEW.sub(_WIDGET_NOTE, html)
    for text in reprs:
        html = html.replace(f"<pre>{escape(text, quote=False)}</pre>", _WIDGET_NOTE, 1)
    return html


def unescape_table_pipes(html: str) -> str:
    r"""Code spans in table cells written for GitHub (``\|``) shown with a plain ``|``.

    Examples
    --------
    >>> unescape_table_pipes(r"<td><code>a= \| b=</code></td>")
    '<td><code>a= | b=</code></td>'
    """
    return _TABLE_CELL.sub(
        lambda cell: _CODE.sub(lambda code: code.group(0).replace("\\|", "|"), cell.group(0)),
        html,
    )


def link_sphinx_roles(html: str) -> str:
    """Docstrings' Sphinx roles (``:class:`~docsapi.errors.DocsAPIError```) as links.

    Each becomes a cross-reference resolved by mkdocs-autorefs when the object is documented
    on the site, and plain code otherwise; ``~`` shows the last name only, as Sphinx does.

    Examples
    --------
    >>> link_sphinx_roles(":class:<code>~docsapi.errors.DocsAPIError</code>")
    '<autoref identifier="docsapi.errors.DocsAPIError" optional><code>DocsAPIError</code></autoref>'
    """

    def link(match: re.Match[str]) -> str:
        short, target = match.groups()
        shown = target.rsplit(".", 1)[-1] if short else target
        return f'<autoref identifier="{target}" optional><code>{shown}</code></autoref>'

    return _SPHINX_ROLE.sub(link, html)


def shared_notebook_styles(html: str, page, site_dir: str) -> str:
    """The notebook's leading stylesheets (about 600 kB, the same for every notebook) moved to
    one file under ``assets/`` that all notebook pages link to."""
    head, start, body = html.partition(_NOTEBOOK_START)
    styles = _STYLE.findall(head)
    if not start or not styles:
        return html
    css = "\n".join(
        style.removeprefix('<style type="text/css">').removesuffix("</style>") for style in styles
    )
    name = f"assets/notebook-{hashlib.sha256(css.encode()).hexdigest()[:12]}.css"
    target = Path(site_dir) / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(css, encoding="utf-8")
    link = f'<link rel="stylesheet" href="{get_relative_url(name, page.url)}">'
    return link + _STYLE.sub("", head) + start + body


def with_download_link(html: str, notebook_name: str) -> str:
    """A link to the ``.ipynb`` file (copied beside the page) under the notebook's title.

    Examples
    --------
    >>> with_download_link("<h1>Quickstart</h1><p>text</p>", "01-quickstart.ipynb")[:56]
    '<h1>Quickstart</h1><p class="docsapi-notebook-download">'
    """
    link = (
        f'<p class="docsapi-notebook-download"><a href="{notebook_name}" download>'
        f"Download {notebook_name}</a> to run it in Jupyter.</p>"
    )
    title_end = html.find("</h1>")
    if title_end < 0:
        return link + html
    title_end += len("</h1>")
    return html[:title_end] + link + html[title_end:]


def on_page_content(html: str, page, config, files) -> str:
    """Notebooks made to work offline; docstring roles linked; tables read as GitHub does."""
    if page.file.src_uri.endswith(".ipynb"):
        html = offline_notebook_html(html, widget_reprs(Path(page.file.abs_src_path)))
        html = shared_notebook_styles(html, page, config.site_dir)
        return with_download_link(html, Path(page.file.src_uri).name)
    return unescape_table_pipes(link_sphinx_roles(html))
