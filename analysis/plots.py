"""Figures: ``compute_*`` returns the frame with every number, ``draw_*`` only draws.

All figures use the shared style file :data:`STYLE` (``analysis/mjlab.mplstyle``).
``draw_*(frame, *, ax=None, **style)`` draws on ``ax`` (a new figure when None) and
returns the Axes; extra keyword arguments go to the main matplotlib call.

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from analysis.testing import synthetic_records
>>> ax = draw_pattern_frequencies(compute_pattern_frequencies(synthetic_records(50)))
>>> len(ax.patches)
5
"""

from __future__ import annotations

import functools
import re
import textwrap
from collections.abc import Hashable, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.compare import METRICS, compare_variants
from analysis.frequencies import pattern_frequencies
from analysis.payouts import delta_histogram
from analysis.sweep import sweep_table
from engine.errors import UsageError

__all__ = [
    "STYLE",
    "style",
    "save_figure",
    "compute_pattern_frequencies",
    "draw_pattern_frequencies",
    "compute_delta_distribution",
    "draw_delta_distribution",
    "compute_sweep",
    "draw_sweep",
    "compute_variant_panel",
    "draw_variant_panel",
    "save_figures",
]

STYLE = Path(__file__).with_name("mjlab.mplstyle")
"""The shared matplotlib style file."""


_STYLED = [0]
"""How many :func:`style` blocks are open (0: none; one process draws one figure at a time)."""


@contextmanager
def style():
    """Context manager that applies :data:`STYLE` to the figures drawn inside it.

    Inside another ``style()`` block it changes nothing: the style is in force already,
    with whatever the caller set on top of it. Every ``draw_*`` enters it, and applying
    the style means copying, validating and restoring every matplotlib setting (a
    report figure entered it 5 to 7 times). The file is read once.
    """
    if _STYLED[0]:
        yield
        return
    import matplotlib
    import matplotlib.style

    with matplotlib.rc_context():
        matplotlib.style.use(_style_params())  # the blacklisted settings left out, as ever
        _STYLED[0] += 1
        try:
            yield
        finally:
            _STYLED[0] -= 1


@functools.cache
def _style_params() -> dict:
    """The settings of :data:`STYLE`, as ``matplotlib.style.use`` reads the file, with a
    CJK font after the default sans-serif one where one is installed (:func:`cjk_font`),
    so that Chinese names beside the pinyin are drawn (``font.family`` names both: a
    glyph missing from the first is drawn from the second).
    """
    import matplotlib

    params = dict(matplotlib.rc_params_from_file(str(STYLE), use_default_template=False))
    cjk = cjk_font()
    if cjk is not None:  # named families: matplotlib falls back along a list of names only
        first = list(matplotlib.rcParams["font.sans-serif"])[:1]
        params["font.family"] = [*first, cjk]
    return params


CJK_FONTS = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Serif CJK SC",
    "Noto Serif CJK JP",
    "WenQuanYi Zen Hei",
    "AR PL UMing CN",
)
"""CJK fonts the figures use for Chinese names, the first installed one (Debian's
``fonts-noto-cjk``: matplotlib reads the first face of its collections, ``JP``, whose
glyphs cover the 汉字 of the variants)."""


@functools.cache
def cjk_font() -> str | None:
    """The first of :data:`CJK_FONTS` matplotlib finds installed, else None (the figures
    then keep to pinyin: a name drawn without its glyphs would show boxes). A font
    installed after matplotlib built its font list is added from the system's fonts.
    """
    from matplotlib import font_manager

    def found():
        names = {f.name for f in font_manager.fontManager.ttflist}
        return next((f for f in CJK_FONTS if f in names), None)

    hit = found()
    if hit is None:
        for path in font_manager.findSystemFonts():
            low = Path(path).name.lower()
            if "cjk" in low or "wqy" in low or "uming" in low:
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):
                    continue
        hit = found()
    return hit


def _axes(ax):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots()
    return ax


# ---------------------------------------------------------------- pattern frequencies
def compute_pattern_frequencies(records, *, per: str = "win", level: float = 0.95) -> pd.DataFrame:
    """Pattern rates (one ``per``), most frequent first: :func:`pattern_frequencies` rows."""
    f = pattern_frequencies(records, level=level)
    return (
        f[f["per"] == per]
        .sort_values("rate", ascending=False, kind="stable")
        .reset_index(drop=True)
    )


def draw_pattern_frequencies(frame: pd.DataFrame, *, ax=None, **style_kw):
    """Horizontal bars of pattern rates with their interval as error bars."""
    with style():
        ax = _axes(ax)
        y = np.arange(len(frame))
        rate = frame["rate"].to_numpy()
        err = np.vstack([rate - frame["lo"].to_numpy(), frame["hi"].to_numpy() - rate])
        ax.barh(y, rate, xerr=err, **{"color": "C0", **style_kw})
        ax.set_yticks(y, frame["pattern"].tolist())
        ax.invert_yaxis()
        per = frame["per"].iloc[0] if len(frame) else "win"
        ax.set_xlabel(f"rate per {per}")
        if len(frame):
            ax.set_title(f"{frame['variant'].iloc[0]}: pattern frequencies", y=1.0)
    return ax


# ---------------------------------------------------------------- delta distributions
def compute_delta_distribution(records) -> pd.DataFrame:
    """Share of deals per fixed delta bin, seat by seat (:func:`delta_histogram`)."""
    return delta_histogram(records, drop_empty=False)


def draw_delta_distribution(frame: pd.DataFrame, *, ax=None, **style_kw):
    """One step line per seat: share of deals per delta bin (symlog x axis)."""
    with style():
        ax = _axes(ax)
        finite = frame[np.isfinite(frame["lo"]) & np.isfinite(frame["hi"])]
        for seat, g in finite.groupby("seat", sort=True):
            x = np.append(g["lo"].to_numpy(), g["hi"].iloc[-1])
            y = np.append(g["share"].to_numpy(), g["share"].iloc[-1])
            ax.step(x, y, where="post", label=f"seat {seat}", **style_kw)
        ax.set_xscale("symlog", linthresh=8)
        ax.set_yscale("log")
        _plain_log_labels(ax)
        seen = finite[finite["count"] > 0] if "count" in finite else finite
        if len(seen):  # the axis spans the bins that hold deals, not every fixed bin
            ax.set_xlim(float(seen["lo"].min()), float(seen["hi"].max()))
        ax.set_xlabel("delta per deal (points)")
        ax.set_ylabel("share of deals")
        ax.legend()
        if len(frame):
            ax.set_title(f"{frame['variant'].iloc[0]}: deltas by seat", y=1.0)
    return ax


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _plain_log_labels(ax) -> None:
    """Give the log and symlog axes of ``ax`` plain-text tick labels (``_PowerFormatter``)."""
    from matplotlib.ticker import LogFormatterSciNotation

    power = _power_formatter()
    for axis in (ax.xaxis, ax.yaxis):
        for get, put in (
            (axis.get_major_formatter, axis.set_major_formatter),
            (axis.get_minor_formatter, axis.set_minor_formatter),
        ):
            old = get()
            if type(old) is LogFormatterSciNotation:
                put(power(old))


_MATHTEXT_LABEL = re.compile(
    r"\$\\mathdefault\{(?P<sign>-?)(?:(?P<coeff>[^\\^{}]+)\\times)?"
    r"(?P<body>[^\\^{}]+)(?:\^\{(?P<exp>-?\d+)\})?\}\$"
)
r"""A label of matplotlib's ``LogFormatterSciNotation``: ``$\mathdefault{-2\times10^{-3}}$``."""


def _plain_label(label: str) -> str:
    """A ``LogFormatterSciNotation`` label as plain text with Unicode superscripts."""
    import matplotlib

    m = _MATHTEXT_LABEL.fullmatch(label)
    if m is None:
        return label  # "" (a tick it leaves unlabelled)
    minus = "\u2212" if matplotlib.rcParams["axes.unicode_minus"] else "-"
    sign = minus if m["sign"] else ""
    if m["exp"] is None:
        return sign + m["body"].replace("-", minus)
    power = m["body"] + m["exp"].translate(_SUPERSCRIPTS)
    return f"{sign}{m['coeff']}×{power}" if m["coeff"] else sign + power


@functools.cache
def _power_formatter():
    """The class ``_PowerFormatter`` (built on first use: matplotlib is imported lazily)."""
    from matplotlib.ticker import Formatter

    class _PowerFormatter(Formatter):
        r"""The labels of a ``LogFormatterSciNotation`` (which ticks get one, and what)
        written as plain text with Unicode superscripts: ``10⁻³``, ``−10²``, ``2×10⁻³``
        instead of the mathtext ``$\mathdefault{10^{-3}}$``.

        Mathtext costs a pyparsing parse per label (and, the first time, building the
        parser): a good part of drawing a log axis. DejaVu Sans has these glyphs.
        """

        def __init__(self, inner):
            self.inner = inner

        def set_axis(self, axis):
            super().set_axis(axis)
            self.inner.set_axis(axis)

        def set_locs(self, locs):
            self.inner.set_locs(locs)

        def __call__(self, x, pos=None):
            return _plain_label(self.inner(x, pos))

        def format_data(self, value):
            return self.inner.format_data(value)

        def format_data_short(self, value):
            return self.inner.format_data_short(value)

    return _PowerFormatter


# ---------------------------------------------------------------- sweeps
def compute_sweep(
    frames: Mapping[Hashable, pd.DataFrame],
    *,
    option: str,
    baseline: Hashable = None,
    metrics: Sequence[str] = ("draw_rate",),
    level: float = 0.95,
    paired: bool = True,
    default: Hashable = None,
) -> pd.DataFrame:
    """:func:`sweep_table` for the given metrics (``default=`` is the old name of ``baseline``)."""
    return sweep_table(
        frames,
        option=option,
        baseline=default if baseline is None else baseline,
        metrics=list(metrics),
        level=level,
        paired=paired,
    )


def draw_sweep(
    frame: pd.DataFrame, *, metric: str | None = None, ax=None, legend: bool = True, **style_kw
):
    """Difference from the baseline against the option value: paired band, unpaired lines.

    Whole-number option values get whole-number ticks (one per value played); other
    values are placed in the order played. An unpaired sweep (an option that changes
    the deck) draws its one, unpaired, interval as the band.

    Parameters
    ----------
    frame : DataFrame
        :func:`compute_sweep` output.
    metric : str, optional
        Which metric (required when the frame holds several).
    ax : Axes, optional
    legend : bool
        Whether to add the legend (a grid of sweeps needs it once: a legend is made of
        its own texts and lines, and placed by searching for the emptiest corner).
    **style_kw
        Passed to the line of the paired difference.
    """
    ms = frame["metric"].unique().tolist()
    if metric is None:
        if len(ms) != 1:
            raise UsageError(f"the frame holds several metrics ({', '.join(ms)}); pick one")
        metric = ms[0]
    g = frame[frame["metric"] == metric]
    vals = g["option_value"].tolist()
    numeric = all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
        for v in vals
    )
    order = np.argsort(vals, kind="stable") if numeric else np.arange(len(vals))
    g = g.iloc[order]
    x = np.asarray(g["option_value"], dtype=float) if numeric else np.arange(len(g))
    paired = bool(g["paired"].all()) if "paired" in g else True
    base_col = "is_baseline" if "is_baseline" in g else "is_default"
    with style():
        ax = _axes(ax)
        band = "paired interval" if paired else "unpaired interval (different cards)"
        ax.fill_between(x, g["diff_lo"], g["diff_hi"], alpha=0.3, color="C0", label=band)
        ax.plot(x, g["diff"], marker="o", **{"color": "C0", "label": "difference", **style_kw})
        if paired:
            ax.plot(x, g["unpaired_lo"], ls="--", color="C1", label="unpaired interval")
            ax.plot(x, g["unpaired_hi"], ls="--", color="C1")
        ax.axhline(0, color="0.5", lw=0.8)
        ax.yaxis.set_major_locator(_few_ticks())
        whole = numeric and all(float(v).is_integer() for v in g["option_value"])
        if whole:
            ax.set_xticks(x, [str(int(v)) for v in g["option_value"]])
        elif not numeric:
            ax.set_xticks(x, [str(v) for v in g["option_value"]])
        opt = g["option"].iloc[0] if len(g) else ""
        base = g.loc[g[base_col], "option_value"] if base_col in g else []
        ax.set_xlabel(f"{opt} (baseline {base.iloc[0]})" if len(base) else opt)
        ax.set_ylabel(f"{metric}: difference from baseline")
        if legend:
            ax.legend()
    return ax


# ---------------------------------------------------------------- cross-variant panel
def compute_variant_panel(records, *, big=None, skill=None, level: float = 0.95) -> pd.DataFrame:
    """:func:`compare_variants` (one row per label and metric)."""
    return compare_variants(records, big=big, skill=skill, level=level)


def draw_variant_panel(frame: pd.DataFrame, *, metric: str, ax=None, **style_kw):
    """One panel metric: a dot with its interval per variant.

    Draw several metrics by calling it once per Axes, e.g. over
    ``plt.subplots(1, k)[1]`` with ``metric`` from ``frame["metric"].unique()``.
    """
    g = frame[frame["metric"] == metric]
    if g.empty:
        raise UsageError(f"no metric {metric!r} in the panel frame")
    with style():
        ax = _axes(ax)
        y = np.arange(len(g))
        est = g["estimate"].to_numpy(dtype=float)
        lo = np.where(np.isfinite(g["lo"]), g["lo"], est)
        hi = np.where(np.isfinite(g["hi"]), g["hi"], est)
        ax.errorbar(
            est, y, xerr=np.vstack([est - lo, hi - est]), fmt="o", **{"color": "C0", **style_kw}
        )
        ax.set_yticks(y, g["label"].astype(str).tolist())
        ax.invert_yaxis()
        ax.set_title(metric, y=1.0)
        ax.xaxis.set_major_locator(_few_ticks())
        ax.set_xlabel(_fit_label(METRICS.get(metric, ""), ax))
    return ax


def _few_ticks():
    """A locator of at most 7 round ticks, for the small panels of a grid.

    Matplotlib's automatic locator fits up to 10 ticks on a panel of a 9-inch figure;
    each tick is a label, two tick lines and a grid line to make, measure at every
    layout pass and draw, and about half of them tell a reader nothing more.
    """
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10])


def _fit_label(text: str, ax) -> str:
    """``text`` broken into lines about as wide as the column of ``ax``.

    A label wider than its Axes runs into its neighbour's label and out of the figure,
    which no layout engine fixes (it centres the label under the Axes). The width is
    the Axes' share of the figure's width less a sixth for the tick labels at its left,
    at half an em a character (DejaVu Sans averages 0.51).
    """
    import matplotlib
    from matplotlib.font_manager import FontProperties

    size = FontProperties(size=matplotlib.rcParams["axes.labelsize"]).get_size_in_points()
    spec = ax.get_subplotspec()
    if spec is None:
        share = ax.get_position().width
    else:
        cols = spec.colspan
        share = (cols.stop - cols.start) / spec.get_gridspec().ncols * 5 / 6
    width = share * ax.get_figure().get_figwidth() * 72
    return textwrap.fill(text, max(20, int(width / (0.5 * size))))


def save_figure(fig, path, **kwargs) -> Path:
    """Save a figure atomically (engine.fileio): a full disk leaves no partial file."""
    import io

    from engine import fileio

    path = Path(path)
    buf = io.BytesIO()
    fig.savefig(buf, format=kwargs.pop("format", path.suffix.lstrip(".") or "png"), **kwargs)
    fileio.write_bytes(path, buf.getvalue())
    return path


def save_figures(records, directory, *, fmt: str = "png") -> list[Path]:
    """Write the per-run figures of one record frame or Summary to ``directory``.

    Writes ``pattern_frequencies.<fmt>`` and ``delta_distribution.<fmt>`` (names
    prefixed by the variant) and returns their paths; for ``--plot DIR``.
    """
    import matplotlib.pyplot as plt

    from analysis.summary import as_summary

    s = as_summary(records)
    out_dir = Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, frame, draw in (
        ("pattern_frequencies", compute_pattern_frequencies(s), draw_pattern_frequencies),
        ("delta_distribution", compute_delta_distribution(s), draw_delta_distribution),
    ):
        with style():
            fig, ax = plt.subplots()
            draw(frame, ax=ax)
            path = out_dir / f"{s.variant}-{name}.{fmt}"
            save_figure(fig, path)
            plt.close(fig)
        paths.append(path)
    return paths
