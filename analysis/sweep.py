"""Rule sweeps: one option over several values on the same seeds, paired by deal.

A sweep plays the same seeds under every value of one rule option (common random
numbers: the same shuffles), so the difference of a metric between a value and the
default is estimated deal by deal, pairing on ``(run_seed, match, deal)``, with a far
smaller error than comparing two independent runs. :func:`sweep_table` reports both
the paired and the unpaired interval so the gain is visible (``se_ratio``).

A metric is the mean of a per-deal quantity ``y`` or a ratio ``Σy / Σz`` (``z`` = 1 for
a won deal for "per win" metrics); ratio metrics are linearised
(``u = (y - R z) / mean(z)``) so that the paired and unpaired errors are both
first-order correct. Standard errors treat matches as the independent units (the
deals of a match share a dealer streak); intervals are normal (the runs are large).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence

import numpy as np
import pandas as pd

from analysis import schema
from analysis.payouts import role_matrix
from analysis.schema import IDENTITY, WIN_TYPES
from analysis.stats import z_value
from engine.errors import UsageError

__all__ = ["sweep", "sweep_table", "sweep_metrics"]

Metric = Callable[[pd.DataFrame], tuple[np.ndarray, np.ndarray | None]]

_COLS = [
    "variant",
    "rules_id",
    "option",
    "option_value",
    "is_default",
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
        ``dealer_delta``, ``seat_delta:<s>``, ``win_type:<t>`` (per deal),
        ``pattern:<name>`` (per deal) and ``big_hand_per_win``.
    """
    lay = schema.layout(df)

    def won(f):
        return (f["winner"].to_numpy() >= 0).astype(float)

    out: dict[str, Metric] = {
        "draw_rate": lambda f: ((f["winner"].to_numpy() < 0).astype(float), None),
        "turns": lambda f: (f["turns"].to_numpy().astype(float), None),
        "value_per_win": lambda f: (f["value"].to_numpy() * won(f), won(f)),
        "flow": lambda f: (
            np.maximum(schema.deltas(f, schema.layout(f)), 0).sum(axis=1).astype(float),
            None,
        ),
        "dealer_delta": lambda f: (role_matrix(f)[:, 0].astype(float), None),
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


def _linear(y: np.ndarray, z: np.ndarray | None) -> tuple[float, np.ndarray]:
    """Estimate and its per-deal influence values (mean 0) for a mean or ratio metric."""
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
    default: Hashable,
    metrics: Mapping[str, Metric] | Sequence[str] | None = None,
    big: Sequence[str] | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    """Each metric under each option value, and its difference from the default.

    Parameters
    ----------
    frames : mapping
        ``option value -> record frame``, all from the same seeds.
    option : str
        The option's name (for the table).
    default : hashable
        The key of ``frames`` that is the baseline.
    metrics : mapping or sequence of str, optional
        Metrics to compute: a mapping ``name -> f(frame) -> (y, z or None)``, or names
        from :func:`sweep_metrics` (default: all of them).
    big : sequence of str, optional
        Big-hand pattern names (see :func:`sweep_metrics`).
    level : float
        Confidence level (normal intervals).

    Returns
    -------
    DataFrame
        ``variant, rules_id, option, option_value, is_default, metric, n, estimate, se,
        lo, hi, n_pairs, diff, diff_se, diff_lo, diff_hi, unpaired_se, unpaired_lo,
        unpaired_hi, se_ratio``. ``diff_*`` is paired on ``(run_seed, match, deal)``
        (deals present under both values); ``unpaired_*`` is the interval two
        independent runs of the same sizes would give; ``se_ratio = unpaired_se /
        diff_se`` is the factor common random numbers buy. The default's rows have
        ``diff = 0``.

    Raises
    ------
    UsageError
        ``default`` is not a key, frames of different variants, or no common deals.
    """
    if default not in frames:
        raise UsageError(f"default {default!r} is not one of the swept values")
    base = frames[default]
    variant, _ = schema.identity(base)
    std = sweep_metrics(base, big=big)
    if metrics is None:
        chosen = std
    elif isinstance(metrics, Mapping):
        chosen = dict(metrics)
    else:
        unknown = [m for m in metrics if m not in std]
        if unknown:
            raise UsageError(f"unknown metric(s) {', '.join(unknown)}; see sweep_metrics")
        chosen = {m: std[m] for m in metrics}
    z = z_value(level)
    base_idx = pd.MultiIndex.from_frame(base[list(IDENTITY)])
    if not base_idx.is_unique:
        raise UsageError("the default's records repeat a deal identity")
    base_raw = {name: f(base) for name, f in chosen.items()}
    base_codes = _match_codes(base)
    base_se = {name: _se(_linear(*yz)[1], base_codes) for name, yz in base_raw.items()}
    rows = []
    for key, f in frames.items():
        v, rid = schema.identity(f)
        if v != variant:
            raise UsageError(f"sweep mixes variants {variant!r} and {v!r}")
        idx = pd.MultiIndex.from_frame(f[list(IDENTITY)])
        common = base_idx.intersection(idx)
        if len(common) == 0:
            raise UsageError(f"value {key!r} shares no deal with the default: not the same seeds")
        pos_b = base_idx.get_indexer(common)
        pos_f = idx.get_indexer(common)
        codes = _match_codes(f)
        pair_codes = np.unique(base_codes[pos_b], return_inverse=True)[1]
        for name, fn in chosen.items():
            y, zz = fn(f)
            est, u = _linear(y, zz)
            se = _se(u, codes)
            yb, zb = base_raw[name]
            # paired: re-linearise both on the common deals so the means match the pairs
            e1, u1 = _linear(y[pos_f], None if zz is None else zz[pos_f])
            e0, u0 = _linear(yb[pos_b], None if zb is None else zb[pos_b])
            is_def = key == default
            diff = 0.0 if is_def else e1 - e0
            dse = 0.0 if is_def else _se(u1 - u0, pair_codes)
            use = 0.0 if is_def else math.sqrt(se**2 + base_se[name] ** 2)
            rows.append(
                {
                    "variant": v,
                    "rules_id": rid,
                    "option": option,
                    "option_value": key,
                    "is_default": is_def,
                    "metric": name,
                    "n": int(y.size),
                    "estimate": est,
                    "se": se,
                    "lo": est - z * se,
                    "hi": est + z * se,
                    "n_pairs": int(len(common)),
                    "diff": diff,
                    "diff_se": dse,
                    "diff_lo": diff - z * dse,
                    "diff_hi": diff + z * dse,
                    "unpaired_se": use,
                    "unpaired_lo": diff - z * use,
                    "unpaired_hi": diff + z * use,
                    "se_ratio": use / dse if dse > 0 else math.nan,
                }
            )
    return pd.DataFrame.from_records(rows, columns=_COLS)


def sweep(
    variant: str,
    option: str,
    values: Sequence,
    *,
    deals: int,
    seed: int = 0,
    default=None,
    rules: Mapping | None = None,
    policies="value",
    workers: int | None = None,
    metrics=None,
    big: Sequence[str] | None = None,
    level: float = 0.95,
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
    default : optional
        The baseline value (default: the first of ``values``).
    rules : mapping, optional
        Other rule options, held fixed.
    policies, workers
        Passed to ``engine.simulate``.
    metrics, big, level
        Passed to :func:`sweep_table`.

    Returns
    -------
    DataFrame
        As :func:`sweep_table`.
    """
    from engine import simulate

    values = list(values)
    if not values:
        raise UsageError("a sweep needs at least one value")
    default = values[0] if default is None else default
    if default not in values:
        values.insert(0, default)
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
        frames, option=option, default=default, metrics=metrics, big=big, level=level
    )
