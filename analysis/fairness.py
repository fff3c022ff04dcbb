"""Fairness tests: do seats or roles differ in win rate or in expected delta?

:func:`fairness_tests` runs a family of five tests on one set of records and adjusts
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
``dealer_equivalence``
    Two one-sided t tests (TOST) that the dealer's edge lies inside ``±margin``, a
    stated practical margin (default 0.1 of the per-deal SD of a seat's result): a
    rejection says "fair within ±ε", which a non-significant edge test cannot.
``role_deltas``
    The same Wald test for the distances from the dealer (dealer, 下家, 对家, 上家).

The two seat tests are *engine sanity checks*: the engine draws the first dealer of
every match at random, so the absolute seats are interchangeable by construction and
their null holds; they are reported as checks expected to pass, never as findings
(``kind = "sanity"``). Every p-value of the family is adjusted together (Holm by
default; the method and the family size are named in every verdict, and ``p_adj`` is
called the adjusted p wherever it is shown).

The *dealer edge* is defined once, in :func:`dealer_edge`: the dealer's mean result
per deal minus the mean result of the non-dealers, in the variant's own points; its
SD-unit version (divided by the pooled per-deal SD of a seat's result) is the
cross-variant number.

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
    adjust_pvalues,
    adjusted_levels,
    chi2_uniform_rao_scott,
    format_p,
    wald_clustered,
)
from analysis.summary import as_summary, register_tables

__all__ = [
    "fairness_tests",
    "seat_edges",
    "dealer_edge",
    "word_verdicts",
    "set_family",
    "MARGIN_SD",
    "SANITY",
    "JOINT",
]

MARGIN_SD = 0.1
"""Default practical margin of the dealer-edge equivalence test, in per-deal SDs of a
seat's result: an edge within ±0.1 SD is called fair (about a tenth of one deal's
typical swing)."""

SANITY = ("seat_win_rates", "seat_deltas")
"""Tests whose null holds by construction in engine records (the first dealer of a
match is drawn at random, so absolute seats are interchangeable)."""

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
    "family_name",
    "reject",
    "kind",
    "joint",
    "margin",
    "margin_sd",
    "subject",
    "effect",
    "effect_se",
    "df",
    "sd",
    "effect_level",
    "effect_lo",
    "effect_hi",
    "raw_lo",
    "raw_hi",
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


def delta_sd(records) -> float:
    """The pooled per-deal SD of a seat's result: the unit of the SD-unit statistics."""
    s = as_summary(records)
    _, cov = s.delta_mean_cov("seat")
    return math.sqrt(float(np.mean(np.diag(cov))))


def dealer_edge(records, *, level: float = 0.95) -> pd.DataFrame:
    """The dealer edge: the dealer's mean result per deal minus the non-dealers' mean.

    This is the one definition every table of mjlab calls the dealer edge (summaries,
    fairness, sweeps' ``dealer_edge`` metric, the report). In the variant's own points;
    ``edge_sd`` is the same number divided by :func:`delta_sd`, the cross-variant
    version (SD units).

    Returns
    -------
    DataFrame
        One row: ``variant, rules_id, n, matches, dealer_mean, edge, se, lo, hi, t,
        p, sd, edge_sd, lo_sd, hi_sd`` (``dealer_mean`` = the dealer's own mean delta
        per deal, which is ``edge · (P - 1) / P``; match-clustered SE and a t interval,
        see :func:`seat_edges`; the SD's own sampling error is ignored).
    """
    s = as_summary(records)
    e = seat_edges(s, by="distance", level=level).iloc[0]
    sd = delta_sd(s)
    row = {
        "n": s.n_deals,
        "matches": int(e["matches"]),
        "dealer_mean": float(s.role_sum[0]) / s.n_deals,
        **{k: float(e[k]) for k in ("edge", "se", "lo", "hi", "t", "p")},
        "sd": sd,
    }
    for k in ("edge", "lo", "hi"):
        row[f"{k}_sd"] = row[k] / sd if sd > 0 else math.nan
    return with_identity(s.variant, s.rules_id, [row], list(row))


def _tost(est: float, se: float, margin: float, df: int) -> float:
    """p-value of two one-sided t tests that the mean lies inside ``(-margin, margin)``."""
    if not (se > 0 and math.isfinite(se) and df > 0 and margin > 0):
        return math.nan
    p_lo = float(_st.t.sf((est + margin) / se, df))
    p_hi = float(_st.t.cdf((est - margin) / se, df))
    return max(p_lo, p_hi)


def _symmetric_by_construction(variant: str) -> bool:
    from engine import variants

    return variant in variants.names()


def _finite(x) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


def _verb(x: float) -> tuple[str, float]:
    return ("gains", x) if x >= 0 else ("loses", -x)


def fairness_tests(
    records,
    *,
    alpha: float = 0.05,
    adjust: str = "holm",
    level: float = 0.95,
    margin_sd: float = MARGIN_SD,
    seats_symmetric: bool | None = None,
) -> pd.DataFrame:
    """Run the seat/role fairness family and word a verdict per test.

    Parameters
    ----------
    records : DataFrame or Summary
    alpha : float
        Family-wise error rate for ``reject``.
    adjust : {"holm", "bonferroni", "none"}
        Multiplicity adjustment within each family.
    level : float
        Confidence level of the unadjusted intervals (``raw_lo``, ``raw_hi``).
    margin_sd : float
        Practical margin of the dealer-edge equivalence test, in per-deal SDs of a
        seat's result (stated in its verdict in points and in SDs).
    seats_symmetric : bool, optional
        Whether absolute seats are interchangeable by construction, which makes the two
        seat tests sanity checks (``kind = "sanity"``). Default: true for the records of
        a registered engine variant (random first dealer), false otherwise.

    Returns
    -------
    DataFrame
        ``variant, rules_id, test, method, statistic, df1, df2, p, p_adj, adjust,
        family, family_name, reject, kind, joint, margin, margin_sd, subject, effect,
        effect_se, df, effect_level, effect_lo, effect_hi, raw_lo, raw_hi, unit,
        verdict``.

        The findings (the dealer-edge t test, its equivalence test and the joint test of
        the roles; the seat tests too when seats are not symmetric by construction) are
        one family, adjusted together (``family_name = "fairness"``); the sanity checks
        are a family of their own (``"sanity"``), reported apart.

        The effect is the largest deviation: the share of wins of the seat furthest from
        ``1/P``; the edge (points per deal over the others) of the seat or role furthest
        from 0; the dealer's edge. ``effect_lo, effect_hi`` is the interval that agrees
        with the verdict: for the dealer edge the t interval at ``effect_level``, the
        level its step of the adjustment tests at (it excludes 0 exactly when
        ``reject``); for the equivalence test the interval at ``1 - 2 (1 -
        effect_level)`` (inside ``±margin`` exactly when ``reject``). A joint test
        (``joint``: the seat and role tests) has no such interval (NaN): its verdict
        quotes none. ``raw_lo, raw_hi`` is the unadjusted interval at ``level``.

        The dealer gets one verdict, on the ``dealer_edge`` row: the edge with its
        adjusted interval, and whether it is shown fair within the margin (the
        ``dealer_equivalence`` row's verdict is its own part of it). ``kind`` is
        ``sanity`` (null true by construction), ``finding`` or ``equivalence`` (TOST).
    """
    s = as_summary(records)
    if seats_symmetric is None:
        seats_symmetric = _symmetric_by_construction(s.variant)
    dealer_row, equiv_row = _dealer_rows(s, level, margin_sd)
    rows = [
        _seat_win_row(s, level),
        _delta_row(s, "seat_deltas", "seat", level),
        dealer_row,
        equiv_row,
        _delta_row(s, "role_deltas", "distance", level),
    ]
    for r in rows:
        r.setdefault("margin", math.nan)
        r.setdefault("margin_sd", math.nan)
        r.setdefault("effect_se", math.nan)
        r.setdefault("df", math.nan)
        r["kind"] = _kind(r["test"], seats_symmetric)
        r["joint"] = r["test"] in JOINT
        r["family_name"] = "sanity" if r["kind"] == "sanity" else "fairness"
        r["raw_lo"], r["raw_hi"] = r["effect_lo"], r["effect_hi"]
    table = pd.DataFrame.from_records(rows)
    parts = [
        set_family(g, adjust=adjust, alpha=alpha)
        for _, g in table.groupby("family_name", sort=False)
    ]
    table = word_verdicts(pd.concat(parts).sort_index(), s.players)
    rows = table.to_dict("records")
    return with_identity(s.variant, s.rules_id, rows, _TEST_COLS)


JOINT = ("seat_win_rates", "seat_deltas", "role_deltas")
"""Tests of every seat or role at once: no one interval agrees with their verdict."""


def set_family(
    table: pd.DataFrame,
    *,
    adjust: str = "holm",
    alpha: float = 0.05,
    p_adj=None,
    levels=None,
) -> pd.DataFrame:
    """Adjust the tests of ``table`` as one family and redo their intervals to agree.

    ``p_adj`` and ``levels`` (the adjusted p-values and the levels of
    :func:`analysis.stats.adjusted_levels`) default to those of ``table``'s own ``p``
    under ``adjust``; a wider family (a whole report) passes its own. Sets ``p_adj``,
    ``adjust``, ``family``, ``reject``, ``effect_level`` and ``effect_lo`` /
    ``effect_hi`` (see :func:`fairness_tests`). Verdicts are not reworded
    (:func:`word_verdicts`).
    """
    out = table.copy()
    p = out["p"].to_numpy(dtype=float)
    if p_adj is None:
        p_adj = adjust_pvalues(p, adjust)
        levels = adjusted_levels(p, adjust, alpha)
        out["family"] = int(np.isfinite(p).sum())
    out["p_adj"] = np.asarray(p_adj, dtype=float)
    out["adjust"] = adjust
    out["reject"] = np.nan_to_num(out["p_adj"].to_numpy(dtype=float), nan=1.0) < alpha
    out["effect_level"] = np.asarray(levels, dtype=float)
    lo, hi = [], []
    for r in out.to_dict("records"):
        a, b = _interval(r, r["effect_level"])
        lo.append(a)
        hi.append(b)
    out["effect_lo"], out["effect_hi"] = lo, hi
    return out


def _interval(r: dict, level: float) -> tuple[float, float]:
    """The interval of a test that agrees with its verdict at ``level`` (NaN for a
    joint test): a t interval of the dealer edge, or for the equivalence test the one
    at ``1 - 2 (1 - level)`` (TOST at ``1 - level`` rejects exactly when it lies inside
    the margin).
    """
    if r["test"] not in ("dealer_edge", "dealer_equivalence") or not math.isfinite(level):
        return math.nan, math.nan
    if r["test"] == "dealer_equivalence":
        level = 1 - 2 * (1 - level)
    se, df = r["effect_se"], r["df"]
    if not (math.isfinite(se) and df > 0):
        return math.nan, math.nan
    q = float(_st.t.ppf(0.5 + level / 2, df))
    return r["effect"] - q * se, r["effect"] + q * se


def _kind(test: str, seats_symmetric: bool) -> str:
    """``sanity`` (null true by construction), ``equivalence`` (TOST) or ``finding``."""
    if test in SANITY and seats_symmetric:
        return "sanity"
    if test == "dealer_equivalence":
        return "equivalence"
    return "finding"


def _seat_win_row(s, level: float) -> dict:
    """Test 1: the winners' seats against equal shares (Rao-Scott corrected chi-square);
    the effect is the share of the seat furthest from ``1/P``.
    """
    p = s.players
    wins = np.asarray(s.wins_by_seat, dtype=float)
    g, shares, vshare = s.cluster_cov("wins")
    if s.n_wins > 0 and g > 1:
        t = chi2_uniform_rao_scott(wins, vshare)
        i = int(np.argmax(np.abs(shares - 1 / p)))
        half = float(_st.t.ppf(0.5 + level / 2, g - 1)) * math.sqrt(max(vshare[i, i], 0.0))
        lo, hi = max(0.0, shares[i] - half), min(1.0, shares[i] + half)
    else:
        t = {"statistic": math.nan, "df": p - 1, "p": math.nan}
        i, shares, lo, hi = 0, np.full(p, math.nan), math.nan, math.nan
    return {
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


def _delta_row(s, test: str, by: str, level: float) -> dict:
    """Tests 2 and 5: every seat's (``by="seat"``) or role's (``by="distance"``) mean
    delta is 0, a cluster-robust T² on P-1 coordinates (the deltas sum to 0); the effect
    is the edge of the seat or role furthest from 0.
    """
    g, mean, cov = s.cluster_cov(by)
    h = wald_clustered(mean[:-1], cov[:-1, :-1], g)
    e = seat_edges(s, by=by, level=level)
    j = int(np.argmax(np.abs(e["edge"].to_numpy())))
    what = "seat" if by == "seat" else "role"
    return {
        "test": test,
        "method": f"cluster-robust T² that every {what}'s mean delta is 0, jointly (sum is 0)",
        "statistic": h["statistic"],
        "df1": h["df1"],
        "df2": h["df2"],
        "p": h["p"],
        "subject": f"seat {j}" if by == "seat" else ROLE_NAMES[s.players][j],
        "effect": float(e["edge"].iloc[j]),
        "effect_lo": float(e["lo"].iloc[j]),
        "effect_hi": float(e["hi"].iloc[j]),
        "unit": "points per deal over the others",
    }


def _dealer_rows(s, level: float, margin_sd: float) -> tuple[dict, dict]:
    """Tests 3 and 4: the dealer's edge (t test) and its equivalence within ``±margin_sd``
    SDs of a seat's result per deal (TOST).
    """
    de = dealer_edge(s, level=level).iloc[0]
    df = int(de["matches"]) - 1
    common = {
        "subject": "dealer",
        "effect": float(de["edge"]),
        "effect_se": float(de["se"]),
        "df": df,
        "effect_lo": float(de["lo"]),
        "effect_hi": float(de["hi"]),
        "unit": "points per deal over the others",
        "sd": float(de["sd"]),
    }
    dealer_row = {
        "test": "dealer_edge",
        "method": "t test of the dealer's edge over an average non-dealer",
        "statistic": float(de["t"]),
        "df1": math.nan,
        "df2": math.nan,
        "p": float(de["p"]),
        **common,
    }
    margin = margin_sd * float(de["sd"])
    equiv_row = {
        "test": "dealer_equivalence",
        "method": (
            f"two one-sided t tests (TOST) that the dealer's edge lies within "
            f"±{margin_sd:g} SD of a seat's result per deal"
        ),
        "statistic": float(de["edge"]) / float(de["se"]) if de["se"] > 0 else math.nan,
        "df1": math.nan,
        "df2": math.nan,
        "p": _tost(float(de["edge"]), float(de["se"]), margin, df),
        **common,
        "margin": margin,
        "margin_sd": margin_sd,
    }
    return dealer_row, equiv_row


def word_verdicts(table: pd.DataFrame, players: int, family_name: str | None = None):
    """(Re)word the ``verdict`` of each test from its ``p_adj``, ``reject`` and interval.

    Used after a wider multiplicity adjustment (a whole report, :func:`set_family`)
    changes ``p_adj`` and the intervals.

    Parameters
    ----------
    table : DataFrame
        Rows of :func:`fairness_tests` (``p_adj``, ``adjust``, ``family``, ``reject``,
        ``effect_lo``, ``effect_hi``).
    players : int
    family_name : str, optional
        What the findings' family is, for the verdict (default: ``"the N tests of this
        variant"``); the sanity checks are always their own family.

    Returns
    -------
    DataFrame
        A copy with ``verdict`` rewritten.
    """
    out = table.copy()
    recs = out.to_dict("records")
    equiv = next((r for r in recs if r["test"] == "dealer_equivalence"), None)
    out["verdict"] = [_verdict(r, players, family_name, equiv) for r in recs]
    return out


def _adj_text(r: dict, family_name: str | None) -> str:
    pstr = format_p(r["p_adj"])
    if r["adjust"] == "none":
        return pstr
    if r.get("family_name") == "sanity":
        fam = f"the {r['family']} sanity checks of this variant"
    else:
        fam = family_name or f"the {r['family']} tests of this variant"
    name = {"holm": "Holm", "bonferroni": "Bonferroni"}.get(r["adjust"], r["adjust"])
    return f"{name}-adjusted {pstr} over {fam}"


def _ci_text(r: dict, unit: str = "") -> str:
    """``x [lo, hi] unit (L% interval)`` of a test's effect, its interval's level named."""
    lo, hi = r["effect_lo"], r["effect_hi"]
    if not (_finite(lo) and _finite(hi)):
        return f"{r['effect']:+.3g}{unit}"
    half = (hi - lo) / 2
    digits = max(0, -int(math.floor(math.log10(half))) + 1) if half > 0 else 3
    lv = r.get("effect_level")
    if r["test"] == "dealer_equivalence" and _finite(lv):
        lv = 1 - 2 * (1 - lv)
    what = f" ({100 * lv:.3g}% interval)" if _finite(lv) else ""
    return f"{r['effect']:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]{unit}{what}"


_SANITY_PASS = "engine sanity check (seats are interchangeable by construction), passed: "
_SANITY_FAIL = (
    "engine sanity check FAILED (seats are interchangeable by construction, so this is "
    "either a false alarm at the stated level or an engine fault): "
)


def _verdict(r: dict, players: int, family_name=None, equiv: dict | None = None) -> str:
    pstr = _adj_text(r, family_name)
    sanity = r.get("kind") == "sanity"
    head = (_SANITY_FAIL if r["reject"] else _SANITY_PASS) if sanity else ""
    if r["test"] == "seat_win_rates":
        fair = f"{100 / players:.3g}%"
        share = f"{100 * r['effect']:.3g}%" if _finite(r["effect"]) else "n/a"
        if r["reject"]:
            return (
                f"{head}the seats' shares of wins are not all {fair} (a joint test of the "
                f"{players} seats; the furthest is {r['subject']}, {share}); {pstr}"
            )
        return (
            f"{head}no evidence that seats win at different rates (a joint test of the "
            f"{players} seats; the furthest from {fair} is {r['subject']}, {share}); {pstr}"
        )
    if r["test"] == "seat_deltas":
        if r["reject"]:
            return (
                f"{head}the seats' mean results are not all equal (a joint test of the "
                f"{players} seats; the largest gap is {r['subject']}'s); {pstr}"
            )
        return (
            f"{head}no evidence that any seat's mean result differs (a joint test of the "
            f"{players} seats); {pstr}"
        )
    if r["test"] == "role_deltas":
        who = ROLE_PROSE.get(r["subject"], r["subject"])
        if r["reject"]:
            return (
                f"the roles' mean results are not all equal (a joint test of the {players} "
                f"places from the dealer; the largest gap is {who}'s; each role's interval "
                f"is in the payouts by role); {pstr}"
            )
        return (
            f"no evidence that the roles' mean results differ (a joint test of the "
            f"{players} places from the dealer); {pstr}"
        )
    if r["test"] == "dealer_equivalence":
        mtext = f"±{r['margin']:.3g} points per deal (±{r['margin_sd']:g} SD)"
        if r["reject"]:
            return f"fair within {mtext}: the dealer's edge, {_ci_text(r)}, lies inside it; {pstr}"
        return (
            f"not shown fair within {mtext}: the dealer's edge, {_ci_text(r)}, may reach "
            f"beyond it; {pstr}"
        )
    # the dealer's one verdict: the edge, and whether it is shown fair within the margin
    sd = r.get("sd")
    in_sd = f", {r['effect'] / sd:+.3g} SD units" if _finite(sd) and sd > 0 else ""
    edge = f"{_ci_text(r, ' points per deal')}{in_sd}"
    fair, eq_p = "", ""
    if equiv is not None and _finite(equiv.get("p_adj")):
        m = f"±{equiv['margin']:.3g} points (±{equiv['margin_sd']:g} SD)"
        fair = f"; fair within {m}" if equiv["reject"] else f"; not shown fair within {m}"
        eq_p = f"; fair within the margin: {_adj_text(equiv, family_name)}"
    if r["reject"]:
        verb = "gains" if r["effect"] > 0 else "loses"
        return f"a resolved dealer edge (the dealer {verb}): {edge}{fair} (edge: {pstr}{eq_p})"
    return f"no resolved dealer edge: {edge}{fair} (edge: {pstr}{eq_p})"


register_tables(fairness=fairness_tests)
