"""Charts: legends never cover bars, and the access-path and exposure charts count right."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from test_audit_analysis import make_data

from docsapi import audit_permissions
from docsapi.audit import analyze
from docsapi.audit.report.plots import (
    CATEGORY_COLORS,
    ROLE_COLORS,
    access_paths_figure,
    exposure_figure,
    stacked_bars_figure,
)

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def demo_audit(sandbox_server):
    """The seeded demo organization: every path kind, and exposed content."""
    sandbox_server.reset()
    return audit_permissions(sandbox_server.client(), sandbox_server.org_id, progress=False)


def covered(figure: Figure) -> list[str]:
    """Render ``figure`` with Agg; describe every bar, patch or image a legend overlaps, and
    every legend that does not fit inside the figure."""
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    problems = []
    for axes in figure.axes:
        legend = axes.get_legend()
        if legend is None:
            continue
        box = legend.get_window_extent(renderer)
        if not (figure.bbox.x0 <= box.x0 and box.x1 <= figure.bbox.x1 + 0.5):
            problems.append(f"legend {box} outside the figure {figure.bbox}")
        for artist in [*axes.patches, *axes.images]:
            extent = artist.get_window_extent(renderer)
            if extent.width > 0 and extent.height > 0 and box.overlaps(extent):
                problems.append(f"legend {box} covers {artist} at {extent}")
    return problems


def legend_count(figure: Figure) -> int:
    return sum(axes.get_legend() is not None for axes in figure.axes)


def page_counts(rows: int = 30) -> pd.DataFrame:
    """Notebook 04's table: pages per space, by kind (many rows, full bars)."""
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        rng.integers(0, 12, size=(rows, 3)),
        index=[f"Space {i}" for i in range(rows)],
        columns=["document", "group", "link"],
    )


def test_the_check_catches_a_legend_drawn_over_bars():
    figure = Figure(figsize=(6, 3))
    axes = figure.add_subplot()
    axes.barh(["a", "b", "c"], [10, 10, 10], label="pages")
    axes.legend(loc="center")
    assert covered(figure)


#: Notebook 07's table (affiliates per manager and status, sandbox seed 0), whose default
#: pandas chart put its legend over a bar.
AFFILIATES = pd.DataFrame(
    [[23, 7, 7, 6], [27, 8, 16, 5], [27, 10, 11, 5], [32, 6, 10, 9], [22, 6, 11, 2], [35, 4, 5, 6]],
    index=["Anna Kowalski", "Luis Moreno", "Maya Chen", "Raj Mehta", "Sara Okafor", "Tom Becker"],
    columns=["active", "paused", "pending", "rejected"],
)


def test_notebook_07_chart_had_its_legend_over_a_bar_and_no_longer_has():
    figure = Figure(figsize=(8, 4), layout="tight")
    AFFILIATES.plot.barh(stacked=True, ax=figure.add_subplot())
    assert covered(figure)  # pandas' "best" place was on a bar
    figure = stacked_bars_figure(AFFILIATES, xlabel="affiliates", legend_title="status")
    assert legend_count(figure) == 1 and covered(figure) == []


def test_no_legend_of_an_audit_covers_a_bar(demo_audit):
    figures = demo_audit.plot()
    assert set(figures) == {
        "role_matrix",
        "grants_per_space",
        "findings_by_rule",
        "access_paths",
        "exposure",
        "timeline",
    }
    for name, figure in figures.items():
        assert legend_count(figure) == (2 if name == "timeline" else 1), name
        assert covered(figure) == [], name


def test_no_legend_covers_a_bar_in_small_and_empty_audits():
    for data in (make_data(), make_data(user_grants=[], team_grants=[])):
        for name, figure in analyze(data).plot().items():
            assert covered(figure) == [], name
    assert covered(exposure_figure(analyze(make_data()).exposure)) == []


@pytest.mark.parametrize("rows", [1, 6, 30, 120])
def test_notebook_bar_charts_keep_their_legend_beside_the_bars(rows):
    figure = stacked_bars_figure(
        page_counts(rows), xlabel="pages", title="Pages per space", legend_title="kind"
    )
    assert legend_count(figure) == 1
    assert covered(figure) == []


def test_stacked_bars_keep_the_table_order_and_stack_each_row():
    table = page_counts(5)
    axes = stacked_bars_figure(table, legend_title="kind").axes[0]
    labels = [label.get_text() for label in axes.get_yticklabels()]
    assert labels == table.index.tolist()  # first row on top
    assert [label.get_text() for label in axes.get_legend().get_texts()] == list(table.columns)
    assert axes.get_legend().get_title().get_text() == "kind"
    widths = np.array([[bar.get_width() for bar in bars] for bars in axes.containers])
    assert widths.T.tolist() == table.to_numpy(dtype=float).tolist()
    colors = [matplotlib.colors.to_hex(bars[0].get_facecolor()) for bars in axes.containers]
    assert colors == list(CATEGORY_COLORS[:3])


def test_one_series_draws_plain_bars_without_a_legend():
    sizes = pd.Series([3.5, 1.25], index=["image/png", "application/pdf"], name="megabytes")
    figure = stacked_bars_figure(sizes, xlabel="MB")
    axes = figure.axes[0]
    assert axes.get_legend() is None
    assert [bar.get_width() for bar in axes.containers[0]] == [3.5, 1.25]
    assert "nothing to draw" in stacked_bars_figure(sizes.iloc[:0]).axes[0].texts[0].get_text()


def bar_table(figure: Figure) -> pd.DataFrame:
    """The chart's bars as a table: rows by tick label, columns by legend label."""
    axes = figure.axes[0]
    rows = [label.get_text() for label in axes.get_yticklabels()]
    return pd.DataFrame(
        {bars.get_label(): [bar.get_width() for bar in bars] for bars in axes.containers},
        index=rows,
    )


def test_access_paths_count_pairs_per_kind_at_the_highest_role(demo_audit):
    drawn = bar_table(access_paths_figure(demo_audit.paths))
    paths = demo_audit.paths[demo_audit.paths["status"] != "overridden"]  # they reach nothing
    assert drawn.index.tolist() == [
        "org-admin",
        "default",
        "direct",
        "team",
        "collection",
        "collection-team",
        "site",
        "site-team",
        "site-default",
        "creator",
    ]
    best = paths.sort_values("role").drop_duplicates(["kind", "space_id", "user_id"], keep="last")
    expected = pd.crosstab(best["kind"].astype(str), best["role"].astype(str))
    expected = expected.reindex(index=drawn.index, columns=drawn.columns, fill_value=0)
    assert drawn.astype(int).equals(expected.astype(int))
    pairs = paths.groupby("kind", observed=True).apply(
        lambda group: len(group[["space_id", "user_id"]].drop_duplicates())
    )
    assert drawn.sum(axis=1).astype(int).to_dict() == pairs.to_dict()
    colors = {
        bars.get_label(): matplotlib.colors.to_hex(bars[0].get_facecolor())
        for bars in access_paths_figure(paths).axes[0].containers
    }
    assert colors == {role: ROLE_COLORS[role] for role in colors}


def test_exposure_chart_counts_each_way_in_per_space(demo_audit):
    exposure = demo_audit.exposure
    drawn = bar_table(exposure_figure(exposure))
    per_space = exposure.groupby(exposure["space_title"].astype(str)).size()
    assert drawn.sum(axis=1).astype(int).sort_index().equals(per_space.sort_index())
    assert set(drawn.columns) == set(exposure["visibility"].astype(str))
    assert drawn.loc[:, "public"].sum() == (exposure["visibility"] == "public").sum()


def test_no_stacked_bar_runs_into_the_frame():
    import pandas as pd

    from docsapi.audit.report.plots import stacked_bars_figure

    table = pd.DataFrame({"read": [89, 34], "edit": [143, 20]}, index=["default", "direct"])
    axes = stacked_bars_figure(table, legend_title="role").axes[0]
    longest = max(patch.get_x() + patch.get_width() for patch in axes.patches)
    assert longest == 232 and axes.get_xlim()[1] >= longest * 1.04
