"""The documentation site: built offline from the stored notebook outputs, read in Chromium.

The site is built once into a temporary directory with the README's command, checked for
references to other hosts, served on 127.0.0.1 and opened in a headless Chromium that must
never send a request anywhere else.
"""

from __future__ import annotations

import doctest
import functools
import http.server
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import launched_chromium

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO_ROOT / "notebooks"
ARTIFACTS = REPO_ROOT / "test-artifacts"
BUILD_PACKAGES = ("mkdocs", "material", "mkdocs_jupyter", "mkdocstrings", "mkdocstrings_handlers")
#: Attributes whose URL the browser loads by itself (links followed by a click are not listed).
LOADED = {
    "script": ("src",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "source": ("src", "srcset"),
    "audio": ("src",),
    "video": ("src", "poster"),
    "embed": ("src",),
    "object": ("data",),
    "link": ("href",),
}
LOCAL_SCHEMES = ("data:", "blob:", "about:")
INLINE_URL = re.compile(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"'<>]*", re.IGNORECASE)


class _LoadedURLs(HTMLParser):
    """Collects the URLs a page loads by itself: scripts, styles, images, frames, and any
    absolute URL written inside an inline script (a loader that adds a script at run time)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_script = tag == "script"
        wanted = LOADED.get(tag, ())
        for name, value in attrs:
            if name in wanted and value:
                self.urls.extend(part.split()[0] for part in value.split(",") if part.strip())

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.urls.extend(INLINE_URL.findall(data))


def _external(url: str) -> bool:
    """True for a URL that names another host (absolute or protocol-relative)."""
    return url.lower().startswith(("http://", "https://", "//"))


def _first_plain_text_output(notebook: Path) -> str:
    """The first line of the first result stored in the notebook as plain text only."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if output["output_type"] == "execute_result" and set(data) == {"text/plain"}:
                text = "".join(data["text/plain"]).strip()
                if text:
                    return text.splitlines()[0]
    raise AssertionError(f"{notebook.name} stores no plain-text result")


def _widget_views(notebook: Path) -> int:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return sum(
        "application/vnd.jupyter.widget-view+json" in output.get("data", {})
        for cell in cells
        for output in cell.get("outputs", [])
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built with ``mkdocs build --strict`` into a temporary directory."""
    for package in BUILD_PACKAGES:
        pytest.importorskip(package, reason=f'{package} is missing: pip install -e ".[docs]"')
    work = tmp_path_factory.mktemp("docs-build")
    target = work / "site"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(REPO_ROOT / "mkdocs.yml"),
            "--site-dir",
            str(target),
        ],
        cwd=work,  # mkdocs-jupyter's cache lands here, not in the repository
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"mkdocs build failed:\n{result.stdout}\n{result.stderr}"
    return target


@pytest.fixture(scope="module")
def site_url(site):
    """The built site served by http.server on 127.0.0.1 (a free port)."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_the_build_hooks_examples_hold():
    pytest.importorskip("mkdocs", reason='mkdocs is missing: pip install -e ".[docs]"')
    spec = importlib.util.spec_from_file_location("docs_hooks", REPO_ROOT / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    result = doctest.testmod(hooks)
    assert result.attempted >= 5
    assert result.failed == 0


#: The guides the README's map leads to, each a page of the site.
GUIDES = (
    "client",
    "whole-api",
    "caching",
    "credentials",
    "sandbox",
    "sandbox-demo",
    "audit",
    "access-reviews",
    "forms",
    "adnetwork",
    "notebooks",
    "development",
)
#: The README is a front page: what docsapi is, the two commands, a first look, a map.
README_MAX_LINES = 120


def test_the_readme_is_a_front_page_with_a_map_of_the_guides():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    lines = readme.splitlines()
    assert lines[2:6] == [
        "```bash",
        lines[3],
        lines[4],
        "```",
    ]
    # the demo, in a virtual environment of its own, then the quick tests
    assert lines[3].startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert "pip install -e . && docsapi demo" in lines[3]
    assert lines[4].startswith('pip install -e ".[test]" && pytest  ')
    # who it is for, in the first lines; how long each test command takes
    opening = " ".join(lines[6:12])
    for reader in ("security reviewers", "exploring the API", "teachers"):
        assert reader in opening, reader
    # both test commands say how long they take
    assert "`pytest --full` runs everything" in readme
    assert len(re.findall(r"about \d+ minutes", readme)) >= 2
    assert len(lines) <= README_MAX_LINES
    for guide in GUIDES:
        assert f"(docs/{guide}.md)" in readme, guide
    image = re.search(r"!\[[^\]]+\]\((docs/images/[\w-]+\.png)\)", readme, re.DOTALL)
    picture = REPO_ROOT / image.group(1)
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert picture.stat().st_size < 100_000  # small enough for a front page


@pytest.mark.full  # the site's build: a minute
def test_every_area_has_a_page(site):
    for page in (
        "index.html",
        "images/audit-report.png",
        *(f"{guide}.html" for guide in GUIDES),
        "access-model.html",
        "audit-tables.html",
        "benchmarks/RESULTS.html",
        *(f"api/{area}.html" for area in ("client", "models", "frames", "errors", "audit")),
        *(f"api/{area}.html" for area in ("widgets", "sandbox", "adnetwork", "cli", "snapshots")),
    ):
        assert (site / page).is_file(), page
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        page = (site / "notebooks" / f"{notebook.stem}.html").read_text(encoding="utf-8")
        assert f'<a href="{notebook.name}" download>' in page
        assert (site / "notebooks" / notebook.name).read_bytes() == notebook.read_bytes()


@pytest.mark.full  # the site's build: a minute
def test_no_page_loads_anything_from_another_host(site):
    offenders = []
    for page in sorted(site.rglob("*.html")):
        parser = _LoadedURLs()
        parser.feed(page.read_text(encoding="utf-8"))
        offenders += [f"{page.relative_to(site)}: {url}" for url in parser.urls if _external(url)]
    for stylesheet in sorted(site.rglob("*.css")):
        text = stylesheet.read_text(encoding="utf-8", errors="replace").lower()
        for marker in ("url(http", "url('http", 'url("http', "url(//", "@import"):
            if marker in text:
                offenders.append(f"{stylesheet.relative_to(site)}: {marker}")
    assert offenders == []


@pytest.mark.full  # the site's build: a minute
def test_stored_widget_views_are_explained_not_loaded(site):
    notebook = NOTEBOOKS / "03-editing-with-forms.ipynb"
    views = _widget_views(notebook)
    assert views > 0
    html = (site / "notebooks" / f"{notebook.stem}.html").read_text(encoding="utf-8")
    assert html.count("docsapi-widget-note") == views
    assert "application/vnd.jupyter.widget-state+json" not in html


@pytest.mark.full  # the site's build: a minute
def test_home_and_notebooks_in_chromium_stay_on_127_0_0_1(site_url):
    notebook = NOTEBOOKS / "01-quickstart.ipynb"
    expected_output = _first_plain_text_output(notebook)
    requests: list[str] = []
    ARTIFACTS.mkdir(exist_ok=True)
    with launched_chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("request", lambda request: requests.append(request.url))

        page.goto(site_url, wait_until="networkidle")
        assert "docsapi" in page.title()
        assert page.locator("article a[href='access-model.html']").count() >= 1
        assert page.locator("article").get_by_text("A first look").count() >= 1
        picture = page.eval_on_selector("article img", "image => image.naturalWidth")
        assert picture > 0  # the picture of the report
        page.screenshot(path=str(ARTIFACTS / "docs-home.png"))

        page.locator("article a[href='notebooks.html']").first.click()  # the guide to them
        page.wait_for_load_state("networkidle")
        notebook_links = page.locator("article a[href*='notebooks/']")
        assert notebook_links.count() >= len(list(NOTEBOOKS.glob("*.ipynb")))

        page.locator(f"article a[href='notebooks/{notebook.stem}.html']").first.click()
        page.wait_for_load_state("networkidle")
        assert page.url == f"{site_url}notebooks/{notebook.stem}.html"
        outputs = page.locator(".jp-OutputArea-output")
        assert outputs.count() > 0
        assert expected_output in page.locator(".jupyter-wrapper").inner_text()
        charts = page.eval_on_selector_all(
            ".jp-OutputArea-output img", "images => images.map(i => i.naturalWidth)"
        )
        assert charts and all(width > 0 for width in charts)
        page.screenshot(path=str(ARTIFACTS / "docs-notebook.png"))

        forms = NOTEBOOKS / "03-editing-with-forms.ipynb"  # stores widget views
        page.goto(f"{site_url}notebooks/{forms.stem}.html", wait_until="networkidle")
        notes = page.locator(".docsapi-widget-note")
        assert notes.count() == _widget_views(forms)

        page.goto(f"{site_url}api/client.html", wait_until="networkidle")
        client_doc = page.locator("[id='docsapi.client.DocsClient']")
        assert client_doc.count() == 1
        assert page.locator(".doc-section-title", has_text="Parameters").count() > 0

    assert requests, "the browser sent no request at all"
    assert [url for url in requests if not url.startswith((site_url, *LOCAL_SCHEMES))] == []
