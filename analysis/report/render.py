"""The rendering of the balance report: figures (with their cache), the HTML and Markdown
templates and the files.
"""

from __future__ import annotations

import base64
import functools
import gc
import hashlib
import io
import json
import math
import os
import platform
import re
import stat
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from analysis._util import ROLE_HANZI, ROLE_PROSE, WIN_TYPE_HANZI, jsonable
from analysis.compare import METRICS
from analysis.report._config import (
    ALPHA,
    FIGURES_DIR,
    FILES,
    SWEEP_FIGURE_METRICS,
    _Bar,
    check_out_dir,
)
from analysis.report.rules import rule_link, write_rules
from analysis.stats import format_pm

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
"""The report's templates and stylesheet (``analysis/templates``)."""


# ----------------------------------------------------------------------------- figures
def _reaching(frame: pd.DataFrame, est: str) -> pd.DataFrame:
    """A copy whose ``[lo, hi]`` reaches ``est``, for error bars (drawing only).

    Matplotlib's error bars take distances and refuse negative ones, but an interval may
    miss its point estimate: a parametric-bootstrap interval of the (upward-biased) seat
    spread, or a Wilson bound a rounding error above a rate of exactly 0.
    """
    out = frame.astype({est: float, "lo": float, "hi": float})
    out["lo"] = np.fmin(out["lo"], out[est])
    out["hi"] = np.fmax(out["hi"], out[est])
    return out


def _n_figures(ctx: dict) -> int:
    """How many figures :func:`_figures` draws for this context."""
    return 1 + sum(2 + len(v["sweeps"]) + len(_risk_figures(v)) for v in ctx["variants"].values())


FIGURE_CACHE = "report-figures"
"""Folder, in the cache folder (:func:`engine.jit.cache.cache_dir`), of drawn report figures."""


FIGURE_CACHE_KEEP = 256
"""Most figures the cache keeps (the least recently used go first)."""


_FIGURE_MAGIC = b"mjlab-figure 1\n"


@functools.lru_cache(maxsize=1)
def _figure_code_key() -> bytes:
    """What a figure's pixels depend on besides its data: the drawing code, the style and
    the versions of the libraries that draw and encode it.
    """
    import inspect
    import sys

    import matplotlib
    import PIL
    from matplotlib import ft2font

    from analysis import plots, risk, sensitivity

    h = hashlib.sha256()
    for part in (
        inspect.getsource(sys.modules[__name__]),
        inspect.getsource(plots),
        inspect.getsource(sensitivity),  # draws the sensitivity figures
        inspect.getsource(risk),  # draws the match-loss figure
        plots.STYLE.read_text(encoding="utf-8"),
        matplotlib.__version__,
        ft2font.__freetype_version__,
        PIL.__version__,
        np.__version__,
        pd.__version__,
        platform.machine(),
    ):
        h.update(part.encode("utf-8") + b"\0")
    return h.digest()


class _FigureCache:
    """Drawn figures by what they show: ``key -> PNG bytes`` in :data:`FIGURE_CACHE`.

    A figure's key hashes :func:`_figure_code_key` and the matplotlib settings in force
    with its id, caption and data (the context's rows it is drawn from), so a report whose
    numbers did not change reuses its figures byte for byte, and any change to the
    numbers, the drawing code, the style, the settings or matplotlib draws it anew. Each
    file holds a SHA-256 of its PNG and is used only if it matches, is a regular file of
    the user's own and is writable by nobody else (a file another user could change would
    put their picture in the report). The cache is an optimisation: a folder that cannot
    be used or written turns it off, silently.
    """

    def __init__(self, enabled: bool = True):
        self.folder = None
        self.hits = 0
        if not enabled:
            return
        import matplotlib

        from analysis import plots

        with plots.style():  # the settings a figure is drawn with, the user's own included
            rc = repr(sorted((k, repr(v)) for k, v in matplotlib.rcParams.items()))
        self.salt = hashlib.sha256(_figure_code_key() + rc.encode()).digest()
        try:
            from engine.jit.cache import cache_dir

            folder = cache_dir() / FIGURE_CACHE
            folder.mkdir(mode=0o700, exist_ok=True)
            if self._private(folder.lstat(), stat.S_ISDIR):
                self.folder = folder
        except (OSError, RuntimeError):
            self.folder = None

    @staticmethod
    def _private(st: os.stat_result, kind) -> bool:
        return kind(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022

    def key(self, fid: str, caption: str, data) -> str:
        if self.folder is None:
            return ""
        h = hashlib.sha256(self.salt)
        h.update(json.dumps([fid, caption, data], sort_keys=True, allow_nan=True).encode())
        return h.hexdigest()

    def get(self, key: str) -> bytes | None:
        if self.folder is None:
            return None
        path = self.folder / f"{key}.png"
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        try:
            if not self._private(os.fstat(fd), stat.S_ISREG):
                return None
            with os.fdopen(fd, "rb", closefd=False) as f:
                raw = f.read()
        except OSError:
            return None
        finally:
            os.close(fd)
        head = len(_FIGURE_MAGIC)
        digest, png = raw[head : head + 64], raw[head + 65 :]
        if (
            not raw.startswith(_FIGURE_MAGIC)
            or raw[head + 64 : head + 65] != b"\n"
            or hashlib.sha256(png).hexdigest().encode() != digest
        ):
            return None
        try:
            os.utime(path)  # recently used: pruned last
        except OSError:
            pass
        self.hits += 1
        return png

    def put(self, key: str, png: bytes) -> None:
        if self.folder is None:
            return
        from engine import fileio

        data = _FIGURE_MAGIC + hashlib.sha256(png).hexdigest().encode() + b"\n" + png
        try:
            fileio.write_bytes(self.folder / f"{key}.png", data)
            os.chmod(self.folder / f"{key}.png", 0o600)
        except OSError:
            self.folder = None

    def prune(self, keep: int = FIGURE_CACHE_KEEP) -> None:
        if self.folder is None:
            return
        try:
            files = sorted(self.folder.glob("*.png"), key=lambda p: p.stat().st_mtime)
            for old in files[: max(0, len(files) - keep)]:
                old.unlink(missing_ok=True)
        except OSError:
            pass


TEMPLATE_CACHE = "report-templates"
"""Folder, in the cache folder, of the report templates as Jinja2 compiled them."""


@functools.cache
def _template_cache_class():
    """The class ``_TemplateCache`` (built on first use: Jinja2 is imported lazily)."""
    import pickle

    import jinja2

    class _TemplateCache(jinja2.BytecodeCache):
        """The report templates compiled by Jinja2, kept in :data:`TEMPLATE_CACHE`.

        Compiling the two templates is about a quarter of a second of CPU per report.
        A compiled template is code the report runs, so a file is read only if it is
        a regular file of the user's own that nobody else may write, in a folder of
        the same kind (as :class:`_FigureCache` reads figures). The key hashes
        :func:`_figure_code_key` (this module's source, with the environments'
        settings) and Jinja2's version with the template's name; Jinja2 checks the
        template's source against its checksum in the file.
        """

        def __init__(self, folder: Path):
            self.folder = folder
            self.salt = hashlib.sha256(_figure_code_key() + jinja2.__version__.encode()).digest()

        def get_cache_key(self, name, filename=None) -> str:
            h = hashlib.sha256(self.salt)
            h.update(f"{name}\0{filename}".encode())
            return h.hexdigest()

        def load_bytecode(self, bucket) -> None:
            path = self.folder / f"{bucket.key}.jinja"
            try:
                fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except OSError:
                return
            try:
                if _FigureCache._private(os.fstat(fd), stat.S_ISREG):
                    with os.fdopen(fd, "rb", closefd=False) as f:
                        bucket.load_bytecode(f)
            except (OSError, EOFError, ValueError, TypeError, pickle.UnpicklingError):
                bucket.reset()  # unreadable or damaged: compile
            finally:
                os.close(fd)

        def dump_bytecode(self, bucket) -> None:
            from engine import fileio

            buf = io.BytesIO()
            bucket.write_bytecode(buf)
            path = self.folder / f"{bucket.key}.jinja"
            try:
                fileio.write_bytes(path, buf.getvalue())
                os.chmod(path, 0o600)
            except OSError:
                pass  # an optimisation: the next report compiles again

    return _TemplateCache


def _template_cache(enabled: bool = True):
    """A ``_TemplateCache`` in the cache folder, or None (disabled, or no private folder)."""
    if not enabled:
        return None
    try:
        from engine.jit.cache import cache_dir

        folder = cache_dir() / TEMPLATE_CACHE
        folder.mkdir(mode=0o700, exist_ok=True)
        if _FigureCache._private(folder.lstat(), stat.S_ISDIR):
            return _template_cache_class()(folder)
    except (OSError, RuntimeError):
        pass
    return None


FIGURE_DPI = 96
"""Pixels per inch of the report's PNG figures."""


def _grid_layout(fig) -> bool:
    """Lay out a constrained-layout figure that is one grid of single-cell Axes, measuring
    its Axes once (twice only when that moved their ticks); False leaves it to its engine.

    Constrained layout measures every Axes' decorations (tick labels, axis labels,
    titles, the legend) twice, to catch tick labels that change when the Axes is moved;
    measuring is the larger part of drawing a report figure. Here each column gets the
    widest left and right decorations of its Axes, each row the tallest top and bottom
    ones, each side the engine's pad, and the Axes share what is left equally. The ticks
    are compared after the move: an automatic locator that picked others is measured and
    placed again, so no label reaches past the canvas.
    """
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    from matplotlib.transforms import Bbox

    engine = fig.get_layout_engine()
    axes = fig.axes
    specs = [ax.get_subplotspec() for ax in axes]
    if (
        not isinstance(engine, ConstrainedLayoutEngine)
        or not axes
        or any(s is None for s in specs)
        or len({s.get_gridspec() for s in specs}) != 1
        or any(len(s.rowspan) != 1 or len(s.colspan) != 1 for s in specs)
        or fig.legends
        or fig.subfigs
        or fig.get_suptitle()
        or fig.get_supxlabel()
        or fig.get_supylabel()
        or any(ax.child_axes or ax.get_aspect() != "auto" for ax in axes)
    ):
        return False
    nrows, ncols = specs[0].get_gridspec().get_geometry()
    params = engine.get()
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    wpad, hpad = params["w_pad"] * fig.dpi, params["h_pad"] * fig.dpi
    shown = [(ax, s) for ax, s in zip(axes, specs, strict=True) if ax.get_visible()]

    def ticks():
        return [
            (tuple(ax.xaxis.get_majorticklocs()), tuple(ax.yaxis.get_majorticklocs()))
            for ax, _ in shown
        ]

    def place():
        left, right = np.zeros(ncols), np.zeros(ncols)
        top, bottom = np.zeros(nrows), np.zeros(nrows)
        for ax, s in shown:
            box = ax.get_window_extent(renderer)
            deco = ax.get_tightbbox(renderer, for_layout_only=True)
            if deco is None:
                continue
            r, c = s.rowspan.start, s.colspan.start
            left[c] = max(left[c], box.x0 - deco.x0)
            right[c] = max(right[c], deco.x1 - box.x1)
            top[r] = max(top[r], deco.y1 - box.y1)
            bottom[r] = max(bottom[r], box.y0 - deco.y0)
        w = (width - (left + right).sum() - 2 * wpad * ncols) / ncols
        h = (height - (top + bottom).sum() - 2 * hpad * nrows) / nrows
        if w <= 0 or h <= 0:
            return False
        x0 = np.cumsum(np.r_[0, (left + right)[:-1] + w + 2 * wpad]) + left + wpad
        y1 = height - (np.cumsum(np.r_[0, (top + bottom)[:-1] + h + 2 * hpad]) + top + hpad)
        for ax, s in zip(axes, specs, strict=True):
            r, c = s.rowspan.start, s.colspan.start
            ax.set_position(
                Bbox.from_bounds(x0[c] / width, (y1[r] - h) / height, w / width, h / height)
            )
            ax.set_in_layout(True)  # set_position takes it out of layouts; it is laid out
        return True

    before = ticks()
    if not place():
        return False
    if ticks() != before:
        place()
    fig.set_layout_engine("none")
    return True


def _png(fig) -> bytes:
    """The PNG of a report figure at its own size, laid out once and drawn once.

    The figure gets an Agg canvas of its own first, so the constrained layout and the
    draw use one renderer and the draw reuses every text measurement the layout made
    (matplotlib keeps them per renderer; a figure saved to PNG from its default canvas
    is measured on one renderer and drawn on another). The layout pads the figure's
    edge itself, so there is no tight-box crop: ``bbox_inches="tight"`` measures every
    artist once more and draws on a renderer of the cropped size, which measures every
    text again. The pixels are those of ``savefig`` (the figure is opaque), stored as
    RGB at zlib level 1: half the encoding time of savefig's RGBA at level 6 for about
    the same bytes. matplotlib measures and draws every text itself (its public API
    only). Call it inside :func:`analysis.plots.style`.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    fig.set_dpi(FIGURE_DPI)
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    engine = fig.get_layout_engine()
    if engine is not None and not _grid_layout(fig):
        engine.execute(fig)
        fig.set_layout_engine("none")  # laid out: the draw must not run it again
    canvas.draw()
    size = canvas.get_width_height(physical=True)
    image = Image.frombuffer("RGBA", size, canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buf = io.BytesIO()
    image.convert("RGB").save(buf, format="png", compress_level=1)
    return buf.getvalue()


@contextmanager
def _heap_frozen():
    """Keep the objects alive on entry out of the garbage collector's walks in the block.

    Drawing a figure makes tens of thousands of short-lived objects, enough to start a
    full collection every few figures, and a full collection walks every object alive
    (the context, pandas, scipy: some 200,000 objects and 0.15 s of CPU each time).
    :func:`gc.freeze` moves them to a permanent generation the collector skips, and
    :func:`gc.unfreeze` hands them back to the oldest generation afterwards; garbage
    made in the block is collected as usual. A caller's own freeze is left alone.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _figures(ctx: dict, bar: _Bar | None = None, cache: _FigureCache | None = None) -> list[dict]:
    """Every figure of the report as ``{"id", "caption", "png"}`` (bytes), from the context.

    Each figure is drawn from its data only when ``cache`` does not already hold it, with
    the heap frozen (:func:`_heap_frozen`).
    """
    with _heap_frozen():
        return _draw_figures(ctx, bar, cache)


def _draw_figures(ctx: dict, bar: _Bar | None, cache: _FigureCache | None) -> list[dict]:
    """:func:`_figures` without the frozen heap."""
    from matplotlib.figure import Figure

    from analysis import plots

    cache = cache if cache is not None else _FigureCache(enabled=False)
    out = []

    def save(fid, caption, data, draw):
        v = ctx["variants"].get(fid.split("-", 1)[0]) if "-" in fid else None
        if v is not None:  # the bots and the rules a variant's figure played
            pols = "value" if fid.endswith("-sensitivity") else ",".join(
                dict.fromkeys(v.get("policies") or [])
            )  # fmt: skip
            caption = f"{caption} Bots: {pols}; rules_id {v.get('rules_id')} (the defaults)."
        key = cache.key(fid, caption, data)
        png = cache.get(key)
        if png is None:
            with plots.style():
                png = _png(draw())
            cache.put(key, png)
        out.append({"id": fid, "caption": caption, "png": png})
        if bar is not None:
            bar.update(1)

    panel = pd.DataFrame(ctx["panel"])
    if len(panel):
        metrics = [m for m in METRICS if (panel["metric"] == m).any()]

        def draw_panel(panel=panel, metrics=metrics):
            ncol = 2
            nrow = -(-len(metrics) // ncol)
            height = 1.0 + 0.35 * panel["label"].nunique()
            fig = Figure(figsize=(9, max(2.2, height) * nrow), layout="constrained")
            axes = np.atleast_1d(fig.subplots(nrow, ncol)).ravel()
            drawn = _reaching(panel, "estimate")
            for ax, m in zip(axes, metrics, strict=False):
                plots.draw_variant_panel(drawn, metric=m, ax=ax)
            for ax in axes[len(metrics) :]:
                ax.set_visible(False)
            return fig

        save(
            "panel",
            "The cross-variant panel: each metric with its 95% interval.",
            [ctx["panel"], metrics, {m: METRICS[m] for m in metrics}],
            draw_panel,
        )
    for name, v in ctx["variants"].items():
        pats = pd.DataFrame(v["patterns"])
        if len(pats):
            hanzi = {p["pattern"]: p.get("hanzi") or "" for p in v.get("pattern_info", [])}

            def draw_patterns(pats=pats, hanzi=hanzi):
                frame = (
                    _reaching(pats[pats["per"] == "win"], "rate")
                    .sort_values("rate", ascending=False, kind="stable")
                    .reset_index(drop=True)
                )
                if plots.cjk_font() is not None:  # the Chinese name beside the pinyin
                    frame["pattern"] = [
                        f"{p} {hanzi.get(p, '')}".rstrip() for p in frame["pattern"]
                    ]
                fig = Figure(figsize=(7, 1.2 + 0.28 * len(frame)), layout="constrained")
                plots.draw_pattern_frequencies(frame, ax=fig.subplots())
                return fig

            save(
                f"{name}-patterns",
                f"{name}: share of won deals with each pattern (95% Wilson intervals).",
                v["patterns"],
                draw_patterns,
            )
        hist = pd.DataFrame(v["delta_histogram"])
        if len(hist):

            def draw_deltas(hist=hist):
                fig = Figure(figsize=(7, 3.6), layout="constrained")
                plots.draw_delta_distribution(
                    hist.astype({"lo": float, "hi": float}), ax=fig.subplots()
                )
                return fig

            save(
                f"{name}-deltas",
                f"{name}: distribution of each seat's result per deal.",
                v["delta_histogram"],
                draw_deltas,
            )
        for fid, caption, size, draw in _risk_figures(v):

            def draw_risk_part(size=size, draw=draw):
                fig = Figure(figsize=size, layout="constrained")
                draw(fig)
                return fig

            save(
                f"{name}-{fid}",
                f"{name}: {caption}",
                [v.get("risk"), v.get("sensitivity")],
                draw_risk_part,
            )
        for sw in v["sweeps"]:
            table = pd.DataFrame(sw["table"])
            metrics = [m for m in SWEEP_FIGURE_METRICS if (table["metric"] == m).any()]
            if not metrics:
                continue
            table = table.astype(
                {c: float for c in table.columns if c.startswith(("diff", "unpaired"))}
            )
            ncol = 2 if len(metrics) <= 4 else 3
            base = sw.get("baseline", sw.get("default"))
            bands = (
                "the band: the paired difference's interval at the level of its adjusted "
                "test (clear of 0 exactly when resolved); dashed: the unpaired 95% interval"
                if sw.get("paired", True)
                else "unpaired intervals at the level of each adjusted test (the option "
                "changes the cards dealt)"
            )

            def draw_sweep(table=table, metrics=metrics, ncol=ncol):
                fig = Figure(figsize=(4.5 * ncol, 6), layout="constrained")
                axes = fig.subplots(2, ncol).ravel()
                for i, (ax, m) in enumerate(zip(axes, metrics, strict=False)):
                    plots.draw_sweep(table, metric=m, ax=ax, legend=not i)
                    ax.set_ylabel(f"{m}: diff. from baseline", fontsize=8)
                for ax in axes[len(metrics) :]:
                    ax.set_visible(False)
                return fig

            save(
                f"{name}-sweep-{sw['option']}",
                f"{name}: {sw['option']} sweep, difference from the baseline "
                f"{sw['option']}={base} (the default) with {bands}; each metric is "
                "defined in the table below the figure.",
                [sw["table"], metrics],
                draw_sweep,
            )
    return out


def _risk_figures(v: dict) -> list[tuple]:
    """The match-risk and sensitivity figures of a variant: ``(id, caption, size, draw)``."""
    from analysis import sensitivity as sens
    from analysis.risk import draw_match_loss

    out = []
    risk = v.get("risk")
    if risk and risk.get("curve"):
        curve = pd.DataFrame(risk["curve"]).astype({"value": float, "lo": float, "hi": float})

        def draw_risk(fig, curve=curve, amounts=risk["amounts"]):
            # the unit's name stays out of the figure: its CJK glyphs are not in the font
            draw_match_loss(curve, ax=fig.subplots(), unit="points", amounts=amounts)

        out.append(
            (
                "risk",
                "chance of losing more than x over a match of "
                f"{risk['deals_per_match']:g} deals, by the seat's role at the match's start "
                "(bands: 95% Wilson intervals; dashed: a seat at random; dotted: the stated "
                "amounts of the table).",
                (7, 3.6),
                draw_risk,
            )
        )
    sv = v.get("sensitivity")
    if sv and sv.get("table"):
        table = pd.DataFrame(sv["table"])
        table = table.astype({c: float for c in ("diff", "diff_lo", "diff_hi")})
        live = table[~table["inert"].astype(bool)]
        rows = live[["option", "option_value"]].drop_duplicates().shape[0]
        panels = len(sens.figure_metrics(live))
        if rows:

            def draw_sens(fig, table=table, panels=panels):
                axes = fig.subplots(1, panels, squeeze=False)[0]
                sens.draw_sensitivity(table, axes=axes, alpha=ALPHA, unit="points")

            out.append(
                (
                    "sensitivity",
                    _sensitivity_caption(sv),
                    (2.5 + 2.5 * panels, 1.4 + 0.24 * rows),  # 10 inches for 3 panels
                    draw_sens,
                )
            )
    return out


def _sensitivity_caption(sv: dict) -> str:
    """The sensitivity figure's caption: how its values were measured and adjusted."""
    sc = sv.get("screen")
    if not sc:
        return (
            f"each rule option value's difference from the default rules "
            f"({sv['deals']:,} deals per value on the same seed; filled: resolved "
            "after the report-wide Holm adjustment; each interval at the level of its "
            "adjusted test, so clear of 0 exactly when filled; paired unless the "
            "option changes the cards dealt)."
        )
    return (
        "each rule option value's difference from the default rules, a screen (payout "
        f"options re-scored from the main run's {sc['rescore_deals']:,} deals, play options "
        f"played on {sc['deals']:,} deals each, on the same seed; filled: passed the "
        f"screen, Benjamini-Hochberg at a false-discovery rate of {sc['q']:g}; each "
        "interval at the matching false-coverage level, so clear of 0 exactly when filled; "
        "the skill edge, of confirmed values only, Holm-adjusted over the report; paired "
        "unless the option changes the cards dealt)."
    )


# ----------------------------------------------------------------------------- render
def _environment(kind: str, bytecode_cache=None):
    """The Jinja2 environment of the HTML or the Markdown template.

    Without Jinja2's optimizer: it folds the templates' constant expressions when it
    compiles them, a sixth of compiling the two (0.07 s of CPU of 0.4 s), to save less
    when they are rendered, once per report; the text rendered is the same.
    """
    import jinja2

    loader = jinja2.PackageLoader("analysis", "templates")
    if kind == "html":
        env = jinja2.Environment(
            loader=loader,
            bytecode_cache=bytecode_cache,
            optimized=False,
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
    else:
        env = jinja2.Environment(
            loader=loader,
            bytecode_cache=bytecode_cache,
            optimized=False,
            autoescape=False,
            finalize=_md_finalize,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
    env.filters.update(
        num=_num,
        matches=_matches,
        pct=_pct,
        ci=_ci,
        pci=_pci,
        pm=_pm,
        p=_p,
        signed=_signed,
        show=_show,
        allowed=_allowed,
    )
    env.globals["md_raw"] = _MdRaw
    return env


class _MdRaw(str):
    """A string the Markdown renderer must not escape (links and image paths we build)."""


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#!])")


def _md_escape(text: str) -> str:
    """Text that Markdown shows as is: HTML made inert, Markdown punctuation escaped."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))


def _md_finalize(value):
    if isinstance(value, _MdRaw):
        return str(value)
    if value is None:
        return "n/a"
    return _md_escape(str(value))


def _isnum(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _num(x, digits: int = 3) -> str:
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if not _isnum(x):
        return "n/a"
    if digits > 0 and x != 0 and abs(x) < 10**-digits:
        return f"{x:.{digits - 1}e}"
    return f"{x:,.{digits}f}"


def _matches(x) -> str:
    """A number of matches, rounded up; ``never`` when infinite (JSON null)."""
    if not _isnum(x):
        return "never"
    return f"{math.ceil(x):,}"


def _signed(x, digits: int = 3) -> str:
    if not _isnum(x):
        return "n/a"
    return f"{x:+.{digits}f}"


def _pct(x, digits: int = 2) -> str:
    if not _isnum(x):
        return "n/a"
    return f"{100 * x:.{digits}f}%"


def _ci(est, lo, hi, digits: int = 3, signed: bool = True) -> str:
    f = _signed if signed else _num
    if not _isnum(est):
        return "n/a"
    if not (_isnum(lo) and _isnum(hi)):
        return f(est, digits)
    return f"{f(est, digits)} [{f(lo, digits)}, {f(hi, digits)}]"


def _pci(rate, lo, hi, digits: int = 2) -> str:
    if not _isnum(rate):
        return "n/a"
    if not (_isnum(lo) and _isnum(hi)):
        return _pct(rate, digits)
    return f"{_pct(rate, digits)} [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def _pm(est, lo, hi) -> str:
    if not _isnum(est):
        return "n/a"
    if not (_isnum(lo) and _isnum(hi)):
        return f"{est:.3g}"
    return format_pm(est, (hi - lo) / 2)


def _p(p) -> str:
    from analysis.stats import format_p

    if not _isnum(p):
        return "n/a"
    return format_p(p)


def _show(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


def _allowed(values) -> str:
    """An option's allowed values: runs of consecutive integers as ranges (``0–240``),
    the others joined with `` | ``.

    Examples
    --------
    >>> _allowed(list(range(0, 241)))
    '0–240'
    >>> _allowed([0, 1, 2, 5, 8, 9, 10])
    '0–2 | 5 | 8–10'
    >>> _allowed([True, False])
    'true | false'
    """
    vals = list(values)
    if vals and all(isinstance(x, int) and not isinstance(x, bool) for x in vals):
        out, run = [], [vals[0]]
        for x in vals[1:]:
            if x == run[-1] + 1:
                run.append(x)
                continue
            out.append(run)
            run = [x]
        out.append(run)
        return " | ".join(
            str(r[0]) if len(r) == 1 else (f"{r[0]}, {r[1]}" if len(r) == 2 else f"{r[0]}–{r[-1]}")
            for r in out
        )
    return " | ".join(_show(x) for x in vals)


_KIND_LABEL = {
    "sanity": "engine sanity check: null true by construction, expected to pass",
    "equivalence": "equivalence test (TOST): a rejection means fair within the margin",
    "finding": "",
}


def _views(ctx: dict) -> dict:
    """Presentation-only regroupings of the context's tidy tables (no new numbers)."""
    out = {}
    for name, v in ctx["variants"].items():
        info = {p["pattern"]: p for p in v["pattern_info"]}
        pats = {}
        for r in v["patterns"]:
            row = pats.setdefault(
                r["pattern"], {"pattern": r["pattern"], **info.get(r["pattern"], {})}
            )
            row[r["per"]] = r
        ordered = sorted(pats.values(), key=lambda r: -(r.get("win", {}).get("rate") or 0))
        seats = []
        for r in v["payouts_seat"]:
            wins = next(
                (
                    w
                    for w in v["seats"]
                    if w["seat"] == r["seat"] and w["event"] == "win" and w["per"] == "deal"
                ),
                None,
            )
            dealt = next(
                (
                    w
                    for w in v["seats"]
                    if w["seat"] == r["seat"] and w["event"] == "deal_in" and w["per"] == "deal"
                ),
                None,
            )
            seats.append({"pay": r, "win": wins, "deal_in": dealt})
        roles = []
        for r in v["payouts_role"]:
            wins = next(
                (w for w in v["roles"] if w["distance"] == r["distance"] and w["per"] == "deal"),
                None,
            )
            roles.append(
                {
                    "pay": r,
                    "win": wins,
                    "prose": ROLE_PROSE.get(r["role"], r["role"]),
                    "hanzi": ROLE_HANZI.get(r["role"], ""),
                }
            )
        wt = []
        for r in v["win_types"]:
            if r["per"] != "deal":
                continue
            pay = {
                p["quantity"]: p for p in v["win_type_payouts"] if p["win_type"] == r["win_type"]
            }
            wt.append({"freq": r, "pay": pay, "hanzi": WIN_TYPE_HANZI.get(r["win_type"], "")})
        sweeps = []
        for sw in v["sweeps"]:
            rows = {}
            for r in sw["table"]:
                base = r.get("is_baseline", r.get("is_default"))
                rows.setdefault(r["metric"], []).append({**r, "base": base})
            docs = {m["metric"]: m["doc"] for m in sw.get("metric_docs", [])}
            sweeps.append(
                {
                    "sweep": sw,
                    "by_metric": rows,
                    "baseline": sw.get("baseline", sw.get("default")),
                    "paired": sw.get("paired", True),
                    "docs": docs,
                }
            )
        fairness = [
            {**t, "kind": t.get("kind", "finding"), "label": _KIND_LABEL.get(t.get("kind"), "")}
            for t in v["fairness"]
        ]
        skill = [{"skill": sk, "rows": sk["table"]} for sk in v["skill"]]
        risk, sens = _risk_view(v.get("risk")), _sensitivity_view(v.get("sensitivity"))
        out[name] = {
            "risk": risk,
            "sensitivity": sens,
            "patterns": ordered,
            "seats": seats,
            "roles": roles,
            "win_types": wt,
            "sweeps": sweeps,
            "skill": skill,
            "fairness": fairness,
            "dealer_edge": v.get("dealer_edge"),
        }
    panel = {}
    for r in ctx["panel"]:
        panel.setdefault(r["label"], {})[r["metric"]] = r
    return {"variants": out, "panel": panel}


def _risk_view(risk: dict | None) -> dict | None:
    """Match risk as one row per role: mean, the quantiles and each stated amount."""
    if not risk:
        return None
    rows: dict[int, dict] = {}
    qs, xs = [], []
    for r in risk["table"]:
        row = rows.setdefault(r["distance"], {"role": r["role"], "distance": r["distance"]})
        if r["stat"] == "mean":
            row["mean"] = r
        elif r["stat"] == "quantile":
            row.setdefault("q", {})[r["at"]] = r
            if r["at"] not in qs:
                qs.append(r["at"])
        else:
            row.setdefault("loss", {})[r["at"]] = r
            if r["at"] not in xs:
                xs.append(r["at"])
    order = sorted(rows, key=lambda d: d if d >= 0 else 1 << 30)
    return {
        "rows": [rows[d] for d in order],
        "quantiles": qs,
        "amounts": xs,
        "matches": risk["matches"],
        "deals_per_match": risk["deals_per_match"],
        "stated": risk.get("stated", True),
    }


def _sensitivity_view(sv: dict | None) -> dict | None:
    """The sensitivity table as one row per option value, a cell per metric."""
    if not sv:
        return None
    rows: dict[tuple, dict] = {}
    for r in sv["table"]:
        key = (r["option"], r["option_value"])
        row = rows.setdefault(
            key,
            {
                "option": r["option"],
                "value": r["option_value"],
                "baseline": r["baseline"],
                "paired": r["paired"],
                "inert": r["inert"],
                "cells": {},
            },
        )
        p = r.get("p_adj")
        row["cells"][r["metric"]] = {**r, "resolved": p is not None and p < ALPHA}
        row["inert"] = row["inert"] and r["inert"]
    return {
        "rows": list(rows.values()),
        "metrics": sv["metrics"],
        "docs": {m["metric"]: m["doc"] for m in sv.get("metric_docs", [])},
        "ranking": sv.get("ranking", []),
        "recommendations": sv.get("recommendations", []),
        "skipped": sv.get("skipped", []),
        "deals": sv["deals"],
        "skill_deals": sv.get("skill_deals", 0),
        "screen": sv.get("screen"),
    }


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically with the user's umask (engine.fileio)."""
    from engine import fileio

    fileio.write_bytes(path, data)


def render(
    context: dict, out_dir, *, progress: bool = False, figure_cache: bool = True
) -> dict[str, Path]:
    """Write the HTML, Markdown (with PNG figures) and JSON files of a report context.

    Parameters
    ----------
    context : dict
        :func:`build_report` output (or the JSON file read back).
    out_dir : str or Path
        Output folder (created if missing; its parent must exist and be writable).
    progress : bool
        Show a progress bar over the figures.
    figure_cache : bool
        Reuse the figures drawn before from the same data, byte for byte, and keep the
        ones drawn now (:class:`_FigureCache`, in the cache folder), and the templates
        as compiled before (``_TemplateCache``); False draws every figure, compiles the
        templates and uses no cache folder.

    Returns
    -------
    dict of str to Path
        ``{"html": ..., "md": ..., "json": ..., "figures": [...]}``.

    Notes
    -----
    Every file is written to a temporary name in the same folder and renamed when
    complete, the figures first and the JSON last, so a reader never sees a partial
    file. Every string of the context is escaped (Jinja2 autoescape for HTML; Markdown
    punctuation and ``<``/``&`` for Markdown).
    """
    out = check_out_dir(out_dir)
    ctx = jsonable(context)
    bar = _Bar(progress, _n_figures(ctx), "figures", unit="figure")
    cache = _FigureCache(figure_cache)
    try:
        figs = _figures(ctx, bar, cache)
    finally:
        bar.close()
    cache.prune()
    views = _views(ctx)
    templates = _template_cache(figure_cache)
    html_env = _environment("html", templates)
    md_env = _environment("md", templates)
    fig_by_id = {f["id"]: f for f in figs}
    html_figs = {
        f["id"]: {
            "src": "data:image/png;base64," + base64.b64encode(f["png"]).decode("ascii"),
            "caption": f["caption"],
        }
        for f in figs
    }
    md_figs = {
        f["id"]: {"src": _MdRaw(f"{FIGURES_DIR}/{f['id']}.png"), "caption": f["caption"]}
        for f in figs
    }
    css = (TEMPLATES / "report.css").read_text(encoding="utf-8")
    common = {"ctx": ctx, "views": views}
    html = html_env.get_template("report.html.j2").render(
        **common, figs=html_figs, css=css, rule_href=rule_link("html")
    )
    md = md_env.get_template("report.md.j2").render(
        **common, figs=md_figs, rule_href=rule_link("md")
    )
    data = json.dumps(ctx, ensure_ascii=False, indent=1, allow_nan=False)

    out.mkdir(parents=True, exist_ok=True)
    fig_dir = out / FIGURES_DIR
    fig_dir.mkdir(exist_ok=True)
    written = []
    for fid, f in fig_by_id.items():
        path = fig_dir / f"{fid}.png"
        _write_atomic(path, f["png"])
        written.append(path)
    keep = {p.name for p in written}
    for old in fig_dir.glob("*.png"):
        if old.name not in keep:
            old.unlink()
    write_rules(out, ctx["settings"]["variants"])  # the pages the rule citations link to
    paths = {
        "html": out / FILES[0],
        "md": out / FILES[1],
        "json": out / FILES[2],
    }
    _write_atomic(paths["html"], html.encode("utf-8"))
    _write_atomic(paths["md"], md.encode("utf-8"))
    _write_atomic(paths["json"], (data + "\n").encode("utf-8"))
    return {**paths, "figures": written}
