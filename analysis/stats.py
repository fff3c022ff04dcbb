"""Interval estimates and tests used by every analysis table.

Every function here works on plain numbers or arrays (counts, sums, sums of squares or
raw samples) and returns plain numbers or small frames; none of them knows about
records. Intervals are two-sided at ``level`` (default 0.95). Tests state their
multiplicity adjustment in the frame they return (column ``adjust``).

>>> lo, hi = wilson(30, 100)
>>> round(lo, 4), round(hi, 4)
(0.2189, 0.3958)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as _st

__all__ = [
    "wilson",
    "mean_ci",
    "mean_ci_from_sums",
    "diff_means",
    "diff_means_from_sums",
    "welch_anova",
    "oneway_anova",
    "chi2_uniform",
    "chi2_independence",
    "hotelling_zero_mean",
    "hotelling_power",
    "wald_clustered",
    "chi2_uniform_rao_scott",
    "adjust_pvalues",
    "adjusted_levels",
    "interval_at",
    "adjust_rows",
    "newcombe_diff",
    "newcombe_p",
    "z_value",
    "format_pm",
    "format_p",
    "batch_interval",
    "family_table",
    "ratio_influence",
    "ratio_ci",
]


def ratio_influence(y, x) -> tuple[float, np.ndarray]:
    """The ratio ``sum y / sum x`` over clusters and each cluster's ``y - r x``.

    Summed over clusters the second is 0; ``sqrt(sum u² / (n (n - 1))) / mean(x)`` is the
    ratio's linearised standard error (:func:`ratio_ci`).
    """
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    r = float(y.sum() / x.sum())
    return r, y - r * x


def ratio_ci(y, x, level: float = 0.95) -> dict:
    """A ratio estimator over clusters with a t interval: ``{estimate, se, lo, hi}``.

    ``y`` and ``x`` are per-cluster sums (points and deals of each match); the standard
    error is linearised (:func:`ratio_influence`) with ``n - 1`` degrees of freedom. NaN
    where ``sum x <= 0``, and an interval of NaN with fewer than two clusters.
    """
    x = np.asarray(x, dtype=np.float64)
    nan = {"estimate": math.nan, "se": math.nan, "lo": math.nan, "hi": math.nan}
    n = x.size
    if x.sum() <= 0:
        return nan
    r, u = ratio_influence(y, x)
    if n < 2:
        return {**nan, "estimate": r}
    se = float(math.sqrt((u * u).sum() / (n * (n - 1))) / x.mean())
    q = float(_st.t.ppf(0.5 + level / 2, n - 1))
    return {"estimate": r, "se": se, "lo": r - q * se, "hi": r + q * se}


def z_value(level: float = 0.95) -> float:
    """Two-sided standard normal quantile for a confidence ``level`` (1.96 at 0.95)."""
    return float(_st.norm.ppf(0.5 + level / 2))


def wilson(k, n, level: float = 0.95):
    """Wilson score interval for a binomial proportion ``k / n``.

    Parameters
    ----------
    k, n : int or array_like
        Successes and trials (broadcast together).
    level : float
        Confidence level.

    Returns
    -------
    lo, hi : float or ndarray
        Interval bounds; NaN where ``n == 0``.

    Notes
    -----
    ``(p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)``; it stays inside [0, 1]
    and keeps close to nominal coverage for rare patterns, where the Wald interval fails.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    z = z_value(level)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        center = (p + z * z / (2 * n)) / denom
        half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        lo = np.where(n > 0, np.clip(center - half, 0.0, 1.0), np.nan)
        hi = np.where(n > 0, np.clip(center + half, 0.0, 1.0), np.nan)
        # the exact endpoints, not rounding residue (a rate of 0 has lower bound 0)
        lo = np.where((n > 0) & (k == 0), 0.0, lo)
        hi = np.where((n > 0) & (k == n), 1.0, hi)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def _t_or_z(df, level: float, dist: str):
    if dist == "normal":
        return z_value(level) * np.ones_like(np.asarray(df, dtype=float))
    if dist != "t":
        raise ValueError(f"dist must be 't' or 'normal', not {dist!r}")
    with np.errstate(invalid="ignore"):
        return _st.t.ppf(0.5 + level / 2, np.asarray(df, dtype=float))


def mean_ci_from_sums(n, s, ss, level: float = 0.95, dist: str = "t") -> dict:
    """Mean, SD, standard error and interval from a count, a sum and a sum of squares.

    Parameters
    ----------
    n, s, ss : number or array_like
        Count, sum of values and sum of squared values (exact ints are welcome: the
        variance is formed as ``(ss - s²/n) / (n - 1)`` in float only at the end).
    level : float
        Confidence level.
    dist : {"t", "normal"}
        Quantile of Student's t with ``n - 1`` degrees of freedom, or the normal one.

    Returns
    -------
    dict
        ``n, mean, sd, se, lo, hi`` (floats or arrays; NaN where ``n < 2``).
    """
    n_arr = np.asarray(n, dtype=float)
    if np.ndim(n) == 0 and isinstance(s, int) and isinstance(ss, int) and n > 0:
        # exact integer centring: ss*n - s*s has no cancellation error
        num = ss * n - s * s
        var = num / (n * (n - 1)) if n > 1 else math.nan
        mean = s / n
    else:
        s = np.asarray(s, dtype=float)
        ss = np.asarray(ss, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = s / n_arr
            var = np.where(n_arr > 1, (ss - s * mean) / (n_arr - 1), np.nan)
    var = np.maximum(var, 0.0)
    sd = np.sqrt(var)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = sd / np.sqrt(n_arr)
    q = _t_or_z(n_arr - 1, level, dist)
    out = {"n": n, "mean": mean, "sd": sd, "se": se, "lo": mean - q * se, "hi": mean + q * se}
    if np.ndim(n) == 0:
        out = {k: (v if k == "n" else float(v)) for k, v in out.items()}
    return out


def mean_ci(x, level: float = 0.95, dist: str = "t") -> dict:
    """Mean with standard error and a t (or normal) interval of a sample.

    Parameters
    ----------
    x : array_like
        The sample (NaNs are not allowed).
    level : float
        Confidence level.
    dist : {"t", "normal"}
        Quantile used for the interval.

    Returns
    -------
    dict
        ``n, mean, sd, se, lo, hi``.
    """
    x = np.asarray(x, dtype=float)
    n = x.size
    mean = float(x.mean()) if n else math.nan
    sd = float(x.std(ddof=1)) if n > 1 else math.nan
    se = sd / math.sqrt(n) if n > 1 else math.nan
    q = float(_t_or_z(n - 1, level, dist))
    return {"n": n, "mean": mean, "sd": sd, "se": se, "lo": mean - q * se, "hi": mean + q * se}


def diff_means(x, y, *, paired: bool = False, level: float = 0.95) -> dict:
    """Difference of means ``mean(x) - mean(y)`` with its interval and two-sided p-value.

    Parameters
    ----------
    x, y : array_like
        Samples. With ``paired=True`` they must have equal length and be aligned
        (element i of both comes from the same unit, e.g. the same deal).
    paired : bool
        Paired t on the differences, or Welch's unequal-variance t.
    level : float
        Confidence level.

    Returns
    -------
    dict
        ``diff, se, df, lo, hi, t, p, n_x, n_y``.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if paired:
        if x.shape != y.shape:
            raise ValueError("paired samples must have the same length")
        d = x - y
        n = d.size
        return _t_result(d.mean(), d.std(ddof=1) / math.sqrt(n), n - 1, level, n, n)
    return diff_means_from_sums(
        x.size, x.sum(), (x * x).sum(), y.size, y.sum(), (y * y).sum(), level=level
    )


def diff_means_from_sums(nx, sx, ssx, ny, sy, ssy, level: float = 0.95) -> dict:
    """Welch difference of two independent means from counts, sums and sums of squares.

    Returns
    -------
    dict
        ``diff, se, df, lo, hi, t, p, n_x, n_y`` (Welch-Satterthwaite degrees of freedom).
    """
    a = mean_ci_from_sums(nx, sx, ssx, level)
    b = mean_ci_from_sums(ny, sy, ssy, level)
    va, vb = a["se"] ** 2, b["se"] ** 2
    se = math.sqrt(va + vb)
    den = (va * va / (nx - 1) if nx > 1 else 0.0) + (vb * vb / (ny - 1) if ny > 1 else 0.0)
    df = (va + vb) ** 2 / den if den > 0 else math.inf
    return _t_result(a["mean"] - b["mean"], se, df, level, nx, ny)


def _t_result(diff, se, df, level, nx, ny) -> dict:
    diff, se = float(diff), float(se)
    q = float(_st.t.ppf(0.5 + level / 2, df)) if math.isfinite(df) else z_value(level)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = diff / se if se > 0 else math.nan
    p = float(2 * _st.t.sf(abs(t), df)) if math.isfinite(t) else math.nan
    return {
        "diff": diff,
        "se": se,
        "df": float(df),
        "lo": diff - q * se,
        "hi": diff + q * se,
        "t": t,
        "p": p,
        "n_x": nx,
        "n_y": ny,
    }


def _group_arrays(n, mean, var):
    n = np.asarray(n, dtype=float)
    mean = np.asarray(mean, dtype=float)
    var = np.asarray(var, dtype=float)
    if not (n.shape == mean.shape == var.shape) or n.ndim != 1 or n.size < 2:
        raise ValueError("need one count, mean and variance per group, two groups or more")
    return n, mean, var


def oneway_anova(n, mean, var) -> dict:
    """Classical one-way ANOVA F test from per-group counts, means and variances.

    Equals :func:`scipy.stats.f_oneway` on the raw groups. Assumes independent groups
    with equal variances; per-seat deltas of the same deals are *not* independent
    (they sum to zero), see :func:`hotelling_zero_mean` for that case.

    Returns
    -------
    dict
        ``statistic, df1, df2, p``.
    """
    n, mean, var = _group_arrays(n, mean, var)
    k, total = n.size, n.sum()
    grand = (n * mean).sum() / total
    ssb = (n * (mean - grand) ** 2).sum()
    ssw = ((n - 1) * var).sum()
    df1, df2 = k - 1, total - k
    f = (ssb / df1) / (ssw / df2)
    return {"statistic": float(f), "df1": float(df1), "df2": float(df2), "p": _f_sf(f, df1, df2)}


def welch_anova(n, mean, var) -> dict:
    """Welch's heteroscedastic one-way ANOVA from per-group counts, means and variances.

    Equals :func:`scipy.stats.f_oneway` with ``equal_var=False`` on the raw groups.

    Returns
    -------
    dict
        ``statistic, df1, df2, p``.
    """
    n, mean, var = _group_arrays(n, mean, var)
    k = n.size
    w = n / var
    sw = w.sum()
    mw = (w * mean).sum() / sw
    a = (w * (mean - mw) ** 2).sum() / (k - 1)
    lam = ((1 - w / sw) ** 2 / (n - 1)).sum()
    b = 1 + 2 * (k - 2) / (k * k - 1) * lam
    df1, df2 = k - 1, (k * k - 1) / (3 * lam)
    f = a / b
    return {"statistic": float(f), "df1": float(df1), "df2": float(df2), "p": _f_sf(f, df1, df2)}


def _f_sf(f, df1, df2) -> float:
    return float(_st.f.sf(f, df1, df2)) if np.isfinite(f) else math.nan


def chi2_uniform(counts) -> dict:
    """Chi-square goodness-of-fit test of counts against equal expected counts.

    Equals :func:`scipy.stats.chisquare` with its default (uniform) expectation.

    Returns
    -------
    dict
        ``statistic, df, p``.
    """
    res = _st.chisquare(np.asarray(counts, dtype=float))
    return {"statistic": float(res.statistic), "df": float(len(counts) - 1), "p": float(res.pvalue)}


def chi2_independence(table) -> dict:
    """Pearson chi-square test of independence of a contingency table (no correction).

    Returns
    -------
    dict
        ``statistic, df, p``.
    """
    res = _st.chi2_contingency(np.asarray(table, dtype=float), correction=False)
    return {"statistic": float(res.statistic), "df": float(res.dof), "p": float(res.pvalue)}


def hotelling_zero_mean(n, mean, cov) -> dict:
    """One-sample Hotelling T² test that a mean vector is zero.

    Used for "do the seats (or roles) have equal expected deltas?": a deal's deltas sum
    to zero, so equal seat means means all seat means are 0; drop the last seat (it is
    determined by the others) and test the remaining ``p`` means jointly, with their
    covariance estimated from the same deals. Unlike an ANOVA that treats seats as
    independent groups, this accounts for the seats sharing each deal.

    Parameters
    ----------
    n : int
        Number of deals.
    mean : array_like, shape (p,)
        Sample mean vector.
    cov : array_like, shape (p, p)
        Sample covariance matrix (``ddof=1``).

    Returns
    -------
    dict
        ``statistic`` (the F form ``(n-p) / (p (n-1)) T²``), ``t2``, ``df1 = p``,
        ``df2 = n - p``, ``p``.
    """
    mean = np.atleast_1d(np.asarray(mean, dtype=float))
    cov = np.atleast_2d(np.asarray(cov, dtype=float))
    p = mean.size
    if n <= p:
        return {"statistic": math.nan, "t2": math.nan, "df1": p, "df2": n - p, "p": math.nan}
    try:
        t2 = float(n * mean @ np.linalg.solve(cov, mean))
    except np.linalg.LinAlgError:
        t2 = math.nan
    f = (n - p) / (p * (n - 1)) * t2
    return {"statistic": f, "t2": t2, "df1": float(p), "df2": float(n - p), "p": _f_sf(f, p, n - p)}


def wald_clustered(mean, cov, clusters: int) -> dict:
    """Wald test that a mean vector is zero, with a cluster-robust covariance.

    The analogue of :func:`hotelling_zero_mean` when the units are clusters (matches)
    of dependent deals: ``T² = m' V⁻¹ m`` with ``V`` the sandwich covariance of the mean
    (e.g. :meth:`analysis.summary.Summary.cluster_cov`), referred to
    ``F = (G - p) / (p (G - 1)) T²`` on ``(p, G - p)`` degrees of freedom for ``G``
    clusters (the usual small-sample scaling of cluster-robust Wald tests). With one
    deal per cluster it is Hotelling's T².

    Returns
    -------
    dict
        ``statistic`` (F), ``t2``, ``df1``, ``df2``, ``p``.
    """
    mean = np.atleast_1d(np.asarray(mean, dtype=float))
    cov = np.atleast_2d(np.asarray(cov, dtype=float))
    p, g = mean.size, clusters
    if g <= p or not np.all(np.isfinite(cov)):
        return {"statistic": math.nan, "t2": math.nan, "df1": p, "df2": g - p, "p": math.nan}
    try:
        t2 = float(mean @ np.linalg.solve(cov, mean))
    except np.linalg.LinAlgError:
        return {"statistic": math.nan, "t2": math.nan, "df1": p, "df2": g - p, "p": math.nan}
    f = (g - p) / (p * (g - 1)) * t2
    return {"statistic": f, "t2": t2, "df1": float(p), "df2": float(g - p), "p": _f_sf(f, p, g - p)}


def chi2_uniform_rao_scott(counts, cov_shares) -> dict:
    """Chi-square test of equal shares with the Rao-Scott first-order correction.

    Pearson's X² against equal expected counts assumes independent draws. When draws
    come in clusters (the deals of a match), divide X² by the mean design effect
    ``δ = tr((C V₀ Cᵀ)⁻¹ C V Cᵀ) / (k - 1)``, where ``V`` is the cluster-robust
    covariance of the observed shares, ``V₀ = (diag(s) - s sᵀ) / n`` the multinomial
    one and ``C`` drops the last category; refer ``X² / δ`` to χ² with ``k - 1``
    degrees of freedom (Rao and Scott 1981).

    Parameters
    ----------
    counts : array_like, shape (k,)
        Observed counts.
    cov_shares : array_like, shape (k, k)
        Cluster-robust covariance of ``counts / counts.sum()``.

    Returns
    -------
    dict
        ``statistic`` (corrected), ``x2`` (uncorrected), ``design_effect``, ``df``,
        ``p``.
    """
    c = np.asarray(counts, dtype=float)
    v = np.asarray(cov_shares, dtype=float)
    k, n = c.size, c.sum()
    x2 = float(_st.chisquare(c).statistic)
    s = c / n
    v0 = (np.diag(s) - np.outer(s, s)) / n
    try:
        deff = float(np.trace(np.linalg.solve(v0[:-1, :-1], v[:-1, :-1])) / (k - 1))
    except np.linalg.LinAlgError:
        deff = math.nan
    stat = x2 / deff if deff > 0 else math.nan
    p = float(_st.chi2.sf(stat, k - 1)) if math.isfinite(stat) else math.nan
    return {"statistic": stat, "x2": x2, "design_effect": deff, "df": float(k - 1), "p": p}


def hotelling_power(noncentrality: float, p: int, n: int, alpha: float = 0.05) -> float:
    """Power of :func:`hotelling_zero_mean` at level ``alpha``.

    Parameters
    ----------
    noncentrality : float
        ``n μ' Σ⁻¹ μ`` for the true mean ``μ`` and covariance ``Σ`` of one deal.
    p : int
        Dimension (players - 1).
    n : int
        Deals.
    alpha : float
        Level of the test (pass ``alpha / m`` for a Bonferroni bound on a family of m).

    Returns
    -------
    float
        Probability of rejecting (noncentral F).
    """
    crit = _st.f.isf(alpha, p, n - p)
    if noncentrality <= 0:
        return float(alpha)
    return float(_st.ncf.sf(crit, p, n - p, noncentrality))


def adjust_pvalues(p, method: str = "holm"):
    """Family-wise multiplicity adjustment of p-values.

    Parameters
    ----------
    p : array_like
        Raw p-values (NaN stays NaN and does not count in the family).
    method : {"holm", "bonferroni", "none"}
        Holm's step-down or Bonferroni; both control the family-wise error rate.

    Returns
    -------
    ndarray
        Adjusted p-values, capped at 1.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p, dtype=float)
    out = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0 or method == "none":
        return p.copy()
    q = p[ok]
    if method == "bonferroni":
        out[ok] = np.minimum(q * m, 1.0)
    elif method == "holm":
        order = np.argsort(q, kind="stable")
        stepped = np.maximum.accumulate((m - np.arange(m)) * q[order])
        adj = np.empty(m)
        adj[order] = np.minimum(stepped, 1.0)
        out[ok] = adj
    elif method == "bh":
        order = np.argsort(q, kind="stable")
        stepped = q[order] * m / np.arange(1, m + 1)
        stepped = np.minimum.accumulate(stepped[::-1])[::-1]
        adj = np.empty(m)
        adj[order] = np.minimum(stepped, 1.0)
        out[ok] = adj
    else:
        raise ValueError(f"method must be 'holm', 'bonferroni', 'bh' or 'none', not {method!r}")
    return out


def adjusted_levels(p, method: str = "holm", alpha: float = 0.05) -> np.ndarray:
    """The confidence level of each test's interval that agrees with its adjusted verdict.

    An interval at level ``L`` of a two-sided test's estimate excludes the null exactly
    when the raw p-value is below ``1 - L``. The levels returned make that happen exactly
    when the adjusted p-value (:func:`adjust_pvalues`) is below ``alpha``:

    - ``holm``: a test rejected at step ``k`` (its p the k-th smallest of ``m``) gets
      ``1 - alpha / (m - k + 1)``, the level that step tests at; a test not rejected gets
      ``1 - alpha / m`` (Bonferroni's level, whose interval then covers the null);
    - ``bonferroni``: ``1 - alpha / m`` for every test;
    - ``bh`` (false-discovery rate): with ``R`` tests rejected, ``1 - R alpha / m`` for
      every test (Benjamini and Yekutieli's false-coverage-rate intervals; ``1 - alpha /
      m`` when none is rejected);
    - ``none``: ``1 - alpha``.

    NaN p-values (not tested) get NaN.

    Examples
    --------
    >>> adjusted_levels([0.001, 0.03, 0.5], "holm").round(4).tolist()
    [0.9833, 0.9833, 0.9833]
    >>> adjusted_levels([0.001, 0.02, 0.5], "holm").round(4).tolist()
    [0.9833, 0.975, 0.9833]
    """
    p = np.asarray(p, dtype=float)
    out = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return out
    if method == "none":
        out[ok] = 1 - alpha
        return out
    adj = adjust_pvalues(p, method)[ok]
    reject = adj < alpha
    if method == "bonferroni":
        out[ok] = 1 - alpha / m
    elif method == "holm":
        q = p[ok]
        rank = np.empty(m, dtype=int)
        rank[np.argsort(q, kind="stable")] = np.arange(1, m + 1)
        out[ok] = np.where(reject, 1 - alpha / (m - rank + 1), 1 - alpha / m)
    elif method == "bh":
        r = int(reject.sum())
        out[ok] = 1 - max(r, 1) * alpha / m
    else:
        raise ValueError(f"method must be 'holm', 'bonferroni', 'bh' or 'none', not {method!r}")
    return out


def newcombe_diff(k1, n1, k0, n0, level: float = 0.95) -> tuple[float, float]:
    """Newcombe's hybrid score interval for a difference of proportions ``k1/n1 - k0/n0``.

    Built from the two Wilson intervals (Newcombe 1998, method 10), it keeps close to its
    level for rare events, where the normal interval collapses: two rates of 0 give
    ``0 [-u0, u1]`` (each ``u`` a Wilson upper bound), not ``0 [0, 0]``. It treats the two
    samples as independent; for two runs on the same walls (positively correlated) it is
    conservative.
    """
    p1, p0 = k1 / n1, k0 / n0
    l1, u1 = wilson(k1, n1, level)
    l0, u0 = wilson(k0, n0, level)
    d = p1 - p0
    return d - math.hypot(p1 - l1, u0 - p0), d + math.hypot(u1 - p1, p0 - l0)


def newcombe_p(k1, n1, k0, n0) -> float:
    """The two-sided p-value that agrees with :func:`newcombe_diff`: the smallest ``1 - L``
    at which the level-``L`` interval excludes 0 (1 when the rates are equal).
    """
    if k1 * n0 == k0 * n1:
        return 1.0

    def excludes(a):
        lo, hi = newcombe_diff(k1, n1, k0, n0, 1 - a)
        return lo > 0 or hi < 0

    lo, hi = 1e-300, 1.0
    if excludes(lo):
        return 0.0
    if not excludes(hi - 1e-12):
        return 1.0
    for _ in range(200):  # bisection on log(alpha): excludes() grows with alpha
        mid = math.sqrt(lo * hi) if hi / lo > 1.001 else (lo + hi) / 2
        if excludes(mid):
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-12 * hi:
            break
    return hi


def interval_at(row: dict, level: float, prefix: str = "diff") -> tuple[float, float]:
    """The interval of a tested estimate at another ``level``, by how it was made.

    ``row[prefix]`` is the estimate; ``row["interval"]`` names the method: ``normal``
    (``row[prefix + "_se"]``), ``t`` (``_se`` and ``row["df"]``) or ``newcombe`` (the
    counts ``k``, ``n``, ``k_base``, ``n_base`` of :func:`newcombe_diff`). Used to put
    beside an adjusted p-value the interval adjusted the same way (:func:`adjusted_levels`).
    """
    kind = row.get("interval", "normal")
    est = float(row[prefix])
    if kind == "newcombe":
        return newcombe_diff(
            int(row["k"]), int(row["n_k"]), int(row["k_base"]), int(row["n_base"]), level
        )
    se = float(row[f"{prefix}_se"])
    if kind == "t":
        q = float(_st.t.ppf(0.5 + level / 2, row["df"]))
    else:
        q = z_value(level)
    return est - q * se, est + q * se


def _sig_round(x: float, digits: int = 2) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, -int(math.floor(math.log10(abs(x)))) + digits - 1)


def format_pm(estimate: float, half: float, *, percent: bool = False) -> str:
    """Format ``estimate ± half`` with the half-width to 2 significant figures.

    Examples
    --------
    >>> format_pm(0.31234, 0.01987)
    '0.312 ± 0.020'
    >>> format_pm(0.2612, 0.0041, percent=True)
    '26.12% ± 0.41%'
    """
    scale, unit = (100.0, "%") if percent else (1.0, "")
    e, h = estimate * scale, half * scale
    if not (math.isfinite(e) and math.isfinite(h)) or h <= 0:
        return f"{e:.3g}{unit}"
    decimals = max(0, -int(math.floor(math.log10(abs(_sig_round(h))))) + 1)
    return f"{e:.{decimals}f}{unit} ± {_sig_round(h):.{decimals}f}{unit}"


def format_p(p: float, floor: float = 1e-9) -> str:
    """Format a p-value: ``p < 1e-9`` below ``floor``, else two significant figures.

    Examples
    --------
    >>> format_p(3e-12), format_p(0.0312), format_p(0.5)
    ('p < 1e-09', 'p = 0.031', 'p = 0.5')
    """
    if not math.isfinite(p):
        return "p = n/a"
    if p < floor:
        return f"p < {floor:.0e}"
    return f"p = {_sig_round(p):.2g}" if p < 1e-3 else f"p = {_sig_round(p):g}"


def batch_interval(values: Sequence[float], estimate: float, level: float = 0.95) -> dict:
    """Batch-means interval: the spread of a statistic over B disjoint batches.

    For a statistic with no closed-form standard error (top-1% share, Gini), compute it
    on the whole sample (``estimate``) and on B disjoint batches of matches; the SE of
    the whole-sample statistic is ``sd(batches) / sqrt(B)`` and the interval uses
    Student's t with ``B - 1`` degrees of freedom.

    Returns
    -------
    dict
        ``estimate, se, lo, hi, batches``.
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    b = v.size
    if b < 2:
        return {"estimate": estimate, "se": math.nan, "lo": math.nan, "hi": math.nan, "batches": b}
    se = float(v.std(ddof=1) / math.sqrt(b))
    q = float(_st.t.ppf(0.5 + level / 2, b - 1))
    return {
        "estimate": estimate,
        "se": se,
        "lo": estimate - q * se,
        "hi": estimate + q * se,
        "batches": b,
    }


def family_table(
    rows: Sequence[dict], *, alpha: float = 0.05, adjust: str = "holm"
) -> pd.DataFrame:
    """A family of tests as a frame, with the multiplicity adjustment stated.

    Parameters
    ----------
    rows : sequence of dict
        One dict per test with at least ``test`` and ``p``.
    alpha : float
        Family-wise error rate.
    adjust : {"holm", "bonferroni", "none"}
        See :func:`adjust_pvalues`.

    Returns
    -------
    DataFrame
        The rows plus ``p_adj``, ``adjust``, ``family`` (tests in the family) and
        ``reject`` (``p_adj < alpha``).

    Examples
    --------
    >>> t = family_table([{"test": "a", "p": 0.01}, {"test": "b", "p": 0.04}])
    >>> t[["p_adj", "family", "reject"]].values.tolist()
    [[0.02, 2, True], [0.04, 2, True]]
    """
    out = pd.DataFrame.from_records(list(rows))
    padj = adjust_pvalues(out["p"].to_numpy(dtype=float), adjust)
    out["p_adj"] = padj
    out["adjust"] = adjust
    out["family"] = int(np.isfinite(out["p"].to_numpy(dtype=float)).sum())
    out["reject"] = np.nan_to_num(padj, nan=1.0) < alpha
    return out


def adjust_rows(rows, method: str = "holm", alpha: float = 0.05, prefix: str = "diff"):
    """Adjust a family of tested rows together, and their intervals with them.

    ``rows`` is a list of dicts (or a DataFrame) with a raw ``p`` and an interval that
    :func:`interval_at` can redo (``prefix``, ``prefix + "_se"`` or the counts, and
    ``interval``). Sets ``p_adj`` (:func:`adjust_pvalues`), ``adjust``, ``reject``
    (``p_adj < alpha``), ``<prefix>_level`` (:func:`adjusted_levels`) and
    ``<prefix>_lo`` / ``<prefix>_hi`` at that level, so that the interval excludes 0
    exactly when ``reject``; the interval at ``1 - alpha`` stays in ``raw_lo`` /
    ``raw_hi`` (set once: a second adjustment keeps the first raw interval). Rows
    without a p-value keep their interval. Returns the rows (a DataFrame for a
    DataFrame).
    """
    frame = isinstance(rows, pd.DataFrame)
    recs = rows.to_dict("records") if frame else rows
    ps = np.array([math.nan if r.get("p") is None else float(r["p"]) for r in recs], dtype=float)
    adj = adjust_pvalues(ps, method)
    levels = adjusted_levels(ps, method, alpha)
    lo, hi = f"{prefix}_lo", f"{prefix}_hi"
    for r, a, lv in zip(recs, adj, levels, strict=True):
        if r.get("raw_lo") is None or _isnan(r["raw_lo"]):
            r["raw_lo"], r["raw_hi"] = r.get(lo), r.get(hi)
        r["adjust"] = method
        if not math.isfinite(a):
            r["p_adj"], r["reject"], r[f"{prefix}_level"] = math.nan, False, math.nan
            continue
        r["p_adj"], r["reject"], r[f"{prefix}_level"] = float(a), bool(a < alpha), float(lv)
        r[lo], r[hi] = (float(x) for x in interval_at(r, float(lv), prefix))
    if frame:
        return pd.DataFrame.from_records(recs, index=rows.index)
    return recs


def _isnan(x) -> bool:
    return isinstance(x, float) and math.isnan(x)
