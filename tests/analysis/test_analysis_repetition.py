"""Repetition checks (slow suite): intervals cover their truth at about their nominal
rate and verdicts keep their false-finding rate at or below their level.

Each check replays a statistic over R independent seeds on data whose truth is known:
synthetic records with a planted structure (the truth from a pilot run many times
larger, whose own error is negligible beside one replicate's), or engine records where
the null holds by construction (seats are interchangeable: the first dealer of a match
is drawn at random). Bounds are the 0.1% binomial tails of the nominal rate over R.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as st

import analysis
from analysis import report
from analysis.payouts import swinginess
from analysis.summary import Summary
from analysis.testing import synthetic_records

pytestmark = pytest.mark.slow

R = 300
MATCHES = 100  # 1,600 deals per replicate
LEVEL = 0.95


def _covers_at_nominal(hits: int, r: int, level: float = LEVEL) -> bool:
    lo, hi = st.binom.ppf(0.001, r, level), st.binom.ppf(0.999, r, level)
    return lo <= hits <= hi


def _at_most(rejects: int, r: int, alpha: float = 0.05) -> bool:
    return rejects <= st.binom.ppf(0.999, r, alpha)


def _records(i: int, **kw):
    return synthetic_records(MATCHES, seed=20_000 + i, first_dealer="rotate", **kw)


@pytest.fixture(scope="module")
def truth():
    """Dealer edge (points and SD units) and swinginess of the planted design, from a pilot
    of 200x one replicate's matches."""
    big = synthetic_records(MATCHES * 200, seed=7, first_dealer="rotate", dealer_weight=1.5)
    e = analysis.dealer_edge(big).iloc[0]
    return {
        "edge": float(e["edge"]),
        "edge_sd": float(e["edge_sd"]),
        "swing": float(swinginess(big).iloc[0]["share"]),
    }


def test_dealer_edge_intervals_cover_at_nominal_rate(truth):
    hits_pts = hits_sd = 0
    for i in range(R):
        e = analysis.dealer_edge(_records(i, dealer_weight=1.5)).iloc[0]
        hits_pts += e["lo"] <= truth["edge"] <= e["hi"]
        hits_sd += e["lo_sd"] <= truth["edge_sd"] <= e["hi_sd"]
    assert truth["edge"] > 0
    assert _covers_at_nominal(hits_pts, R), hits_pts
    assert _covers_at_nominal(hits_sd, R), hits_sd


def test_swinginess_is_not_ranked_because_its_interval_under_covers(truth):
    # the top-1% share converges slowly (rare big deals): at 1,600 deals its interval
    # covers the truth well below 95%, so the report shows it but does not rank by it
    hits = 0
    for i in range(R):
        w = swinginess(_records(i, dealer_weight=1.5)).iloc[0]
        hits += w["lo"] <= truth["swing"] <= w["hi"]
    assert hits < st.binom.ppf(0.001, R, LEVEL), hits  # if this fails, it may be ranked again
    assert hits > st.binom.ppf(0.999, R, 0.70), hits  # still a useful interval
    assert "swinginess" not in {m for m, *_ in report.SENSES}


def test_equivalence_verdict_false_finding_rate_at_most_its_level(truth):
    # the margin set at the true edge: the null (|edge| >= margin) holds on its boundary,
    # the worst case, so "fair within ±margin" must be said at most 5% of the time
    rejects = 0
    for i in range(R):
        t = analysis.fairness_tests(
            _records(i, dealer_weight=1.5), margin_sd=truth["edge_sd"], adjust="none"
        ).set_index("test")
        rejects += bool(t.loc["dealer_equivalence", "reject"])
    assert _at_most(rejects, R), rejects
    assert rejects >= 1  # not a dead test: near the boundary it rejects about 5%


def test_ranking_ties_identical_variants_at_most_at_its_level():
    # two "variants" with the same truth: a ranking gap resolved is a false finding
    rejects = 0
    for i in range(R):
        a = analysis.compare_variants({"a": Summary.from_records(_records(i))})
        b = analysis.compare_variants({"b": Summary.from_records(_records(R + i))})
        rows = [
            {**r, "label": r["label"]}
            for r in [*a.to_dict("records"), *b.to_dict("records")]
            if r["metric"] == "dealer_edge_sd"
        ]
        senses = report._rank(rows, {})
        g = senses[0]["adjacent"][0]
        rejects += g["p"] < 0.05
    assert _at_most(rejects, R), rejects


def test_sweep_paired_difference_covers_its_truth():
    # nested draw events under common random numbers: the true difference of the draw
    # rate between 0.3 and 0.2 is exactly 0.1
    hits = hits_unpaired = 0
    for i in range(R):
        frames = {r: _records(i, draw_rate=r, rules_id=f"d{r}") for r in (0.2, 0.3)}
        t = analysis.sweep_table(frames, option="draw_rate", baseline=0.2, metrics=["draw_rate"])
        d = t[t.option_value == 0.3].iloc[0]
        hits += d.diff_lo <= 0.1 <= d.diff_hi
        u = analysis.sweep_table(
            frames, option="draw_rate", baseline=0.2, metrics=["draw_rate"], paired=False
        )
        d = u[u.option_value == 0.3].iloc[0]
        hits_unpaired += d.diff_lo <= 0.1 <= d.diff_hi
    assert _covers_at_nominal(hits, R), hits
    # unpaired on paired data: conservative (over-covers), never under nominal
    assert hits_unpaired >= st.binom.ppf(0.001, R, LEVEL), hits_unpaired


def test_engine_seat_sanity_checks_stay_null_over_seeds():
    # engine records: seats are interchangeable by construction, so a seat test that
    # rejects is a false finding; over repeated seeds it must stay at or below 5%
    from engine import simulate

    reps, rejects = 60, np.zeros(2, dtype=int)
    for i in range(reps):
        df = simulate("tuidaohu", 800, seed=300 + i, progress=False).to_pandas()
        t = analysis.fairness_tests(df, adjust="none").set_index("test")
        assert (t.loc[["seat_win_rates", "seat_deltas"], "kind"] == "sanity").all()
        rejects += [bool(t.loc["seat_win_rates", "reject"]), bool(t.loc["seat_deltas", "reject"])]
    assert all(_at_most(int(x), reps) for x in rejects), rejects
    assert math.isfinite(float(t.loc["seat_deltas", "p"]))


def _skill_frames(i: int, matches: int = MATCHES):
    # four seatings on the same walls (one seed), the strong seat in each in turn
    return {
        k: synthetic_records(
            matches,
            seed=40_000 + i,
            first_dealer="rotate",
            strong_seat=k,
            skill=0.4,
            dealer_multiplier=1,
        )  # fmt: skip
        for k in range(4)
    }


def test_skill_edge_and_snr_intervals_cover_at_nominal_rate():
    # the seatings of a match share its walls (correlated); single seating must still
    # cover (each match counted once), duplicate too, and the ranked skill_snr with them
    pilot = analysis.skill_edge(_skill_frames(-1, MATCHES * 100)).set_index("format")
    true_edge = float(pilot.loc["duplicate", "edge"])
    true_snr = float(pilot.loc["duplicate", "snr"])
    hits = {"single": 0, "duplicate": 0, "snr": 0}
    gains = []
    for i in range(R):
        t = analysis.skill_edge(_skill_frames(i)).set_index("format")
        for fmt in ("single", "duplicate"):
            hits[fmt] += t.loc[fmt, "lo"] <= true_edge <= t.loc[fmt, "hi"]
        hits["snr"] += t.loc["duplicate", "snr_lo"] <= true_snr <= t.loc["duplicate", "snr_hi"]
        gains.append(analysis.duplicate_gain(t.reset_index()))
    assert true_edge > 0
    for k, h in hits.items():
        assert _covers_at_nominal(h, R), (k, h)
    assert np.median(gains) > 1  # duplicate needs fewer deals for the same precision


def test_engine_duplicate_seating_by_dealer_cancels_the_luck_of_the_tiles():
    # engine records, value over efficiency in 推倒胡: by place from the dealer, every
    # wall gives each policy each role's cards once, so duplicate seating needs far fewer
    # deals than single seating for the same precision, and more so than seat by seat
    # (where the dealer sequences drift apart); the single-seating interval (each match
    # once) covers the by-dealer pilot's edge
    from engine import simulate

    def frames(deals, seed, seating):
        out = {}
        for place in range(4):
            pols = ["efficiency"] * 4
            pols[place] = "value"
            out[place] = simulate(
                "tuidaohu", deals, seed=seed, policies=pols, seating=seating, progress=False
            ).to_pandas()
        return out

    pilot = analysis.skill_edge(frames(20_000, 99, "dealer"), seating="dealer")
    pilot = pilot.set_index("format")
    truth, pilot_se = float(pilot.loc["duplicate", "edge"]), float(pilot.loc["duplicate", "se"])
    reps, hits, gains = 12, 0, {"seat": [], "dealer": []}
    for i in range(reps):
        for seating in gains:
            t = analysis.skill_edge(frames(1_600, 500 + i, seating), seating=seating)
            gains[seating].append(analysis.duplicate_gain(t))
            if seating == "dealer":
                t = t.set_index("format")
                half = (t.loc["single", "hi"] - t.loc["single", "lo"]) / 2
                hits += abs(t.loc["single", "edge"] - truth) <= math.hypot(half, 1.96 * pilot_se)
    assert hits >= st.binom.ppf(0.001, reps, LEVEL), hits
    by_dealer, by_seat = np.median(gains["dealer"]), np.median(gains["seat"])
    assert by_dealer > 4 and by_dealer > 2 * by_seat, gains
