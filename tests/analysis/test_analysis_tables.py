"""Frequency and payout tables against direct pandas computations."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

import analysis
from analysis.stats import wilson
from analysis.testing import synthetic_records
from engine.errors import UsageError


@pytest.fixture(scope="module")
def df():
    return synthetic_records(400, seed=21)


def test_pattern_frequencies(df):
    t = analysis.pattern_frequencies(df)
    assert list(t.columns) == [
        "variant",
        "rules_id",
        "pattern",
        "per",
        "n",
        "k",
        "rate",
        "lo",
        "hi",
    ]
    won = df[df.winner >= 0]
    row = t[(t.pattern == "duiduihu") & (t.per == "win")].iloc[0]
    assert row.n == len(won) and row.k == int(won.pat_duiduihu.sum())
    assert (row.lo, row.hi) == pytest.approx(wilson(row.k, row.n))
    assert t[t.per == "deal"].n.eq(len(df)).all()


def test_win_type_and_seat_frequencies(df):
    t = analysis.win_type_frequencies(df)
    deal = t[t.per == "deal"].set_index("win_type")
    assert deal.loc["none", "k"] == int((df.winner < 0).sum())
    assert deal.k.sum() == len(df)
    assert t[t.per == "win"].k.sum() == int((df.winner >= 0).sum())
    s = analysis.seat_frequencies(df)
    wins = s[(s.event == "win") & (s.per == "win")]
    assert wins.k.tolist() == [int((df.winner == k).sum()) for k in range(4)]
    r = analysis.seat_frequencies(df, by="distance")
    dist = (df.winner - df.dealer) % 4
    k0 = int(((df.winner >= 0) & (dist == 0)).sum())
    assert r[(r.distance == 0) & (r.per == "deal")].k.iloc[0] == k0
    with pytest.raises(UsageError):
        analysis.seat_frequencies(df, by="colour")


def test_big_hands_and_wilds(df):
    b = analysis.big_hand_frequency(df, ["pat_qingyise", "tianhu"])
    won = df[df.winner >= 0]
    k = int((won.pat_qingyise | won.pat_tianhu).sum())
    assert b[b.per == "win"].k.iloc[0] == k
    with pytest.raises(UsageError, match="no pattern"):
        analysis.big_hand_frequency(df, ["nope"])
    w = analysis.wilds_frequencies(df)
    assert w.k.tolist() == won.wilds_in_hand.value_counts().sort_index().tolist()


def test_payouts_by_seat_role_win_type(df):
    p = analysis.payouts_by_seat(df)
    totals = analysis.match_totals(df)
    for k in range(4):
        x = df[f"delta_{k}"]
        assert p.loc[k, "mean"] == pytest.approx(x.mean())
        assert p.loc[k, "sd"] == pytest.approx(x.std(ddof=1))
        resid = totals[f"total_{k}"] - totals["deals"] * x.mean()
        g = len(totals)
        assert p.loc[k, "se"] == pytest.approx(np.sqrt(g / (g - 1) * (resid**2).sum()) / len(x))
    # with one deal per match the interval is the one-sample t interval
    p1 = analysis.payouts_by_seat(df.assign(match=np.arange(len(df))))
    ci = st.ttest_1samp(df["delta_1"], 0).confidence_interval()
    assert (p1.loc[1, "lo"], p1.loc[1, "hi"]) == pytest.approx((ci.low, ci.high))
    r = analysis.payouts_by_role(df).set_index("role")
    roles = analysis.payouts.role_matrix(df)
    assert r.loc["dealer", "mean"] == pytest.approx(roles[:, 0].mean())
    assert r.loc["non_dealer", "mean"] == pytest.approx(roles[:, 1:].mean())
    assert r.loc["duijia", "sd"] == pytest.approx(roles[:, 2].std(ddof=1))
    w = analysis.payouts_by_win_type(df).set_index(["win_type", "quantity"])
    sd = df[df.win_type == "self_draw"]
    gain = [row[f"delta_{row.winner}"] for _, row in sd.iterrows()]
    assert w.loc[("self_draw", "winner_delta"), "mean"] == pytest.approx(np.mean(gain))
    fed = df[df.win_type == "discard"]
    loss = [row[f"delta_{row.discarder}"] for _, row in fed.iterrows()]
    assert w.loc[("discard", "discarder_delta"), "mean"] == pytest.approx(np.mean(loss))
    e = analysis.extra_means(df)
    assert e.loc[0, "extra"] == "kongs" and e.loc[0, "mean"] == pytest.approx(df.kongs.mean())


def test_loss_probability(df):
    t = analysis.loss_probability(df, [0, 10])
    row = t[(t.x == 10) & (t.seat == 2)].iloc[0]
    assert row.k == int((df.delta_2 < -10).sum())
    avg = t[(t.x == 10) & (t.seat == -1)].iloc[0]
    assert avg.rate == pytest.approx(np.mean([(df[f"delta_{k}"] < -10).mean() for k in range(4)]))
    # a Summary answers at histogram edges, exactly as the frame does
    s = analysis.Summary.from_records(df)
    ts = analysis.loss_probability(s, [0, 10])
    pd.testing.assert_frame_equal(ts, t[t.seat >= 0].reset_index(drop=True))
    with pytest.raises(UsageError, match="not a histogram edge"):
        analysis.loss_probability(s, 11)
    m = analysis.loss_probability(df, 20, per="match")
    totals = analysis.match_totals(df)
    assert m[m.seat == 0].k.iloc[0] == int((totals.total_0 < -20).sum())
    assert m.n.iloc[0] == 400


def test_quantiles_cover_truth():
    # order-statistic intervals cover the true quantile at the nominal rate
    rng = np.random.default_rng(1)
    miss = 0
    reps = 200
    template = synthetic_records(25, seed=0, players=2, match_length=20)
    for _ in range(reps):
        x = rng.normal(size=500)
        frame = template.assign(delta_0=x, delta_1=-x)
        q = analysis.payout_quantiles(frame, q=[0.9])
        r = q[q.seat == 0].iloc[0]
        miss += not (r.lo <= st.norm.ppf(0.9) <= r.hi)
    assert miss <= st.binom.ppf(0.999, reps, 0.05)


def test_match_tables(df):
    mt = analysis.match_totals(df)
    assert len(mt) == 400 and (mt.deals == 16).all()
    assert mt.filter(like="total_").sum(axis=1).eq(0).all()
    mp = analysis.match_payouts(df)
    assert mp.loc[0, "mean"] == pytest.approx(mt.total_0.mean())
    assert mp.loc[0, "k_ahead"] == int((mt.total_0 > 0).sum())
    g = analysis.match_gini(df).iloc[0]
    assert g.gini == pytest.approx(analysis.gini(mt.filter(like="total_").to_numpy()))
    assert g.lo < g.gini < g.hi and g.batches == 20


def test_swinginess(df):
    w = analysis.swinginess(df).iloc[0]
    d = df.filter(like="delta_").to_numpy()
    flow = np.sort(np.clip(d, 0, None).sum(axis=1))[::-1]
    k = math.ceil(0.01 * len(flow))
    assert w.share == pytest.approx(flow[:k].sum() / flow.sum())
    assert w.lo < w.share < w.hi
    assert w.flow_mean == pytest.approx(flow.mean())


def test_histograms(df):
    v = analysis.value_histogram(df)
    assert v["count"].sum() == int((df.winner >= 0).sum())
    one = v[(v.lo == 1) & (v.hi == 2)]["count"].iloc[0]
    assert one == int(((df.winner >= 0) & (df.value == 1)).sum())
    h = analysis.delta_histogram(df)
    assert h.groupby("seat")["count"].sum().eq(len(df)).all()
