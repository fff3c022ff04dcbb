"""Match risk by role, the skill gain per match and the summarize lines that show them."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import analysis
from analysis import risk
from analysis.testing import synthetic_records
from engine.errors import UsageError
from mjlab.cli import main


def _table(g, means, sd, seed, zero_sum=False):
    """A match table of ``g`` matches with normal results by role (start dealer random)."""
    rng = np.random.default_rng(seed)
    p = len(means)
    by_role = rng.normal(means, sd, size=(g, p))
    if zero_sum:
        by_role -= by_role.mean(axis=1, keepdims=True)
    start = rng.integers(0, p, g)
    tot = np.empty_like(by_role)
    for r in range(p):
        tot[np.arange(g), (start + r) % p] = by_role[:, r]
    t = pd.DataFrame({f"total_{s}": tot[:, s] for s in range(p)})
    t.insert(0, "start_dealer", start)
    t.insert(0, "deals", 16)
    t.insert(0, "match", np.arange(g))
    t.insert(0, "run_seed", 1)
    t.insert(0, "rules_id", "r")
    t.insert(0, "variant", "synthetic")
    return t


def test_match_table_sums_and_first_dealer():
    df = synthetic_records(30, seed=2, first_dealer="rotate")
    t = risk.match_table(df)
    assert len(t) == 30 and (t["deals"] == 16).all()
    direct = df.groupby("match")[[f"delta_{s}" for s in range(4)]].sum().to_numpy()
    np.testing.assert_array_equal(t.filter(like="total_").to_numpy(), direct)
    first = df[df["deal"] == 0].set_index("match")["dealer"]
    np.testing.assert_array_equal(t["start_dealer"].to_numpy(), first.loc[t["match"]].to_numpy())
    assert (t.filter(like="total_").sum(axis=1) == 0).all()


def test_match_risk_recovers_a_planted_role_distribution():
    g, sd = 6000, 20.0
    means = [6.0, -2.0, -2.0, -2.0]
    r = risk.match_risk(_table(g, means, sd, seed=5), [10, 30], q=(0.1, 0.5, 0.9))
    dealer = r[r["distance"] == 0].set_index(["stat", "at"], drop=False)
    m = dealer[dealer["stat"] == "mean"].iloc[0]
    assert abs(m["value"] - 6.0) < 4 * sd / math.sqrt(g)
    assert m["lo"] < m["value"] < m["hi"]
    for q in (0.1, 0.5, 0.9):
        row = dealer.loc[("quantile", q)]
        truth = 6.0 + sd * stats.norm.ppf(q)
        # SE of a sample quantile: sqrt(q(1-q)/n) / density at the quantile
        se = math.sqrt(q * (1 - q) / g) / stats.norm.pdf(stats.norm.ppf(q), scale=sd)
        assert abs(row["value"] - truth) < 4 * se
        assert row["lo"] <= row["value"] <= row["hi"]
    for x in (10, 30):
        row = dealer.loc[("p_loss", x)]
        truth = stats.norm.cdf(-x, loc=6.0, scale=sd)
        assert abs(row["value"] - truth) < 4 * math.sqrt(truth * (1 - truth) / g)
        assert row["k"] == round(row["value"] * g)
    # the dealer loses less often than a non-dealer, resolved at this N
    xiajia = r[(r["distance"] == 1) & (r["stat"] == "p_loss") & (r["at"] == 10)].iloc[0]
    assert dealer.loc[("p_loss", 10), "hi"] < xiajia["lo"]
    assert set(r["role"]) == {"dealer", "xiajia", "duijia", "shangjia", "any"}
    assert not ((r["role"] == "any") & (r["stat"] == "mean")).any()


@pytest.mark.parametrize("role", [0, -1])
def test_match_loss_intervals_cover_by_repetition(role):
    """Wilson for one role, the clustered effective-n Wilson for a seat at random."""
    means, sd, x, g, reps = [4.0, 0.0, -1.0, -3.0], 10.0, 12.0, 150, 300
    big = _table(400_000, means, sd, seed=99, zero_sum=True)
    d = risk._by_role(big)
    truth = float((d[:, role] < -x).mean() if role >= 0 else (d < -x).mean())
    hits = 0
    for k in range(reps):
        r = risk.match_risk(_table(g, means, sd, seed=k, zero_sum=True), [x], q=())
        row = r[(r["distance"] == role) & (r["stat"] == "p_loss")].iloc[0]
        hits += row["lo"] <= truth <= row["hi"]
    # 300 repeats: the coverage's SE is about 1.3%, so 95% lies within +-4%
    assert 0.91 <= hits / reps <= 0.99


def test_pooled_quantile_bootstrap_covers():
    means, sd, g, reps = [3.0, -1.0, -1.0, -1.0], 10.0, 120, 150
    big = _table(300_000, means, sd, seed=7, zero_sum=True)
    truth = float(np.quantile(risk._by_role(big).ravel(), 0.25))
    hits = 0
    for k in range(reps):
        r = risk.match_risk(_table(g, means, sd, seed=1000 + k, zero_sum=True), [], q=(0.25,))
        row = r[(r["role"] == "any") & (r["stat"] == "quantile")].iloc[0]
        hits += row["lo"] <= truth <= row["hi"]
    assert 0.89 <= hits / reps <= 1.0  # 150 repeats: SE of the coverage ~1.8%


def test_match_risk_refuses_a_summary_and_bad_quantiles():
    df = synthetic_records(4, seed=1)
    with pytest.raises(UsageError, match="records"):
        risk.match_risk(analysis.Summary.from_records(df), [1])
    with pytest.raises(UsageError, match="quantiles"):
        risk.match_risk(df, [1], q=(0.5, 1.0))
    with pytest.raises(UsageError, match="two matches"):
        risk.match_risk(synthetic_records(1, seed=1), [1])


def test_risk_amounts_are_round_numbers_near_match_sds():
    t = _table(2000, [0, 0, 0, 0], 37.0, seed=3)
    a = risk.risk_amounts(t)
    # SD ~37: 1, 2, 4 SD = 37, 74, 148, each well inside one 1-2-5 step (35, 71, 141 cut)
    assert a == [50.0, 100.0, 200.0]
    assert risk._round125(37) == 50.0 and risk._round125(0.3) == 0.25
    assert risk.stated_amounts("lishui", t) == [25.0, 50.0, 100.0]


# ----------------------------------------------------------------------------- skill gain
def test_skill_gain_matches_the_normal_formula_and_random_walks():
    rng = np.random.default_rng(11)
    mu, sd = 1.0, 6.0
    x = rng.normal(mu, sd, 5000)
    r = risk.skill_gain(x).iloc[0]
    assert abs(r["mean"] - mu) < 4 * sd / math.sqrt(x.size)
    assert r["lo"] < r["mean"] < r["hi"]
    n = r["matches"]
    z = stats.norm.ppf(0.95)
    assert n == math.ceil((z * r["sd"] / r["mean"]) ** 2)
    assert r["matches_lo"] <= n <= r["matches_hi"]
    # the definition: after n matches the walk is ahead >= 95% of the time, at n/2 not
    walks = 20_000
    tot_n = rng.normal(n * r["mean"], math.sqrt(n) * r["sd"], walks)
    half = n // 2
    tot_h = rng.normal(half * r["mean"], math.sqrt(half) * r["sd"], walks)
    se = math.sqrt(0.95 * 0.05 / walks)
    assert (tot_n > 0).mean() >= 0.95 - 4 * se
    assert (tot_h > 0).mean() < 0.95 - 4 * se
    # from real (non-normal) samples too: resample matches and add them up
    boot = rng.choice(x, size=(4000, n)).sum(axis=1)
    assert (boot > 0).mean() >= 0.95 - 4 * math.sqrt(0.95 * 0.05 / 4000)


def test_skill_gain_interval_covers_by_repetition():
    hits, reps = 0, 400
    rng = np.random.default_rng(5)
    for _ in range(reps):
        x = rng.exponential(3.0, 60) - 2.0  # skewed, mean 1
        r = risk.skill_gain(x).iloc[0]
        hits += r["lo"] <= 1.0 <= r["hi"]
    assert 0.91 <= hits / reps <= 0.99  # 400 repeats: SE ~1.1%


def test_skill_gain_clusters_and_losing_sides():
    rng = np.random.default_rng(2)
    base = rng.normal(0.5, 4.0, 800)
    noise = rng.normal(0, 1.0, (4, 800))
    frame = pd.DataFrame(
        {
            "edge": (base + noise).ravel(),
            "run_seed": 1,
            "match": np.tile(np.arange(800), 4),
        }
    )
    plain = risk.skill_gain(frame).iloc[0]
    clus = risk.skill_gain(frame, cluster=["run_seed", "match"]).iloc[0]
    assert clus["clusters"] == 800 and plain["clusters"] == 3200
    # four seatings of the same walls are nearly one sample: SE about twice the naive one
    truth = math.sqrt(4.0**2 + 1.0 / 4) / math.sqrt(800)
    assert abs(clus["se"] / truth - 1) < 0.15
    assert clus["se"] > 1.7 * plain["se"]
    assert clus["sd"] == plain["sd"]
    lose = risk.skill_gain(rng.normal(-1, 3, 500)).iloc[0]
    assert lose["matches"] is None and lose["matches_hi"] is None
    assert "not expected to be ahead" in lose["verdict"]
    with pytest.raises(UsageError, match="cluster"):
        risk.skill_gain(frame, cluster="seat")
    with pytest.raises(UsageError, match="two"):
        risk.skill_gain([1.0])


def test_seating_edges_agree_with_skill_edge():
    frames = {
        k: synthetic_records(60, seed=3, strong_seat=k, skill=0.5, dealer_multiplier=1)
        for k in range(4)
    }
    e = risk.seating_match_edges(frames)
    assert len(e) == 4 * 60 and set(e["seating"]) == {0, 1, 2, 3}
    t = risk.match_table(frames[2])
    np.testing.assert_allclose(
        e[e["seating"] == 2]["edge"].to_numpy(), t["total_2"].to_numpy() * 4 / 3, atol=1e-9
    )
    gain = risk.skill_gain(e, cluster=["run_seed", "match"]).iloc[0]
    dup = analysis.skill_edge(frames).set_index("format").loc["duplicate"]
    # every seating's matches: the same signal-to-noise, so the same matches to be ahead
    assert gain["snr"] == pytest.approx(dup["snr"], rel=1e-9)
    if dup["snr"] > 0:
        assert gain["matches"] == math.ceil(dup["matches"] - 1e-9)


# ----------------------------------------------------------------------------- CLI
@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("risk")
    file = root / "t.parquet"
    folder = root / "d/"
    only = root / "s/"
    base = ["simulate", "lishui", "--deals", "640", "--seed", "3", "--quiet"]
    assert main([*base, "--out", str(file)]) == 0
    assert main([*base, "--chunk-matches", "7", "--out", f"{folder}/"]) == 0
    assert main([*base, "--summary-only", "--out", f"{only}/"]) == 0
    return file, folder, only


def test_load_match_table_reads_files_and_folders(runs):
    file, folder, only = runs
    direct = risk.match_table(analysis.load(file))
    a = risk.load_match_table(file)
    b = risk.load_match_table(folder)
    for t in (a, b):
        pd.testing.assert_frame_equal(t.reset_index(drop=True), direct, check_dtype=False)
    assert risk.load_match_table(only) is None


def test_summarize_prints_match_risk(runs, capsys):
    file, _, only = runs
    assert main(["summarize", str(file)]) == 0
    out = capsys.readouterr().out
    assert "match risk (40 matches of 16 deals" in out
    r = risk.match_risk(analysis.load(file), [25, 50, 100])
    row = r[(r["role"] == "dealer") & (r["stat"] == "p_loss") & (r["at"] == 25)].iloc[0]
    assert f"X=25 {100 * row['value']:.1f}% [{100 * row['lo']:.1f}, {100 * row['hi']:.1f}]" in out
    assert main(["summarize", str(file), "--loss", "7,70", "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    amounts = {x["at"] for x in data["match_risk"] if x["stat"] == "p_loss"}
    assert amounts == {7.0, 70.0}
    assert main(["summarize", f"{only}/"]) == 0
    assert "match risk: not available" in capsys.readouterr().out
    assert main(["summarize", str(file), "--loss", "-3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--loss" in err


def test_pooled_quantiles_of_many_matches_use_batch_means(monkeypatch):
    t = _table(3000, [2.0, 0.0, -1.0, -1.0], 10.0, seed=8, zero_sum=True)
    boot = risk.match_risk(t, [], q=(0.5, 0.9))
    monkeypatch.setattr(risk, "BOOTSTRAP_MATCHES", 1000)
    batch = risk.match_risk(t, [], q=(0.5, 0.9))
    a = boot[boot["role"] == "any"].set_index("at")
    b = batch[batch["role"] == "any"].set_index("at")
    assert (a["method"] == "bootstrap").all() and (b["method"] == "batch-means").all()
    np.testing.assert_array_equal(a["value"], b["value"])
    # two estimates of one interval: widths agree within the batch SE's own noise (~16%)
    ratio = (b["hi"] - b["lo"]) / (a["hi"] - a["lo"])
    assert ((ratio > 0.5) & (ratio < 1.6)).all()
