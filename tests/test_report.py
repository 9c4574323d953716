"""Charts and report files of an audit computed offline from hand-made tables."""

from __future__ import annotations

import base64
import re
import sys

import matplotlib
import pandas as pd
import pytest
from test_audit_analysis import make_data

from docsapi.audit import analyze
from docsapi.errors import ValidationError

matplotlib.use("Agg")

HOSTILE_TITLE = '<script>alert("x")</script> & <b>Ops</b>'


@pytest.fixture
def audit():
    data = make_data()
    data.spaces.loc[data.spaces["id"] == "s4", "title"] = HOSTILE_TITLE
    return analyze(data)


def test_plot_returns_three_figures_that_render(audit):
    from matplotlib.figure import Figure

    figures = audit.plot()
    assert list(figures) == ["role_matrix", "grants_per_space", "findings_by_rule"]
    for figure in figures.values():
        assert isinstance(figure, Figure)
        figure.canvas.draw()
        width, height = figure.canvas.get_width_height()
        assert width > 100 and height > 100


def test_role_matrix_legend_names_every_role(audit):
    axes = audit.plot()["role_matrix"].axes[0]
    labels = [text.get_text() for text in axes.get_legend().get_texts()]
    assert labels == ["admin", "create", "review", "edit", "comment", "read", "guest"]
    assert len(axes.get_yticklabels()) == len(audit.matrix)


def test_charts_of_an_empty_audit_still_draw():
    audit = analyze(make_data(user_grants=[], team_grants=[]))
    for figure in audit.plot().values():
        figure.canvas.draw()


def test_html_report_is_one_escaped_self_contained_file(audit, tmp_path):
    path = audit.to_html(tmp_path / "sub" / "report.html")
    text = path.read_text(encoding="utf-8")
    assert "<script" not in text  # the hostile title is escaped
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;Ops" in text
    assert not re.search(r'(src|href)="(?!data:)', text)  # nothing loaded from elsewhere
    images = re.findall(r'<img class="chart" alt="[^"]+" src="data:image/png;base64,([^"]+)"', text)
    assert len(images) == 3
    assert all(base64.b64decode(image).startswith(b"\x89PNG") for image in images)
    assert text.index("<h2>Summary") < text.index("<h2>Findings") < text.index("<h2>Tables")


def test_html_lists_every_finding_with_its_severity_class(audit):
    from docsapi.report import render_html

    text = render_html(audit)
    assert text.count('<tr class="sev-high">') == 2
    assert text.count('<tr class="sev-medium">') == 2
    assert "Add members or remove the team&#x27;s permission." in text


def test_notebook_view_shows_summary_and_first_findings(audit):
    view = audit._repr_html_()
    assert "Permission audit of Example (org)" in view
    assert "guest_write" in view and "<script" not in view


def test_excel_has_one_sheet_per_table(audit, tmp_path):
    import openpyxl

    path = audit.to_excel(tmp_path / "audit.xlsx")
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == list(audit.tables())
    assert book.sheetnames[:3] == ["summary", "coverage", "findings"]
    findings = pd.read_excel(path, sheet_name="findings")
    assert len(findings) == len(audit.findings)
    assert findings.loc[0, "severity"] == "high"


def test_excel_without_openpyxl_says_how_to_install_it(audit, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    with pytest.raises(ImportError, match=r"pip install docsapi\[excel\]"):
        audit.to_excel(tmp_path / "audit.xlsx")


def test_csv_writes_one_readable_file_per_table(audit, tmp_path):
    files = audit.to_csv(tmp_path / "csv")
    assert [f.name for f in files] == [f"{name}.csv" for name in audit.tables()]
    assert {"effective.csv", "paths.csv", "exposure.csv", "coverage.csv"} <= {f.name for f in files}
    effective = pd.read_csv(tmp_path / "csv" / "effective.csv")
    assert len(effective) == len(audit.effective)
    assert set(effective["role"]) <= {
        "guest",
        "read",
        "comment",
        "edit",
        "review",
        "create",
        "admin",
    }
    summary = pd.read_csv(tmp_path / "csv" / "summary.csv")
    assert list(summary.columns) == ["category", "item", "count"]


def test_writers_refuse_a_path_that_is_not_one(audit):
    with pytest.raises(ValidationError, match="path"):
        audit.to_html(None)
    with pytest.raises(ValidationError, match="folder"):
        audit.to_csv("")
