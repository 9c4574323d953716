"""Serve a one-cell notebook with voila on 127.0.0.1 for a browser test; stop it afterwards.

The notebook is written at test time (pytest runs nbval over committed notebooks). What
the cell needs (the sandbox's URL, ids, the token) reaches the voila kernel through
environment variables, so no token is ever written to the notebook file.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
#: Where browser tests keep their screenshots.
ARTIFACTS = REPO_ROOT / "test-artifacts"
STARTUP_SECONDS = 30.0


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


def _write_notebook(path: Path, source: str) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_code_cell(source))
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, path)


@contextmanager
def serving(source: str, env: Mapping[str, str], folder: Path) -> Iterator[str]:
    """Serve a notebook of one cell, ``source``, with ``env`` added to the kernel's environment.

    Yields the page's URL; voila is stopped on exit. ``folder`` (a test's ``tmp_path``)
    holds the notebook, voila's runtime and config folders and its log.
    """
    _write_notebook(folder / "form.ipynb", source)
    port = _free_port()
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
        "JUPYTER_RUNTIME_DIR": str(folder / "runtime"),
        "JUPYTER_CONFIG_DIR": str(folder / "config"),
        **env,
    }
    log = folder / "voila.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "voila",
                "--no-browser",
                f"--port={port}",
                "--Voila.ip=127.0.0.1",
                "form.ipynb",
            ],
            cwd=folder,
            env=environment,
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
