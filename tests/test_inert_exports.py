"""Every workbook and CSV docsapi writes is inert: hostile names stay text, numbers stay numbers.

Names an attacker inside the organization can choose (space, collection and team titles,
display names) and names a reviewer types (reviewer, comments, sign-off) are set to
formula-like texts on the sandbox; the audit, the review plan (CSV), the apply results
(CSV) and both workbooks are written, then read back with openpyxl and the csv module.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import docsapi
from docsapi import AccessReview
from docsapi.cli import main
from docsapi.review import read_plan, read_results

#: Texts a spreadsheet would run or take for a formula (OWASP's list, fullwidth forms, a
#: leading space, an error code, one already quoted).
HOSTILE = (
    "=1+1 x",
    '=HYPERLINK("http://e","x")',
    "+x+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1)",
    "\t=1",
    "\r=1",
    "\uff1d1+1",
    "\uff0bcmd",
    "\uff0d2",
    "\uff20SUM(A1)",
    " =1+1",
    "#N/A",
    "'=1",
)
#: What a spreadsheet takes for a formula (checked on what was written).
TRIGGER = re.compile(r"^[\t\r]|^\s*[=+\-@\uff1d\uff0b\uff0d\uff20]")
NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
#: Columns that hold numbers in the files written.
NUMERIC = re.compile(r"^(count|step|.*_count|http_status|rows|spaces|users)$")


def _hostile(index: int) -> str:
    return HOSTILE[index % len(HOSTILE)]


@pytest.fixture
def hostile_sandbox(sandbox):
    """The demo with hostile space, collection and team titles and display names."""
    client = sandbox.client()
    demo = sandbox.demo
    for index, space in enumerate(demo["space_ids"]):
        client.request("PATCH", f"/spaces/{space}", json={"title": _hostile(index)})
    for index, collection in enumerate(demo["collection_ids"]):
        client.request("PATCH", f"/collections/{collection}", json={"title": _hostile(index + 3)})
    for index, team in enumerate(demo["team_ids"]):
        path = f"/orgs/{sandbox.org_id}/teams/{team}"
        client.request("PATCH", path, json={"title": _hostile(index + 5)})
    members = client.orgs.members(sandbox.org_id)
    for index, user in enumerate(members["user_id"]):
        client.request("PATCH", f"/users/{user}", json={"displayName": _hostile(index + 7)})
    return sandbox


def _everything_written(sandbox, folder: Path, monkeypatch, canary_token) -> AccessReview:
    """Audit, review, plan, apply (in Python and from the command line), evidence."""
    client = sandbox.client()
    audit = docsapi.audit_permissions(client, sandbox.org_id, progress=False)
    audit.to_excel(folder / "audit.xlsx")
    audit.to_csv(folder / "audit-csv")
    review = AccessReview(audit, reviewer='=HYPERLINK("http://e","x")', client=client)
    direct = review.decisions[review.decisions["sources"] == "direct"].drop_duplicates("space_id")
    for index, label in enumerate(direct.index[:6]):
        review.decide([label], "revoke", comment=_hostile(index + 4))
    review.decide(direct.index[6:8], "keep", comment="\r=1 kept")
    review.sign_off("@SUM(A1)", role="-2+3", note="\t=1 signed")
    review.save_plan(folder / "plan.csv")
    review.apply(progress=False)
    sandbox.add_token(canary_token, user_id=sandbox.demo["owner_id"])
    monkeypatch.setenv("GITBOOK_API_TOKEN", canary_token)
    command = ["review", "apply", str(folder / "plan.csv"), "--base-url", sandbox.url]
    assert main([*command, "--no-progress", "--results", str(folder / "results.csv")]) == 0
    review.to_excel(folder / "evidence.xlsx")
    return review


def _check_workbook(path: Path, seen: set[str]) -> int:
    """Every cell of a workbook: no formula or error cell, formula-like texts stored as
    quote-prefixed strings, numbers as numbers. The number of cells checked."""
    book = openpyxl.load_workbook(path)
    checked = 0
    for sheet in book:
        rows = list(sheet.iter_rows())
        header = [cell.value for cell in rows[0]] if rows else []
        for row in rows:
            for position, cell in enumerate(row):
                checked += 1
                where = f"{path.name}!{sheet.title}!{cell.coordinate}"
                assert cell.data_type not in ("f", "e"), f"{where} is live: {cell.value!r}"
                value = cell.value
                if isinstance(value, str):
                    seen.add(value)
                    if TRIGGER.match(value):
                        assert cell.data_type == "s" and cell.quotePrefix, where
                if cell.row > 1 and value is not None and NUMERIC.match(str(header[position])):
                    assert isinstance(value, int | float), f"{where} is not a number: {value!r}"
    return checked


def _check_csv(path: Path, seen: set[str]) -> int:
    """Every cell of a CSV file: none starts with an un-neutralised trigger; numbers as
    numbers. The number of cells checked."""
    with path.open(newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(stream))
    checked = 0
    header = rows[0]
    for number, row in enumerate(rows, start=1):
        for column, value in zip(header, row, strict=True):
            checked += 1
            where = f"{path.name} row {number} column {column!r}"
            assert not (TRIGGER.match(value) and not NUMBER.match(value)), f"{where}: {value!r}"
            seen.add(value[1:] if value.startswith("'") else value)
            if number > 1 and value and NUMERIC.match(column.lstrip("'")):
                assert NUMBER.match(value), f"{where} is not a number: {value!r}"
    return checked


def test_no_export_holds_a_live_formula(hostile_sandbox, tmp_path, monkeypatch, canary_token):
    review = _everything_written(hostile_sandbox, tmp_path, monkeypatch, canary_token)
    workbooks = sorted(tmp_path.rglob("*.xlsx"))
    tables = sorted(tmp_path.rglob("*.csv"))
    assert [p.name for p in workbooks] == ["audit.xlsx", "evidence.xlsx"]
    assert {"plan.csv", "results.csv", "effective.csv", "matrix.csv"} <= {p.name for p in tables}
    seen: set[str] = set()
    checked = sum(_check_workbook(p, seen) for p in workbooks)
    checked += sum(_check_csv(p, seen) for p in tables)
    text = "\n".join(seen)
    for hostile in HOSTILE:  # each was written, as text, somewhere
        assert hostile in text or hostile.replace("\r", "\n") in text, hostile
    print(f"\ncells checked: {checked} in {len(workbooks)} workbooks and {len(tables)} CSV files")

    # docsapi reads its own CSV files back as they were
    plan = read_plan(tmp_path / "plan.csv")
    assert_frame_equal(plan, review.plan(), check_exact=True)
    approvals = read_results(tmp_path / "results.csv")["approval"]
    assert approvals.str.startswith("signed off by @SUM(A1) (-2+3) at ").all()
    effective = pd.read_csv(tmp_path / "audit-csv" / "effective.csv")
    assert effective["space_title"].str.startswith("'").any()


def test_control_characters_a_workbook_cannot_hold_are_shown_not_fatal(sandbox, tmp_path):
    """A title holding U+0001 (which XML forbids) is written as its control picture."""
    client = sandbox.client()
    space = sandbox.demo["space_ids"][0]
    client.request("PATCH", f"/spaces/{space}", json={"title": "Runbooks\x01\x1f"})
    audit = docsapi.audit_permissions(client, sandbox.org_id, progress=False)
    workbook = openpyxl.load_workbook(audit.to_excel(tmp_path / "audit.xlsx"))
    titles = {cell.value for cell in workbook["effective"]["B"]}
    assert "Runbooks\u2401\u241f" in titles
