"""Cross-variant comparison in comparable units.

Each variant scores in its own unit (倍, 台, 番, 囤), so the panel expresses payout
effects in units of the variant's own per-deal delta SD (the pooled SD of one seat's
delta per deal) and everything else as shares or counts: draw rate, mean deal length,
the dealer edge in SD units (:func:`analysis.fairness.dealer_edge`'s ``edge_sd``: the
dealer's mean result per deal minus the non-dealers' mean, divided by the pooled SD of a
seat's result per deal), share of big hands, swinginess (top-1% share of points
changing hands) and the skill signal-to-noise ratio when given.

The spread between the best and the worst absolute seat is not in the panel: seats are
interchangeable by construction (the first dealer is drawn at random), so its true value
is 0 and the range of noisy means is pure upward bias; the seat-symmetry tests of
:func:`analysis.fairness_tests` check it instead, as engine sanity checks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from analysis.fairness import dealer_edge
from analysis.frequencies import big_hand_frequency
from analysis.payouts import swinginess
from analysis.stats import mean_ci_from_sums, wilson
from analysis.summary import as_summary

__all__ = ["compare_variants", "METRICS"]

METRICS = {
    "draw_rate": "share of deals drawn",
    "turns": "draws from the wall per deal",
    "dealer_edge_sd": (
        "dealer edge (dealer's mean result per deal minus the non-dealers' mean), "
        "in SD units: per-deal SDs of a seat's result"
    ),
    "big_hand_share": "share of won deals with a big pattern",
    "swinginess": "share of points changing hands in the top 1% of deals",
    "skill_snr": (
        "the stronger bot's edge per match over the weaker ones / SD of a match total "
        "(the pair compared is named where it is shown)"
    ),
}
"""Panel metrics and their units, in panel order."""


def compare_variants(
    records: Mapping[str, object],
    *,
    big: Mapping[str, Sequence[str]] | None = None,
    skill: Mapping[str, object] | None = None,
    level: float = 0.95,
    draws: int = 4000,
) -> pd.DataFrame:
    """The cross-variant panel: one row per (label, metric).

    Parameters
    ----------
    records : mapping of str to DataFrame or Summary
        ``label -> records`` (a label is usually the variant name). Swinginess needs
        frames; for a Summary it is left out.
    big : mapping of str to sequence of str, optional
        ``variant name -> big pattern names`` (the variant says which are big).
    skill : mapping of str to DataFrame or float, optional
        ``label -> skill_edge(...) frame`` (its duplicate row, else its single row,
        gives ``snr`` and its interval) or a plain SNR.
    level : float
        Confidence level.
    draws : int
        Unused (the seat spread, which needed it, is no longer in the panel).

    Returns
    -------
    DataFrame
        ``label, variant, rules_id, metric, estimate, lo, hi, unit``. SD-unit metrics
        divide by the pooled per-deal SD of a seat's delta (its own sampling error is
        ignored, negligible at these N).
    """
    rows = []
    for label, rec in records.items():
        s = as_summary(rec)
        ident = {"label": label, "variant": s.variant, "rules_id": s.rules_id}

        def add(metric, est, lo, hi, ident=ident):
            rows.append(
                {
                    **ident,
                    "metric": metric,
                    "estimate": est,
                    "lo": lo,
                    "hi": hi,
                    "unit": METRICS[metric],
                }
            )

        drawn = s.win_types[-1]
        lo, hi = wilson(drawn, s.n_deals, level)
        add("draw_rate", drawn / s.n_deals, lo, hi)
        t = mean_ci_from_sums(s.n_deals, s.turns[0], s.turns[1], level)
        add("turns", t["mean"], t["lo"], t["hi"])
        de = dealer_edge(s, level=level).iloc[0]
        add("dealer_edge_sd", de["edge_sd"], de["lo_sd"], de["hi_sd"])
        if big and s.variant in big:
            b = big_hand_frequency(s, big[s.variant], level=level)
            b = b[b["per"] == "win"].iloc[0]
            add("big_hand_share", b["rate"], b["lo"], b["hi"])
        if isinstance(rec, pd.DataFrame):
            w = swinginess(rec, level=level).iloc[0]
            add("swinginess", w["share"], w["lo"], w["hi"])
        if skill and label in skill:
            k = skill[label]
            if isinstance(k, pd.DataFrame):
                kk = k[k["format"] == "duplicate"]
                kk = (kk if len(kk) else k).iloc[0]
                add("skill_snr", kk["snr"], kk["snr_lo"], kk["snr_hi"])
            else:
                add("skill_snr", float(k), math.nan, math.nan)
    cols = ["label", "variant", "rules_id", "metric", "estimate", "lo", "hi", "unit"]
    return pd.DataFrame.from_records(rows, columns=cols)
