"""Fairness tests: do seats or roles differ in win rate or in expected delta?

:func:`fairness_tests` runs a family of four tests on one set of records and adjusts
their p-values together (Holm by default), with a plain-language verdict per test:

``seat_win_rates``
    Chi-square goodness of fit of the winners' seats against equal shares, with the
    Rao-Scott correction for deals clustered in matches.
``seat_deltas``
    Wald test (Hotelling-type T², cluster-robust) that all seats have the same mean
    delta per deal. A deal's deltas sum to 0, so the seats are not independent
    groups: a one-way (or Welch) ANOVA that treats them as such overstates the
    evidence (its F is inflated by ``P / (P - 1)`` under the null), whereas T² uses
    the covariance of the seats within a deal.
``dealer_edge``
    t test of the dealer's edge over an average non-dealer.
``role_deltas``
    The same Wald test for the distances from the dealer (dealer, 下家, 对家, 上家).

Deals of one match are not independent (a dealer who wins keeps the deal, with a
growing streak), so every standard error and test here treats the *match* as the
independent unit (sandwich covariance over matches, ``G - 1`` degrees of freedom).
With strong dealer effects, per-deal iid tests reject a true null far more often than
their level (e.g. 11% instead of 5% in the synthetic check of the test suite). All
are computed from a :class:`~analysis.summary.Summary`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as _st

from analysis._util import ROLE_NAMES, ROLE_PROSE, with_identity
from analysis.stats import (
    chi2_uniform_rao_scott,
    family_table,
    format_p,
    format_pm,
    wald_clustered,
)
from analysis.summary import as_summary

__all__ = ["fairness_tests", "seat_edges", "dealer_edge"]

_TEST_COLS = [
    "test",
    "method",
    "statistic",
    "df1",
    "df2",
    "p",
    "p_adj",
    "adjust",
    "family",
    "reject",
    "subject",
    "effect",
    "effect_lo",
    "effect_hi",
    "unit",
    "verdict",
]


def seat_edges(records, *, by: str = "seat", level: float = 0.95) -> pd.DataFrame:
    """Each seat's (or distance's) mean gain per deal over the average of the others.

    Because a deal's deltas sum to 0, the edge of seat s over the mean of the others is
    ``m_s · P / (P - 1)`` exactly; its standard error is the match-clustered SE of
    ``m_s`` times ``P / (P - 1)``, with a t interval on ``G - 1`` degrees of freedom
    (``G`` matches).

    Parameters
    ----------
    records : DataFrame or Summary
    by : {"seat", "distance"}
    level : float

    Returns
    -------
    DataFrame
        ``variant, rules_id, seat | distance, n, matches, edge, se, lo, hi, t, p``.
    """
    s = as_summary(records)
    g, mean, cov = s.cluster_cov(by)
    p, n = s.players, s.n_deals
    f = p / (p - 1)
    z = float(_st.t.ppf(0.5 + level / 2, g - 1)) if g > 1 else math.nan
    rows = []
    for i in range(p):
        se = math.sqrt(cov[i, i]) * f if cov[i, i] >= 0 else math.nan
        edge = mean[i] * f
        tt = edge / se if se > 0 else math.nan
        pv = float(2 * _st.t.sf(abs(tt), g - 1)) if math.isfinite(tt) else math.nan
        rows.append(
            {
                by: i,
                "n": n,
                "matches": g,
                "edge": edge,
                "se": se,
                "lo": edge - z * se,
                "hi": edge + z * se,
                "t": tt,
                "p": pv,
            }
        )
    cols = [by, "n", "matches", "edge", "se", "lo", "hi", "t", "p"]
    return with_identity(s.variant, s.rules_id, rows, cols)


def dealer_edge(records, *, level: float = 0.95) -> pd.DataFrame:
    """The dealer's mean gain per deal over an average non-dealer, with its interval.

    Returns
    -------
    DataFrame
        One row: ``variant, rules_id, n, matches, dealer_mean, edge, se, lo, hi, t,
        p`` (``dealer_mean`` = the dealer's own mean delta per deal; match-clustered
        SE, see :func:`seat_edges`).
    """
    s = as_summary(records)
    e = seat_edges(s, by="distance", level=level).iloc[0]
    row = {
        "n": s.n_deals,
        "matches": int(e["matches"]),
        "dealer_mean": float(s.role_sum[0]) / s.n_deals,
        **{k: float(e[k]) for k in ("edge", "se", "lo", "hi", "t", "p")},
    }
    return with_identity(s.variant, s.rules_id, [row], list(row))


def _verb(x: float) -> tuple[str, float]:
    return ("gains", x) if x >= 0 else ("loses", -x)


def fairness_tests(
    records, *, alpha: float = 0.05, adjust: str = "holm", level: float = 0.95
) -> pd.DataFrame:
    """Run the seat/role fairness family and word a verdict per test.

    Parameters
    ----------
    records : DataFrame or Summary
    alpha : float
        Family-wise error rate for ``reject``.
    adjust : {"holm", "bonferroni", "none"}
        Multiplicity adjustment over the four tests.
    level : float
        Confidence level of the effect intervals (quoted as ``± half-width``).

    Returns
    -------
    DataFrame
        ``variant, rules_id, test, method, statistic, df1, df2, p, p_adj, adjust,
        family, reject, subject, effect, effect_lo, effect_hi, unit, verdict``. The
        effect is the largest deviation (verdicts quote it as ``estimate ± half-width``
        of its ``level`` interval, and the adjusted p-value): the share of wins of the
        seat furthest from ``1/P``; the edge (points per deal over the others) of the
        seat or role furthest from 0; the dealer's edge.
    """
    s = as_summary(records)
    p = s.players
    rows = []

    # 1. win shares by seat
    wins = np.asarray(s.wins_by_seat, dtype=float)
    nw = s.n_wins
    g, shares, vshare = s.cluster_cov("wins")
    if nw > 0 and g > 1:
        t = chi2_uniform_rao_scott(wins, vshare)
        i = int(np.argmax(np.abs(shares - 1 / p)))
        half = float(_st.t.ppf(0.5 + level / 2, g - 1)) * math.sqrt(max(vshare[i, i], 0.0))
        lo, hi = max(0.0, shares[i] - half), min(1.0, shares[i] + half)
    else:
        t = {"statistic": math.nan, "df": p - 1, "p": math.nan}
        i, shares, lo, hi = 0, np.full(p, math.nan), math.nan, math.nan
    rows.append(
        {
            "test": "seat_win_rates",
            "method": "chi-square of winners' seats vs equal shares, Rao-Scott corrected",
            "statistic": t["statistic"],
            "df1": t["df"],
            "df2": math.nan,
            "p": t["p"],
            "subject": f"seat {i}",
            "effect": shares[i],
            "effect_lo": lo,
            "effect_hi": hi,
            "unit": "share of won deals",
        }
    )

    # 2./4. mean deltas by seat and by distance: cluster-robust T² on P-1 coordinates
    for test, by in (("seat_deltas", "seat"), ("role_deltas", "distance")):
        g, mean, cov = s.cluster_cov(by)
        h = wald_clustered(mean[:-1], cov[:-1, :-1], g)
        e = seat_edges(s, by=by, level=level)
        j = int(np.argmax(np.abs(e["edge"].to_numpy())))
        subject = f"seat {j}" if by == "seat" else ROLE_NAMES[p][j]
        rows.append(
            {
                "test": test,
                "method": f"cluster-robust T² that every {by}'s mean delta is 0 (sum is 0)",
                "statistic": h["statistic"],
                "df1": h["df1"],
                "df2": h["df2"],
                "p": h["p"],
                "subject": subject,
                "effect": float(e["edge"].iloc[j]),
                "effect_lo": float(e["lo"].iloc[j]),
                "effect_hi": float(e["hi"].iloc[j]),
                "unit": "points per deal over the others",
            }
        )
        if test == "seat_deltas":
            # 3. dealer edge, placed third
            de = dealer_edge(s, level=level).iloc[0]
            dealer_row = {
                "test": "dealer_edge",
                "method": "t test of the dealer's edge over an average non-dealer",
                "statistic": float(de["t"]),
                "df1": math.nan,
                "df2": math.nan,
                "p": float(de["p"]),
                "subject": "dealer",
                "effect": float(de["edge"]),
                "effect_lo": float(de["lo"]),
                "effect_hi": float(de["hi"]),
                "unit": "points per deal over the others",
            }
    rows.insert(2, dealer_row)

    table = family_table(rows, alpha=alpha, adjust=adjust)
    table["verdict"] = [_verdict(r, p) for r in table.to_dict("records")]
    rows = table.to_dict("records")
    return with_identity(s.variant, s.rules_id, rows, _TEST_COLS)


def _verdict(r: dict, players: int) -> str:
    half = (r["effect_hi"] - r["effect_lo"]) / 2
    pstr = format_p(r["p_adj"])
    if r["test"] == "seat_win_rates":
        est = format_pm(r["effect"], half, percent=True)
        fair = f"{100 / players:.3g}%"
        if r["reject"]:
            return f"{r['subject']} wins {est} of won deals, not the {fair} of equal seats; {pstr}"
        return (
            f"no evidence that seats win at different rates "
            f"({r['subject']}: {est} vs {fair}); {pstr}"
        )
    verb, mag = _verb(r["effect"])
    est = format_pm(mag, half)
    if r["test"] == "seat_deltas":
        who = r["subject"]
        if r["reject"]:
            return f"{who} {verb} {est} points per deal over the others; {pstr}"
        return (
            f"no evidence that any seat gains: the largest gap is {who}, "
            f"{verb} {est} points per deal; {pstr}"
        )
    if r["test"] == "dealer_edge":
        if r["reject"]:
            return f"the dealer {verb} {est} points per deal over the non-dealers; {pstr}"
        return f"no evidence of a dealer edge: the dealer {verb} {est} points per deal; {pstr}"
    who = ROLE_PROSE.get(r["subject"], r["subject"])
    if r["reject"]:
        return f"{who} {verb} {est} points per deal over the others; {pstr}"
    return (
        f"no evidence that seat roles differ: the largest gap is {who}, "
        f"{verb} {est} points per deal; {pstr}"
    )
