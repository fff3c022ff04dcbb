"""Calibration and power of the fairness family on synthetic records with known truth."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

import analysis
import analysis.fairness
from analysis.stats import hotelling_power, oneway_anova
from analysis.summary import Summary
from analysis.testing import synthetic_records

R_NULL = 300  # replications of symmetric data
N_MATCHES = 100  # 1,600 deals each


def _upper(r, p):
    """Largest rejection count compatible with rate p over r replications (0.1% tail)."""
    return int(st.binom.ppf(0.999, r, p))


@pytest.fixture(scope="module")
def null_runs():
    out = []
    for i in range(R_NULL):
        df = synthetic_records(N_MATCHES, seed=1000 + i, dealer_multiplier=1)
        out.append(Summary.from_records(df))
    return out


def test_no_false_verdicts_beyond_nominal_rate(null_runs):
    family_rejects = 0
    raw_rejects = np.zeros(4, dtype=int)
    equivalent = 0
    for s in null_runs:
        t = analysis.fairness_tests(s, alpha=0.05)
        # the equivalence test's null (an edge beyond the margin) is false here: its
        # rejection ("fair within ±margin") is the right answer, not a false finding
        nulls = t[t["kind"] != "equivalence"]
        family_rejects += bool(nulls["reject"].any())
        raw_rejects += (nulls["p"] < 0.05).to_numpy()
        equivalent += bool(t.loc[t["kind"] == "equivalence", "reject"].iloc[0])
        assert t["verdict"].str.len().gt(20).all()
    assert equivalent >= R_NULL // 4  # the TOST has power at 1,600 symmetric deals (~50%)
    # Holm keeps the family-wise error rate at 5%; each test alone is at its level
    assert family_rejects <= _upper(R_NULL, 0.05), family_rejects
    for count in raw_rejects:
        assert count <= _upper(R_NULL, 0.05), raw_rejects
    # and the tests are not dead: some raw rejections happen
    assert raw_rejects.sum() >= 10


def test_naive_anova_over_rejects_seat_deltas(null_runs):
    # why seat_deltas uses Hotelling T²: a one-way ANOVA across seats treats the seats of
    # a deal as independent groups although their deltas sum to 0; its F is inflated by
    # P/(P-1), so on symmetric data it rejects ~12% of the time at the 5% level.
    naive = hot = 0
    for s in null_runs:
        mean, cov = s.delta_mean_cov()
        n = [s.n_deals] * 4
        naive += oneway_anova(n, mean, np.diag(cov))["p"] < 0.05
        t = analysis.fairness_tests(s)
        hot += float(t.loc[t["test"] == "seat_deltas", "p"].iloc[0]) < 0.05
    assert naive > _upper(R_NULL, 0.05) >= hot, (naive, hot)


def test_planted_seat_advantage_detected_at_stated_power():
    weights = (1.15, 1.0, 1.0, 1.0)
    n_matches, reps = 1000, 60
    # stated power from a large pilot: the cluster Wald statistic's noncentrality
    # m' V⁻¹ m with V the clustered covariance of the mean at the test's size, referred
    # to noncentral F(3, G - 3) at the Bonferroni level alpha/4 (a lower bound for Holm)
    pilot = Summary.from_records(
        synthetic_records(20000, seed=7, seat_weights=weights, dealer_multiplier=1)
    )
    g_pilot, mean, cov = pilot.cluster_cov("seat")
    cov_test = cov[:-1, :-1] * g_pilot / n_matches
    lam = mean[:-1] @ np.linalg.solve(cov_test, mean[:-1])
    power = hotelling_power(lam, 3, n_matches, 0.05 / 4)
    assert 0.8 < power < 0.97  # the design point of this test
    hits = 0
    for i in range(reps):
        df = synthetic_records(n_matches, seed=5000 + i, seat_weights=weights, dealer_multiplier=1)
        t = analysis.fairness_tests(df).set_index("test")
        if t.loc["seat_deltas", "reject"]:
            hits += 1
            assert t.loc["seat_deltas", "subject"] == "seat 0"
            v = t.loc["seat_deltas", "verdict"]
            assert v.startswith("the seats' mean results are not all equal") and "seat 0" in v
    assert hits >= int(st.binom.ppf(0.001, reps, power)), (hits, power)


def test_dealer_edge_and_verdict_wording():
    df = synthetic_records(2000, seed=3, dealer_weight=1.3)
    t = analysis.fairness_tests(df).set_index("test")
    v = t.loc["dealer_edge", "verdict"]
    assert v.startswith("a resolved dealer edge (the dealer gains): +")
    assert "points per deal (99% interval)" in v and "not shown fair within ±" in v
    assert t.loc["dealer_edge", "adjust"] == "holm" and t.loc["dealer_edge", "family"] == 5
    assert "edge: Holm-adjusted p < 1e-09 over the 5 tests of this variant" in v
    # synthetic records: seats are not symmetric by construction, so no sanity label
    assert (t["kind"] != "sanity").all()
    eq = t.loc["dealer_equivalence"]
    assert eq["kind"] == "equivalence" and not eq["reject"]
    assert eq["verdict"].startswith("not shown fair within ±")
    assert eq["margin"] == pytest.approx(0.1 * analysis.dealer_edge(df).iloc[0]["sd"])
    e = analysis.dealer_edge(df).iloc[0]
    # the edge over an average non-dealer is the dealer's mean x P/(P-1)
    d = analysis.payouts.role_matrix(df)
    assert e["edge"] == pytest.approx(d[:, 0].mean() * 4 / 3)
    assert e["lo"] < e["edge"] < e["hi"]
    roles = t.loc["role_deltas"]
    assert roles["subject"] == "dealer" and roles["reject"]


def test_seat_edges_closed_form(rng):
    df = synthetic_records(200, seed=4)
    e = analysis.seat_edges(df)
    d = df[[f"delta_{k}" for k in range(4)]].to_numpy(float)
    others = (d.sum(axis=1, keepdims=True) - d) / 3
    direct = (d - others).mean(axis=0)
    assert e["edge"].to_numpy() == pytest.approx(direct)
    # match-clustered SE: matches are the independent units
    x = pd.DataFrame(d - others).groupby(df["match"].to_numpy())
    tot, n_g = x.sum().to_numpy(), x.size().to_numpy()[:, None]
    g, big_n = len(tot), len(d)
    resid = tot - n_g * direct
    se = np.sqrt(g / (g - 1) * (resid**2).sum(axis=0) / big_n**2)
    assert e["se"].to_numpy() == pytest.approx(se)
    assert (e["matches"] == 200).all()
    # one deal per match: the usual iid SE
    e1 = analysis.seat_edges(df.assign(match=np.arange(len(df))))
    iid = (d - others).std(axis=0, ddof=1) / np.sqrt(len(d))
    assert e1["se"].to_numpy() == pytest.approx(iid)


def test_clustered_tests_hold_their_level_with_a_strong_dealer_edge():
    # a strong dealer edge with dealer streaks makes deals of a match dependent; seats
    # are symmetric (the first dealer rotates) so no seat test should reject beyond 5%
    reps = 200
    rejects = np.zeros(2, dtype=int)
    for i in range(reps):
        df = synthetic_records(100, seed=8000 + i, dealer_weight=3.0, first_dealer="rotate")
        t = analysis.fairness_tests(df).set_index("test")
        rejects += [t.loc["seat_win_rates", "p"] < 0.05, t.loc["seat_deltas", "p"] < 0.05]
    assert (rejects <= _upper(reps, 0.05)).all(), rejects


def test_two_player_records():
    df = synthetic_records(100, seed=5, players=2, dealer_multiplier=1)
    t = analysis.fairness_tests(df)
    assert len(t) == 5 and t["p"].between(0, 1).all()
    r = analysis.payouts_by_role(df)
    assert r["role"].tolist() == ["dealer", "non_dealer", "opponent"]


def test_a_run_without_a_single_win_is_summarised_without_error():
    # e.g. random bots in 推倒胡 over a few hundred deals: every table still comes out,
    # the seat-share test with no estimate rather than a division by zero
    s = Summary.from_records(synthetic_records(20, seed=3, draw_rate=1.0))
    assert s.n_wins == 0
    tables = s.tables()
    seat = tables["fairness"].set_index("test").loc["seat_win_rates"]
    assert np.isnan(seat["p"]) and len(tables["payouts_seat"]) == 4


def test_seat_tests_are_sanity_checks_for_engine_records():
    df = synthetic_records(200, seed=11, dealer_multiplier=1, first_dealer="rotate")
    t = analysis.fairness_tests(df, seats_symmetric=True).set_index("test")
    for test in ("seat_win_rates", "seat_deltas"):
        assert t.loc[test, "kind"] == "sanity"
        assert t.loc[test, "verdict"].startswith("engine sanity check")
    assert t.loc["dealer_edge", "kind"] == "finding"
    # a wider family (a whole report) rewords every verdict with its adjusted p
    wide = t.reset_index().assign(p_adj=1.0, reject=False, family=40)
    out = analysis.fairness.word_verdicts(wide, 4, "the 40 tests of this report")
    found = out["kind"] != "sanity"
    assert (
        out.loc[found, "verdict"]
        .str.contains("Holm-adjusted p = 1 over the 40 tests of this report")
        .all()
    )
    assert out.loc[~found, "verdict"].str.contains("over the 40 sanity checks").all()


def test_equivalence_verdict_says_fair_within_the_margin():
    df = synthetic_records(3000, seed=12, dealer_multiplier=1, first_dealer="rotate")
    t = analysis.fairness_tests(df, margin_sd=0.2).set_index("test")
    eq = t.loc["dealer_equivalence"]
    assert eq["reject"] and eq["verdict"].startswith("fair within ±")
    assert "(±0.2 SD)" in eq["verdict"]


def test_sanity_checks_leave_the_family():
    """Issue 45: the two seat checks, null by construction, cut the family's power; they
    are adjusted apart and the dealer edge's family is the findings alone."""
    df = synthetic_records(200, seed=11, dealer_weight=1.1, first_dealer="rotate")
    t = analysis.fairness_tests(df, seats_symmetric=True).set_index("test")
    assert t.loc["dealer_edge", "family"] == 3 and t.loc["dealer_edge", "family_name"] == "fairness"
    for test in analysis.fairness.SANITY:
        assert t.loc[test, "family"] == 2 and t.loc[test, "family_name"] == "sanity"
    holm3 = analysis.stats.adjust_pvalues(
        t.loc[["dealer_edge", "dealer_equivalence", "role_deltas"], "p"].to_numpy(), "holm"
    )
    assert t.loc["dealer_edge", "p_adj"] == pytest.approx(holm3[0])


def test_one_dealer_verdict_and_a_joint_role_verdict():
    """Issue 45: the dealer got three lines that could disagree ("the dealer gains, p =
    0.049" from the role test beside "no evidence, p = 0.23"); now the dealer verdict is
    one (edge and margin), and the role test is worded as the joint test it is."""
    for seed in range(30):
        df = synthetic_records(120, seed=300 + seed, dealer_weight=1.15, first_dealer="rotate")
        t = analysis.fairness_tests(df, seats_symmetric=True).set_index("test")
        dealer = t.loc["dealer_edge", "verdict"]
        assert ("fair within" in dealer) and dealer.startswith(
            "a resolved dealer edge" if t.loc["dealer_edge", "reject"] else "no resolved"
        )
        roles = t.loc["role_deltas", "verdict"]
        assert "joint test" in roles
        assert " gains " not in roles and "points per deal" not in roles


def test_intervals_agree_with_the_verdicts():
    """Issue 45: the interval beside an adjusted verdict excludes 0 (lies inside the
    margin, for the equivalence test) exactly when the verdict says so."""
    for seed in range(60):
        w = (1.0, 1.08, 1.3)[seed % 3]
        df = synthetic_records(60 + 10 * (seed % 5), seed=900 + seed, dealer_weight=w)
        for sym in (False, True):
            for r in analysis.fairness_tests(df, seats_symmetric=sym).to_dict("records"):
                lo, hi = r["effect_lo"], r["effect_hi"]
                if r["joint"]:
                    assert np.isnan(lo) and np.isnan(hi)
                elif r["test"] == "dealer_edge":
                    assert (lo > 0 or hi < 0) == r["reject"], r
                else:
                    assert (-r["margin"] < lo and hi < r["margin"]) == r["reject"], r
