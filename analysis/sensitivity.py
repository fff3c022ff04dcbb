"""Which rule options matter: every option value against the defaults, in words.

:func:`option_plan` lists every non-default value of every rule option of a variant
(values the option cannot take alone, such as a free-form tile list or a value that
needs another option, are left out with the reason). :func:`sensitivity_table` compares
each value's records with the default rules' records on the same seed, one paired sweep
(:func:`analysis.sweep_table`) per value, on :data:`METRICS` (the dealer edge, the points
changing hands per deal and the draw rate): the difference from the defaults with its
interval and a two-sided p-value, paired deal by deal unless the option changes the
cards dealt. :func:`sensitivity` plays the runs and tabulates them (Holm over its own
table); the balance report adjusts the p-values together with every other test of the
report instead. :func:`ranking` says which options move each metric most;
:mod:`analysis.recommend` says in words what to change to make a variant fairer (its
dealer edge in SD units closer to 0), only for resolved effects confirmed on a fresh seed.

With ``skill_deals``, the table also has the skill edge (:data:`SKILL_METRIC`): the
``value`` policy's edge over ``efficiency`` per deal in duplicate seating, one run per
place from the dealer for each option value (:func:`skill_runs`, :func:`skill_rows`),
compared with the defaults match by match on the same walls.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from analysis.rescoring import WIDE
from analysis.stats import adjust_pvalues, adjust_rows, ratio_influence
from analysis.sweep import metric_doc, sweep_table
from engine.errors import UsageError

__all__ = [
    "METRICS",
    "option_plan",
    "sensitivity_table",
    "sensitivity",
    "ranking",
    "FAIR_METRIC",
    "draw_sensitivity",
    "figure_metrics",
    "skill_runs",
    "swept_values",
    "skill_rows",
    "SKILL_METRIC",
    "SKILL_PAIR",
    "skill_table",
    "screen",
    "SCREEN_Q",
]

METRICS: tuple[str, ...] = ("dealer_edge", "dealer_edge_sd", "flow", "draw_rate")
"""The metrics of the sensitivity table (:data:`analysis.sweep.METRIC_DOCS` defines them).
``dealer_edge_sd`` (the dealer edge in SD units of a seat's result) is the one a "fairer"
claim reads: an option that shrinks every payment lowers the edge in points without
making the game any fairer, and leaves it in SD units where it was."""

FAIR_METRIC = "dealer_edge_sd"
"""The metric of every "fairer / less fair" claim (:func:`fairness_changes`)."""

SCREEN_Q = 0.05
"""The false-discovery rate at which :func:`screen` controls a screen of option values."""

SKILL_METRIC = "skill_edge"
"""The table's skill metric (with ``skill_deals``)."""

SKILL_PAIR: tuple[str, str] = ("value", "efficiency")
"""The stronger and the weaker policy of :data:`SKILL_METRIC`."""

SKILL_DOC = (
    "what skill is worth: the value policy's edge over efficiency in points per deal, one "
    "value bot among efficiency bots in duplicate seating (the value bot in each place "
    "from the dealer in turn on the same walls, a match averaged over its seatings)"
)

_COLS = [
    "variant",
    "option",
    "option_value",
    "baseline",
    "paired",
    "inert",
    "metric",
    "n",
    "baseline_estimate",
    "baseline_lo",
    "baseline_hi",
    "estimate",
    "lo",
    "hi",
    "diff",
    "diff_se",
    "diff_lo",
    "diff_hi",
    "interval",
    "k",
    "n_k",
    "k_base",
    "n_base",
    "p",
    "screen",
    "exact",
]


def _show(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def option_plan(variant) -> tuple[list[dict], list[dict]]:
    """Every non-default value of every rule option that can be played alone (a wide
    payout range at a few values, :func:`swept_values`).

    Parameters
    ----------
    variant : Variant or str

    Returns
    -------
    plan, skipped : list of dict
        ``plan``: ``{"option", "value", "paired"}`` per value (``paired`` False for an
        option that changes the cards dealt); ``skipped``: ``{"option", "value",
        "reason"}`` for values that cannot be played with the other options at their
        defaults (the option's own message, e.g. a placeholder such as ``TILE`` or a
        value that needs another option).
    """
    from engine import variants as registry

    v = registry.get(variant) if isinstance(variant, str) else variant
    plan, skipped = [], []
    for opt in v.options:
        swept = set(swept_values(opt)) if _wide(opt) else None
        between = []
        for raw in opt.allowed:
            try:
                val = opt.parse(raw)
            except UsageError:
                reason = (
                    f"{_show(raw)} names a form of value, not a value (e.g. tile kinds): not swept"
                )
                skipped.append({"option": opt.key, "value": _show(raw), "reason": reason})
                continue
            if val == opt.default:
                continue
            if swept is not None and val not in swept:
                between.append(val)
                continue
            try:
                v.pack(v.resolve({opt.key: val}))
            except (UsageError, ValueError, KeyError) as exc:
                msg = str(exc).split("\n")[0] or type(exc).__name__
                skipped.append({"option": opt.key, "value": _show(raw), "reason": msg})
                continue
            plan.append({"option": opt.key, "value": val, "paired": not opt.changes_deal})
        if between:
            skipped.append(
                {
                    "option": opt.key,
                    "value": _ranges(between),
                    "reason": f"inside a range of {len(opt.allowed)} values, swept at its "
                    "low end and at twice the default, or its high end (a payout amount "
                    "moves the metrics about in proportion)",
                    "values": len(between),
                }
            )
    return plan, skipped


def _wide(opt) -> bool:
    """Whether ``opt`` is an integer range longer than :data:`WIDE` (swept at a few values)."""
    return len(opt.allowed) > WIDE and all(isinstance(a, int) for a in opt.allowed)


def swept_values(opt) -> list:
    """The values of one option the sensitivity table plays (the default included).

    Every allowed value of an option with at most :data:`WIDE` of them; for a wider
    integer range (the payout amounts) its low end, the default and twice the default
    (its high end where twice is not allowed), so that a variant's plan grows with its
    options, not with their ranges.
    """
    allowed = list(opt.allowed)
    if not _wide(opt):
        out = []
        for raw in allowed:
            try:
                out.append(opt.parse(raw) if isinstance(raw, str) else raw)
            except UsageError:  # a form of value (e.g. TILE), not a value
                continue
        return out
    d = opt.default
    far = 2 * d if 2 * d in allowed and 2 * d != d else allowed[-1]
    return sorted({allowed[0], d, far})


def _ranges(values) -> str:
    """``[1, 2, 3, 5]`` -> ``"1-3, 5"`` (sorted integers, runs joined)."""
    out, run = [], []
    for x in sorted(values):
        if run and x == run[-1] + 1:
            run.append(x)
            continue
        if run:
            out.append(_span(run))
        run = [x]
    if run:
        out.append(_span(run))
    return ", ".join(out)


def _span(run) -> str:
    return str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}"


def sensitivity_table(
    base: pd.DataFrame,
    frames: Mapping[tuple[str, object], pd.DataFrame],
    variant,
    *,
    metrics=METRICS,
    level: float = 0.95,
    screen: Mapping[tuple[str, object], tuple[str, bool]] | None = None,
) -> pd.DataFrame:
    """Each option value's metrics and their differences from the default rules.

    Parameters
    ----------
    base : DataFrame
        Records under the default rules.
    frames : mapping
        ``(option, value) -> records`` under that one value (same seed and deals).
    variant : Variant or str
    metrics : sequence of str
        Sweep metrics (:func:`analysis.sweep_metrics`).
    level : float
    screen : mapping, optional
        ``(option, value) -> (how, exact)``: how the value's records were made
        (``"simulated"``, the default, or ``"rescored"`` from ``base``) and whether they
        equal what a simulation would give (a re-score is exact only for bots that read
        no payout option). A frame shorter than ``base`` is compared with its first deals.

    Returns
    -------
    DataFrame
        ``variant, option, option_value, baseline, paired, inert, metric, n,
        baseline_estimate, baseline_lo, baseline_hi, estimate, lo, hi, diff, diff_se,
        diff_lo, diff_hi, interval, k, n_k, k_base, n_base, p`` (p unadjusted;
        ``baseline_lo, baseline_hi`` the interval of the defaults' estimate; ``interval``
        and the counts as :func:`analysis.sweep_table` gives them, so that an adjusted
        interval can be redone, :func:`analysis.stats.interval_at`). ``inert`` is True
        when the value leaves every deal's winner and every seat's result unchanged: the
        option does nothing under the other defaults and these bots. ``screen, exact``
        as given in ``screen``.
    """
    from engine import variants as registry

    v = registry.get(variant) if isinstance(variant, str) else variant
    parts = []
    for (key, val), f in frames.items():
        opt = v.option_map[key]
        default = opt.default
        paired = not opt.changes_deal
        b0 = base if len(base) == len(f) else base.iloc[: len(f)].reset_index(drop=True)
        t = sweep_table(
            {default: b0, val: f},
            option=key,
            baseline=default,
            metrics=list(metrics),
            level=level,
            paired=paired,
            adjust="none",
        )
        b = t[t["is_baseline"]].set_index("metric")
        t = t[~t["is_baseline"]].copy()
        t["baseline"] = _show(default)
        t["option_value"] = _show(val)
        t["baseline_estimate"] = t["metric"].map(b["estimate"])
        t["baseline_lo"] = t["metric"].map(b["lo"])
        t["baseline_hi"] = t["metric"].map(b["hi"])
        t["inert"] = bool(paired and _same_results(b0, f))
        t["screen"], t["exact"] = (screen or {}).get((key, val), ("simulated", True))
        parts.append(t)
    if not parts:
        return pd.DataFrame(columns=_COLS)
    out = pd.concat(parts, ignore_index=True)
    out["variant"] = v.name
    return out[_COLS].reset_index(drop=True)


def _same_results(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Whether two runs have the same deals with the same winner and every seat's result."""
    from analysis import schema

    if len(a) != len(b):
        return False
    cols = [*schema.IDENTITY, "winner"]
    if not all(np.array_equal(a[c].to_numpy(), b[c].to_numpy()) for c in cols):
        return False
    la, lb = schema.layout(a), schema.layout(b)
    return la.delta_columns == lb.delta_columns and np.array_equal(
        schema.deltas(a, la), schema.deltas(b, lb)
    )


def sensitivity(
    variant: str,
    deals: int,
    *,
    seed: int = 0,
    workers: int | None = None,
    policies="value",
    level: float = 0.95,
    base: pd.DataFrame | None = None,
    reuse: Mapping[tuple[str, object], pd.DataFrame] | None = None,
    progress: Callable[[str, int], None] | None = None,
    skill_deals: int = 0,
    skill_base: Mapping[int, pd.DataFrame] | None = None,
    payouts: str = "simulate",
) -> dict:
    """Play every option value of :func:`option_plan` and tabulate it against the defaults.

    Parameters
    ----------
    variant : str
    deals : int
        Deals per value (and of the default run).
    seed, workers, policies
        Passed to ``engine.simulate`` (the same seed for every value: common random
        numbers).
    level : float
    base : DataFrame, optional
        Records of the default rules on ``seed`` with at least ``deals`` deals (their
        first ``deals`` rows are used); default: played here.
    reuse : mapping, optional
        ``(option, value) -> records`` already played on ``seed`` with at least
        ``deals`` deals (e.g. the report's headline sweeps): their first ``deals`` rows
        are used instead of a new run (the same records, since deal ``(m, d)`` draws
        from its own streams).
    progress : callable, optional
        ``progress(label, deals)`` after each run.
    skill_deals : int
        Deals per place of the skill runs (:func:`skill_runs`) of every value and of the
        defaults; 0 leaves the skill edge out.
    skill_base : mapping, optional
        The defaults' skill runs on ``seed`` with at least ``skill_deals`` deals per place
        (e.g. the report's skill section's); their first ``skill_deals`` rows are used.
    payouts : {"simulate", "rescore"}
        How a payout option's values are measured: played like the others, or re-scored
        from all of ``base`` (the screen of a two-stage design: no simulation, exact for
        bots that read no payout option, first-order for those that do, and labelled so
        in the table's ``screen`` and ``exact`` columns; a re-scored value gets no skill
        runs, since it changes no play).

    Returns
    -------
    dict
        ``{"table": DataFrame (as :func:`sensitivity_table` plus p_adj, Holm over the
        table), "skipped": list, "deals": int, "runs": int, "rescored": int,
        "skill_deals": int}``.
    """
    from engine import variants as registry
    from engine.runs import rescore as rs
    from engine.runs.run import simulate

    if payouts not in ("simulate", "rescore"):
        raise UsageError(f"payouts must be 'simulate' or 'rescore', not {payouts!r}")
    v = registry.get(variant)

    def run(rules):
        return simulate(
            variant,
            deals,
            seed=seed,
            rules=rules,
            policies=policies,
            workers=workers,
            progress=False,
        ).to_pandas()

    plan, skipped = option_plan(variant)
    if base is None:
        base = run(None)
        if progress:
            progress(f"{variant} defaults", deals)
    full = base.reset_index(drop=True)
    base = full.iloc[:deals].reset_index(drop=True)
    defaults = v.resolve(None)
    seats = [policies] * v.n_players(defaults) if isinstance(policies, str) else policies
    exact = rs.is_exact(v, seats)
    frames, how = {}, {}
    runs = 0
    for item in plan:
        key = (item["option"], item["value"])
        if payouts == "rescore" and v.option_map[key[0]].payout:
            frames[key], _ = rs.rescore_frame(full, v, defaults, {key[0]: key[1]})
            how[key] = ("rescored", exact)
            continue
        old = (reuse or {}).get(key)
        if old is not None and len(old) >= deals:
            frames[key] = old.iloc[:deals].reset_index(drop=True)
            continue
        frames[key] = run({item["option"]: item["value"]})
        runs += 1
        if progress:
            progress(f"{variant} {item['option']}={_show(item['value'])}", deals)
    table = sensitivity_table(full, frames, variant, level=level, screen=how)
    if skill_deals:
        played = [k for k in frames if k not in how]
        extra = skill_table(
            variant, played, skill_deals, seed=seed, workers=workers, level=level,
            skill_base=skill_base, progress=progress,
        )  # fmt: skip
        table = pd.concat([table, extra], ignore_index=True)
    table["p_adj"] = adjust_pvalues(table["p"].to_numpy(dtype=float), "holm")
    return {
        "table": table,
        "skipped": skipped,
        "deals": int(len(base)),
        "runs": runs,
        "rescored": len(how),
        "skill_deals": int(skill_deals),
    }


def skill_table(
    variant: str,
    keys,
    deals: int,
    *,
    seed: int = 0,
    workers: int | None = None,
    level: float = 0.95,
    skill_base: Mapping[int, pd.DataFrame] | None = None,
    progress: Callable[[str, int], None] | None = None,
) -> pd.DataFrame:
    """The skill edge (:data:`SKILL_METRIC`) under each ``(option, value)`` of ``keys``
    against the defaults', ``deals`` per place on ``seed`` (:func:`skill_rows`).

    ``skill_base``: the defaults' skill runs on ``seed`` with at least ``deals`` deals per
    place (their first ``deals`` rows are used); default: played here.
    """
    if skill_base is not None and all(len(f) >= deals for f in skill_base.values()):
        sbase = {k: f.iloc[:deals].reset_index(drop=True) for k, f in skill_base.items()}
    else:
        sbase = skill_runs(variant, deals, seed=seed, workers=workers, progress=progress)
    sframes = {}
    for key in keys:
        label = f"{key[0]}={_show(key[1])}"
        sframes[key] = skill_runs(
            variant, deals, rules={key[0]: key[1]}, seed=seed, workers=workers,
            progress=progress, label=label,
        )  # fmt: skip
    return skill_rows(sbase, sframes, variant, level=level)


def screen(rows, *, q: float = SCREEN_Q):
    """Benjamini-Hochberg over a screen's tested rows: the false-discovery rate at ``q``.

    ``rows``: sensitivity table rows (a DataFrame or a list of dicts, changed in place)
    with a raw ``p``. Each gets ``p_adj`` (the BH-adjusted p), ``adjust = "bh"``,
    ``reject`` (``p_adj < q``: the rejections of BH's step-up rule) and its interval at
    Benjamini and Yekutieli's false-coverage level (``1 - R q / m`` with ``R`` of ``m``
    rejected; :func:`analysis.stats.adjusted_levels`), so that it excludes 0 exactly when
    ``reject``; the unadjusted interval stays in ``raw_lo`` / ``raw_hi``. A screen says
    which values could matter; a value it passes is confirmed apart (on a fresh seed),
    so its rejections are leads, not findings.
    """
    return adjust_rows(rows, "bh", alpha=q)


def skill_runs(
    variant: str,
    deals: int,
    *,
    rules: Mapping | None = None,
    seed: int = 0,
    workers: int | None = None,
    pair: tuple[str, str] = SKILL_PAIR,
    progress: Callable[[str, int], None] | None = None,
    label: str = "",
) -> dict[int, pd.DataFrame]:
    """The duplicate skill runs of one rule setting: ``{place from the dealer: records}``.

    One rung of the bot ladder (:func:`analysis.ladder.rung_frames`): the stronger policy
    of ``pair`` in one place, the weaker in the others, one run per place on ``seed``.
    """
    from analysis.ladder import rung_frames
    from engine.variants import get

    v = get(variant)
    strong, weak = pair

    class _Tick:  # the ladder's bar protocol, reported through ``progress``
        place = 0

        def update(self, n: int) -> None:
            progress(f"{variant} {label or 'defaults'} skill, place {self.place}", n)
            self.place += 1

    return rung_frames(
        v, v.resolve(rules), strong, weak, deals, seed, workers=workers,
        bar=_Tick() if progress else None,
    )  # fmt: skip


def _skill_edge_of(means: pd.DataFrame) -> tuple[float, np.ndarray, float]:
    """Ratio edge, its linearised per-match influence (over the mean deals) and its SE."""
    m = means["m"].to_numpy()
    edge, u = ratio_influence(means["t"].to_numpy(), m)
    u = u / m.mean()
    n = u.size
    se = float(math.sqrt((u * u).sum() / (n * (n - 1)))) if n > 1 else math.nan
    return edge, u, se


def skill_rows(
    base: Mapping[int, pd.DataFrame],
    frames: Mapping[tuple[str, object], Mapping[int, pd.DataFrame]],
    variant,
    *,
    level: float = 0.95,
) -> pd.DataFrame:
    """The skill edge of each option value against the defaults' (:data:`SKILL_METRIC`).

    Parameters
    ----------
    base : mapping
        :func:`skill_runs` of the default rules.
    frames : mapping
        ``(option, value) -> skill_runs`` under that value (same seed and deals).
    variant : Variant or str
    level : float

    Returns
    -------
    DataFrame
        Rows of :func:`sensitivity_table`'s columns with ``metric = "skill_edge"``: the
        edge per deal (duplicate format, the match averaged over its places as the unit,
        ratio estimator), its difference from the defaults and a two-sided normal p. The
        difference is paired match by match (the same walls) unless the option changes
        the cards dealt; then the two SEs combine in quadrature.
    """
    from scipy import stats as st

    from analysis.skill import duplicate_match_means
    from engine import variants as registry

    v = registry.get(variant) if isinstance(variant, str) else variant
    z = float(st.norm.ppf(0.5 + level / 2))
    b = duplicate_match_means(base, "dealer")
    e0, u0, se0 = _skill_edge_of(b)
    rows = []
    for (key, val), fr in frames.items():
        opt = v.option_map[key]
        paired = not opt.changes_deal
        f = duplicate_match_means(fr, "dealer")
        e1, u1, se1 = _skill_edge_of(f)
        if paired:
            both = b.index.intersection(f.index)
            if len(both) != len(b) or len(both) != len(f):
                raise UsageError(
                    f"{key}={_show(val)}: its skill runs are not the defaults' matches"
                )
            d = u1 - u0
            se = float(math.sqrt((d * d).sum() / (d.size * (d.size - 1))))
        else:
            se = math.hypot(se0, se1)
        diff = e1 - e0
        p = float(2 * st.norm.sf(abs(diff) / se)) if se > 0 else (1.0 if diff == 0 else 0.0)
        inert = bool(paired and all(_same_results(base[k], fr[k]) for k in base))
        rows.append(
            {
                "variant": v.name,
                "option": key,
                "option_value": _show(val),
                "baseline": _show(opt.default),
                "paired": paired,
                "inert": inert,
                "metric": SKILL_METRIC,
                "n": int(len(f)),
                "baseline_estimate": e0,
                "baseline_lo": e0 - z * se0,
                "baseline_hi": e0 + z * se0,
                "estimate": e1,
                "lo": e1 - z * se1,
                "hi": e1 + z * se1,
                "diff": diff,
                "diff_se": se,
                "diff_lo": diff - z * se,
                "diff_hi": diff + z * se,
                "interval": "normal",
                "k": math.nan,
                "n_k": math.nan,
                "k_base": math.nan,
                "n_base": math.nan,
                "p": math.nan if inert else p,
                "screen": "simulated",
                "exact": True,
            }
        )
    return pd.DataFrame(rows, columns=_COLS)


def _resolved(row, alpha: float) -> bool:
    p = row.get("p_adj")
    return p is not None and not (isinstance(p, float) and math.isnan(p)) and p < alpha


def ranking(table, *, alpha: float = 0.05) -> pd.DataFrame:
    """Per metric, the options in order of the largest difference any of their values makes.

    Parameters
    ----------
    table : DataFrame or list of dict
        :func:`sensitivity_table` rows with ``p_adj``.
    alpha : float
        Adjusted-p threshold of a resolved difference.

    Returns
    -------
    DataFrame
        ``metric, option, option_value, diff, diff_lo, diff_hi, p_adj, resolved, rank``:
        for each option its value with the largest ``|diff|`` among the resolved ones
        (else among all, ``resolved`` False); resolved options first, by ``|diff|``.
    """
    t = pd.DataFrame(table)
    if t.empty:
        return pd.DataFrame(
            columns=[
                "metric",
                "option",
                "option_value",
                "diff",
                "diff_lo",
                "diff_hi",
                "p_adj",
                "resolved",
                "rank",
            ]
        )
    t = t[~t["inert"].astype(bool)].copy()
    t["resolved"] = [_resolved(r, alpha) for r in t.to_dict("records")]
    t["size"] = t["diff"].astype(float).abs()
    rows = []
    for _, g in t.groupby(["metric", "option"], sort=False):
        pick = g[g["resolved"]] if g["resolved"].any() else g
        rows.append(pick.loc[pick["size"].idxmax()])
    out = pd.DataFrame(rows)
    if out.empty:
        return ranking(pd.DataFrame(), alpha=alpha)
    out = out.sort_values(["metric", "resolved", "size"], ascending=[True, False, False])
    out["rank"] = out.groupby("metric").cumcount() + 1
    cols = ["metric", "option", "option_value", "diff", "diff_lo", "diff_hi", "p_adj"]
    return out[[*cols, "resolved", "rank"]].reset_index(drop=True)


def figure_metrics(table) -> list[str]:
    """The panels of :func:`draw_sensitivity`: the metrics of the table's live rows, in order.

    :data:`METRICS`, then :data:`SKILL_METRIC` when the table has it (``skill_deals``).
    """
    t = pd.DataFrame(table)
    if not len(t):
        return []
    live = t.loc[~t["inert"].astype(bool), "metric"]
    return [m for m in (*METRICS, SKILL_METRIC) if (live == m).any()]


def draw_sensitivity(table, *, axes=None, alpha: float = 0.05, unit: str = ""):
    """One panel per metric: each option value's difference from the defaults, with its interval.

    Resolved differences (adjusted p < ``alpha``) are filled, others hollow (say so in
    the caption); inert values are left out. The rows are labelled on the first panel
    only and ruled across every panel; ``axes`` must not share their y axis (the other
    panels have no y ticks). There is a panel for each of :func:`figure_metrics`, the
    skill edge included: ``axes`` needs at least that many (any more are hidden).
    Returns the Axes drawn on.

    Each panel is a few artists whatever its rows: the intervals one line collection,
    their caps one line of markers, the points one line of filled and one of hollow
    markers. Error bars and per-row ticks on every panel cost most of the figure's time.
    """
    import matplotlib
    from matplotlib.colors import to_hex
    from matplotlib.ticker import FixedFormatter, FixedLocator, MaxNLocator, NullLocator

    from analysis import plots

    t = pd.DataFrame(table)
    t = t[~t["inert"].astype(bool)].copy()
    metrics = figure_metrics(t)
    with plots.style():
        if axes is None:
            import matplotlib.pyplot as plt

            _, axes = plt.subplots(1, len(metrics), squeeze=False)
            axes = axes[0]
        axes = np.ravel(np.array(axes, dtype=object))
        if len(axes) < len(metrics):
            raise UsageError(
                f"the sensitivity figure has {len(metrics)} panels ({', '.join(metrics)}); "
                f"{len(axes)} Axes given"
            )
        for ax in axes[len(metrics) :]:
            ax.set_visible(False)
        labels = list(
            dict.fromkeys(f"{o}={v}" for o, v in zip(t["option"], t["option_value"], strict=True))
        )
        pos = {lab: i for i, lab in enumerate(labels)}
        rows = np.arange(len(labels))
        rc = matplotlib.rcParams
        blue = to_hex("C0")  # the style's, whenever the figure is drawn
        size = 2 * rc["errorbar.capsize"]
        u = f" ({unit})" if unit else ""
        words = {"dealer_edge": f"Δ per deal{u}", "flow": f"Δ per deal{u}"}
        words[SKILL_METRIC] = f"Δ per deal{u}"
        for i, (ax, m) in enumerate(zip(axes[: len(metrics)], metrics, strict=True)):
            g = t[t["metric"] == m]
            y = np.array(
                [pos[f"{o}={v}"] for o, v in zip(g["option"], g["option_value"], strict=True)]
            )
            d = g["diff"].to_numpy(float)
            lo, hi = g["diff_lo"].to_numpy(float), g["diff_hi"].to_numpy(float)
            lo, hi = np.fmin(lo, d), np.fmax(hi, d)  # an interval missing its point reaches it
            res = np.array([_resolved(r, alpha) for r in g.to_dict("records")], dtype=bool)
            ax.axvline(0, color="0.4", lw=0.8)
            ax.hlines(y, lo, hi, color=blue, lw=1)
            ax.plot(
                np.concatenate([lo, hi]),
                np.concatenate([y, y]),
                ls="none",
                marker="|",
                ms=size,
                mew=1,
                color=blue,
            )
            for mask, face in ((res, blue), (~res, "white")):
                if mask.any():
                    ax.plot(d[mask], y[mask], ls="none", marker="o", ms=4, color=blue, mfc=face)
            ax.set_title(m, fontsize=9, y=1.0)  # placed: no search for ticks above the axes
            ax.set_xlabel(words.get(m, "Δ share of deals"), fontsize=8)
            ax.set_ylim(len(labels) - 0.5, -0.5)
            ax.xaxis.set_major_locator(MaxNLocator(4))
            if i == 0:
                ax.yaxis.set_major_locator(FixedLocator(rows))
                ax.yaxis.set_major_formatter(FixedFormatter(labels))
                ax.tick_params(axis="y", labelsize=7)
            else:  # the first panel's grid, ruled as one collection
                ax.yaxis.set_major_locator(NullLocator())
                ax.hlines(
                    rows,
                    0,
                    1,
                    transform=ax.get_yaxis_transform(),
                    color=rc["grid.color"],
                    lw=rc["grid.linewidth"],
                    zorder=0.5,
                )
    return axes[: len(metrics)]


def metric_docs(skill: bool = False) -> list[dict]:
    """``[{"metric", "doc"}]`` of :data:`METRICS` (and the skill edge), for the report."""
    docs = [{"metric": m, "doc": metric_doc(m)} for m in METRICS]
    return docs + ([{"metric": SKILL_METRIC, "doc": SKILL_DOC}] if skill else [])
