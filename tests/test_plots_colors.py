"""Chart colours stay apart for people with colour-vision deficiencies.

Each palette is passed through the simulation of Machado, Oliveira and Fernandes (2009,
"A physiologically-based model for simulation of color vision deficiency"), severity 1.0,
applied to linear RGB, then compared in CIE L*a*b* (D65) by the CIE76 difference ΔE.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from docsapi.audit.report.plots import (
    NO_ACCESS_COLOR,
    ROLE_COLORS,
    SEVERITY_COLORS,
    VISIBILITY_COLORS,
)

#: Machado et al. 2009, severity 1.0, on linear RGB.
SIMULATIONS = {
    "normal": np.eye(3),
    "protanopia": np.array(
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ]
    ),
    "deuteranopia": np.array(
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ]
    ),
    "tritanopia": np.array(
        [
            [1.255528, -0.076749, -0.178779],
            [-0.078411, 0.930809, 0.147602],
            [0.004733, 0.691367, 0.303900],
        ]
    ),
}
SRGB_TO_XYZ = np.array(
    [
        [0.4124564, 0.3575761, 0.1804375],
        [0.2126729, 0.7151522, 0.0721750],
        [0.0193339, 0.1191920, 0.9503041],
    ]
)
D65 = np.array([0.95047, 1.0, 1.08883])

#: The role colours before this check existed: read and comment were two pale blues.
OLD_ROLE_COLORS = {
    "guest": "#d9d9d9",
    "read": "#c6dbef",
    "comment": "#9ecae1",
    "edit": "#fdae6b",
    "review": "#a1d99b",
    "create": "#31a354",
    "admin": "#756bb1",
}

#: The smallest difference allowed between two role colours, in every vision.
MIN_ROLE_DELTA_E = 15.0
#: The same for the few-colour palettes (severities, site visibilities).
MIN_DELTA_E = 20.0


def linear_rgb(color: str) -> np.ndarray:
    srgb = np.array([int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def lab(linear: np.ndarray) -> np.ndarray:
    t = SRGB_TO_XYZ @ linear / D65
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def seen(color: str, vision: str) -> np.ndarray:
    """The L*a*b* colour that a person with ``vision`` perceives."""
    return lab(np.clip(SIMULATIONS[vision] @ linear_rgb(color), 0.0, 1.0))


def closest_pair(colors: dict[str, str], vision: str) -> tuple[float, str, str]:
    """The smallest CIE76 ΔE between two of ``colors`` as seen with ``vision``, and the pair."""
    perceived = {name: seen(color, vision) for name, color in colors.items()}
    return min(
        (float(np.linalg.norm(perceived[a] - perceived[b])), a, b)
        for a, b in itertools.combinations(perceived, 2)
    )


def test_colour_science_matches_reference_values():
    assert seen("#ffffff", "normal") == pytest.approx([100, 0, 0], abs=0.01)
    assert seen("#ff0000", "normal") == pytest.approx([53.24, 80.09, 67.20], abs=0.05)
    for vision, matrix in SIMULATIONS.items():  # every simulation keeps greys grey
        assert matrix.sum(axis=1) == pytest.approx([1, 1, 1], abs=1e-3), vision
    # protanopes and deuteranopes confuse red and green: their ΔE collapses
    for vision in ("protanopia", "deuteranopia"):
        apart = np.linalg.norm(seen("#d62728", vision) - seen("#2ca02c", vision))
        assert apart < np.linalg.norm(seen("#d62728", "normal") - seen("#2ca02c", "normal")) / 2


@pytest.mark.parametrize("vision", SIMULATIONS)
def test_role_colours_stay_apart_in_every_vision(vision):
    palette = {**ROLE_COLORS, "no access": NO_ACCESS_COLOR}
    distance, first, second = closest_pair(palette, vision)
    assert distance >= MIN_ROLE_DELTA_E, f"{first} and {second}: ΔE {distance:.1f} ({vision})"


def test_the_old_role_colours_fail_the_check():
    distance, first, second = min(closest_pair(OLD_ROLE_COLORS, vision) for vision in SIMULATIONS)
    assert distance < 10
    assert {first, second} == {"read", "comment"}


def test_role_colours_darken_with_privilege():
    lightness = [seen(ROLE_COLORS[role], "normal")[0] for role in list(ROLE_COLORS)[1:]]
    assert lightness == sorted(lightness, reverse=True)


@pytest.mark.parametrize("vision", SIMULATIONS)
@pytest.mark.parametrize("palette", [SEVERITY_COLORS, VISIBILITY_COLORS], ids=["severity", "site"])
def test_severity_and_site_colours_stay_apart(palette, vision):
    distance, first, second = closest_pair(palette, vision)
    assert distance >= MIN_DELTA_E, f"{first} and {second}: ΔE {distance:.1f} ({vision})"


#: Neighbouring dark roles differ by more than the palette's floor: a heatmap of mostly
#: reviewers, creators and admins must still read.
MIN_DARK_DELTA_E = 22.0


@pytest.mark.parametrize("vision", SIMULATIONS)
def test_the_darkest_roles_stay_well_apart(vision):
    dark = {role: ROLE_COLORS[role] for role in ("review", "create", "admin")}
    distance, first, second = closest_pair(dark, vision)
    assert distance >= MIN_DARK_DELTA_E, f"{first} and {second}: ΔE {distance:.1f} ({vision})"


def test_the_heatmap_legend_lists_only_the_roles_it_shows():
    import pandas as pd

    from docsapi.audit.data import ROLE_DTYPE
    from docsapi.audit.report.plots import role_matrix_figure

    columns = {
        "space A": ["read", "admin", None, "edit"],
        "space B": ["edit", None, "read", "read"],
    }
    matrix = pd.DataFrame(
        {name: pd.Series(roles, dtype=ROLE_DTYPE) for name, roles in columns.items()}
    ).set_axis(["u1", "u2", "u3", "u4"])
    legend = role_matrix_figure(matrix).axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["admin", "edit", "read", "no access"]
    full = matrix.fillna("read")
    legend = role_matrix_figure(full).axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["admin", "edit", "read"]
