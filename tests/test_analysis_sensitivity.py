"""The rule-sensitivity table, its ranking and the recommendations in words."""

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from analysis import sensitivity as sens
from analysis.stats import adjust_pvalues
from analysis.testing import synthetic_records
from engine import variants
from engine.run import simulate
from engine.variants._base import RuleOption

MATCHES = 400


def fake_variant():
    return SimpleNamespace(
        name="synthetic",
        option_map={
            "dm": RuleOption("dm", 2, (1, 2), "dealer multiplier"),
            "bonus": RuleOption("bonus", 0, (0, 3), "value bonus"),
            "noop": RuleOption("noop", False, (False, True), "does nothing"),
        },
    )


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


def test_recommendations_name_only_resolved_effects(table):
    _, _, t = table
    words = sens.recommendations(t, name="X", unit="pt", deals=MATCHES * 16, family="F")
    text = " ".join(words)
    fair = next(w for w in words if w.startswith("To make X fairer"))
    assert "dm=1 lowers X's dealer edge by" in fair and "over F" in fair
    row = t[(t["option"] == "dm") & (t["metric"] == "dealer_edge")].iloc[0]
    half = (row["diff_hi"] - row["diff_lo"]) / 2
    from analysis.stats import format_pm

    assert format_pm(abs(row["diff"]), half) in fair
    assert "noop=true" in words[-1] and "cannot matter" in words[-1]
    # make every effect unresolved: no fairer change is claimed
    t2 = t.assign(p_adj=1.0)
    words2 = sens.recommendations(t2, name="X", unit="pt", deals=100)
    assert not any(w.startswith("To make") for w in words2)
    de = t2[(t2["metric"] == "dealer_edge") & ~t2["inert"]]
    big = de.loc[de["diff"].abs().idxmax()]
    key = f"{big['option']}={big['option_value']}"
    assert any(
        w.startswith(f"The {len(de)} option values do not resolve") and key in w for w in words2
    )
    # an increase of a positive edge is called less fair, not fairer
    t3 = t.copy()
    m = (t3["option"] == "dm") & (t3["metric"] == "dealer_edge")
    t3.loc[m, ["diff", "diff_lo", "diff_hi"]] = -t3.loc[m, ["diff", "diff_hi", "diff_lo"]].values
    w3 = sens.recommendations(t3, name="X", unit="pt")
    assert any(w.startswith("These move X's dealer edge away from 0") for w in w3)
    assert "edge" in text


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
        assert len(plan) + len(skipped) == n_values
        for s in skipped:
            assert s["reason"]
    if "luodisao" in variants.names():
        _, skipped = sens.option_plan("luodisao")
        z = [s for s in skipped if s["option"] == "zuoxing"]
        assert z and "players" in z[0]["reason"]


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
