import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

import analysis
from analysis import compare, fairness, frequencies, payouts
from analysis.summary import Summary
from analysis.testing import synthetic_records
from engine.errors import UsageError

BIG = ["qingyise", "tianhu"]

# every statistic that is computed from a Summary
AGGREGATE_TABLES = {
    "patterns": frequencies.pattern_frequencies,
    "win_types": frequencies.win_type_frequencies,
    "seats": frequencies.seat_frequencies,
    "roles": lambda r: frequencies.seat_frequencies(r, by="distance"),
    "wilds": frequencies.wilds_frequencies,
    "big": lambda r: frequencies.big_hand_frequency(r, BIG),
    "payouts_seat": payouts.payouts_by_seat,
    "payouts_role": payouts.payouts_by_role,
    "payouts_win_type": payouts.payouts_by_win_type,
    "extras": payouts.extra_means,
    "value_hist": payouts.value_histogram,
    "delta_hist": payouts.delta_histogram,
    "loss": lambda r: _seats_only(payouts.loss_probability(r, [0, 8, 16])),
    "fairness": fairness.fairness_tests,
    "seat_edges": fairness.seat_edges,
    "dealer_edge": fairness.dealer_edge,
    "panel": lambda r: compare.compare_variants({"x": r}, big={"synthetic": BIG}),
}


def _seats_only(t):
    # the seat-average row (seat -1) needs per-deal counts: frames only
    return t[t["seat"] >= 0].reset_index(drop=True)


@pytest.fixture(scope="module")
def records():
    return synthetic_records(300, seed=11, dealer_weight=1.2)


def _chunks(df, cuts):
    edges = [0, *cuts, len(df)]
    return [df.iloc[a:b] for a, b in zip(edges[:-1], edges[1:], strict=True)]


@pytest.mark.parametrize("cuts", [[1], [777, 2000, 2001], list(range(500, 4800, 500))])
def test_merged_equals_whole_for_every_statistic(records, cuts):
    whole = Summary.from_records(records)
    parts = [Summary.from_records(c) for c in _chunks(records, cuts)]
    merged = Summary.merge_all(parts)
    assert merged == whole
    # merging is order free
    assert Summary.merge_all(parts[::-1]) == whole
    for name, fn in AGGREGATE_TABLES.items():
        a, b = fn(merged), fn(whole)
        pd.testing.assert_frame_equal(a, b, obj=name)
        # a frame and its summary give the same table
        if name != "panel":
            pd.testing.assert_frame_equal(fn(records), b, obj=name)


def test_summary_counts_match_direct_computation(records):
    s = Summary.from_records(records)
    df = records
    assert s.n_deals == len(df)
    assert s.n_wins == int((df.winner >= 0).sum())
    assert s.wins_by_seat == [int((df.winner == k).sum()) for k in range(4)]
    d = df[[f"delta_{k}" for k in range(4)]].to_numpy().astype(np.int64)
    assert s.delta_cross == (d.T @ d).tolist()
    assert s.pattern_counts == [int(df[f"pat_{p}"].sum()) for p in s.patterns]
    assert sum(s.pattern_combos.values()) == s.n_wins
    assert s.value_hist[0] == 0 and sum(s.value_hist) == s.n_wins
    mean, cov = s.delta_mean_cov()
    assert np.allclose(cov, np.cov(d, rowvar=False))
    roles = payouts.role_matrix(df)
    assert s.role_cross == (roles.T @ roles).tolist()


def test_json_round_trip_is_exact(records):
    s = Summary.from_records(records)
    text = json.dumps(s.to_dict())
    back = Summary.from_dict(json.loads(text))
    assert back == s
    assert Summary.from_json(s.to_json()) == s
    assert all(isinstance(v, int) for v in back.delta_sum)
    with pytest.raises(UsageError, match="not a mjlab summary"):
        Summary.from_dict({"variant": "x"})


def test_huge_integers_stay_exact():
    df = synthetic_records(4, seed=1)
    big = 3_000_000_000  # squares overflow int64 accumulation over many rows
    df["delta_0"] = df["delta_0"].astype(np.int64) * big
    for k in (1, 2, 3):
        df[f"delta_{k}"] = df[f"delta_{k}"].astype(np.int64) * big
    s = Summary.from_records(df)
    exact = sum(int(v) * int(v) for v in df["delta_0"])
    assert s.delta_cross[0][0] == exact
    halves = Summary.from_records(df.iloc[:30]).merge(Summary.from_records(df.iloc[30:]))
    assert halves == s


def test_blas_and_exact_integer_paths_agree(records):
    # deltas beyond 2^14 take the pure-integer path; scaling by 2^20 scales every sum
    small = Summary.from_records(records)
    k = 1 << 20
    big = records.astype({f"delta_{i}": "int64" for i in range(4)})
    for i in range(4):
        big[f"delta_{i}"] *= k
    large = Summary.from_records(big)
    assert large.delta_sum == [v * k for v in small.delta_sum]
    assert large.delta_cross == [[v * k * k for v in row] for row in small.delta_cross]
    assert large.role_cross == [[v * k * k for v in row] for row in small.role_cross]
    assert large.flow == [small.flow[0] * k, small.flow[1] * k * k]
    assert large.wintype_winner == [[a * k, b * k * k] for a, b in small.wintype_winner]
    assert large.wintype_discarder == [[n, a * k, b * k * k] for n, a, b in small.wintype_discarder]
    assert large.wintype_value == small.wintype_value and large.value == small.value
    assert all(isinstance(v, int) for v in large.delta_sum + small.delta_sum)


def test_float_deltas_are_supported(records):
    df = records.copy()
    for k in range(4):
        df[f"delta_{k}"] = df[f"delta_{k}"].astype(float) / 4
    s = Summary.from_records(df)
    assert s.delta_sum[0] == pytest.approx(df["delta_0"].sum())
    t = analysis.payouts_by_seat(s)
    assert t["mean"].iloc[0] == pytest.approx(df["delta_0"].mean())


def test_merge_refuses_mismatches(records):
    s = Summary.from_records(records)
    other = Summary.from_records(synthetic_records(5, seed=2, variant="other"))
    with pytest.raises(UsageError, match="different variant"):
        s.merge(other)
    a = Summary.from_records(records, meta={"version": "0.1.0"})
    b = Summary.from_records(records, meta={"version": "0.2.0"})
    with pytest.raises(UsageError, match="different version"):
        a.merge(b)
    c = Summary.from_records(records, value_edges=[0, 10])
    with pytest.raises(UsageError, match="value_edges"):
        s.merge(c)
    with pytest.raises(UsageError, match="no summaries"):
        Summary.merge_all([])


def test_mixed_frames_are_refused():
    a = synthetic_records(2, seed=1)
    b = synthetic_records(2, seed=1, rules_id="other")
    both = pd.concat([a.astype({"rules_id": str}), b.astype({"rules_id": str})], ignore_index=True)
    with pytest.raises(UsageError, match="mix several rules_id"):
        Summary.from_records(both)


def test_tables_and_html(records):
    s = Summary.from_records(records)
    t = s.tables()
    assert set(t) >= {"patterns", "fairness", "payouts_seat"}
    assert "dealer" in s._repr_html_()
    text = json.dumps(analysis.jsonable(t), allow_nan=False)
    assert json.loads(text)["fairness"][2]["test"] == "dealer_edge"


def test_extras_have_match_clustered_intervals():
    df = synthetic_records(300, seed=2)
    s = Summary.from_records(df)
    x = df["kongs"].to_numpy(float)
    tot = pd.Series(x - x.mean()).groupby(df["match"].to_numpy()).sum()
    g = len(tot)
    direct = np.sqrt(g / (g - 1) * (tot**2).sum()) / len(x)
    t = analysis.payouts.extra_means(s).set_index("extra")
    assert t.loc["kongs", "clustered"] and t.loc["kongs", "se"] == pytest.approx(direct)
    q = st.t.ppf(0.975, g - 1)
    assert t.loc["kongs", "hi"] - t.loc["kongs", "mean"] == pytest.approx(q * direct)
    # parts that split matches merge to the whole; a stored round trip keeps them
    parts = [Summary.from_records(df.iloc[a : a + 1000]) for a in range(0, len(df), 1000)]
    merged = Summary.merge_all(parts)
    assert merged == s and merged.extra_cluster_se("kongs") == pytest.approx(direct)
    assert Summary.from_json(s.to_json()).extra_cluster_se("kongs") == pytest.approx(direct)
    # a summary stored before the extras' match totals existed: per-deal intervals, said so
    d = s.to_dict()
    d.pop("extra_match"), d.pop("extra_pending")
    old = Summary.from_dict(d)
    assert not analysis.payouts.extra_means(old)["clustered"].any()
    assert not analysis.payouts.extra_means(old.merge(s))["clustered"].any()
