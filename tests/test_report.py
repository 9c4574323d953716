"""Charts and report files of an audit computed offline from hand-made tables."""

from __future__ import annotations

import base64
import hashlib
import re
import sys

import matplotlib
import pandas as pd
import pytest
from test_audit_analysis import make_data

from docsapi.audit import ROLE_DTYPE, analyze
from docsapi.audit.report.html import effective_view, paths_view
from docsapi.audit.report.tables import id_labels, interactive_table, script_source, source_labels
from docsapi.errors import ValidationError

matplotlib.use("Agg")

HOSTILE_TITLE = '<script>alert("x")</script> & <b>Ops</b>'


@pytest.fixture
def audit():
    data = make_data()
    data.spaces.loc[data.spaces["id"] == "s4", "title"] = HOSTILE_TITLE
    return analyze(data)


def test_plot_returns_figures_that_render(audit):
    from matplotlib.figure import Figure

    figures = audit.plot()
    assert audit.exposure.empty  # no exposure chart then
    assert list(figures) == ["role_matrix", "grants_per_space", "findings_by_rule", "access_paths"]
    for figure in figures.values():
        assert isinstance(figure, Figure)
        figure.canvas.draw()
        width, height = figure.canvas.get_width_height()
        assert width > 100 and height > 100


def test_role_matrix_legend_names_the_roles_it_shows(audit):
    axes = audit.plot()["role_matrix"].axes[0]
    labels = [text.get_text() for text in axes.get_legend().get_texts()]
    shown = set(audit.matrix.stack().astype(str))  # the roles of the cells that have one
    order = ["admin", "create", "review", "edit", "comment", "read", "guest"]
    empty = ["no access"] if audit.matrix.isna().to_numpy().any() else []
    assert labels == [role for role in order if role in shown] + empty
    assert len(axes.get_yticklabels()) == len(audit.matrix)


def test_charts_of_an_empty_audit_still_draw():
    audit = analyze(make_data(user_grants=[], team_grants=[]))
    for figure in audit.plot().values():
        figure.canvas.draw()


def test_html_report_is_one_escaped_self_contained_file(audit, tmp_path):
    path = audit.to_html(tmp_path / "sub" / "report.html")
    text = path.read_text(encoding="utf-8")
    scripts = re.findall(r"<script>(.*?)</script>", text, flags=re.DOTALL)
    assert scripts == [script_source()]  # the report's own script only: the title is escaped
    assert text.count("<script") == 1
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;Ops" in text
    # nothing loaded from elsewhere (links within the page, to a finding's row, load nothing)
    assert not re.search(r'(src|href)="(?!data:|#finding-\d+")', text)
    images = re.findall(r'<img class="chart" alt="[^"]+" src="data:image/png;base64,([^"]+)"', text)
    assert len(images) == 4
    assert all(base64.b64decode(image).startswith(b"\x89PNG") for image in images)
    sections = ["Fix first", "Findings", "Access paths", "Exposure", "Charts", "Tables"]
    assert [text.index(f"<h2>{name}</h2>") for name in sections] == sorted(
        text.index(f"<h2>{name}</h2>") for name in sections
    )
    assert "No content is readable without an account." in text


def test_content_security_policy_admits_exactly_the_inline_script(audit):
    from docsapi.audit.report.html import render_html

    text = render_html(audit)
    policy = re.search(r'http-equiv="Content-Security-Policy"\s+content="([^"]+)"', text)[1]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    digest = base64.b64encode(hashlib.sha256(script_source().encode()).digest()).decode()
    assert directives["script-src"] == f"'sha256-{digest}'"
    assert directives["default-src"] == "'none'" and directives["img-src"] == "data:"
    assert "http" not in policy and "unsafe-eval" not in policy


def test_every_table_of_the_report_is_interactive(audit):
    from docsapi.audit.report.html import render_html

    text = render_html(audit)
    assert text.count("<table>") == text.count('<div class="interactive">') > 5
    assert text.count('class="filters" hidden') == text.count("<table>")


def test_roles_sort_by_rank_and_dates_by_time():
    frame = pd.DataFrame(
        {
            "role": pd.Categorical(["edit", "admin", None, "read"], dtype=ROLE_DTYPE),
            "member_role": ["review", "guest", "admin", None],
            "seen": pd.to_datetime(["2026-01-02", None, "2025-12-31", "2026-01-01"], utc=True),
            "kind": ["b", "a", "b", "c"],
            "count": [3, 1, 2, None],
        }
    )
    html = interactive_table(frame, label="t")
    heads = re.findall(r'<th data-type="(\w+)" data-name="(\w+)" title=', html)
    assert heads == [
        ("number", "role"),
        ("number", "member_role"),
        ("number", "seen"),
        ("text", "kind"),
        ("number", "count"),
    ]
    keys = [re.findall(r'data-key="([^"]*)"', row) for row in html.split("<tr>")[2:]]
    ranks = [row[:2] for row in keys]
    assert ranks == [["3", "4"], ["6", "0"], ["", "6"], ["1", ""]]  # guest < ... < admin
    times = [int(row[2]) if row[2] else None for row in keys]
    assert times[2] < times[3] < times[0] and times[1] is None
    # a menu for each repeated categorical column, in rank order for roles
    menus = re.findall(r'<label>([\w ]+) <select data-column="\d+" data-name="(\w+)"', html)
    assert menus == [("Role", "role"), ("Member role", "member_role"), ("Kind", "kind")]
    role_menu = re.search(r"<label>Role <select.*?</select>", html)[0]
    assert re.findall(r'<option value="(\w*)">', role_menu) == ["", "read", "edit", "admin"]


def test_moments_are_shown_to_the_minute_with_the_exact_moment_on_hover():
    frame = pd.DataFrame(
        {"seen": pd.to_datetime(["2026-01-02 10:44:47.946", None], utc=True), "n": [1, 2]}
    )
    html = interactive_table(frame, label="t")
    cells = re.findall(r"<td[^>]*>[^<]*</td>", html)
    assert 'title="2026-01-02 10:44:47.946000+00:00"' in cells[0]
    assert cells[0].endswith(">2026-01-02 10:44 UTC</td>")
    assert "title" not in cells[2] and cells[2].endswith("></td>")


def test_menus_only_for_few_repeated_categories():
    many = [f"v{i % 13}" for i in range(26)]  # 13 values, each twice: too many to pick from
    frame = pd.DataFrame(
        {
            "rule": ["a", "b"] * 13,
            "target_title": ["x", "y"] * 13,
            "principal_name": ["p", "q"] * 13,
            "email": ["e", "f"] * 13,
            "stage": many,
            "detail": ["d", "e"] * 13,
            "error_id": ["i", "j"] * 13,
        }
    )
    html = interactive_table(frame, label="t")
    assert re.findall(r'<select data-column="\d+" data-name="(\w+)"', html) == ["rule"]


def test_id_columns_are_shown_in_the_cells_of_their_names():
    frame = pd.DataFrame(
        {
            "space_id": ["s1", "s2"],
            "space_title": ["Docs", None],
            "user_id": ["u1", None],
            "display_name": ["Ada", None],
            "site_id": ["w1", "w2"],
            "role": ["read", "edit"],
        }
    )
    html = interactive_table(frame, label="t")
    heads = re.findall(
        r'<th data-type="\w+" data-name="(\w+)"( data-id-column="\w+")? title=', html
    )
    assert heads == [
        ("space_title", ' data-id-column="space_id"'),
        ("display_name", ' data-id-column="user_id"'),
        ("site_id", ""),  # no site_title: the ids are the column
        ("role", ""),
    ]
    rows = html.split("<tr>")[2:]
    assert '<td class="nw" data-id="s1" title="space_id: s1">Docs</td>' in rows[0]
    assert 'title="user_id: u1">Ada</td>' in rows[0]
    # an id without a name is shown itself; nothing at all stays empty
    assert (
        '<td class="nw" data-id="s2" title="space_id: s2"><span class="id">s2</span></td>'
        in (rows[1])
    )
    assert '<td class="nw"></td>' in rows[1]


def test_report_tables_show_no_id_column_beside_its_title(audit):
    from docsapi.audit.report.html import render_html

    text = render_html(audit)
    tables = text.split("<table>")[1:]
    assert len(tables) > 5
    shown = [re.findall(r'<th data-type="\w+" data-name="(\w+)"', table) for table in tables]
    assert all(not id_labels(heads) for heads in shown)  # no id beside the column naming it
    assert {"target_title", "space_title", "principal_name", "display_name"} <= {
        name for heads in shown for name in heads
    }
    findings = text[text.index("<h2>Findings</h2>") : text.index("<h2>Access paths</h2>")]
    finding_heads = re.findall(r'data-name="(\w+)"', findings)
    assert not [h for h in finding_heads if h.endswith("_id")]
    for column in ("target_id", "principal_id"):
        for ident in audit.findings[column].dropna():
            assert f'data-id="{ident}" title="{column}: {ident}"' in findings


def test_sources_show_team_and_collection_names_beside_ids():
    teams = pd.DataFrame({"id": ["t1", "t2"], "title": ["Ops", None]})
    collections = pd.DataFrame({"id": ["c1"], "title": ["Handbook"]})
    sources = pd.Series(
        ["team:t1; default:read", "collection-team:c1/t1", "collection:c1", "team:t2", None]
    )
    assert source_labels(sources, teams, collections).tolist()[:4] == [
        "team:Ops (t1); default:read",
        "collection-team:Handbook/Ops (c1/t1)",
        "collection:Handbook (c1)",
        "team:t2",  # no title known: the id alone
    ]


def test_report_tables_name_teams_spaces_and_users(audit):
    from docsapi.audit.report.html import render_html

    effective = effective_view(audit)
    assert "source_names" not in effective.columns
    alice = effective[(effective.space_id == "s1") & (effective.user_id == "alice")].iloc[0]
    assert alice.sources == "team:T4 (t4); direct; team:T1 (t1)"
    paths = paths_view(audit)
    assert len(paths) == len(audit.paths)
    assert paths[["space_title", "display_name"]].notna().all().all()
    assert set(paths["source"]) >= {"team:T1 (t1)", "direct"}
    assert "team:T4 (t4); direct; team:T1 (t1)" in render_html(audit)


def test_html_lists_every_finding_with_its_severity_class(audit):
    from docsapi.audit.report.html import render_html

    text = render_html(audit)
    assert text.count('<tr class="sev-high" id="finding-') == 2
    assert text.count('<tr class="sev-medium" id="finding-') == 2
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
    assert findings.columns.tolist() == audit.findings.columns.tolist()  # ids kept
    assert findings.loc[0, "severity"] == "high"


def test_excel_sheets_have_an_autofilter_and_a_frozen_header(audit, tmp_path):
    import openpyxl
    from openpyxl.utils import get_column_letter

    path = audit.to_excel(tmp_path / "audit.xlsx")
    book = openpyxl.load_workbook(path)
    for name, table in audit.tables().items():
        sheet = book[name]
        columns = len(table.columns) + (name in ("summary", "matrix")) * table.index.nlevels
        last = f"{get_column_letter(columns)}{len(table) + 1}"
        assert sheet.auto_filter.ref == f"A1:{last}", name
        assert sheet.freeze_panes == "A2", name
        assert sheet.max_row == len(table) + 1 and sheet.max_column == columns, name


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


def test_writers_refuse_a_path_with_a_nul_character(audit, tmp_path):
    for write in (audit.to_html, audit.to_excel, audit.diff(audit).to_html):
        with pytest.raises(ValidationError, match="NUL"):
            write(str(tmp_path / "report\x00.html"))
