"""The worked notebooks are saved lean: no widget state, nothing oversized.

A notebook executed with widgets stores every widget model's state unless told not to
(``--ExecutePreprocessor.store_widget_state=False``); that state is hundreds of kilobytes
of layout defaults, useless to nbval (which skips widget views: their model ids are random)
and to readers. The widget *views* in the outputs stay, with their ``text/plain``, which
nbval compares.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
#: Comfortably above the largest notebook (charts included), far below one storing widget state.
MAX_BYTES = 512 * 1024


def test_the_notebooks_are_found():
    assert len(NOTEBOOKS) >= 8


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_notebook_is_saved_without_widget_state(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))

    assert "widgets" not in notebook["metadata"], (
        f"{path.name} stores widget state: re-execute it with "
        "--ExecutePreprocessor.store_widget_state=False and drop metadata.widgets"
    )
    for index, cell in enumerate(notebook["cells"]):
        for output in cell.get("outputs", ()):
            assert WIDGET_STATE not in output.get("data", {}), f"{path.name} cell {index}"
    assert path.stat().st_size < MAX_BYTES, f"{path.name} is {path.stat().st_size} bytes"
