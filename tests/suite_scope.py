"""Two test commands: ``pytest`` (quick, minutes) and ``pytest --full`` (everything).

``pytest`` runs the tests, the doctests of ``docsapi/`` and one smoke notebook
(:data:`SMOKE_NOTEBOOKS`), with hypothesis at a few examples per property
(:func:`examples`); it leaves out what is marked ``full`` (browser tests, large generated
organizations, long property runs). ``pytest --full`` (or ``DOCSAPI_FULL_TESTS=1``) runs
everything: every notebook, hypothesis at full strength, the browser tests. CI runs both.

A file named on the command line always runs in full (``pytest tests/test_x.py``,
``pytest --nbval notebooks/05-space-lifecycle.ipynb``), and a selection made only of what
the quick run leaves out (``pytest -k voila``) runs as it is, so the quick command never
selects nothing (pytest's exit status 5).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: The variable that says "full" to test modules (set by ``--full`` before they are imported).
VARIABLE = "DOCSAPI_FULL_TESTS"
#: The notebooks the quick command runs.
SMOKE_NOTEBOOKS = frozenset({"01-quickstart.ipynb"})


def full() -> bool:
    """Whether this run is the full one (``--full`` or ``DOCSAPI_FULL_TESTS=1``)."""
    return os.environ.get(VARIABLE, "") == "1"


def examples(count: int) -> int:
    """Hypothesis examples for a property: ``count`` in the full run, a quarter (at least 2)
    in the quick one."""
    return count if full() else max(2, count // 4)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full",
        action="store_true",
        default=False,
        help="run everything: all notebooks, hypothesis at full strength, the browser tests "
        f"and the tests marked full (also: {VARIABLE}=1)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "full: a long test, run by `pytest --full` (and CI) but not by `pytest`"
    )
    if config.getoption("--full"):
        os.environ[VARIABLE] = "1"  # before the test modules are imported (xdist workers too)


def _named(config: pytest.Config) -> set[Path]:
    """The files named on the command line (not folders)."""
    named = set()
    for argument in config.args:
        path = Path(str(argument).split("::")[0])
        path = path if path.is_absolute() else Path(config.invocation_params.dir) / path
        if path.is_file():
            named.add(path.resolve())
    return named


def _quick_leaves_out(item: pytest.Item) -> bool:
    path = Path(str(item.path))
    if path.suffix == ".ipynb":
        return path.name not in SMOKE_NOTEBOOKS
    return item.get_closest_marker("full") is not None


@pytest.hookimpl(trylast=True)  # after -k and -m have chosen
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if full():
        return
    named = _named(config)
    kept, left = [], []
    for item in items:
        out = _quick_leaves_out(item) and Path(str(item.path)).resolve() not in named
        (left if out else kept).append(item)
    if left and kept:  # a selection of long tests only (-k browser) runs them all: never none
        config.hook.pytest_deselected(items=left)
        items[:] = kept
        config.docsapi_left_out = len(left)  # type: ignore[attr-defined]


def pytest_report_header(config: pytest.Config) -> str:
    if full():
        return "scope: full (every notebook, hypothesis at full strength, browser tests)"
    return "scope: quick (pytest --full runs everything: every notebook, browser tests, ...)"


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    left = getattr(config, "docsapi_left_out", 0)
    if left:
        terminalreporter.write_line(
            f"quick run: {left} items of the full suite left out; `pytest --full` runs them."
        )
