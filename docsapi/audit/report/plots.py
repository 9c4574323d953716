"""Charts of a permission audit, and the bar charts of the worked notebooks, as matplotlib figures.

Legends sit outside the axes (right of them), so they never cover a bar or a cell. Every
text a chart draws that may come from a server (names, actions, visibilities) goes through
:func:`~docsapi.core.safe_text.chart_label`: a ``$`` is drawn as itself (never read as
mathtext), control characters are shown escaped, and a long name ends in "…". Bars are
placed by position, so two names that read alike are still two bars.
Figures are built with :class:`matplotlib.figure.Figure` directly (no ``pyplot``), so they
work under any backend, including Agg on a server, and never pop up a window. Jupyter
draws a returned figure inline once its inline backend is active (``%matplotlib inline``,
or any earlier ``import matplotlib.pyplot`` in the kernel); ``figure.savefig(path)`` works
everywhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docsapi.audit.rules import ROLES, RULES
from docsapi.core.safe_text import chart_label, terminal_line

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from docsapi.audit.view import AuditView

__all__ = [
    "CATEGORY_COLORS",
    "CHART_WIDTH",
    "NO_ACCESS_COLOR",
    "ROLE_COLORS",
    "SEVERITY_COLORS",
    "VISIBILITY_COLORS",
    "access_paths_figure",
    "exposure_figure",
    "findings_by_rule_figure",
    "grants_per_space_figure",
    "matrix_is_indexed",
    "plot_audit",
    "role_matrix_figure",
    "stacked_bars_figure",
    "timeline_counts",
    "timeline_figure",
]

#: One colour per role, ordered: grey for guests, then matplotlib's *inferno* scale sampled
#: from 0.9 down to 0.05, yellow (read), orange, red, magenta, indigo, to near-black (admin).
#: Lightness falls with every step up in privilege, so the order reads in greyscale, and the
#: hue turns at every step, so neighbouring roles differ in two ways: under simulated
#: protanopia, deuteranopia and tritanopia (Machado et al. 2009, severity 1) every two
#: colours, white "no access" included, stay at least 17 CIE76 ΔE apart, and the three
#: darkest (review, create, admin) at least 22 (tests/test_plots_colors.py).
ROLE_COLORS: dict[str, str] = {
    "guest": "#cccccc",
    "read": "#f6d746",
    "comment": "#f78410",
    "edit": "#d04545",
    "review": "#8f2469",
    "create": "#4a0c6b",
    "admin": "#07051b",
}
NO_ACCESS_COLOR = "#ffffff"

#: Severities from dark red (high) to pale yellow (low), ColorBrewer RdYlBu's warm end.
SEVERITY_COLORS: dict[str, str] = {"high": "#a50026", "medium": "#f46d43", "low": "#fee090"}

#: Site visibilities, most exposed first (Okabe-Ito vermillion, yellow, blue; grey for sites
#: that ask visitors to sign in).
VISIBILITY_COLORS: dict[str, str] = {
    "public": "#d55e00",
    "unlisted": "#f0e442",
    "share-link": "#0072b2",
    "visitor-auth": "#999999",
}

#: Colours of other categories, in order (Okabe and Ito's colour-blind-safe set).
CATEGORY_COLORS: tuple[str, ...] = (
    "#0072b2",
    "#e69f00",
    "#009e73",
    "#cc79a7",
    "#56b4e9",
    "#d55e00",
    "#f0e442",
    "#000000",
)

#: Where every legend goes: outside the axes, to their right, top-aligned.
_OUTSIDE: dict[str, Any] = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "frameon": False}

#: Every chart is at most this many inches wide: 800 pixels at the report's 100 dpi, so it
#: reads in full at 800 pixels.
CHART_WIDTH = 8.0
#: The tallest a role matrix is drawn (inches).
CHART_MAX_HEIGHT = 8.0
#: The role matrix names at most this many users and spaces; beyond, it numbers them.
MAX_NAMED_USERS, MAX_NAMED_SPACES = 60, 45
#: Beyond this many bars, their labels would overlap and are left out.
_MAX_LABELS = 80


def _empty_figure(message: str) -> Figure:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6, 1.5), layout="constrained")
    axes = figure.add_subplot()
    axes.text(0.5, 0.5, chart_label(message, 120), ha="center", va="center", fontsize=12)
    axes.set_axis_off()
    return figure


def _role_legend(axes, roles: list[str], *, no_access: bool = False, **options) -> None:
    """A legend of ``roles`` (and of "no access", white, when ``no_access``)."""
    from matplotlib.patches import Patch

    colors = {role: ROLE_COLORS[role] for role in roles}
    if no_access:
        colors["no access"] = NO_ACCESS_COLOR
    handles = [Patch(facecolor=c, edgecolor="#555555", label=r) for r, c in colors.items()]
    axes.legend(handles=handles, title="role", **_OUTSIDE, **options)


def matrix_is_indexed(matrix: pd.DataFrame) -> bool:
    """True when :func:`role_matrix_figure` numbers the users and spaces instead of naming
    them: more than :data:`MAX_NAMED_USERS` users or :data:`MAX_NAMED_SPACES` spaces, whose
    names would not be readable in :data:`CHART_WIDTH` inches.

    Examples
    --------
    >>> import pandas as pd
    >>> matrix_is_indexed(pd.DataFrame(index=range(100), columns=range(10)))
    True
    """
    rows, columns = matrix.shape
    return rows > MAX_NAMED_USERS or columns > MAX_NAMED_SPACES


def _ticks(count: int) -> list[int]:
    """At most 26 numbers from 1 to ``count`` to write on an axis: 1, then every multiple of a
    round step (1, 2, 5, 10, 20, 50...)."""
    steps = (step * power for power in (1, 10, 100, 1000) for step in (1, 2, 5))
    step = next((s for s in steps if count // s <= 25), -(-count // 25))
    return sorted({1, *range(step, count + 1, step)})


def _short(label: object, limit: int = 24) -> str:
    return chart_label(label, limit)


def role_matrix_figure(matrix: pd.DataFrame) -> Figure:
    """Heatmap of the audit's users-by-spaces matrix, one colour per role.

    At most :data:`CHART_WIDTH` inches wide and :data:`CHART_MAX_HEIGHT` tall, so it reads
    at 800 pixels. Up to :data:`MAX_NAMED_USERS` users and :data:`MAX_NAMED_SPACES` spaces
    are named on the axes; a larger matrix is drawn with numbered axes (1 is the first user
    or space of ``matrix``, in its order), which the report's index under the chart names
    (see :func:`matrix_is_indexed`).

    Parameters
    ----------
    matrix : DataFrame
        ``PermissionAudit.matrix``: rows users, columns spaces, ordered categorical roles.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> figure = role_matrix_figure(audit.matrix)  # figure.savefig("matrix.png") writes it
    >>> figure.axes[0].get_title()
    'Effective role of each user on each space'
    """
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.figure import Figure

    if matrix.empty:
        return _empty_figure("No user has access to any space.")
    codes = matrix.apply(lambda column: column.cat.codes).to_numpy() + 1  # 0 means no access
    colors = [NO_ACCESS_COLOR, *(ROLE_COLORS[role] for role in ROLES)]
    cmap = ListedColormap(colors)
    norm = BoundaryNorm([value - 0.5 for value in range(len(colors) + 1)], cmap.N)
    rows, columns = matrix.shape
    indexed = matrix_is_indexed(matrix)
    height = min(CHART_MAX_HEIGHT, max(3.0, 0.105 * min(rows, MAX_NAMED_USERS) + 2.2))
    figure = Figure(figsize=(CHART_WIDTH, height), layout="constrained")
    axes = figure.add_subplot()
    axes.imshow(codes, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    if indexed:
        for set_ticks, count in ((axes.set_xticks, columns), (axes.set_yticks, rows)):
            numbers = _ticks(count)
            set_ticks([n - 1 for n in numbers], labels=[str(n) for n in numbers], fontsize=7)
        axes.set_xlabel("space (number in the index under the chart)")
        axes.set_ylabel("user (number in the index)")
    else:
        axes.set_xticks(
            range(columns), labels=[_short(c) for c in matrix.columns], rotation=90, fontsize=7
        )
        axes.set_yticks(range(rows), labels=[_short(r) for r in matrix.index], fontsize=7)
        # cell borders as two line collections: minor ticks would make a tick (two lines,
        # two labels) per border, and laying them out is most of the chart's drawing time
        axes.vlines(
            [value - 0.5 for value in range(columns + 1)], -0.5, rows - 0.5, "#e0e0e0", lw=0.5
        )
        axes.hlines(
            [value - 0.5 for value in range(rows + 1)], -0.5, columns - 0.5, "#e0e0e0", lw=0.5
        )
        axes.set_xlabel("space")
        axes.set_ylabel("user")
    axes.set_title("Effective role of each user on each space")
    # only the roles the matrix holds, most privileged first
    present = set(codes.ravel().tolist())
    _role_legend(
        axes,
        [role for code, role in reversed(list(enumerate(ROLES, start=1))) if code in present],
        no_access=0 in present,
    )
    return figure


def stacked_bars_figure(
    table: pd.DataFrame | pd.Series,
    *,
    xlabel: str = "",
    title: str = "",
    legend_title: str | None = None,
    colors: dict[str, str] | None = None,
) -> Figure:
    """Horizontal bars, one per row of ``table`` (top to bottom in its order), stacked by column.

    Parameters
    ----------
    table : DataFrame
        Non-negative numbers; the index labels the bars, the columns the stacked parts (a
        ``Series`` draws plain bars).
    xlabel, title : str
        The axis label under the bars and the chart's title.
    legend_title : str, optional
        The legend's title; the legend (right of the axes) is drawn when there are two
        columns or more.
    colors : dict of str to str, optional
        A colour per column; by default :data:`CATEGORY_COLORS` in column order.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> pages = pd.DataFrame({"document": [14, 9], "link": [1, 0]}, index=["Guide", "FAQ"])
    >>> figure = stacked_bars_figure(pages, xlabel="pages", legend_title="kind")
    >>> [label.get_text() for label in figure.axes[0].get_legend().get_texts()]
    ['document', 'link']
    """
    import pandas as pd
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    if isinstance(table, pd.Series):
        table = table.to_frame()
    if table.empty:
        return _empty_figure(f"{title or 'Chart'}: nothing to draw.")
    names = [str(column) for column in table.columns]
    palette = colors or dict(zip(names, _cycle(len(names)), strict=True))
    labels = [chart_label(label) for label in table.index]
    positions = list(range(len(labels)))
    height = min(24.0, max(3.0, 0.25 * len(labels) + 1.5))
    figure = Figure(figsize=(CHART_WIDTH, height), layout="constrained")
    axes = figure.add_subplot()
    left = [0.0] * len(labels)
    handles = []
    for position, name in enumerate(names):
        values = [float(value) for value in table.iloc[:, position].fillna(0)]
        handles.append(
            axes.barh(
                positions,
                values,
                left=left,
                color=palette[name],
                label=chart_label(name),
                edgecolor="white",
                linewidth=0.5,
            )
        )
        left = [a + b for a, b in zip(left, values, strict=True)]
    axes.set_yticks(positions, labels=labels)
    axes.invert_yaxis()  # the first row on top
    axes.set_xlim(0, max(max(left), 1.0) * 1.05)  # the longest bar ends short of the frame
    if all(float(value).is_integer() for value in left):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel(chart_label(xlabel, 120))
    axes.set_title(chart_label(title, 120))
    if len(labels) > _MAX_LABELS:
        axes.set_yticks([])
    elif len(labels) > 20:
        axes.tick_params(axis="y", labelsize=7)
    if len(names) > 1:
        heading = None if legend_title is None else chart_label(legend_title)
        axes.legend(handles, [chart_label(name) for name in names], title=heading, **_OUTSIDE)
    return figure


def _cycle(count: int) -> list[str]:
    return [CATEGORY_COLORS[i % len(CATEGORY_COLORS)] for i in range(count)]


def grants_per_space_figure(grants: pd.DataFrame) -> Figure:
    """Stacked bars: how many grants each space has, split by role.

    Parameters
    ----------
    grants : DataFrame
        ``PermissionAudit.grants`` (user and team grants, not expanded); only grants on
        spaces are drawn.

    Returns
    -------
    matplotlib.figure.Figure
    """
    grants = grants[(grants["target_type"] == "space").to_numpy(dtype=bool)]
    if grants.empty:
        return _empty_figure("No space has any grant.")
    counts = _by_title(grants["target_id"], grants["target_title"], grants["role"])
    counts = counts[[role for role in ROLES if role in counts.columns]]
    return stacked_bars_figure(
        counts,
        xlabel="grants (users and teams)",
        title="Grants per space, by role",
        legend_title="role",
        colors=ROLE_COLORS,
    )


def _by_title(ids: pd.Series, titles: pd.Series, parts: pd.Series) -> pd.DataFrame:
    """Rows counted per id and ``parts`` value, each row labelled by its title (its id when
    it has none), ordered by title: two spaces of the same title stay two bars."""
    import pandas as pd

    counts = pd.crosstab(ids.astype(str).to_numpy(), parts.astype(str).to_numpy())
    title_of = pd.Series(titles.astype(object).to_numpy(), index=ids.astype(str).to_numpy())
    title_of = title_of[~title_of.index.duplicated()].reindex(counts.index)
    labels = title_of.where(title_of.notna(), pd.Series(counts.index, index=counts.index))
    order = sorted(range(len(counts)), key=lambda row: str(labels.iloc[row]).casefold())
    counts = counts.iloc[order]
    counts.index = pd.Index([str(label) for label in labels.iloc[order]], dtype=object)
    return counts


def findings_by_rule_figure(findings: pd.DataFrame) -> Figure:
    """Horizontal bars: the number of findings of each rule, coloured by severity.

    Parameters
    ----------
    findings : DataFrame
        ``PermissionAudit.findings``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator

    counts = findings["rule"].value_counts().reindex(list(RULES), fill_value=0)
    names = list(reversed(RULES))
    figure = Figure(figsize=(CHART_WIDTH, 3.5), layout="constrained")
    axes = figure.add_subplot()
    bars = axes.barh(
        names,
        [int(counts[name]) for name in names],
        color=[SEVERITY_COLORS[RULES[name].severity] for name in names],
    )
    axes.bar_label(bars, padding=3)
    axes.set_xlabel("findings")
    axes.set_title(f"Findings by rule ({len(findings)} in total)")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlim(0, max(1, int(counts.max())) * 1.15)
    axes.legend(
        handles=[
            Patch(facecolor=color, edgecolor="#555555", label=severity)
            for severity, color in SEVERITY_COLORS.items()
        ],
        title="severity",
        **_OUTSIDE,
    )
    return figure


def access_paths_figure(paths: pd.DataFrame) -> Figure:
    """How users reach spaces: the (space, user) pairs each kind of path reaches, by role.

    A pair reached by two paths of one kind (two teams) counts once for that kind, with the
    higher role; a pair reached by a team and by the default level counts for both kinds.
    Paths the rule set overrides (``status`` ``overridden``) reach nothing and are left out.

    Parameters
    ----------
    paths : DataFrame
        ``PermissionAudit.paths``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import pandas as pd

    from docsapi.audit.resolve import KINDS

    paths = paths[(paths["status"] != "overridden").to_numpy(dtype=bool)]
    if paths.empty:
        return _empty_figure("No user reaches any space.")
    best = paths.groupby(["kind", "space_id", "user_id"], observed=True)["role"].max()
    counts = pd.crosstab(
        best.index.get_level_values("kind").astype(str), best.astype(str).to_numpy()
    )
    counts = counts.reindex(index=list(KINDS), columns=list(ROLES), fill_value=0)
    counts = counts.loc[:, counts.sum() > 0]
    return stacked_bars_figure(
        counts,
        xlabel="(space, user) pairs reached",
        title="How users reach spaces: pairs per kind of path, by the role it gives",
        legend_title="role",
        colors=ROLE_COLORS,
    )


def exposure_figure(exposure: pd.DataFrame) -> Figure:
    """Content readable without an account: per space, the ways in, by site visibility.

    Parameters
    ----------
    exposure : DataFrame
        ``PermissionAudit.exposure``: one row per (space, site, share link).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if exposure.empty:
        return _empty_figure("No content is readable without an account.")
    counts = _by_title(exposure["space_id"], exposure["space_title"], exposure["visibility"])
    order = [v for v in VISIBILITY_COLORS if v in counts.columns]
    counts = counts[order + [c for c in counts.columns if c not in VISIBILITY_COLORS]]
    colors = {
        **dict(zip(counts.columns, _cycle(counts.shape[1]), strict=True)),
        **VISIBILITY_COLORS,
    }
    return stacked_bars_figure(
        counts,
        xlabel="ways in without an account (sites, share links)",
        title="Exposure: spaces readable without an account, by site visibility",
        legend_title="visibility",
        colors=colors,
    )


#: Periods of :func:`timeline_counts`: pandas period codes and their names.
_PERIODS = {"W": ("W-SUN", "week"), "M": ("M", "month")}
_BY = {"action": "action", "actor": "actor"}
#: At most this many actions or actors get a colour of their own; the others share one.
_MAX_SERIES = 7


def timeline_counts(events: pd.DataFrame, *, freq: str = "W", by: str = "action") -> pd.DataFrame:
    """Changes of access per period: the events of an audit log that changed a setting.

    Parameters
    ----------
    events : DataFrame
        ``PermissionAudit.events`` (the log with its ``setting`` column).
    freq : {"W", "M"}
        Weeks (Monday to Sunday) or months.
    by : {"action", "actor"}
        One column per action, or per actor (their name, else their id), as a terminal
        shows it (:func:`~docsapi.core.safe_text.terminal_line`: control characters
        escaped); names that read alike share a column.

    Returns
    -------
    DataFrame
        Indexed by each period's first day (``period``, UTC), every period from the first
        change to the last, one integer column per action or actor (most frequent first).

    Raises
    ------
    ValidationError
        For another ``freq`` or ``by``.

    Examples
    --------
    >>> import pandas as pd
    >>> log = pd.DataFrame({"occurred_at": pd.to_datetime(["2026-01-05", "2026-01-20"], utc=True),
    ...                     "action": ["space.permission.added"] * 2, "actor_label": ["Ada"] * 2,
    ...                     "actor_id": ["u1"] * 2, "setting": ["grant"] * 2})
    >>> timeline_counts(log, freq="M")["space.permission.added"].tolist()
    [2]
    """
    import pandas as pd

    from docsapi.errors import ValidationError

    if freq not in _PERIODS:
        raise ValidationError("freq", f"must be 'W' (weeks) or 'M' (months), got {freq!r}")
    if by not in _BY:
        raise ValidationError("by", f"must be 'action' or 'actor', got {by!r}")
    changes = events[events["setting"].notna().to_numpy(dtype=bool)]
    period = _PERIODS[freq][0]
    starts = changes["occurred_at"].dt.tz_convert("UTC").dt.tz_localize(None).dt.to_period(period)
    if by == "actor":
        labels = (
            changes["actor_label"]
            .astype(object)
            .where(changes["actor_label"].notna(), changes["actor_id"].astype(object))
        )
    else:
        labels = changes["action"].astype(object)
    shown = labels.fillna("unknown").map(terminal_line)
    counts = pd.crosstab(starts.to_numpy(), shown.to_numpy())
    if counts.empty:
        return pd.DataFrame(index=pd.DatetimeIndex([], tz="UTC", name="period"))
    counts = counts[counts.sum().sort_values(ascending=False, kind="stable").index]
    every = pd.period_range(counts.index.min(), counts.index.max(), freq=period)
    counts = counts.reindex(every, fill_value=0)
    counts.index = pd.DatetimeIndex(every.start_time, name="period").tz_localize("UTC")
    counts.columns = pd.Index([str(c) for c in counts.columns], name=by)
    return counts.astype("int64")


def timeline_figure(events: pd.DataFrame, *, freq: str | None = None) -> Figure:
    """Permission changes over time: per period, stacked by action (top) and by actor.

    Sized to be read at 800 pixels wide (8 x 6.5 inches at 100 dpi): one bar per week for
    a log of four months or less, per month otherwise; the seven most frequent actions and
    actors get a colour each, the others share one ("others").

    Parameters
    ----------
    events : DataFrame
        ``PermissionAudit.events``.
    freq : {"W", "M"}, optional
        Force weeks or months.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    changes = events[events["setting"].notna().to_numpy(dtype=bool)]
    if changes.empty:
        return _empty_figure("The audit log holds no change of access.")
    if freq is None:
        span = changes["occurred_at"].max() - changes["occurred_at"].min()
        freq = "W" if span.days <= 16 * 7 else "M"
    figure = Figure(figsize=(8, 6.5), layout="constrained")
    top, bottom = figure.subplots(2, 1, sharex=True)
    for axes, by in ((top, "action"), (bottom, "actor")):
        counts = timeline_counts(events, freq=freq, by=by)
        series = [(str(name), counts.iloc[:, i]) for i, name in enumerate(counts.columns)]
        if len(series) > _MAX_SERIES:
            others = counts.iloc[:, _MAX_SERIES:].sum(axis=1)
            series = [*series[:_MAX_SERIES], ("others", others)]
        labels = [f"{day:%Y-%m-%d}" if freq == "W" else f"{day:%Y-%m}" for day in counts.index]
        positions = list(range(len(labels)))
        base = [0.0] * len(labels)
        handles = []
        for (name, column), color in zip(series, _cycle(len(series)), strict=True):
            values = [float(v) for v in column]
            label = chart_label(name)
            bars = axes.bar(positions, values, bottom=base, color=color, label=label, width=0.8)
            handles.append(bars)
            base = [a + b for a, b in zip(base, values, strict=True)]
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_ylabel("changes")
        names = [bars.get_label() for bars in handles]  # explicit: "_x" is a name too
        axes.legend(handles, names, title=by, fontsize=7, title_fontsize=8, **_OUTSIDE)
        step = max(1, len(labels) // 12)
        axes.set_xticks(positions[::step], labels[::step], rotation=45, ha="right", fontsize=8)
    name = _PERIODS[freq][1]
    top.set_title(f"Permission changes per {name}, by action (top) and by actor (bottom)")
    return figure


def plot_audit(audit: AuditView) -> dict[str, Figure]:
    """Draw the charts of an audit.

    Parameters
    ----------
    audit : AuditView
        The audit to draw.

    Returns
    -------
    dict of str to Figure
        ``"role_matrix"``, ``"grants_per_space"``, ``"findings_by_rule"``,
        ``"access_paths"``, when some content is readable without an account
        ``"exposure"``, and when the audit log was read ``"timeline"``.

    Examples
    --------
    >>> figures = audit.plot()
    >>> list(figures)[:4]
    ['role_matrix', 'grants_per_space', 'findings_by_rule', 'access_paths']
    >>> figures["findings_by_rule"].savefig("findings.png")
    """
    figures = {
        "role_matrix": role_matrix_figure(audit.matrix),
        "grants_per_space": grants_per_space_figure(audit.grants),
        "findings_by_rule": findings_by_rule_figure(audit.findings),
        "access_paths": access_paths_figure(audit.paths),
    }
    if not audit.exposure.empty:
        figures["exposure"] = exposure_figure(audit.exposure)
    if not audit.events.empty:
        figures["timeline"] = timeline_figure(audit.events)
    return figures
