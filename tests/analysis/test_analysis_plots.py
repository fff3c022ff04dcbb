"""Figures on the Agg backend: content (bars, lines, labels), never pixels."""

import doctest
import importlib
import re

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from analysis import plots  # noqa: E402
from analysis.testing import synthetic_records  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_pattern_frequency_bars():
    df = synthetic_records(100, seed=1)
    f = plots.compute_pattern_frequencies(df)
    assert f["rate"].is_monotonic_decreasing and (f["per"] == "win").all()
    ax = plots.draw_pattern_frequencies(f)
    assert len(ax.patches) == len(f) == 5
    assert [t.get_text() for t in ax.get_yticklabels()] == f["pattern"].tolist()
    assert "per win" in ax.get_xlabel()


def test_delta_distribution_lines():
    f = plots.compute_delta_distribution(synthetic_records(100, seed=2))
    ax = plots.draw_delta_distribution(f)
    assert [line.get_label() for line in ax.get_lines()] == [f"seat {k}" for k in range(4)]
    assert ax.get_xscale() == "symlog"


def test_sweep_band_and_lines():
    frames = {r: synthetic_records(50, seed=3, draw_rate=r) for r in (0.1, 0.2, 0.3)}
    f = plots.compute_sweep(
        frames, option="draw_rate", baseline=0.2, metrics=["draw_rate", "turns"]
    )
    with pytest.raises(Exception, match="several metrics"):
        plots.draw_sweep(f)
    _, ax = plt.subplots()
    out = plots.draw_sweep(f, metric="draw_rate", ax=ax)
    assert out is ax
    assert len(ax.collections) == 1  # the paired band
    labels = [line.get_label() for line in ax.get_lines()]
    assert "difference" in labels and "unpaired interval" in labels
    assert ax.get_xlabel() == "draw_rate (baseline 0.2)"
    assert "baseline" in ax.get_ylabel()
    assert ax.get_legend() is not None
    _, ax = plt.subplots()
    plots.draw_sweep(f, metric="turns", ax=ax, legend=False)  # a grid's other panels
    assert ax.get_legend() is None and len(ax.get_lines()) == 4  # with the zero line
    plt.close("all")


def test_sweep_ticks_are_whole_numbers_for_whole_number_options():
    frames = {
        k: synthetic_records(40, seed=3, value_bonus=k, rules_id=f"b{k}") for k in (0, 1, 2, 4)
    }
    f = plots.compute_sweep(frames, option="bonus", baseline=0, metrics=["value_per_win"])
    _, ax = plt.subplots()
    plots.draw_sweep(f, ax=ax)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1", "2", "4"]
    assert list(ax.get_xticks()) == [0, 1, 2, 4]
    plt.close("all")


def test_variant_panel():
    recs = {v: synthetic_records(50, seed=i, variant=v) for i, v in enumerate(["a", "b", "c"])}
    f = plots.compute_variant_panel(recs)
    ax = plots.draw_variant_panel(f, metric="draw_rate")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    assert ax.get_title() == "draw_rate"
    with pytest.raises(Exception, match="no metric"):
        plots.draw_variant_panel(f, metric="nope")


def test_save_figures(tmp_path):
    paths = plots.save_figures(synthetic_records(20, seed=1), tmp_path / "figs")
    assert [p.name for p in paths] == [
        "synthetic-pattern_frequencies.png",
        "synthetic-delta_distribution.png",
    ]
    assert all(p.stat().st_size > 1000 for p in paths)


def test_style_file_is_valid():
    assert plots.STYLE.exists()
    with plots.style():
        assert matplotlib.rcParams["axes.spines.top"] is False


def test_style_inside_style_keeps_the_settings_in_force():
    """A nested block applies nothing (a setting made inside the outer one survives it);
    leaving the outer block gives every setting back."""
    before = dict(matplotlib.rcParams)
    with plots.style():
        assert matplotlib.rcParams["savefig.dpi"] == 150
        matplotlib.rcParams["savefig.dpi"] = 77
        with plots.style():
            assert matplotlib.rcParams["savefig.dpi"] == 77
        assert matplotlib.rcParams["axes.grid"] is True
    assert dict(matplotlib.rcParams) == before
    with plots.style():  # applied again once outside
        assert matplotlib.rcParams["savefig.dpi"] == 150


@pytest.mark.parametrize(
    "module",
    ["stats", "summary", "payouts", "testing", "plots", "__init__", "_util"],
)
def test_doctests(module):
    name = "analysis" if module == "__init__" else f"analysis.{module}"
    res = doctest.testmod(importlib.import_module(name))
    assert res.failed == 0


_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _as_plain(label: str) -> str:
    """A LogFormatterSciNotation mathtext label as the plain text it shows."""
    inner = label.removeprefix("$\\mathdefault{").removesuffix("}$")
    inner = re.sub(r"\^\{(-?\d+)\}", lambda m: m.group(1).translate(_SUP), inner)
    return inner.replace("\\times", "×").replace("-", "\u2212")


def _tick_labels(ax) -> list[str]:
    ax.figure.canvas.draw()
    return [
        t.get_text()
        for axis in (ax.xaxis, ax.yaxis)
        for t in axis.get_ticklabels() + axis.get_ticklabels(minor=True)
    ]


@pytest.mark.parametrize(
    "xlim, ylim",
    [((-5000, 5000), (1e-6, 1)), ((-20, 3), (0.02, 0.5)), ((1, 40), (0.003, 0.007))],
)
def test_log_tick_labels_are_the_mathtext_ones_in_plain_text(xlim, ylim):
    """The delta figure's log and symlog labels read as matplotlib's mathtext ones,
    minor labels of a short log range included."""
    with plots.style():
        fig, ax = plt.subplots()
        ax.set_xscale("symlog", linthresh=8)
        ax.set_yscale("log")
        ax.set(xlim=xlim, ylim=ylim)
        want = [_as_plain(t) for t in _tick_labels(ax)]
        plots._plain_log_labels(ax)
        got = _tick_labels(ax)
    assert got == want
    assert all("$" not in t for t in got)
    assert any("×" in t for t in got) == (ylim[0] > 1e-6)  # minor labels on a short range
    if ylim[0] == 1e-6:
        assert {"10⁻⁶", "\u221210³", "0", "10³"} <= set(got)


def test_delta_figure_draws_without_mathtext(monkeypatch):
    from matplotlib import mathtext

    def refuse(*args, **kwargs):
        raise AssertionError("mathtext parsed")

    monkeypatch.setattr(mathtext.MathTextParser, "parse", refuse)
    ax = plots.draw_delta_distribution(plots.compute_delta_distribution(synthetic_records(100)))
    labels = _tick_labels(ax)
    assert "10⁻¹" in labels and "0" in labels and "\u221210¹" in labels


def test_grid_panels_have_at_most_seven_round_ticks():
    """The panel's x axis and a sweep's y axis keep few ticks on a wide axis (the automatic
    locator puts up to 10 there), still at round steps."""
    import numpy as np

    fig, ax = plt.subplots(figsize=(12, 12))
    recs = {v: synthetic_records(50, seed=i, variant=v) for i, v in enumerate(["a", "b"])}
    plots.draw_variant_panel(plots.compute_variant_panel(recs), metric="turns", ax=ax)
    ax.set_xlim(0, 90)  # matplotlib's own: 10 ticks, 0 to 90 by 10
    assert list(ax.get_xticks()) == [0, 20, 40, 60, 80, 100]
    frames = {k: synthetic_records(40, seed=3, value_bonus=k, rules_id=f"b{k}") for k in (0, 1)}
    f = plots.compute_sweep(frames, option="bonus", baseline=0, metrics=["value_per_win"])
    _, ax = plt.subplots(figsize=(12, 12))
    plots.draw_sweep(f, ax=ax)
    ax.set_ylim(0, 0.9)
    assert np.allclose(ax.get_yticks(), [0, 0.2, 0.4, 0.6, 0.8, 1.0])
