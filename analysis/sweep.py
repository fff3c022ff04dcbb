"""Rule sweeps: one option over several values on the same seeds, paired by deal.

A sweep plays the same seeds under every value of one rule option (common random
numbers: the same shuffles), so the difference of a metric between a value and the
*baseline* (the option's default unless told otherwise) is estimated deal by deal,
pairing on ``(run_seed, match, deal)``, with a far smaller error than comparing two
independent runs. :func:`sweep_table` reports both the paired and the unpaired interval
so the gain is visible (``se_ratio``).

An option that changes the deck (the number of 王 in 落地扫, ``tiles=144``, the number
of players; ``RuleOption.changes_deal``) deals different cards under each value from
the same seed, so nothing pairs: such a sweep is tabulated with ``paired=False`` and its
differences are the unpaired ones (two independent samples), labelled as such.

Every difference gets a two-sided p-value (normal, ``diff / se``); ``p_adj`` adjusts
them together over every non-baseline row of the table (Holm), the family of one
sweep command. :data:`METRIC_DOCS` defines every metric in words.

A metric is the mean of a per-deal quantity ``y`` or a ratio ``Σy / Σz`` (``z`` = 1 for
a won deal for "per win" metrics); ratio metrics are linearised
(``u = (y - R z) / mean(z)``) so that the paired and unpaired errors are both
first-order correct. Standard errors treat matches as the independent units (the
deals of a match share a dealer streak); intervals are normal (the runs are large).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as _st

from analysis import schema
from analysis.payouts import role_matrix
from analysis.schema import IDENTITY, WIN_TYPES
from analysis.stats import newcombe_diff, newcombe_p, wilson, z_value
from engine.errors import UsageError

__all__ = [
    "sweep",
    "sweep_table",
    "two_frame_table",
    "sweep_metrics",
    "metric_doc",
    "METRIC_DOCS",
    "is_rate",
]

Metric = Callable[[pd.DataFrame], tuple[np.ndarray, np.ndarray | None]]

METRIC_DOCS: dict[str, str] = {
    "draw_rate": "share of deals that end drawn, with no winner",
    "turns": "draws from the wall (or stock) per deal",
    "value_per_win": "the winning hand's value in the variant's unit, averaged over won deals",
    "flow": (
        "points changing hands per deal: the total the seats that gain in a deal receive "
        "(= the total the others pay), averaged over every deal, drawn ones included"
    ),
    "dealer_edge": (
        "dealer edge: the dealer's mean result per deal minus the mean result of the "
        "non-dealers, in the variant's points"
    ),
    "dealer_edge_sd": (
        "dealer edge in SD units: the dealer edge divided by the per-deal SD of a seat's "
        "result under the same rules, so that it does not move with the stakes"
    ),
    "dealer_edge_share": (
        "dealer edge as a share of the money moved: the dealer edge per deal divided by "
        "the flow (points changing hands per deal) under the same rules"
    ),
    "big_hand_per_win": "share of won deals with a big pattern",
}
"""What each standard sweep metric measures, in words (see :func:`metric_doc`)."""


def metric_doc(name: str) -> str:
    """The definition in words of a sweep metric (also ``seat_delta:S``, ``win_type:T``...).

    Examples
    --------
    >>> metric_doc("seat_delta:2")
    "seat 2's mean result per deal, in the variant's points"
    """
    if name in METRIC_DOCS:
        return METRIC_DOCS[name]
    kind, _, arg = name.partition(":")
    if kind == "seat_delta":
        return f"seat {arg}'s mean result per deal, in the variant's points"
    if kind == "win_type":
        return f"share of deals won by {arg.replace('_', ' ')}"
    if kind == "pattern":
        return f"share of deals won with the pattern {arg}"
    return name


def is_rate(name: str) -> bool:
    """Whether a sweep metric is a share (its interval is kept inside [0, 1])."""
    return name in ("draw_rate", "big_hand_per_win") or name.startswith(("win_type:", "pattern:"))


RARE = 10
"""A rate metric whose events (or non-events) number fewer than this in either run
gets Newcombe's interval for its difference (:func:`analysis.stats.newcombe_diff`) and
Wilson's for its estimate: the normal interval collapses to a point on a handful of
events (two rates of 0 gave "0 [0, 0]")."""


class SDScale:
    """The second element of an SD-unit metric: per deal, the mean over the seats of the
    squared deviation of a seat's result from its mean, ``(1/P) Σ_s (d_s - m_s)²``.

    The metric is ``mean(y) / sqrt(mean(q))``: the mean of ``y`` in units of the per-deal
    SD of a seat's result (the SD :func:`analysis.fairness.dealer_edge` divides by).
    """

    def __init__(self, q: np.ndarray):
        self.q = np.asarray(q, dtype=float)

    def __getitem__(self, idx) -> SDScale:
        return SDScale(self.q[idx])


_COLS = [
    "variant",
    "rules_id",
    "option",
    "option_value",
    "is_baseline",
    "paired",
    "metric",
    "n",
    "estimate",
    "se",
    "lo",
    "hi",
    "n_pairs",
    "diff",
    "diff_se",
    "diff_lo",
    "diff_hi",
    "unpaired_se",
    "unpaired_lo",
    "unpaired_hi",
    "se_ratio",
    "interval",
    "k",
    "n_k",
    "k_base",
    "n_base",
    "p",
    "p_adj",
    "adjust",
    "reject",
    "diff_level",
    "raw_lo",
    "raw_hi",
]


def sweep_metrics(df: pd.DataFrame, *, big: Sequence[str] | None = None) -> dict[str, Metric]:
    """The standard sweep metrics for frames shaped like ``df``.

    Parameters
    ----------
    df : DataFrame
        A record frame (its patterns and seats decide the metric list).
    big : sequence of str, optional
        Pattern names counted as big hands (adds ``big_hand_per_win``).

    Returns
    -------
    dict of str to callable
        ``name -> f(frame) -> (y, z or None)``: ``draw_rate``, ``turns``,
        ``value_per_win``, ``flow`` (points changing hands per deal),
        ``dealer_edge`` (the dealer's result minus the non-dealers' mean, per deal),
        ``dealer_edge_sd`` (the dealer edge in SD units of a seat's result, which does
        not move with the stakes), ``dealer_edge_share`` (the dealer edge over the flow),
        ``seat_delta:<s>``, ``win_type:<t>`` (per deal), ``pattern:<name>`` (per deal)
        and ``big_hand_per_win``; :func:`metric_doc` defines each in words.
    """
    lay = schema.layout(df)

    def won(f):
        return (f["winner"].to_numpy() >= 0).astype(float)

    out: dict[str, Metric] = {
        "draw_rate": lambda f: ((f["winner"].to_numpy() < 0).astype(float), None),
        "turns": lambda f: (f["turns"].to_numpy().astype(float), None),
        "value_per_win": lambda f: (f["value"].to_numpy() * won(f), won(f)),
        "flow": lambda f: (_flow(f), None),
        "dealer_edge": lambda f: (_dealer_edge(f), None),
        "dealer_edge_sd": lambda f: (_dealer_edge(f), SDScale(_seat_sq_dev(f))),
        "dealer_edge_share": lambda f: (_dealer_edge(f), _flow(f)),
    }
    for s in range(lay.players):
        out[f"seat_delta:{s}"] = lambda f, s=s: (f[f"delta_{s}"].to_numpy().astype(float), None)
    for t in WIN_TYPES[:-1]:
        out[f"win_type:{t}"] = lambda f, t=t: (
            (schema.win_type_codes(f["win_type"]) == WIN_TYPES.index(t)).astype(float),
            None,
        )
    for p in lay.patterns:
        out[f"pattern:{p}"] = lambda f, p=p: (f[f"pat_{p}"].to_numpy().astype(float), None)
    if big:
        cols = [f"pat_{b[4:] if b.startswith('pat_') else b}" for b in big]
        missing = [c for c in cols if c not in df.columns]
        if missing:
            raise UsageError(f"no pattern column(s) {', '.join(missing)}")
        out["big_hand_per_win"] = lambda f: (f[cols].to_numpy().any(axis=1).astype(float), won(f))
    return out


def _dealer_edge(f: pd.DataFrame) -> np.ndarray:
    """Per deal, the dealer's delta minus the mean of the non-dealers' deltas.

    A deal's deltas sum to 0, so this is ``d_dealer · P / (P - 1)``: the same
    definition as :func:`analysis.fairness.dealer_edge`.
    """
    d0 = role_matrix(f)[:, 0].astype(float)
    p = schema.layout(f).players
    return d0 * p / (p - 1)


def _flow(f: pd.DataFrame) -> np.ndarray:
    """Per deal, the points changing hands: the total the seats that gain receive."""
    return np.maximum(schema.deltas(f, schema.layout(f)), 0).sum(axis=1).astype(float)


def _seat_sq_dev(f: pd.DataFrame) -> np.ndarray:
    """Per deal, ``(1/P) Σ_s (d_s - m_s)²`` with ``m_s`` seat s's mean over the frame."""
    d = schema.deltas(f, schema.layout(f)).astype(float)
    return ((d - d.mean(axis=0)) ** 2).mean(axis=1)


def _linear(y: np.ndarray, z) -> tuple[float, np.ndarray]:
    """Estimate and its per-deal influence values (mean 0) for a mean, ratio or SD-unit
    metric (``z`` None, an array, or an :class:`SDScale`).
    """
    if isinstance(z, SDScale):
        ybar, qbar = float(y.mean()), float(z.q.mean())
        if not qbar > 0:
            return math.nan, np.full_like(y, math.nan, dtype=float)
        sd = math.sqrt(qbar)
        est = ybar / sd
        return est, (y - ybar) / sd - est / (2 * qbar) * (z.q - qbar)
    if z is None:
        est = float(y.mean())
        return est, y - est
    zbar = float(z.mean())
    if zbar == 0:
        return math.nan, np.full_like(y, math.nan)
    est = float(y.sum() / z.sum())
    return est, (y - est * z) / zbar


def _se(u: np.ndarray, groups: np.ndarray) -> float:
    """SE of the mean of ``u`` (influence values, mean 0) with matches as the units.

    ``sqrt(G / (G - 1) Σ_g U_g²) / n`` with ``U_g`` the sum of ``u - mean(u)`` over match
    g; with one deal per match this is the usual ``sd / sqrt(n)``.
    """
    n = u.size
    tot = np.bincount(groups, weights=u - u.mean())
    g = tot.size
    if g < 2:
        return math.nan
    return float(math.sqrt(g / (g - 1) * float(tot @ tot)) / n)


def _match_codes(df: pd.DataFrame) -> np.ndarray:
    return df.groupby(["run_seed", "match"], sort=False, observed=True).ngroup().to_numpy()


def sweep_table(
    frames: Mapping[Hashable, pd.DataFrame],
    *,
    option: str,
    baseline: Hashable = None,
    metrics: Mapping[str, Metric] | Sequence[str] | None = None,
    big: Sequence[str] | None = None,
    level: float = 0.95,
    paired: bool = True,
    adjust: str = "holm",
    default: Hashable = None,
) -> pd.DataFrame:
    """Each metric under each option value, and its difference from the baseline.

    Parameters
    ----------
    frames : mapping
        ``option value -> record frame``, all from the same seeds.
    option : str
        The option's name (for the table).
    baseline : hashable
        The key of ``frames`` that the differences are taken from (usually the option's
        default value). ``default=`` is accepted as its old name.
    metrics : mapping or sequence of str, optional
        Metrics to compute: a mapping ``name -> f(frame) -> (y, z or None)``, or names
        from :func:`sweep_metrics` (default: all of them).
    big : sequence of str, optional
        Big-hand pattern names (see :func:`sweep_metrics`).
    level : float
        Confidence level (normal intervals).
    paired : bool
        Whether the values dealt the same cards from the same seed. ``False`` for an
        option that changes the deck (``RuleOption.changes_deal``): the differences are
        then the unpaired ones and ``diff_*`` equals ``unpaired_*``.
    adjust : {"holm", "bonferroni", "none"}
        Multiplicity adjustment of ``p_adj`` over the table's non-baseline rows.

    Returns
    -------
    DataFrame
        ``variant, rules_id, option, option_value, is_baseline, paired, metric, n,
        estimate, se, lo, hi, n_pairs, diff, diff_se, diff_lo, diff_hi, unpaired_se,
        unpaired_lo, unpaired_hi, se_ratio, interval, k, n_k, k_base, n_base, p, p_adj,
        adjust, reject, diff_level, raw_lo, raw_hi``. ``diff`` is paired on ``(run_seed,
        match, deal)`` (deals present under both values) when ``paired``;
        ``unpaired_*`` is the interval two independent runs of the same sizes give;
        ``se_ratio = unpaired_se / diff_se`` is the factor common random numbers buy
        (NaN when unpaired). ``p`` tests ``diff = 0`` (normal; for a rate with fewer
        than :data:`RARE` events or non-events, ``interval = "newcombe"``: Newcombe's
        interval from the counts ``k / n_k`` and ``k_base / n_base``, and the p-value that
        agrees with it); ``p_adj`` is adjusted and ``reject`` is ``p_adj < 1 - level``.
        ``diff_lo, diff_hi`` is the interval adjusted the same way (at ``diff_level``,
        :func:`analysis.stats.adjusted_levels`), so that it excludes 0 exactly when
        ``reject``; ``raw_lo, raw_hi`` is the unadjusted interval at ``level``. The
        baseline's rows have ``diff = 0`` and no p-value. Intervals of shares
        (:func:`is_rate`) are clipped to [0, 1] (Wilson's for rare ones).

    Raises
    ------
    UsageError
        ``baseline`` is not a key, frames of different variants, or no common deals.
    """
    from analysis.stats import adjust_rows

    if baseline is None:
        baseline = default
    if baseline not in frames:
        raise UsageError(f"baseline {baseline!r} is not one of the swept values")
    ref = _Baseline.of(frames[baseline], metrics, big)
    z = z_value(level)
    rows = []
    for key, f in frames.items():
        rows.extend(_value_rows(ref, key, f, key == baseline, option, paired, z))
    rows = adjust_rows(rows, adjust, alpha=1 - level)
    return pd.DataFrame.from_records(rows, columns=_COLS)


def _chosen_metrics(base: pd.DataFrame, metrics, big) -> dict[str, Metric]:
    """The metrics a sweep table computes: ``name -> f(frame) -> (y, z or None)``."""
    std = sweep_metrics(base, big=big)
    if metrics is None:
        return std
    if isinstance(metrics, Mapping):
        return dict(metrics)
    unknown = [m for m in metrics if m not in std]
    if unknown:
        raise UsageError(f"unknown metric(s) {', '.join(unknown)}; see sweep_metrics")
    return {m: std[m] for m in metrics}


@dataclass(frozen=True)
class _Baseline:
    """The baseline's records and what every other value is compared with: its deal
    identities, each metric's per-deal ``(y, z)``, estimate and influence values, and
    SE with matches as the units.
    """

    variant: str
    metrics: dict[str, Metric]
    idx: pd.MultiIndex  # (run_seed, match, deal) of each row, unique
    codes: np.ndarray  # match code of each row
    raw: dict[str, tuple]  # metric -> (y, z or None)
    lin: dict[str, tuple]  # metric -> (estimate, influence values)
    se: dict[str, float]

    @classmethod
    def of(cls, base: pd.DataFrame, metrics, big) -> _Baseline:
        """Measure ``base`` on the chosen metrics (:func:`_chosen_metrics`); a repeated
        deal identity is a usage error.
        """
        variant, _ = schema.identity(base)
        metrics = _chosen_metrics(base, metrics, big)
        idx = pd.MultiIndex.from_frame(base[list(IDENTITY)])
        if not idx.is_unique:
            raise UsageError("the baseline's records repeat a deal identity")
        raw = {name: f(base) for name, f in metrics.items()}
        codes = _match_codes(base)
        lin = {name: _linear(*yz) for name, yz in raw.items()}
        se = {name: _se(u, codes) for name, (_, u) in lin.items()}
        return cls(variant, metrics, idx, codes, raw, lin, se)


@dataclass(frozen=True)
class _Pairing:
    """Where one value's deals meet the baseline's: positions of the common deal
    identities in each frame, and the matches of the pairs as clusters.
    """

    n: int  # common deals
    pos_base: np.ndarray
    pos_value: np.ndarray
    pair_codes: np.ndarray


def _pairing(ref: _Baseline, key, f: pd.DataFrame) -> _Pairing:
    """The common deals of ``f`` (the frame of value ``key``) and the baseline."""
    idx = pd.MultiIndex.from_frame(f[list(IDENTITY)])
    common = ref.idx.intersection(idx)
    if len(common) == 0:
        raise UsageError(f"value {key!r} shares no deal with the baseline: not the same seeds")
    pos_b = ref.idx.get_indexer(common)
    pos_f = idx.get_indexer(common)
    pair_codes = np.unique(ref.codes[pos_b], return_inverse=True)[1]
    return _Pairing(len(common), pos_b, pos_f, pair_codes)


def _value_rows(ref: _Baseline, key, f: pd.DataFrame, is_base, option, paired, z) -> list:
    """The table's rows of one swept value (one per metric), p unadjusted."""
    v, rid = schema.identity(f)
    if v != ref.variant:
        raise UsageError(f"sweep mixes variants {ref.variant!r} and {v!r}")
    pairs = _pairing(ref, key, f)
    codes = _match_codes(f)
    level = 2 * _st.norm.cdf(z) - 1
    rows = []
    for name, fn in ref.metrics.items():
        y, zz = fn(f)
        est, u = _linear(y, zz)
        se = _se(u, codes)
        use = 0.0 if is_base else math.sqrt(se**2 + ref.se[name] ** 2)
        if is_base:
            diff, dse = 0.0, 0.0
        elif paired:
            diff, dse = _paired_diff(ref, name, pairs, y, zz)
        else:
            diff, dse = est - ref.lin[name][0], use
        lo, hi = est - z * se, est + z * se
        pv = (
            float(2 * _st.norm.sf(abs(diff) / dse))
            if not is_base and dse > 0 and math.isfinite(dse)
            else math.nan
        )
        dlo, dhi = diff - z * dse, diff + z * dse
        kind = "normal"
        counts = {"k": math.nan, "n_k": math.nan, "k_base": math.nan, "n_base": math.nan}
        if is_rate(name):
            lo, hi = max(lo, 0.0), min(hi, 1.0)
            rare = _rare_counts(ref, name, pairs if paired else None, y, zz)
            if rare is not None:
                k1, n1, k0, n0 = rare
                lo, hi = wilson(int((y if zz is None else y * zz).sum()),
                                int(y.size if zz is None else zz.sum()), level)  # fmt: skip
                if not is_base:
                    kind = "newcombe"
                    counts = {"k": k1, "n_k": n1, "k_base": k0, "n_base": n0}
                    diff = k1 / n1 - k0 / n0
                    dlo, dhi = newcombe_diff(k1, n1, k0, n0, level)
                    pv = newcombe_p(k1, n1, k0, n0)
        rows.append(
            {
                "variant": v,
                "rules_id": rid,
                "option": option,
                "option_value": key,
                "is_baseline": is_base,
                "paired": bool(paired),
                "metric": name,
                "n": int(y.size),
                "estimate": est,
                "se": se,
                "lo": lo,
                "hi": hi,
                "n_pairs": pairs.n if paired else 0,
                "diff": diff,
                "diff_se": dse,
                "diff_lo": dlo,
                "diff_hi": dhi,
                "unpaired_se": use,
                "unpaired_lo": diff - z * use,
                "unpaired_hi": diff + z * use,
                "se_ratio": use / dse if paired and dse > 0 else math.nan,
                "interval": kind,
                **counts,
                "p": pv,
            }
        )
    return rows


def _rare_counts(ref: _Baseline, name: str, pairs: _Pairing | None, y, zz):
    """``(k, n, k_base, n_base)`` of a rate metric on the deals compared (the common
    ones when paired), when either run has fewer than :data:`RARE` events or non-events;
    else None.
    """
    yb, zb = ref.raw[name]
    if pairs is not None:
        y, yb = y[pairs.pos_value], yb[pairs.pos_base]
        zz = None if zz is None else zz[pairs.pos_value]
        zb = None if zb is None else zb[pairs.pos_base]

    def count(yy, z):
        if z is None:
            return int(round(float(yy.sum()))), int(yy.size)
        return int(round(float((yy * z).sum()))), int(round(float(z.sum())))

    k1, n1 = count(y, zz)
    k0, n0 = count(yb, zb)
    if n1 == 0 or n0 == 0 or min(k1, n1 - k1, k0, n0 - k0) >= RARE:
        return None
    return k1, n1, k0, n0


def _paired_diff(ref: _Baseline, name: str, pairs: _Pairing, y, zz) -> tuple[float, float]:
    """The difference from the baseline and its SE, paired deal by deal: both sides
    re-linearised on the common deals, so that the means match the pairs.
    """
    yb, zb = ref.raw[name]
    pf, pb = pairs.pos_value, pairs.pos_base
    e1, u1 = _linear(y[pf], None if zz is None else zz[pf])
    e0, u0 = _linear(yb[pb], None if zb is None else zb[pb])
    return e1 - e0, _se(u1 - u0, pairs.pair_codes)


def two_frame_table(
    frames: Mapping[str, pd.DataFrame],
    *,
    baseline: str,
    metrics: Sequence[str],
    level: float = 0.95,
) -> pd.DataFrame:
    """Two record frames of the same deals side by side, one row per metric: each
    frame's estimate and interval, and the other frame's difference from ``baseline``
    paired deal by deal (:func:`sweep_table` of the two, reshaped).

    Parameters
    ----------
    frames : mapping
        Exactly two ``name -> record frame`` (the names become column names).
    baseline : str
        The name the difference is taken from.
    metrics : sequence of str
        Names from :func:`sweep_metrics`, in the order of the rows.
    level : float
        Confidence level.

    Returns
    -------
    DataFrame
        ``metric, <a>, <a>_lo, <a>_hi, <b>, <b>_lo, <b>_hi, diff, diff_lo, diff_hi,
        n_pairs`` with ``a, b`` the names in the order of ``frames``; ``diff`` is the
        non-baseline frame's minus the baseline's.
    """
    if len(frames) != 2:
        raise UsageError(f"two_frame_table compares two frames, got {len(frames)}")
    other = next(k for k in frames if k != baseline)
    t = sweep_table(frames, option="frames", baseline=baseline, metrics=list(metrics), level=level)
    by = {name: t[t["option_value"] == name].set_index("metric") for name in frames}
    cols: dict[str, list] = {"metric": list(metrics)}
    for name in frames:
        for col, src in ((name, "estimate"), (f"{name}_lo", "lo"), (f"{name}_hi", "hi")):
            cols[col] = [float(by[name].loc[m, src]) for m in metrics]
    for col in ("diff", "diff_lo", "diff_hi"):
        cols[col] = [float(by[other].loc[m, col]) for m in metrics]
    cols["n_pairs"] = [int(by[other].loc[m, "n_pairs"]) for m in metrics]
    return pd.DataFrame(cols)


def sweep(
    variant: str,
    option: str,
    values: Sequence,
    *,
    deals: int,
    seed: int = 0,
    baseline=None,
    rules: Mapping | None = None,
    policies="value",
    workers: int | None = None,
    metrics=None,
    big: Sequence[str] | None = None,
    level: float = 0.95,
    default=None,
) -> pd.DataFrame:
    """Simulate ``variant`` under each value of ``option`` on the same seed; tabulate.

    Calls ``engine.simulate(variant, deals=deals, seed=seed, rules={**rules, option:
    value}, policies=policies, workers=workers)`` once per value (same seed: common
    random numbers) and returns :func:`sweep_table` of the records.

    Parameters
    ----------
    variant, option : str
    values : sequence
        Option values to play.
    deals, seed : int
    baseline : optional
        The value the differences are taken from; default the option's default value
        for a registered option (else the first of ``values``). It is played even when
        ``values`` does not list it. ``default=`` is accepted as its old name.
    rules : mapping, optional
        Other rule options, held fixed.
    policies, workers
        Passed to ``engine.simulate``.
    metrics, big, level
        Passed to :func:`sweep_table`.

    Returns
    -------
    DataFrame
        As :func:`sweep_table` (unpaired when the option changes the deck).
    """
    from engine import simulate, variants

    values = list(values)
    if not values:
        raise UsageError("a sweep needs at least one value")
    baseline = default if baseline is None else baseline
    opt = None
    if variant in variants.names():
        opt = variants.get(variant).option_map.get(option)
    if baseline is None:
        baseline = opt.default if opt is not None else values[0]
    if baseline not in values:
        values.insert(0, baseline)
    frames = {}
    for v in values:
        run = simulate(
            variant,
            deals=deals,
            seed=seed,
            rules={**dict(rules or {}), option: v},
            policies=policies,
            workers=workers,
        )
        frames[v] = run.to_pandas()
    return sweep_table(
        frames,
        option=option,
        baseline=baseline,
        metrics=metrics,
        big=big,
        level=level,
        paired=not getattr(opt, "changes_deal", False),
    )
