"""The rule-sensitivity table, its ranking and the recommendations in words."""

import math

import numpy as np
import pandas as pd
import pytest
from synthetic import synthetic_variant

from analysis import sensitivity as sens
from analysis.stats import adjust_pvalues
from analysis.testing import synthetic_records
from engine import variants
from engine.errors import UsageError
from engine.runs.run import simulate
from engine.variants._base import RuleOption

MATCHES = 400


def fake_variant():
    return synthetic_variant(RuleOption("bonus", 0, (0, 3), "value bonus"))


@pytest.fixture(scope="module")
def table():
    base = synthetic_records(MATCHES, seed=4, dealer_multiplier=2, first_dealer="rotate")
    frames = {
        ("dm", 1): synthetic_records(MATCHES, seed=4, dealer_multiplier=1, first_dealer="rotate"),
        ("bonus", 3): synthetic_records(
            MATCHES, seed=4, dealer_multiplier=2, value_bonus=3, first_dealer="rotate"
        ),
        ("noop", True): base.copy(),
    }
    t = sens.sensitivity_table(base, frames, fake_variant())
    t["p_adj"] = adjust_pvalues(t["p"].to_numpy(dtype=float), "holm")
    return base, frames, t


def _dealer_edge(df):
    d = df[[f"delta_{s}" for s in range(4)]].to_numpy()
    return d[np.arange(len(df)), df["dealer"].to_numpy()] * 4 / 3


def test_table_differences_are_the_paired_ones(table):
    base, frames, t = table
    assert set(t["metric"]) == set(sens.METRICS)
    row = t[(t["option"] == "dm") & (t["metric"] == "dealer_edge")].iloc[0]
    want = _dealer_edge(frames[("dm", 1)]).mean() - _dealer_edge(base).mean()
    assert row["diff"] == pytest.approx(want)
    assert row["baseline_estimate"] == pytest.approx(_dealer_edge(base).mean())
    assert row["baseline"] == "2" and row["option_value"] == "1" and row["paired"]
    # a doubled dealer payment planted an edge: removing it lowers it, resolved at this N
    assert row["diff_hi"] < 0 and row["p_adj"] < 0.05
    noop = t[t["option"] == "noop"]
    assert noop["inert"].all() and noop["p"].isna().all()
    assert not t[t["option"] != "noop"]["inert"].any()


def test_ranking_puts_resolved_options_first(table):
    _, _, t = table
    r = sens.ranking(t)
    assert "noop" not in set(r["option"])
    for _, g in r.groupby("metric"):
        assert list(g["rank"]) == list(range(1, len(g) + 1))
        res = g["resolved"].to_numpy()
        assert (np.diff(res.astype(int)) <= 0).all()  # resolved ones before the others
        sizes = g[g["resolved"]]["diff"].abs().to_numpy()
        assert (np.diff(sizes) <= 0).all()
    de = t[(t["metric"] == "dealer_edge") & (t["p_adj"] < 0.05)]
    assert len(de) == 2  # both planted effects (the dealer's double pay, a value bonus)
    top = r[r["metric"] == "dealer_edge"].iloc[0]
    assert top["resolved"] and top["option"] == de.loc[de["diff"].abs().idxmax(), "option"]


def test_option_plan_covers_every_value():
    for name in variants.names():
        v = variants.get(name)
        plan, skipped = sens.option_plan(name)
        keys = {(p["option"], p["value"]) for p in plan}
        assert len(keys) == len(plan)
        for p in plan:
            opt = v.option_map[p["option"]]
            assert p["value"] != opt.default and p["value"] in opt.allowed
            assert p["paired"] == (not opt.changes_deal)
        n_values = sum(len(o.allowed) - 1 for o in v.options)
        assert len(plan) + sum(s.get("values", 1) for s in skipped) == n_values
        for s in skipped:
            assert s["reason"]
        for o in v.options:  # a wide range: its ends and twice the default, no more
            mine = {p["value"] for p in plan if p["option"] == o.key}
            if len(o.allowed) > sens.WIDE and all(isinstance(a, int) for a in o.allowed):
                lo, hi, d = o.allowed[0], o.allowed[-1], o.default
                far = 2 * d if 2 * d in o.allowed and d else hi
                assert mine == {lo, far} - {d}
    if "luodisao" in variants.names():
        _, skipped = sens.option_plan("luodisao")
        z = [s for s in skipped if s["option"] == "zuoxing"]
        assert z and "players" in z[0]["reason"]


def test_the_plan_grows_with_the_options_not_their_ranges():
    # the report plays budget.sensitivity deals (and a skill run per place) for every
    # planned value: a payout option ranging 0..240 must not cost 240 runs (at 13k deals
    # per CPU-s, 10M deals is about 13 minutes of CPU)
    from analysis.report import budget_for

    total = 0
    for name in variants.listed():
        v = variants.get(name)
        plan, _ = sens.option_plan(name)
        assert len(plan) <= 5 * len(v.options), (name, len(plan), len(v.options))
        b = budget_for(name)
        total += len(plan) * (b.sensitivity + b.sensitivity_skill * v.n_players(v.resolve(None)))
    assert total <= 10_000_000, f"the report's sensitivity stage would play {total:,} deals"


def test_swept_values_thin_only_wide_integer_ranges():
    from engine.variants import get

    opt = get("fuzhou").option_map["pay_qiangjin_qq"]
    assert sens.swept_values(opt) == [0, opt.default, 2 * opt.default]
    cap = get("zhuji").option_map["tai_cap"]  # default 0: twice is itself, so the high end
    assert sens.swept_values(cap) == [0, cap.allowed[-1]]
    short = next(o for o in get("zhuji").options if len(o.allowed) <= sens.WIDE)
    assert len(sens.swept_values(short)) == len(short.allowed)
    assert sens._ranges([1, 2, 3, 5, 7, 8]) == "1-3, 5, 7-8"


def test_sensitivity_reuses_runs_without_changing_a_number():
    name = "fuzhou" if "fuzhou" in variants.names() else variants.names()[0]
    deals = 64
    fresh = sens.sensitivity(name, deals, seed=3, workers=1)
    plan, _ = sens.option_plan(name)
    first = plan[0]
    longer = simulate(
        name, 2 * deals, seed=3, rules={first["option"]: first["value"]}, progress=False
    ).to_pandas()
    base = simulate(name, 3 * deals, seed=3, progress=False).to_pandas()
    again = sens.sensitivity(
        name, deals, seed=3, workers=1, base=base, reuse={(first["option"], first["value"]): longer}
    )
    assert fresh["runs"] == len(plan) and again["runs"] == len(plan) - 1
    assert again["deals"] == deals
    pd.testing.assert_frame_equal(fresh["table"], again["table"])
    assert set(fresh["table"]["option"]) <= {p["option"] for p in plan}
    assert fresh["table"]["p_adj"].dropna().ge(fresh["table"]["p"].dropna()).all()
    assert not math.isnan(fresh["table"]["diff"].iloc[0])


def test_skill_rows_are_paired_duplicate_differences():
    """The skill edge rows, recomputed by hand from the records: the value bot's match
    total averaged over its places from the dealer, a ratio over matches, paired."""
    base = sens.skill_runs("tuidaohu", 480, seed=4, workers=1)
    alt = sens.skill_runs("tuidaohu", 480, rules={"horses": "8"}, seed=4, workers=1)
    row = sens.skill_rows(base, {("horses", "8"): alt}, "tuidaohu").iloc[0]

    def per_match(frames):
        tot, deals = {}, {}
        for place, df in frames.items():
            for r in df.itertuples():
                seat = (int(r.dealer) + place) % 4
                tot[r.match] = tot.get(r.match, 0.0) + getattr(r, f"delta_{seat}") / 4
                deals[r.match] = deals.get(r.match, 0) + 1 / 4
        keys = sorted(tot)
        return np.array([tot[k] for k in keys]), np.array([deals[k] for k in keys])

    t0, m0 = per_match(base)
    t1, m1 = per_match(alt)
    e0, e1 = t0.sum() / m0.sum(), t1.sum() / m1.sum()
    u = (t1 - e1 * m1) / m1.mean() - (t0 - e0 * m0) / m0.mean()
    se = math.sqrt((u**2).sum() / (u.size * (u.size - 1)))
    assert row["metric"] == "skill_edge" and bool(row["paired"]) and not bool(row["inert"])
    assert row["baseline_estimate"] == pytest.approx(e0)
    assert row["estimate"] == pytest.approx(e1)
    assert row["diff"] == pytest.approx(e1 - e0)
    assert row["diff_se"] == pytest.approx(se)
    assert row["diff_hi"] - row["diff"] == pytest.approx(1.959964 * se, rel=1e-5)
    assert row["p"] == pytest.approx(2 * (1 - 0.5 * (1 + math.erf(abs(e1 - e0) / se / 2**0.5))))
    # the words name it only when resolved
    from analysis.recommend import recommendations

    t = pd.DataFrame([{**row.to_dict(), "p_adj": 1e-9}])
    words = " ".join(recommendations(t, name="推倒胡", unit="point"))
    assert "horses=8" in words and "What skill is worth" in words
    t["p_adj"] = 0.5
    words = " ".join(recommendations(t, name="推倒胡", unit="point"))
    assert "No option value resolves an effect on what skill is worth" in words


def test_sensitivity_with_skill_deals_adds_one_skill_row_per_value():
    r = sens.sensitivity("tuidaohu", 64, seed=2, workers=1, skill_deals=64)
    t = r["table"]
    plan, _ = sens.option_plan("tuidaohu")
    sk = t[t["metric"] == "skill_edge"]
    assert len(sk) == len(plan) and r["skill_deals"] == 64
    # one Holm family over the whole table, the skill rows included
    live = t["p"].notna().to_numpy()
    np.testing.assert_allclose(
        t["p_adj"].to_numpy()[live], adjust_pvalues(t["p"].to_numpy()[live], "holm")
    )


def test_sensitivity_figure_labels_rows_once_and_draws_every_point():
    """Rows are labelled on the first panel and ruled on the others; each point is a marker,
    filled when resolved and hollow otherwise, with its interval (reaching the point)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure

    rows = []
    for k, (opt, val) in enumerate([("dm", 1), ("bonus", 3), ("noop", True)]):
        for j, m in enumerate(sens.METRICS):
            d = 0.1 * (k + 1) * (j + 1)
            rows.append(
                {
                    "option": opt, "option_value": val, "inert": opt == "noop", "metric": m,
                    "diff": d, "diff_lo": d - 0.05 if k else d + 0.01, "diff_hi": d + 0.05,
                    "p_adj": 0.001 if k == j else 0.5,
                }
            )  # fmt: skip
    fig = Figure()
    axes = sens.draw_sensitivity(rows, axes=fig.subplots(1, len(sens.METRICS)), alpha=0.05)
    first = [t.get_text() for t in axes[0].get_yticklabels()]
    assert first == ["dm=1", "bonus=3"]  # the inert value is left out
    assert all(len(ax.get_yticks()) == 0 for ax in axes[1:])
    assert [ax.get_title() for ax in axes] == list(sens.METRICS)
    for j, ax in enumerate(axes):
        filled = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
        faces = {matplotlib.colors.to_hex(ln.get_markerfacecolor()): ln for ln in filled}
        resolved = [k for k in range(2) if k == j]
        assert sorted(faces) == sorted({"#ffffff", "#1b6ca8"} if resolved else {"#ffffff"})
        if resolved:
            assert faces["#1b6ca8"].get_xdata().tolist() == pytest.approx([0.1 * (j + 1) * (j + 1)])
        (bars,) = [c for c in ax.collections if isinstance(c, LineCollection)][:1]
        lo = [seg[0][0] for seg in bars.get_segments()]
        d0 = 0.1 * (j + 1)
        assert lo[0] == pytest.approx(d0)  # a lower bound above its point reaches the point


def _four_metric_rows():
    """A live value and an inert one, with a row for every metric and the skill edge."""
    rows = []
    for k, (opt, val) in enumerate([("dm", 1), ("noop", True)]):
        for j, m in enumerate((*sens.METRICS, sens.SKILL_METRIC)):
            d = 0.1 * (j + 1)
            rows.append(
                {
                    "option": opt, "option_value": val, "inert": k == 1, "metric": m,
                    "diff": d, "diff_lo": d - 0.05, "diff_hi": d + 0.05, "p_adj": 0.001,
                }
            )  # fmt: skip
    return rows


def test_sensitivity_figure_has_a_panel_for_the_skill_edge():
    """Every metric of the table is drawn, the skill edge included; too few Axes is an
    error, not a panel silently dropped."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from engine.errors import UsageError

    rows = _four_metric_rows()
    assert sens.figure_metrics(rows) == [*sens.METRICS, sens.SKILL_METRIC]
    assert sens.figure_metrics([r for r in rows if r["metric"] != "skill_edge"]) == list(
        sens.METRICS
    )
    k = len(sens.METRICS) + 1
    with pytest.raises(UsageError, match=f"{k} panels"):
        sens.draw_sensitivity(rows, axes=Figure().subplots(1, k - 1))
    axes = sens.draw_sensitivity(rows, axes=Figure().subplots(1, k))
    assert [ax.get_title() for ax in axes] == [*sens.METRICS, sens.SKILL_METRIC]
    (point,) = [ln for ln in axes[k - 1].get_lines() if ln.get_marker() == "o"]
    assert point.get_xdata().tolist() == pytest.approx([0.1 * k])
    # more Axes than panels: the spare ones are hidden
    more = Figure().subplots(1, k + 1)
    assert len(sens.draw_sensitivity(rows, axes=more)) == k and not more[k].get_visible()


# ----------------------------------------------------------------------------- two stages
def bh_reference(p, q):
    """Benjamini-Hochberg by its definition: reject the k smallest p-values, k the largest
    with p_(k) <= k q / m; and the adjusted p of each, min over j >= its rank of p_(j) m / j."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    k = max((r for r in range(1, m + 1) if p[order[r - 1]] <= r * q / m), default=0)
    reject = [False] * m
    for r in range(k):
        reject[order[r]] = True
    adj = [min(1.0, min(p[order[j]] * m / (j + 1) for j in range(r, m))) for r in range(m)]
    p_adj = [0.0] * m
    for r, i in enumerate(order):
        p_adj[i] = adj[r]
    return reject, p_adj, k


@pytest.mark.parametrize(
    "p",
    [
        [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216],
        [0.2, 0.01, 0.5, 0.011, 0.9, 0.03, 0.0001, 0.04],
        [0.5, 0.6, 0.07, 0.9],  # nothing passes
    ],
)
def test_the_screen_is_benjamini_hochberg_with_intervals_that_agree(p):
    from scipy.stats import norm

    q = sens.SCREEN_Q
    rows = []
    for i, pv in enumerate(p):
        se = 0.01 * (i + 1)
        d = (-1) ** i * se * float(norm.isf(pv / 2))  # a normal test with exactly this p
        rows.append({"option": "o", "option_value": str(i), "diff": d, "diff_se": se,
                     "diff_lo": d - 1.96 * se, "diff_hi": d + 1.96 * se,
                     "interval": "normal", "p": pv})  # fmt: skip
    rows.append({"option": "o", "option_value": "inert", "diff": 0.0, "diff_se": 0.0,
                 "diff_lo": 0.0, "diff_hi": 0.0, "interval": "normal", "p": None})  # fmt: skip
    got = sens.screen(rows, q=q)
    reject, p_adj, k = bh_reference(p, q)
    assert [r["reject"] for r in got[:-1]] == reject
    np.testing.assert_allclose([r["p_adj"] for r in got[:-1]], p_adj, rtol=1e-12)
    assert all(r["adjust"] == "bh" for r in got)
    assert not got[-1]["reject"] and math.isnan(got[-1]["p_adj"])  # not in the family
    level = 1 - max(k, 1) * q / len(p)  # Benjamini-Yekutieli's false-coverage level
    for r in got[:-1]:
        assert r["diff_level"] == pytest.approx(level)
        assert (r["diff_lo"] > 0 or r["diff_hi"] < 0) == r["reject"]
        assert r["raw_hi"] - r["raw_lo"] < r["diff_hi"] - r["diff_lo"]


def test_payout_options_are_screened_by_rescoring_without_a_simulation(monkeypatch):
    from engine.runs import rescore as rs
    from engine.runs import run as run_mod

    name, deals = "zhuji", 64
    base = simulate(name, 4 * deals, seed=3, policies="value", progress=False).to_pandas()
    played = []
    real = run_mod.simulate

    def spy(variant, n, **kw):
        played.append(dict(kw.get("rules") or {}))
        return real(variant, n, **kw)

    monkeypatch.setattr(run_mod, "simulate", spy)
    r = sens.sensitivity(name, deals, seed=3, workers=1, base=base, payouts="rescore")
    v = variants.get(name)
    payout = set(rs.payout_keys(v))
    plan, _ = sens.option_plan(name)
    assert payout and all(not set(rules) & payout for rules in played)
    assert len(played) == r["runs"] == sum(p["option"] not in payout for p in plan)
    assert r["rescored"] == sum(p["option"] in payout for p in plan)
    t = r["table"]
    re = t[t["option"].isin(payout)]
    assert set(re["screen"]) == {"rescored"} and not re["exact"].any()  # value reads payouts
    assert (re["n"] == len(base)).all()  # the whole main run, not the screen's deals
    sim = t[~t["option"].isin(payout)]
    assert set(sim["screen"]) == {"simulated"} and (sim["n"] == deals).all()
    # a re-scored row is the sweep of the main run against its re-score
    row = re[re["metric"] == "dealer_edge"].iloc[0]
    opt = v.option_map[row["option"]]
    val = next(p["value"] for p in plan if p["option"] == opt.key
               and sens._show(p["value"]) == row["option_value"])  # fmt: skip
    again, _ = rs.rescore_frame(base, v, v.resolve(None), {opt.key: val})
    want = sens.sensitivity_table(base, {(opt.key, val): again}, v)
    want = want[want["metric"] == "dealer_edge"].iloc[0]
    assert row["diff"] == want["diff"] and row["diff_se"] == want["diff_se"]
    with pytest.raises(UsageError, match="payouts"):
        sens.sensitivity(name, deals, base=base, payouts="both")
