"""Who wins and loses how much: mean deltas, quantiles, tails, matches, swinginess.

Aggregate tables (:func:`payouts_by_seat`, :func:`payouts_by_role`,
:func:`payouts_by_win_type`, :func:`extra_means`, :func:`value_histogram`,
:func:`delta_histogram`, and :func:`loss_probability` per deal at histogram edges) take
a record frame or a :class:`~analysis.summary.Summary`. Tables that need the rows
(quantiles, per-match totals and their Gini, top-1% swinginess, tails at any ``x``)
take record frames only.

Mean deltas by seat and role have match-clustered standard errors (the deals of a
match share a dealer and its streak, so the match is the independent unit); the
per-win-type and extra means and the Wilson intervals of rates treat deals as
independent, and :func:`match_payouts` works on match totals directly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as _st

from analysis import schema
from analysis._util import ROLE_NAMES, with_identity
from analysis.schema import WIN_TYPES
from analysis.stats import batch_interval, mean_ci_from_sums, wilson, z_value
from analysis.summary import Summary, as_summary, register_tables
from engine.errors import UsageError

__all__ = [
    "payouts_by_seat",
    "payouts_by_role",
    "payouts_by_win_type",
    "extra_means",
    "value_histogram",
    "delta_histogram",
    "loss_probability",
    "payout_quantiles",
    "match_totals",
    "match_payouts",
    "match_gini",
    "gini",
    "swinginess",
    "role_matrix",
]

_MEAN_COLS = ["n", "mean", "sd", "se", "lo", "hi"]


def _mean_row(n, s, ss, level) -> dict:
    r = mean_ci_from_sums(n, s, ss, level)
    return {k: r[k] for k in _MEAN_COLS}


def _clustered_rows(s: Summary, by: str, level: float) -> list[dict]:
    """Per seat (or distance): mean, per-deal SD, match-clustered SE and t interval."""
    g, mean, cov = s.cluster_cov(by)
    _, dcov = s.delta_mean_cov(by)
    q = float(_st.t.ppf(0.5 + level / 2, g - 1)) if g > 1 else math.nan
    rows = []
    for i in range(s.players):
        se = math.sqrt(cov[i, i]) if cov[i, i] >= 0 else math.nan
        rows.append(
            {
                "n": s.n_deals,
                "mean": float(mean[i]),
                "sd": math.sqrt(dcov[i, i]) if dcov[i, i] >= 0 else math.nan,
                "se": se,
                "lo": float(mean[i] - q * se),
                "hi": float(mean[i] + q * se),
                "matches": g,
            }
        )
    return rows


def payouts_by_seat(records, *, level: float = 0.95) -> pd.DataFrame:
    """Mean delta per deal of each absolute seat.

    Returns
    -------
    DataFrame
        ``variant, rules_id, seat, n, mean, sd, se, lo, hi, matches``: ``sd`` is the
        per-deal SD; ``se`` and the t interval treat matches as the independent units
        (deals of a match share a dealer streak; see :mod:`analysis.fairness`).
    """
    s = as_summary(records)
    rows = [{"seat": i, **r} for i, r in enumerate(_clustered_rows(s, "seat", level))]
    return with_identity(s.variant, s.rules_id, rows, ["seat", *_MEAN_COLS, "matches"])


def payouts_by_role(records, *, level: float = 0.95) -> pd.DataFrame:
    """Mean delta per deal by role: dealer, non-dealer (pooled), each distance.

    The ``non_dealer`` row is the average delta of one non-dealer seat per deal, i.e.
    ``-(dealer delta) / (P - 1)`` deal by deal; its SE is derived from the dealer's.

    Returns
    -------
    DataFrame
        ``variant, rules_id, role, distance, n, mean, sd, se, lo, hi, matches`` (SEs
        match-clustered as in :func:`payouts_by_seat`); ``distance`` is 0 for the
        dealer, -1 for the pooled non-dealer row, 1..P-1 for the seats after the dealer
        in turn order (roles ``xiajia, duijia, shangjia``).
    """
    s = as_summary(records)
    p = s.players
    names = ROLE_NAMES[p]
    by_dist = _clustered_rows(s, "distance", level)
    d = by_dist[0]
    f = 1.0 / (p - 1)
    rows = [{"role": "dealer", "distance": 0, **d}]
    rows.append(
        {
            "role": "non_dealer",
            "distance": -1,
            "n": d["n"],
            "mean": -d["mean"] * f,
            "sd": d["sd"] * f,
            "se": d["se"] * f,
            "lo": -d["hi"] * f,
            "hi": -d["lo"] * f,
            "matches": d["matches"],
        }
    )
    rows += [{"role": names[r], "distance": r, **by_dist[r]} for r in range(1, p)]
    return with_identity(s.variant, s.rules_id, rows, ["role", "distance", *_MEAN_COLS, "matches"])


def payouts_by_win_type(records, *, level: float = 0.95) -> pd.DataFrame:
    """Per win type: the winner's gain, the discarder's loss and the hand value.

    Returns
    -------
    DataFrame
        ``variant, rules_id, win_type, quantity, n, mean, sd, se, lo, hi`` with
        ``quantity`` in ``winner_delta`` (over won deals of that type),
        ``discarder_delta`` (deals of that type with a discarder) and ``value``;
        rows with ``n = 0`` are left out.
    """
    s = as_summary(records)
    rows = []
    for t, name in enumerate(WIN_TYPES):
        if name == "none":
            continue
        n = s.win_types[t]
        for q, (cnt, a, b) in (
            ("winner_delta", (n, *s.wintype_winner[t])),
            ("discarder_delta", tuple(s.wintype_discarder[t])),
            ("value", (n, *s.wintype_value[t])),
        ):
            if cnt:
                rows.append({"win_type": name, "quantity": q, **_mean_row(cnt, a, b, level)})
    return with_identity(s.variant, s.rules_id, rows, ["win_type", "quantity", *_MEAN_COLS])


_COUNT_EXTRAS = ("horses", "horse_hits", "kongs")
"""Extras that count things (never negative): their intervals stop at 0."""


def extra_means(records, *, level: float = 0.95) -> pd.DataFrame:
    """Mean per deal of each variant extra column (``horses``, ``kongs``, horse and kong
    money by seat...), with a match-clustered interval.

    The deals of a match share a dealer and its streak (in 推倒胡 the dealer's horses
    grow with the streak), so the SE treats matches as the independent units (t interval
    on ``G - 1`` degrees of freedom), as for the seat payouts. A summary stored before
    the extras' match totals were kept falls back to the per-deal SE
    (``clustered = False``).

    Returns
    -------
    DataFrame
        ``variant, rules_id, extra, n, mean, sd, se, lo, hi, clustered``.
    """
    s = as_summary(records)
    g = s._folded().match_count
    q = float(_st.t.ppf(0.5 + level / 2, g - 1)) if g > 1 else math.nan
    rows = []
    for x in s.extras:
        r = {"extra": x, **_mean_row(s.n_deals, *s.extra_moments[x], level), "clustered": False}
        se = s.extra_cluster_se(x)
        if math.isfinite(se):
            r.update(se=se, lo=r["mean"] - q * se, hi=r["mean"] + q * se, clustered=True)
        if x in _COUNT_EXTRAS:  # a mean count cannot be negative
            r["lo"] = max(r["lo"], 0.0)
        rows.append(r)
    return with_identity(s.variant, s.rules_id, rows, ["extra", *_MEAN_COLS, "clustered"])


def _bins(edges: list, counts: list, total: int) -> list[dict]:
    lo = [-math.inf, *edges]
    hi = [*edges, math.inf]
    return [
        {"lo": a, "hi": b, "count": c, "share": c / total if total else math.nan}
        for a, b, c in zip(lo, hi, counts, strict=True)
    ]


def value_histogram(records, *, drop_empty: bool = True) -> pd.DataFrame:
    """Won deals per fixed ``value`` bin ``[lo, hi)``.

    Returns
    -------
    DataFrame
        ``variant, rules_id, lo, hi, count, share`` (share of won deals).
    """
    s = as_summary(records)
    rows = _bins(s.value_edges, s.value_hist, s.n_wins)
    if drop_empty:
        rows = [r for r in rows if r["count"]]
    return with_identity(s.variant, s.rules_id, rows, ["lo", "hi", "count", "share"])


def delta_histogram(records, *, drop_empty: bool = True) -> pd.DataFrame:
    """Deals per fixed delta bin ``[lo, hi)``, seat by seat.

    Returns
    -------
    DataFrame
        ``variant, rules_id, seat, lo, hi, count, share`` (share of deals).
    """
    s = as_summary(records)
    rows = []
    for seat in range(s.players):
        for r in _bins(s.delta_edges, s.delta_hist[seat], s.n_deals):
            if r["count"] or not drop_empty:
                rows.append({"seat": seat, **r})
    return with_identity(s.variant, s.rules_id, rows, ["seat", "lo", "hi", "count", "share"])


def role_matrix(df: pd.DataFrame) -> np.ndarray:
    """The ``(n, P)`` deltas by distance from the dealer (column 0 = the dealer)."""
    lay = schema.layout(df)
    d = schema.deltas(df, lay)
    dealer = df["dealer"].to_numpy().astype(np.int64)
    idx = (dealer[:, None] + np.arange(lay.players)) % lay.players
    return d[np.arange(len(d))[:, None], idx]


def _loss_rows(d: np.ndarray, xs, per: str, level: float) -> list[dict]:
    n, p = d.shape
    rows = []
    for x in xs:
        lose = d < -x
        for seat in range(p):
            k = int(np.count_nonzero(lose[:, seat]))
            lo, hi = wilson(k, n, level)
            rows.append(
                {
                    "per": per,
                    "x": x,
                    "seat": seat,
                    "n": n,
                    "k": k,
                    "rate": k / n,
                    "lo": lo,
                    "hi": hi,
                }
            )
        c = lose.sum(axis=1)
        r = mean_ci_from_sums(n, int(c.sum()), int((c * c).sum()), level, dist="normal")
        rows.append(
            {
                "per": per,
                "x": x,
                "seat": -1,
                "n": n,
                "k": int(c.sum()),
                "rate": r["mean"] / p,
                "lo": max(0.0, r["lo"] / p),
                "hi": min(1.0, r["hi"] / p),
            }
        )
    return rows


def loss_probability(
    records, x: float | Sequence[float], *, per: str = "deal", level: float = 0.95
) -> pd.DataFrame:
    """Probability that a seat loses more than ``x`` points in a deal or in a match.

    Parameters
    ----------
    records : DataFrame or Summary
        A Summary answers ``per="deal"`` only, and only for ``x`` on a histogram edge
        (where the answer is exact).
    x : float or sequence of float
        Thresholds: the event is ``delta < -x``.
    per : {"deal", "match"}
        Per deal, or per match (the sum of a seat's deltas over the match's deals).
    level : float

    Returns
    -------
    DataFrame
        ``variant, rules_id, per, x, seat, n, k, rate, lo, hi``; ``seat = -1`` is the
        average over seats (its interval uses the per-unit count of losing seats, so
        seats of the same deal are not taken as independent).
    """
    xs = [x] if np.ndim(x) == 0 else list(x)
    cols = ["per", "x", "seat", "n", "k", "rate", "lo", "hi"]
    if isinstance(records, Summary):
        if per != "deal":
            raise UsageError("loss per match needs the records, not a Summary")
        s = records
        edges = s.delta_edges
        rows = []
        for xv in xs:
            if -xv not in edges:
                raise UsageError(f"x={xv} is not a histogram edge; pass the records instead")
            cut = edges.index(-xv) + 1  # bins strictly below -x
            for seat in range(s.players):
                k = int(sum(s.delta_hist[seat][:cut]))
                lo, hi = wilson(k, s.n_deals, level)
                rows.append(
                    {
                        "per": per,
                        "x": xv,
                        "seat": seat,
                        "n": s.n_deals,
                        "k": k,
                        "rate": k / s.n_deals,
                        "lo": lo,
                        "hi": hi,
                    }
                )
        return with_identity(s.variant, s.rules_id, rows, cols)
    df = records
    variant, rules_id = schema.identity(df)
    if per == "deal":
        d = schema.deltas(df, schema.layout(df))
    elif per == "match":
        d = match_totals(df).filter(like="total_").to_numpy()
    else:
        raise UsageError(f"per must be 'deal' or 'match', not {per!r}")
    return with_identity(variant, rules_id, _loss_rows(d, xs, per, level), cols)


def payout_quantiles(
    df: pd.DataFrame,
    q: Sequence[float] = (0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99),
    *,
    by: str = "seat",
    level: float = 0.95,
) -> pd.DataFrame:
    """Quantiles of the per-deal delta by seat or distance, with order-statistic intervals.

    Frame only (quantiles need the rows). The interval is distribution-free: the order
    statistics whose ranks bracket ``n q ± z sqrt(n q (1 - q))``.

    Parameters
    ----------
    df : DataFrame
    q : sequence of float
    by : {"seat", "distance"}
    level : float

    Returns
    -------
    DataFrame
        ``variant, rules_id, seat | distance, q, value, lo, hi``.
    """
    variant, rules_id = schema.identity(df)
    if by == "seat":
        d = schema.deltas(df, schema.layout(df))
    elif by == "distance":
        d = role_matrix(df)
    else:
        raise UsageError(f"by must be 'seat' or 'distance', not {by!r}")
    n = d.shape[0]
    z = z_value(level)
    rows = []
    for col in range(d.shape[1]):
        x = np.sort(d[:, col])
        for qq in q:
            h = z * math.sqrt(n * qq * (1 - qq))
            lo_i = int(min(n - 1, max(0, math.floor(n * qq - h))))
            hi_i = int(min(n - 1, max(0, math.ceil(n * qq + h))))
            val = float(np.quantile(x, qq))
            rows.append(
                {by: col, "q": qq, "value": val, "lo": float(x[lo_i]), "hi": float(x[hi_i])}
            )
    return with_identity(variant, rules_id, rows, [by, "q", "value", "lo", "hi"])


def match_totals(df: pd.DataFrame) -> pd.DataFrame:
    """Each seat's total delta over each match.

    Returns
    -------
    DataFrame
        ``run_seed, match, deals, total_0 .. total_{P-1}``, one row per match.
    """
    lay = schema.layout(df)
    g = df.groupby(["run_seed", "match"], sort=True, observed=True)
    out = g[lay.delta_columns].sum()
    out.columns = [f"total_{s}" for s in range(lay.players)]
    out.insert(0, "deals", g.size())
    return out.reset_index()


def match_payouts(df: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Per seat: mean total over a match and the chance to finish a match ahead.

    The match is the unit, so the interval holds however deals of a match depend on
    each other.

    Returns
    -------
    DataFrame
        ``variant, rules_id, seat, n, mean, sd, se, lo, hi, k_ahead, p_ahead,
        p_ahead_lo, p_ahead_hi`` (``ahead`` = total > 0).
    """
    variant, rules_id = schema.identity(df)
    t = match_totals(df)
    rows = []
    for col in [c for c in t.columns if c.startswith("total_")]:
        x = t[col].to_numpy()
        n = x.size
        r = mean_ci_from_sums(n, _pysum(x), _pysum(x * x), level)
        k = int((x > 0).sum())
        lo, hi = wilson(k, n, level)
        rows.append(
            {
                "seat": int(col[6:]),
                **{c: r[c] for c in _MEAN_COLS},
                "k_ahead": k,
                "p_ahead": k / n,
                "p_ahead_lo": lo,
                "p_ahead_hi": hi,
            }
        )
    cols = ["seat", *_MEAN_COLS, "k_ahead", "p_ahead", "p_ahead_lo", "p_ahead_hi"]
    return with_identity(variant, rules_id, rows, cols)


def _pysum(x: np.ndarray):
    return int(x.sum()) if x.dtype.kind in "iu" else float(x.sum())


def gini(x) -> float:
    """Gini coefficient, normalised for values of either sign.

    ``G = E|X - Y| / (2 E|X|)`` for X, Y drawn independently from ``x`` (Raffinetti,
    Siletti and Vernizzi 2015). For non-negative data it is the usual Gini; for
    zero-sum match totals it is 0 when everyone breaks even, 1/2 when totals are
    ``±a`` in equal numbers, and approaches 1 when a few totals carry all the
    points.

    Examples
    --------
    >>> gini([1, 1, 1, 1]), gini([0, 0, 0, 4]), gini([-1, 1])
    (0.0, 0.75, 0.5)
    """
    x = np.sort(np.asarray(x, dtype=float).ravel())
    n = x.size
    denom = np.abs(x).mean()
    if n == 0 or denom == 0:
        return 0.0 if n else math.nan
    i = np.arange(1, n + 1)
    mad = 2 * np.dot(2 * i - n - 1, x) / (n * n)  # E|X - Y| over ordered pairs
    return float(mad / (2 * denom))


def _batches(df: pd.DataFrame, b: int) -> np.ndarray:
    """Batch number (0..b-1) of each row: whole matches, assigned round robin."""
    key = df.groupby(["run_seed", "match"], sort=True, observed=True).ngroup().to_numpy()
    return key % b


def match_gini(df: pd.DataFrame, *, batches: int = 20, level: float = 0.95) -> pd.DataFrame:
    """Gini of the per-(match, seat) totals, with a batch-means interval.

    Frame only. See :func:`gini` for the normalisation used with negative totals.

    Returns
    -------
    DataFrame
        ``variant, rules_id, n_matches, gini, se, lo, hi, batches``.
    """
    variant, rules_id = schema.identity(df)
    t = match_totals(df)
    tot = t.filter(like="total_").to_numpy()
    est = gini(tot)
    grp = np.arange(len(t)) % batches
    vals = [gini(tot[grp == b]) for b in range(batches) if (grp == b).any()]
    r = batch_interval(vals, est, level)
    row = {
        "n_matches": len(t),
        "gini": est,
        "se": r["se"],
        "lo": r["lo"],
        "hi": r["hi"],
        "batches": r["batches"],
    }
    return with_identity(variant, rules_id, [row], list(row))


def _top_share(flow: np.ndarray, top: float) -> float:
    n = flow.size
    k = max(1, math.ceil(top * n))
    total = flow.sum()
    if total == 0:
        return math.nan
    return float(np.partition(flow, n - k)[n - k :].sum() / total)


def _top_share_interval(df, flow: np.ndarray, est: float, top: float, level: float) -> dict:
    """Match-clustered delta-method interval of the top-``top`` share of ``flow``.

    The share is ``A / B`` with ``B`` the mean flow and ``A`` the mean of the top
    fraction's contribution; the influence value of a deal on ``A`` is
    ``x·1{x > q} + q·(top - 1{x > q})`` (``q`` the share's threshold: ties at ``q`` count
    in part, as in expected shortfall), so a deal's influence on the share is
    ``(a - est·x) / B``. Their sums per match give a sandwich SE with matches as units and
    a t interval on ``G - 1`` degrees of freedom. (Batch means of the share on small
    batches underestimate its SE: the top 1% of a twentieth of the deals is another
    statistic; the slow suite checks this interval's coverage.)
    """
    x = flow.astype(np.float64)
    n = x.size
    k = max(1, math.ceil(top * n))
    big_b = float(x.mean())
    if n < 2 or big_b == 0:
        return {"se": math.nan, "lo": math.nan, "hi": math.nan}
    q = float(np.partition(x, n - k)[n - k])
    above = x > q
    a = x * above + q * (top - above)
    u = (a - est * x) / big_b
    codes = df.groupby(["run_seed", "match"], sort=False, observed=True).ngroup().to_numpy()
    tot = np.bincount(codes, weights=u - u.mean())
    g = tot.size
    if g < 2:
        return {"se": math.nan, "lo": math.nan, "hi": math.nan}
    se = math.sqrt(g / (g - 1) * float(tot @ tot)) / n
    t = float(_st.t.ppf(0.5 + level / 2, g - 1))
    return {"se": se, "lo": est - t * se, "hi": est + t * se}


def swinginess(
    df: pd.DataFrame, *, top: float = 0.01, batches: int = 20, level: float = 0.95
) -> pd.DataFrame:
    """Share of all points changing hands that the top ``top`` of deals carry.

    Points changing hands in a deal = the sum of its positive deltas. Frame only; the
    interval is a match-clustered delta-method one (see :func:`_top_share_interval`);
    ``batches`` is kept for the signature and no longer used.

    Returns
    -------
    DataFrame
        ``variant, rules_id, top, n, share, se, lo, hi, flow_mean, flow_lo, flow_hi``
        (``flow_*``: points changing hands per deal, mean and t interval).
    """
    variant, rules_id = schema.identity(df)
    d = schema.deltas(df, schema.layout(df))
    flow = np.maximum(d, 0).sum(axis=1)
    est = _top_share(flow, top)
    grp = _batches(df, batches)
    r = _top_share_interval(df, flow, est, top, level)
    r["batches"] = int(len(np.unique(grp)))
    m = mean_ci_from_sums(flow.size, _pysum(flow), _pysum(flow * flow), level)
    row = {
        "top": top,
        "n": int(flow.size),
        "share": est,
        "se": r["se"],
        "lo": r["lo"],
        "hi": r["hi"],
        "flow_mean": m["mean"],
        "flow_lo": m["lo"],
        "flow_hi": m["hi"],
    }
    return with_identity(variant, rules_id, [row], list(row))


register_tables(
    payouts_seat=payouts_by_seat,
    payouts_role=payouts_by_role,
    payouts_win_type=payouts_by_win_type,
    extras=extra_means,
    value_hist=value_histogram,
)
