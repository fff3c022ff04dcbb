"""analysis.report.render: a figure's PNG is its whole canvas, laid out once (a grid
measured once, placed where constrained layout would place it) and drawn once, and every
report figure fits inside its canvas (nothing is cropped to fit)."""

from __future__ import annotations

import importlib
import io

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.layout_engine import PlaceHolderLayoutEngine  # noqa: E402
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


def _savefig(fig) -> bytes:
    """What savefig gives for the whole figure (no tight crop), drawing it the usual way."""
    buf = io.BytesIO()
    with matplotlib.rc_context({"savefig.bbox": "standard"}):
        fig.savefig(buf, format="png", dpi=render.FIGURE_DPI)
    return buf.getvalue()


def _laid_out(seed: int, make=_figure) -> Figure:
    """``make(seed)`` on an Agg canvas at the report's dpi, laid out by ``_grid_layout``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = make(seed)
    fig.set_dpi(render.FIGURE_DPI)
    FigureCanvasAgg(fig)
    assert render._grid_layout(fig)
    return fig


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_png_equals_savefig_of_the_whole_figure(seed):
    with plots.style():
        want = _pixels(_savefig(_laid_out(seed)))
        fig = _figure(seed)
        got = _pixels(render._png(fig))
    engine = fig.get_layout_engine()  # laid out once, then left alone
    assert engine is None or isinstance(engine, PlaceHolderLayoutEngine)
    w, h = fig.get_size_inches() * render.FIGURE_DPI
    assert got.shape == want.shape == (int(h), int(w), 4)  # matplotlib truncates
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grid_layout_places_the_axes_where_constrained_layout_does(seed):
    """One measuring pass (two when the move changed the ticks) puts every Axes within a
    pixel of where constrained layout's two passes put it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    with plots.style():
        fig = _laid_out(seed)
        assert not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)  # done
        ref = _figure(seed)
        ref.set_dpi(render.FIGURE_DPI)
        FigureCanvasAgg(ref)
        ref.get_layout_engine().execute(ref)
    for a, b in zip(fig.axes, ref.axes, strict=True):
        got = a.get_position().transformed(fig.transFigure).extents
        want = b.get_position().transformed(ref.transFigure).extents
        np.testing.assert_allclose(got, want, atol=1.0)


def test_grid_layout_leaves_other_figures_to_their_engine():
    """A figure title, an Axes across two cells or no layout engine: not a plain grid."""
    with plots.style():
        fig = Figure(figsize=(4, 3), layout="constrained")
        fig.subplots(1, 2)
        fig.suptitle("a title")
        assert not render._grid_layout(fig)
        fig = Figure(figsize=(4, 3), layout="constrained")
        grid = fig.add_gridspec(2, 2)
        fig.add_subplot(grid[0, :])
        fig.add_subplot(grid[1, 0])
        assert not render._grid_layout(fig)
        fig = Figure(figsize=(4, 3))
        fig.subplots()
        assert not render._grid_layout(fig)


def test_png_of_a_figure_without_layout_engine():
    with plots.style():
        fig = Figure(figsize=(4, 3))
        fig.subplots().plot([0, 1], [1, 0])
        want = _savefig(fig)
        fig2 = Figure(figsize=(4, 3))
        fig2.subplots().plot([0, 1], [1, 0])
        np.testing.assert_array_equal(_pixels(render._png(fig2)), _pixels(want))


def _texts_figure(seed: int) -> Figure:
    """:func:`_figure` with rotated, mathtext and shared texts (tick labels every seed
    has), as the report's figures repeat them."""
    fig = _figure(seed)
    a, b, _ = fig.axes
    a.set_ylabel("share of deals")  # rotated
    a.set_xlabel(r"$\Delta$ per deal")  # mathtext
    b.set_title("pattern frequencies", fontsize=9 + seed)
    b.text(0.5, 0.5, "a note at 30°", rotation=30, transform=b.transAxes)
    return fig


def test_figures_drawn_one_after_another_get_their_own_pixels():
    """Each figure's PNG is what savefig draws for it alone, whichever figures came
    before, other font settings included."""
    with plots.style():
        got = [_pixels(render._png(_texts_figure(seed))) for seed in (0, 1, 2, 0)]
        with matplotlib.rc_context({"text.hinting": "no_hinting", "font.size": 12}):
            unhinted = _pixels(render._png(_texts_figure(1)))
            want_unhinted = _pixels(_savefig(_laid_out_texts(1)))
        want = [_pixels(_savefig(_laid_out_texts(seed))) for seed in (0, 1, 2, 0)]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(unhinted, want_unhinted)
    assert not np.array_equal(unhinted, got[1])


def _laid_out_texts(seed: int) -> Figure:
    return _laid_out(seed, _texts_figure)


def _context() -> dict:
    """A report context of synthetic records: the panel (every metric, its longest axis
    label included), and one variant's patterns, deltas and a sweep."""
    from analysis._util import jsonable
    from analysis.frequencies import pattern_frequencies
    from analysis.testing import synthetic_records

    recs = {v: synthetic_records(60, seed=i, variant=v) for i, v in enumerate(["zhuji", "b"])}
    frames = {k: synthetic_records(40, seed=3, value_bonus=k, rules_id=f"b{k}") for k in (0, 1, 2)}
    sweep = plots.compute_sweep(
        frames, option="bonus", baseline=0, metrics=["draw_rate", "turns", "value_per_win"]
    )
    variant = {
        "patterns": pattern_frequencies(recs["zhuji"]),
        "delta_histogram": plots.compute_delta_distribution(recs["zhuji"]),
        "sweeps": [{"option": "bonus", "baseline": 0, "table": sweep}],
    }
    frames = {"panel": plots.compute_variant_panel(recs), "variants": {"zhuji": variant}}

    def rows(x):
        if isinstance(x, pd.DataFrame):
            return x.to_dict("records")
        if isinstance(x, dict):
            return {k: rows(v) for k, v in x.items()}
        if isinstance(x, list):
            return [rows(v) for v in x]
        return x

    return jsonable(rows(frames))


def test_every_report_figure_fits_its_canvas(monkeypatch):
    """The PNG is not cropped to its content, so the content must not reach past the
    canvas: no label may run off an edge (the panel's longest label did, by 1.4 inches,
    before it was wrapped)."""
    real = render._png
    seen = {}

    def checked(fig):
        png = real(fig)
        box = fig.get_tightbbox(fig.canvas.get_renderer()).transformed(fig.dpi_scale_trans)
        seen[len(seen)] = (box, fig.bbox)
        return png

    monkeypatch.setattr(render, "_png", checked)
    ctx = _context()
    assert "dealer_edge_sd" in {r["metric"] for r in ctx["panel"]}
    figs = render._figures(ctx)
    assert [f["id"] for f in figs] == [
        "panel",
        "zhuji-patterns",
        "zhuji-deltas",
        "zhuji-sweep-bonus",
    ]
    for f, (box, canvas) in zip(figs, seen.values(), strict=True):
        assert box.x0 >= canvas.x0 - 0.5 and box.y0 >= canvas.y0 - 0.5, f["id"]
        assert box.x1 <= canvas.x1 + 0.5 and box.y1 <= canvas.y1 + 0.5, f["id"]


def test_figures_are_drawn_with_the_heap_frozen(monkeypatch):
    """The figures are drawn with the objects alive before out of the collector's walks,
    which get them back afterwards; a caller's own freeze is kept."""
    import gc

    real = render._png
    counts = []

    def watched(fig):
        counts.append(gc.get_freeze_count())
        return real(fig)

    monkeypatch.setattr(render, "_png", watched)
    ctx = _context()
    assert gc.get_freeze_count() == 0
    render._figures(ctx)
    assert len(counts) == 4 and min(counts) > 1000 and gc.get_freeze_count() == 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        render._figures(ctx)
        # (objects that die leave the frozen count; an unfreeze would empty it)
        assert gc.get_freeze_count() > 0.9 * frozen and min(counts[4:]) > 0.9 * frozen
    finally:
        gc.unfreeze()


def _sensitivity_figure(rows) -> tuple[tuple, Figure]:
    """The report's sensitivity figure of a table: its size and the figure drawn."""
    variant = {"sensitivity": {"table": rows, "deals": 400}}
    ((size, draw),) = [(s, d) for f, _, s, d in render._risk_figures(variant) if f == "sensitivity"]
    fig = Figure(figsize=size, layout="constrained")
    draw(fig)
    return size, fig


def test_report_sensitivity_figure_draws_every_metric_of_its_table():
    """The skill edge gets its own panel: the report's figure once had three Axes and the
    fourth metric was dropped without a word."""
    rows = []
    for opt, val, inert in (("dm", 1, False), ("bonus", 3, False), ("noop", True, True)):
        for j, m in enumerate(("dealer_edge", "flow", "draw_rate", "skill_edge")):
            d = 0.1 * (j + 1)
            rows.append(
                {
                    "option": opt, "option_value": val, "inert": inert, "metric": m,
                    "diff": d, "diff_lo": d - 0.05, "diff_hi": d + 0.05, "p_adj": 0.5,
                }
            )  # fmt: skip
    size, fig = _sensitivity_figure(rows)
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert titles == ["dealer_edge", "flow", "draw_rate", "skill_edge"]
    assert size[0] == pytest.approx(12.5)  # each panel as wide as with three
    size, fig = _sensitivity_figure([r for r in rows if r["metric"] != "skill_edge"])
    assert [ax.get_title() for ax in fig.axes] == ["dealer_edge", "flow", "draw_rate"]
    assert size[0] == pytest.approx(10)


def test_the_figure_cache_key_follows_every_module_that_draws_report_figures(monkeypatch):
    """The sensitivity and match-loss figures are drawn by analysis.sensitivity and
    analysis.risk: an edit there must not reuse the figures drawn before it."""
    import inspect

    from analysis import risk, sensitivity

    render._figure_code_key.cache_clear()
    base = render._figure_code_key()
    real = inspect.getsource
    for module in (sensitivity, risk):
        monkeypatch.setattr(
            inspect, "getsource", lambda m, _r=real, _m=module: _r(m) + ("#" if m is _m else "")
        )
        render._figure_code_key.cache_clear()
        assert render._figure_code_key() != base, module.__name__
    monkeypatch.setattr(inspect, "getsource", real)
    render._figure_code_key.cache_clear()
    assert render._figure_code_key() == base


def test_figures_draw_chinese_names_with_a_cjk_font():
    """Issue 45.4: pattern names get their 汉字 in the figures where a CJK font is
    installed (the style puts it after the default sans-serif font)."""
    from analysis import plots

    font = plots.cjk_font()
    if font is None:
        pytest.skip("no CJK font installed (Debian: fonts-noto-cjk)")
    assert plots._style_params()["font.family"][-1] == font
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    with plots.style(), warnings.catch_warnings():
        warnings.simplefilter("error")  # a glyph missing from every font warns
        fig = Figure()
        fig.subplots().set_title("gangkai 杠开, qingyise 清一色")
        fig.canvas.draw()
