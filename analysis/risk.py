"""What a sitting costs and what skill buys: match risk by role and the gain of skill.

A *match* is the run's unit of play (``match_length`` consecutive deals, 16 by
default, the first dealer drawn at random). A seat's *match result* is the sum of its
deltas over the match's deals. Its *role* is its place relative to the match's first
dealer (``dealer`` = the seat dealing the first deal, then ``xiajia`` ... in turn
order): the one thing a player knows when sitting down.

- :func:`match_table`: one row per match: its first dealer and every seat's result.
- :func:`match_risk`: per role (and pooled over the seats, ``role = "any"``): the mean
  match result, its quantiles and the chance of losing more than stated amounts, each
  with an interval. Matches are independent, so every interval takes the match as the
  unit: a t interval for the mean, distribution-free order-statistic intervals for the
  quantiles, Wilson intervals for the loss probabilities of one role; the pooled rows
  (the seats of one match are dependent) use a bootstrap over matches for the
  quantiles and, for the probability, a Wilson interval at the effective sample size
  that the match-clustered variance of the count of losing seats implies (between one
  and P units per match).
- :func:`skill_gain`: from per-match edge samples (the strong side's result minus the
  weak side's), the mean gain per match with its interval and the number of matches
  after which the strong side is ahead with probability 95%, by the normal
  approximation with the measured mean and SD.
- :func:`seating_match_edges`: those edge samples from skill runs (the strong policy in
  one seat, one run per seat), the input :func:`skill_gain` takes until a ladder
  provides head-to-head tables.
- :func:`load_match_table`: the match table of a record file or dataset folder, read
  one row group at a time (only the columns it needs).

>>> from analysis.testing import synthetic_records
>>> r = match_risk(synthetic_records(64, seed=1), [5])
>>> sorted(r["stat"].unique())
['mean', 'p_loss', 'quantile']
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as _st

from analysis import schema
from analysis._util import ROLE_NAMES
from analysis.stats import format_pm, mean_ci, wilson, z_value
from engine.errors import UsageError

__all__ = [
    "QUANTILES",
    "stated_amounts",
    "format_match_risk",
    "match_table",
    "match_risk",
    "risk_amounts",
    "load_match_table",
    "loss_curve",
    "draw_match_loss",
    "skill_gain",
    "seating_match_edges",
]

QUANTILES: tuple[float, ...] = (0.05, 0.25, 0.5, 0.75, 0.95)
"""Quantiles of a match result that :func:`match_risk` reports by default."""

BOOTSTRAP = 400
"""Resamples of matches for the pooled (``role = "any"``) quantile intervals."""

BOOTSTRAP_MATCHES = 20_000
"""Above this many matches the pooled quantiles' interval is a batch-means one (20
batches of whole matches, t on 19 degrees of freedom) instead of the bootstrap, whose
cost grows with the matches (a 100M-deal dataset has 6M)."""

BATCHES = 20

_RISK_COLS = ["role", "distance", "stat", "at", "n", "k", "value", "lo", "hi", "method"]


def match_table(df: pd.DataFrame) -> pd.DataFrame:
    """Each match's first dealer and every seat's result over the match.

    Parameters
    ----------
    df : DataFrame
        Records (DESIGN schema) of whole matches.

    Returns
    -------
    DataFrame
        ``variant, rules_id, run_seed, match, deals, start_dealer, total_0 ..
        total_{P-1}``, one row per match, sorted by ``(run_seed, match)``;
        ``start_dealer`` is the dealer of the match's first deal (lowest ``deal``).
    """
    lay = schema.layout(df)
    variant, rules_id = schema.identity(df)
    keys = ["run_seed", "match"]
    g = df.groupby(keys, sort=True, observed=True)
    out = g[lay.delta_columns].sum()
    out.columns = [f"total_{s}" for s in range(lay.players)]
    first = df.loc[g["deal"].idxmin().to_numpy(), [*keys, "dealer"]].set_index(keys)
    out.insert(0, "start_dealer", first["dealer"].astype(np.int64))
    out.insert(0, "deals", g.size())
    out = out.reset_index()
    out.insert(0, "rules_id", rules_id)
    out.insert(0, "variant", variant)
    return out


def _as_match_table(records) -> pd.DataFrame:
    if isinstance(records, pd.DataFrame) and "start_dealer" in records.columns:
        return records
    if isinstance(records, pd.DataFrame):
        return match_table(records)
    raise UsageError("match risk needs the records (or a match_table), not a Summary")


def _by_role(t: pd.DataFrame) -> np.ndarray:
    """``(G, P)`` match results by distance from the match's first dealer."""
    cols = [c for c in t.columns if c.startswith("total_")]
    p = len(cols)
    tot = t[cols].to_numpy()
    start = t["start_dealer"].to_numpy().astype(np.int64)
    idx = (start[:, None] + np.arange(p)) % p
    return tot[np.arange(len(t))[:, None], idx]


def _order_interval(x_sorted: np.ndarray, q: float, z: float) -> tuple[float, float]:
    n = x_sorted.size
    h = z * math.sqrt(n * q * (1 - q))
    lo_i = int(min(n - 1, max(0, math.floor(n * q - h))))
    hi_i = int(min(n - 1, max(0, math.ceil(n * q + h))))
    return float(x_sorted[lo_i]), float(x_sorted[hi_i])


def match_risk(
    records,
    x: float | Sequence[float] = (),
    *,
    q: Sequence[float] = QUANTILES,
    level: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Per role: the mean match result, its quantiles and the chance of losing more than x.

    Parameters
    ----------
    records : DataFrame
        Records of whole matches, or their :func:`match_table`.
    x : float or sequence of float
        Stated amounts (points, the variant's unit): the event is a match result below
        ``-x``. Empty: no loss rows.
    q : sequence of float
        Quantiles of the match result.
    level : float
        Confidence level.
    seed : int
        Seed of the bootstrap of the pooled quantiles (the result is deterministic).

    Returns
    -------
    DataFrame
        Long form, one row per statistic: ``variant, rules_id, role, distance, stat,
        at, n, k, value, lo, hi, method``. ``role`` is the seat's role relative to the
        match's first dealer (``distance`` 0 = that dealer, 1 = the next seat in turn
        ...) or ``"any"`` (``distance = -1``: a seat taken at random, pooled over the
        seats). ``stat`` is ``mean`` (mean match result, t interval over matches; not
        for ``any``, whose mean is 0 since a match's results sum to 0),
        ``quantile`` (``at`` = q; order-statistic interval, bootstrap over matches for
        ``any``, batch means above :data:`BOOTSTRAP_MATCHES` matches) or ``p_loss``
        (``at`` = x; ``k`` losing matches of ``n``; Wilson, for ``any`` at the
        match-clustered effective sample size).
    """
    t = _as_match_table(records)
    if len(t) < 2:
        raise UsageError("match risk needs at least two matches")
    variant, rules_id = str(t["variant"].iloc[0]), str(t["rules_id"].iloc[0])
    d = _by_role(t).astype(np.float64)
    g, p = d.shape
    names = ROLE_NAMES.get(p, tuple(f"distance_{i}" for i in range(p)))
    xs = [float(x)] if np.ndim(x) == 0 else [float(v) for v in x]
    qs = [float(v) for v in q]
    if any(not 0 < v < 1 for v in qs):
        raise UsageError("quantiles must lie strictly between 0 and 1")
    z = z_value(level)
    rows: list[dict] = []
    for r in range(p):
        col = d[:, r]
        m = mean_ci(col, level)
        rows.append(_row(names[r], r, "mean", math.nan, g, None, m["mean"], m["lo"], m["hi"], "t"))
        s = np.sort(col)
        for qq in qs:
            lo, hi = _order_interval(s, qq, z)
            val = float(np.quantile(s, qq))
            rows.append(_row(names[r], r, "quantile", qq, g, None, val, lo, hi, "order"))
        for xv in xs:
            k = int(np.count_nonzero(col < -xv))
            lo, hi = wilson(k, g, level)
            rows.append(_row(names[r], r, "p_loss", xv, g, k, k / g, lo, hi, "wilson"))
    # pooled: a seat taken at random (no mean row: a seat's mean is 0 by zero sum)
    flat = d.ravel()
    if qs and g <= BOOTSTRAP_MATCHES:
        rng = np.random.default_rng(seed)
        boot = np.empty((BOOTSTRAP, len(qs)))
        for b in range(BOOTSTRAP):
            pick = d[rng.integers(0, g, g)].ravel()
            boot[b] = np.quantile(pick, qs)
        a = (1 - level) / 2
        for j, qq in enumerate(qs):
            lo, hi = np.quantile(boot[:, j], [a, 1 - a])
            val = float(np.quantile(flat, qq))
            rows.append(_row("any", -1, "quantile", qq, g, None, val, lo, hi, "bootstrap"))
    elif qs:  # many matches: batch means of the quantile over 20 batches of whole matches
        groups = np.arange(g) % BATCHES
        per = np.array([np.quantile(d[groups == k].ravel(), qs) for k in range(BATCHES)])
        tq = float(_st.t.ppf(0.5 + level / 2, BATCHES - 1))
        se = per.std(axis=0, ddof=1) / math.sqrt(BATCHES)
        for j, qq in enumerate(qs):
            val = float(np.quantile(flat, qq))
            lo, hi = val - tq * se[j], val + tq * se[j]
            rows.append(_row("any", -1, "quantile", qq, g, None, val, lo, hi, "batch-means"))
    for xv in xs:
        c = (d < -xv).sum(axis=1).astype(np.float64)
        k = int(c.sum())
        rate = k / (g * p)
        # Wilson at the effective sample size of the match-clustered variance (the seats
        # of one match are dependent); with no or only losing seats, one unit per match
        var = float(c.var(ddof=1)) / (p * p * g)
        if 0 < rate < 1 and var > 0:
            n_eff = min(g * p, max(g, rate * (1 - rate) / var))
        else:
            n_eff = g
        lo, hi = wilson(rate * n_eff, n_eff, level)
        rows.append(_row("any", -1, "p_loss", xv, g * p, k, rate, lo, hi, "wilson-clustered"))
    out = pd.DataFrame.from_records(rows, columns=_RISK_COLS)
    out.insert(0, "rules_id", rules_id)
    out.insert(0, "variant", variant)
    return out


def _row(role, dist, stat, at, n, k, value, lo, hi, method) -> dict:
    return {
        "role": role,
        "distance": dist,
        "stat": stat,
        "at": at,
        "n": int(n),
        "k": k,
        "value": float(value),
        "lo": float(lo),
        "hi": float(hi),
        "method": method,
    }


def _round125(x: float) -> float:
    """The 1-2-5 number (…, 10, 20, 25, 50, 100, …) nearest to ``x`` on a log scale."""
    if not x > 0:
        return 1.0
    e = math.floor(math.log10(x))
    best = min(
        (m * 10.0**k for k in (e - 1, e, e + 1) for m in (1, 2, 2.5, 5)),
        key=lambda c: abs(math.log(c / x)),
    )
    return float(f"{best:.12g}")


def risk_amounts(records, multiples: Sequence[float] = (1, 2, 4)) -> list[float]:
    """Round stated amounts for a variant: 1-2-5 numbers near multiples of a match's SD.

    For a variant without stated amounts of its own: the SD of a seat's match result
    (pooled over seats) times each multiple, rounded to the nearest of 1, 2, 2.5, 5 ×
    10^k, duplicates dropped.
    """
    t = _as_match_table(records)
    sd = float(np.std(t.filter(like="total_").to_numpy(dtype=float), ddof=1))
    out: list[float] = []
    for m in multiples:
        v = _round125(m * sd)
        if v not in out:
            out.append(v)
    return out


def stated_amounts(variant: str, records) -> list[float]:
    """The amounts to price for ``variant``: those its declaration states
    (:attr:`engine.variants.Variant.stated_amounts`), else :func:`risk_amounts`.
    """
    from engine import variants as registry

    stated = registry.get(variant).stated_amounts if variant in registry.names() else ()
    if stated:
        return [float(v) for v in stated]
    return risk_amounts(records)


def _num(x: float) -> str:
    return f"{x:g}" if float(x) == int(x) else f"{x:.3g}"


def _role_groups(frame: pd.DataFrame) -> list[pd.DataFrame]:
    """Rows per role, the dealer first and the pooled ``any`` last."""
    groups = dict(tuple(frame.groupby("distance", sort=True)))
    return [groups[k] for k in sorted(groups, key=lambda d: d if d >= 0 else 1 << 30)]


def format_match_risk(risk: pd.DataFrame, deals_per_match: float | None = None) -> str:
    """The match-risk lines of ``mjlab summarize`` from a :func:`match_risk` table."""
    matches = int(risk.loc[risk["stat"] == "mean", "n"].max())
    per = f" of {deals_per_match:g} deals" if deals_per_match else ""
    out = [
        f"match risk ({matches:,} matches{per}; role = seat relative to the match's first "
        "dealer; a match result is the sum of a seat's results over the match)"
    ]
    qs = sorted(risk.loc[risk["stat"] == "quantile", "at"].unique())
    xs = sorted(risk.loc[risk["stat"] == "p_loss", "at"].unique())
    out.append("  mean result per match (t interval over matches)")
    for _, r in risk[risk["stat"] == "mean"].iterrows():
        out.append(f"    {r['role']:<10} {r['value']:+10.2f}  [{r['lo']:+.2f}, {r['hi']:+.2f}]")
    if qs:
        out.append(
            "  quantiles of the match result (order-statistic intervals; 'any' = a seat at "
            "random, bootstrap over matches)"
        )
        for g in _role_groups(risk[risk["stat"] == "quantile"]):
            g = g.set_index("at")
            cells = "  ".join(
                f"q{100 * q:g} {g.loc[q, 'value']:+.4g} [{g.loc[q, 'lo']:+.4g}, "
                f"{g.loc[q, 'hi']:+.4g}]"
                for q in qs
            )
            name = g["role"].iloc[0]
            out.append(f"    {name:<10} {cells}")
    if xs:
        out.append(
            "  chance of losing more than X over a match (Wilson; 'any': matches as clusters)"
        )
        for g in _role_groups(risk[risk["stat"] == "p_loss"]):
            g = g.set_index("at")
            cells = "  ".join(
                f"X={_num(x)} {100 * g.loc[x, 'value']:.1f}% [{100 * g.loc[x, 'lo']:.1f}, "
                f"{100 * g.loc[x, 'hi']:.1f}]"
                for x in xs
            )
            out.append(f"    {g['role'].iloc[0]:<10} {cells}")
    return "\n".join(out)


def load_match_table(path: str | Path) -> pd.DataFrame | None:
    """The :func:`match_table` of a record file or dataset folder, or None without rows.

    Reads only ``run_seed, match, deal, dealer, variant, rules_id`` and the deltas, a
    batch of rows at a time (:func:`analysis.io.row_batches`), and adds the per-match
    partial results up (a match may straddle batches). Returns None when any chunk is
    summary-only (``--summary-only``: the per-match results were not kept). Call after
    :func:`analysis.summarize`, which validates the files.
    """
    import pyarrow.parquet as pq

    from analysis.io import read_metadata, record_files, row_batches

    files = record_files(path)
    parts = []
    for f in files:
        if read_metadata(f, verify=False).get("format") == "mjlab-summary":
            return None
        pf = pq.ParquetFile(f)
        names = pf.schema_arrow.names
        cols = [
            c
            for c in names
            if c in ("variant", "rules_id", "run_seed", "match", "deal", "dealer")
            or c.startswith("delta_")
        ]
        for _, df in row_batches(pf, f, columns=cols):
            deltas = [c for c in df.columns if c.startswith("delta_")]
            g = df.groupby(["run_seed", "match"], sort=False, observed=True)
            part = g[deltas].sum()
            first = df.loc[g["deal"].idxmin().to_numpy(), ["run_seed", "match", "deal", "dealer"]]
            part = part.join(first.set_index(["run_seed", "match"]))
            part["deals"] = g.size()
            part["variant"] = df["variant"].iloc[0]
            part["rules_id"] = df["rules_id"].iloc[0]
            parts.append(part.reset_index())
    if not parts:
        return None
    allp = pd.concat(parts, ignore_index=True)
    deltas = sorted((c for c in allp.columns if c.startswith("delta_")), key=lambda c: int(c[6:]))
    keys = ["run_seed", "match"]
    # the first deal of a straddling match sits in the earliest part: lowest deal wins
    allp = allp.sort_values([*keys, "deal"], kind="stable")
    g = allp.groupby(keys, sort=True, observed=True)
    out = g[deltas].sum()
    out.columns = [f"total_{c[6:]}" for c in deltas]
    out.insert(0, "start_dealer", g["dealer"].first().astype(np.int64))
    out.insert(0, "deals", g["deals"].sum())
    out = out.reset_index()
    out.insert(0, "rules_id", str(allp["rules_id"].iloc[0]))
    out.insert(0, "variant", str(allp["variant"].iloc[0]))
    return out


# ----------------------------------------------------------------------------- skill gain
def skill_gain(
    match_edges,
    *,
    column: str = "edge",
    cluster: str | Sequence[str] | None = None,
    level: float = 0.95,
    ahead: float = 0.95,
) -> pd.DataFrame:
    """Mean gain of the strong side per match, and the matches it needs to be ahead.

    Parameters
    ----------
    match_edges : DataFrame, Series or array_like
        Per-match edge samples: the strong side's result minus the weak side's over one
        match, one sample per match played (a ladder's per-match edges, or
        :func:`seating_match_edges`).
    column : str
        The column holding the edge when ``match_edges`` is a frame.
    cluster : str or sequence of str, optional
        Columns whose equal values mark dependent samples (e.g. ``["run_seed",
        "match"]`` for seatings of the same walls): the mean's SE then treats each
        cluster as one unit (cluster-robust, t on ``C - 1`` degrees of freedom). The SD
        stays the SD of one sample, the noise of one real match.
    level : float
        Confidence level of the mean.
    ahead : float
        Target probability of being ahead (total edge > 0).

    Returns
    -------
    DataFrame
        One row: ``n, clusters, mean, se, lo, hi, sd, snr, ahead, matches, matches_lo,
        matches_hi, method, verdict``.

    Notes
    -----
    With independent matches, the total edge after ``n`` matches is approximately
    normal with mean ``n μ`` and SD ``√n σ`` (the measured mean ``μ`` and SD ``σ``), so
    ``P(ahead) = Φ(√n μ / σ)`` and ``matches`` is the smallest ``n ≥ 1`` with
    ``Φ(√n μ / σ) ≥ ahead``: ``⌈(z σ / μ)²⌉`` with ``z = Φ⁻¹(ahead)``. ``matches_lo``
    and ``matches_hi`` put the ends of the mean's interval in place of ``μ`` (σ held at
    its estimate); ``matches`` and ``matches_hi`` are None (never) when ``μ`` or the
    lower end of its interval is ≤ 0.
    """
    if isinstance(match_edges, pd.DataFrame):
        if column not in match_edges.columns:
            raise UsageError(f"match edges have no {column!r} column")
        x = match_edges[column].to_numpy(dtype=np.float64)
        if cluster is not None:
            cols = [cluster] if isinstance(cluster, str) else list(cluster)
            missing = [c for c in cols if c not in match_edges.columns]
            if missing:
                raise UsageError(f"match edges have no cluster column(s) {', '.join(missing)}")
            codes = match_edges.groupby(cols, sort=False, observed=True).ngroup().to_numpy()
        else:
            codes = np.arange(x.size)
    else:
        if cluster is not None:
            raise UsageError("cluster= needs a frame of match edges")
        x = np.asarray(match_edges, dtype=np.float64).ravel()
        codes = np.arange(x.size)
    if x.size < 2 or not np.isfinite(x).all():
        raise UsageError("skill gain needs at least two finite match edges")
    if not 0.5 < ahead < 1:
        raise UsageError(f"ahead must lie in (0.5, 1), not {ahead}")
    n = x.size
    mean = float(x.mean())
    sd = float(x.std(ddof=1))
    tot = np.bincount(codes, weights=x - mean)
    c = tot.size
    se = math.sqrt(c / (c - 1) * float(tot @ tot)) / n if c > 1 else math.nan
    tq = float(_st.t.ppf(0.5 + level / 2, c - 1)) if c > 1 else math.nan
    lo, hi = mean - tq * se, mean + tq * se
    z = float(_st.norm.ppf(ahead))

    def k(mu):
        if not mu > 0:
            return None
        if sd == 0:
            return 1
        return max(1, math.ceil((z * sd / mu) ** 2 - 1e-9))

    matches = k(mean)
    verdict = (
        f"the strong side gains {format_pm(mean, (hi - lo) / 2)} points per match "
        f"(SD of one match {sd:.3g}); "
        + (
            f"it is ahead {ahead:.0%} of the time after {matches:,} matches "
            "(normal approximation with the measured mean and SD)"
            if matches is not None and lo > 0
            else (
                "its gain is not resolved from 0 at this N, so no number of matches to be "
                f"ahead is claimed (at the estimate: {matches:,})"
                if matches is not None
                else "it is not expected to be ahead"
            )
        )
    )
    row = {
        "n": int(n),
        "clusters": int(c),
        "mean": mean,
        "se": se,
        "lo": lo,
        "hi": hi,
        "sd": sd,
        "snr": mean / sd if sd > 0 else math.nan,
        "ahead": ahead,
        "matches": matches,
        "matches_lo": k(hi),
        "matches_hi": k(lo),
        "method": (
            "normal approximation: P(ahead after n) = Φ(√n·mean/SD) with the measured mean "
            "and SD; t interval of the mean"
            + (" with clusters as units" if c < n else " over matches")
        ),
        "verdict": verdict,
    }
    return pd.DataFrame([row])


def seating_match_edges(frames: Mapping[int, pd.DataFrame], seating: str = "seat") -> pd.DataFrame:
    """Per-match edges from skill runs: the strong seat's result minus the weak seats' mean.

    Parameters
    ----------
    frames : mapping of int to DataFrame
        ``{seating key: records}``: one run per seating, the strong policy in one place
        and the weak one in the others (the report's skill runs).
    seating : {"seat", "dealer"}
        What a key is: the strong policy's seat, or (runs played with
        ``seating="dealer"``) its place from each deal's dealer
        (:func:`analysis.skill.strong_seats`).

    Returns
    -------
    DataFrame
        ``seating, run_seed, match, deals, edge``, one row per match of each seating.
        ``edge`` = the strong player's match result minus the mean of the others' (a
        deal's results sum to 0, so it is ``P / (P - 1)`` times the strong player's
        result). Seatings of one seed share the walls of a match: pass
        ``cluster=["run_seed", "match"]`` to :func:`skill_gain`.
    """
    from analysis.skill import strong_seats

    parts = []
    for key, df in frames.items():
        lay = schema.layout(df)
        d = schema.deltas(df, lay).astype(np.float64)
        seat = strong_seats(df, int(key), seating)
        mine = d[np.arange(len(df)), seat]
        x = mine - (d.sum(axis=1) - mine) / (lay.players - 1)
        g = (
            pd.DataFrame(
                {"run_seed": df["run_seed"].to_numpy(), "match": df["match"].to_numpy(), "x": x}
            )
            .groupby(["run_seed", "match"], sort=True)
            .agg(deals=("x", "size"), edge=("x", "sum"))
            .reset_index()
        )
        g.insert(0, "seating", int(key))
        parts.append(g)
    if not parts:
        raise UsageError("no skill runs given")
    return pd.concat(parts, ignore_index=True)


def loss_curve(records, points: int = 40, *, level: float = 0.95) -> pd.DataFrame:
    """The chance of losing more than x over a match on a grid of x, by role (a figure's data).

    The grid runs from 0 to the pooled 99th percentile of the losses in ``points``
    steps; rows are :func:`match_risk`'s ``p_loss`` rows.
    """
    t = _as_match_table(records)
    d = _by_role(t).astype(np.float64)
    top = float(np.quantile(-d.ravel(), 0.99))
    grid = np.linspace(0.0, max(top, 1.0), points)
    r = match_risk(t, [float(f"{x:.6g}") for x in grid], q=(), level=level)
    return r[r["stat"] == "p_loss"].reset_index(drop=True)


def draw_match_loss(curve: pd.DataFrame, *, ax=None, unit: str = "", amounts=()):
    """The chance of losing more than x over a match against x, one line per role.

    Bands are the 95% intervals of :func:`loss_curve`; dotted verticals mark the stated
    ``amounts``. Returns the Axes.
    """
    from analysis import plots

    with plots.style():
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots()
        for g in _role_groups(curve):
            role = g["role"].iloc[0]
            x = g["at"].to_numpy(float)
            style = {"color": "0.2", "ls": "--"} if role == "any" else {}
            (line,) = ax.plot(x, 100 * g["value"].to_numpy(float), lw=1.2, label=role, **style)
            ax.fill_between(
                x,
                100 * g["lo"].to_numpy(float),
                100 * g["hi"].to_numpy(float),
                color=line.get_color(),
                alpha=0.15 if role != "any" else 0.08,
                lw=0,
            )
        for a in amounts:
            ax.axvline(a, color="0.5", lw=0.7, ls=":")
        ax.set_xlabel(f"loss over a match, more than x ({unit})" if unit else "loss x")
        ax.set_ylabel("chance, %")
        ax.set_ylim(bottom=0)
        ax.legend(title="role at the match's start", fontsize=7, title_fontsize=7)
    return ax
