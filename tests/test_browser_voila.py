"""One real browser round trip: voila serves a SpaceSettingsForm; chromium edits and saves it.

The form sends nothing when it is built and loads when the notebook displays it, so the
page shows the space's current title before it is edited.

The notebook is written at test time (pytest runs nbval over committed notebooks). The
sandbox's URL, the space id and the token reach the voila kernel through environment
variables, so the token is never written to the notebook file. The screenshot is kept
under ``test-artifacts/``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from browser import launched_chromium

REPO_ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO_ROOT / "test-artifacts"
STARTUP_SECONDS = 30.0

NOTEBOOK_SOURCE = """\
import os

import docsapi
from docsapi.widgets import SpaceSettingsForm

# The token comes from GITBOOK_API_TOKEN, set in the kernel's environment.
client = docsapi.DocsClient(base_url=os.environ["DOCSAPI_BASE_URL"])
form = SpaceSettingsForm(client, os.environ["DOCSAPI_SPACE_ID"])
form
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"voila exited early:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"voila did not listen on port {port} within {STARTUP_SECONDS:.0f} s")


@pytest.fixture
def browser():
    """A headless Chromium (the test is skipped before voila starts when there is none)."""
    with launched_chromium() as chromium:
        yield chromium


def _write_notebook(path: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_code_cell(NOTEBOOK_SOURCE))
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, path)


@pytest.fixture
def voila_url(sandbox, tmp_path):
    """Serve a notebook showing a SpaceSettingsForm of the sandbox; stop voila afterwards."""
    _write_notebook(tmp_path / "space_settings.ipynb")
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
        "DOCSAPI_BASE_URL": sandbox.url,
        "DOCSAPI_SPACE_ID": sandbox.demo["space_ids"][0],
        "GITBOOK_API_TOKEN": sandbox.token,
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
    }
    log = tmp_path / "voila.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "voila",
                "--no-browser",
                f"--port={port}",
                "--Voila.ip=127.0.0.1",
                "space_settings.ipynb",
            ],
            cwd=tmp_path,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for_port(port, process, log)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def test_title_edited_in_the_browser_is_saved(browser, sandbox, voila_url):
    from playwright.sync_api import expect

    space_id = sandbox.demo["space_ids"][0]
    new_title = "Edited in the browser"
    loaded_title = sandbox.client().spaces.get(space_id).title
    assert loaded_title != new_title
    ARTIFACTS.mkdir(exist_ok=True)

    page = browser.new_page(viewport={"width": 1000, "height": 1100})
    page.goto(voila_url, timeout=60_000)
    title_input = page.locator(".docsapi-title input")
    title_input.wait_for(timeout=60_000)
    # The form loaded when the notebook displayed it: the title is the space's own.
    expect(title_input).to_have_value(loaded_title, timeout=30_000)
    title_input.fill(new_title)
    # Save becomes enabled once the kernel has checked the new title.
    page.locator(".docsapi-save").click(timeout=30_000)
    page.get_by_text("Saved title.").wait_for(timeout=30_000)
    page.screenshot(path=str(ARTIFACTS / "voila_space_settings.png"), full_page=True)

    assert sandbox.client().spaces.get(space_id).title == new_title
