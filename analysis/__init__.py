"""mjlab analysis: pandas tables with intervals from per-deal records.

Pure functions on record frames (DESIGN schema, one row per deal) returning tidy
frames; those computable from counts, sums and sums of squares also accept a mergeable
:class:`Summary`. Every rate and mean comes with an interval.

>>> import analysis
>>> from analysis.testing import synthetic_records
>>> df = synthetic_records(100, seed=1)
>>> s = analysis.Summary.from_records(df)
>>> analysis.pattern_frequencies(s).columns.tolist()[:5]
['variant', 'rules_id', 'pattern', 'per', 'n']
"""

from __future__ import annotations

from analysis._util import jsonable
from analysis.compare import compare_variants
from analysis.fairness import dealer_edge, fairness_tests, seat_edges
from analysis.frequencies import (
    big_hand_frequency,
    pattern_frequencies,
    seat_frequencies,
    wilds_frequencies,
    win_type_frequencies,
)
from analysis.io import load, read_metadata, summarize
from analysis.payouts import (
    delta_histogram,
    extra_means,
    gini,
    loss_probability,
    match_gini,
    match_payouts,
    match_totals,
    payout_quantiles,
    payouts_by_role,
    payouts_by_seat,
    payouts_by_win_type,
    swinginess,
    value_histogram,
)
from analysis.rescoring import cached_gap, rescore, rescore_gap
from analysis.risk import match_risk, match_table, seating_match_edges, skill_gain
from analysis.rule_search import design
from analysis.schema import WIN_TYPES, validate_records
from analysis.skill import duplicate_gain, skill_edge, strong_seats
from analysis.summary import Summary
from analysis.sweep import sweep, sweep_metrics, sweep_table

__all__ = [
    "WIN_TYPES",
    "Summary",
    "big_hand_frequency",
    "compare_variants",
    "dealer_edge",
    "delta_histogram",
    "extra_means",
    "fairness_tests",
    "gini",
    "jsonable",
    "load",
    "loss_probability",
    "match_gini",
    "match_payouts",
    "match_risk",
    "match_table",
    "match_totals",
    "pattern_frequencies",
    "payout_quantiles",
    "payouts_by_role",
    "payouts_by_seat",
    "payouts_by_win_type",
    "read_metadata",
    "rescore",
    "design",
    "rescore_gap",
    "cached_gap",
    "seat_edges",
    "seat_frequencies",
    "seating_match_edges",
    "skill_edge",
    "strong_seats",
    "duplicate_gain",
    "skill_gain",
    "summarize",
    "swinginess",
    "sweep",
    "sweep_metrics",
    "sweep_table",
    "validate_records",
    "value_histogram",
    "wilds_frequencies",
    "win_type_frequencies",
]
