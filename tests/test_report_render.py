"""analysis.report.render._png: one layout and one draw give savefig's tight PNG."""

from __future__ import annotations

import importlib
import io

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402
from PIL import Image  # noqa: E402

from analysis import plots  # noqa: E402

render = importlib.import_module("analysis.report.render")  # the module, not the function


def _figure(seed: int) -> Figure:
    """A constrained-layout figure with what the report draws: log and symlog axes,
    error bars, a legend, titles, long tick labels, a hidden panel."""
    rng = np.random.default_rng(seed)
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    a, b, c = fig.subplots(1, 3)
    x = np.sort(rng.normal(0, 40, 30))
    a.step(x, np.exp(rng.normal(-6, 2, 30)), label="seat 0")
    a.set_xscale("symlog", linthresh=8)
    a.set_yscale("log")
    a.legend()
    a.set_title("deltas by seat")
    y = np.arange(6)
    b.barh(y, rng.random(6), xerr=0.05)
    b.set_yticks(y, [f"a rather long pattern name {i}" for i in y])
    b.set_xlabel("rate per win")
    c.set_visible(False)
    return fig


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_png_equals_savefig_tight(seed):
    with plots.style():
        buf = io.BytesIO()
        _figure(seed).savefig(buf, format="png", dpi=render.FIGURE_DPI)
        want = _pixels(buf.getvalue())
        fig = _figure(seed)
        got = _pixels(render._png(fig))
    assert fig.get_layout_engine() is None  # laid out once, then left alone
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_png_of_a_figure_without_layout_engine():
    with plots.style():
        fig = Figure(figsize=(4, 3))
        fig.subplots().plot([0, 1], [1, 0])
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=render.FIGURE_DPI)
        fig2 = Figure(figsize=(4, 3))
        fig2.subplots().plot([0, 1], [1, 0])
        np.testing.assert_array_equal(_pixels(render._png(fig2)), _pixels(buf.getvalue()))
