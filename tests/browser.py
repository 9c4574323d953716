"""A headless Chromium for the browser tests, found wherever it is installed.

Looked for in this order: Debian's ``/usr/bin/chromium``; ``chromium``, ``chromium-browser``,
``google-chrome`` or ``google-chrome-stable`` on ``PATH``; Playwright's own browser if one was
installed. A test that needs a browser is skipped, with the reason, when none is found or
Playwright is not installed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def installed_chromium() -> str | None:
    """The path of a Chromium or Chrome installed on this machine, or None."""
    if DEBIAN_CHROMIUM.exists():
        return str(DEBIAN_CHROMIUM)
    for name in PATH_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


@contextmanager
def launched_chromium() -> Iterator:
    """A headless Chromium launched through Playwright; closed on exit.

    Skips the calling test when Playwright is missing or no browser can be found.
    """
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        executable = installed_chromium()
        if executable is None:
            bundled = playwright.chromium.executable_path
            if not bundled or not Path(bundled).exists():
                pytest.skip(
                    "no Chromium found: install Debian's chromium (apt-get install chromium) "
                    "or put chromium or google-chrome on PATH"
                )
            executable = bundled
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
