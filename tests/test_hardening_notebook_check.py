"""check-notebook on files that are not well-formed notebooks: a clear refusal (exit 2), or a
scan that still finds what is hidden in parts of the wrong shape; never a traceback."""

from __future__ import annotations

import json

from docsapi.cli import main
from docsapi.notebook_check import check_notebooks

TOKEN = "gb_api_Q7vT2mX9pL4kR8sWz3Yb6Nc1"


def test_json_nested_too_deeply_is_not_a_notebook(tmp_path, capsys):
    path = tmp_path / "deep.ipynb"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert main(["check-notebook", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "nests deeper than 64 levels" in err and "Traceback" not in err


def test_parts_of_the_wrong_shape_are_still_scanned(tmp_path, capsys):
    notebook = {
        "nbformat": 4,
        "cells": [
            ["a cell that is a list", TOKEN],
            {"source": 5, "outputs": {"text": [TOKEN, 1]}},
            {
                "cell_type": "code",
                "source": ["x = 1\n", 2, TOKEN],
                "outputs": [1, {"text": 5}, {"data": [TOKEN]}, {"traceback": [1, TOKEN]}],
            },
        ],
    }
    path = tmp_path / "odd.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    findings = check_notebooks([path])
    assert [(f.cell, f.part) for f in findings] == [
        (1, "metadata"),
        (2, "output 1"),
        (3, "source"),
        (3, "output 3"),
        (3, "output 4"),
    ]
    assert main(["check-notebook", str(path)]) == 1
    out = capsys.readouterr().out
    assert TOKEN not in out and "Traceback" not in out


def test_a_path_that_is_neither_file_nor_folder_is_named_as_such(tmp_path, capsys):
    import os

    fifo = tmp_path / "pipe.ipynb"
    os.mkfifo(fifo)
    assert main(["check-notebook", str(fifo)]) == 2
    assert "neither a notebook file nor a folder" in capsys.readouterr().err


def test_symlink_loops_inside_a_folder_are_not_followed_forever(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to("..")
    (tmp_path / "self").symlink_to("self")
    notebook = {"cells": [{"cell_type": "code", "source": TOKEN, "outputs": []}]}
    (tmp_path / "sub" / "a.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    assert len(check_notebooks([tmp_path])) == 1
