"""The report's sentences claim no more than its tables resolve (issue 45's overclaims)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.report.text import _adjust_report, _rank, _word_summary
from analysis.risk import skill_gain
from analysis.skill import _row

NAMES = {"a": "甲 (a)", "b": "乙 (b)", "c": "丙 (c)"}


def summary(rows):
    panel = [{"metric": m, "label": n, "estimate": e, "lo": lo, "hi": hi}
             for m, n, e, lo, hi in rows]  # fmt: skip
    senses = _rank(panel, NAMES)
    family = _adjust_report({}, senses)
    return _word_summary(senses, NAMES, family)


def test_last_is_named_only_where_the_ranking_table_puts_it_alone_last():
    """Issue 45 ("Last is 福州" while the ranking table tied it with 落地扫): the last two
    are tied (their gap not resolved), so no last is named, though the first and the last
    differ by a resolved margin."""

    def dealer_edge(c):
        """The dealer-edge item of a and b as below and c at ``c`` (estimate, lo, hi)."""
        s = summary([
            ("dealer_edge_sd", "a", 0.010, 0.000, 0.020),
            ("dealer_edge_sd", "b", 0.050, 0.040, 0.060),
            ("dealer_edge_sd", "c", *c),
        ])  # fmt: skip
        return s["senses"][0]

    item = dealer_edge((0.056, 0.046, 0.066))
    ranks = [e["rank"] for e in item["ranking"]]
    assert ranks == [1, 2, 2] and item["span_resolved"]
    assert "Last is" not in item["sentence"]
    # with the last alone in last place (its gap resolved) it is named
    item = dealer_edge((0.150, 0.140, 0.160))
    assert [e["rank"] for e in item["ranking"]] == [1, 2, 3]
    assert "Last is 丙" in item["sentence"]


def test_skill_ranking_names_what_it_measures_and_claims_no_match_count_unresolved():
    """Issue 45: the skill ranking was titled "strong policy" but measures value over
    efficiency; "ahead after N matches" was said of edges whose interval includes 0."""
    s = summary([
        ("dealer_edge_sd", "a", 0.01, 0.0, 0.02),
        ("skill_snr", "a", 0.20, -0.10, 0.50),
        ("skill_snr", "b", 0.30, 0.10, 0.50),
    ])  # fmt: skip
    item = next(x for x in s["senses"] if x["metric"] == "skill_snr")
    assert "value over efficiency" in item["sense"] and "value bot" in item["unit"]
    assert "strong policy" not in item["unit"]
    assert item["sentence"].startswith("Rewarding skill most (value over efficiency)")
    by = {e["variant"]: e["phrase"] for e in item["ranking"]}
    assert "ahead after" not in by["a"] and "not resolved from 0" in by["a"]
    assert "ahead after about" in by["b"]


def test_skill_verdicts_say_ahead_after_n_matches_only_for_a_resolved_edge():
    rng = np.random.default_rng(3)
    m = np.full(200, 16.0)
    for shift, resolved in ((0.05, False), (3.0, True)):
        t = rng.normal(shift, 20.0, 200)
        row = _row("duplicate", 4, t, m, 20.0, 0.95, 0.95)
        assert (row["lo"] > 0) == resolved
        assert ("finishes ahead" in row["verdict"]) == resolved, row["verdict"]
        g = skill_gain(pd.Series(t)).iloc[0]
        assert (g["lo"] > 0) == resolved
        assert ("is ahead" in g["verdict"]) == resolved, g["verdict"]
