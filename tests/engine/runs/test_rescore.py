"""Re-scoring (issue 22): for value-blind play, re-scoring recorded deals under a payout
option equals a fresh simulation under it, column for column, for every payout option
of every variant; the variant's settlement kernel run over the record rows (what a
re-score runs) equals its independent numpy twin (tests/oracles/settlement.py) under
every payout option; play options are refused; the identity names the re-score."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

import analysis
import engine
from engine.errors import UsageError
from engine.runs import rescore as rs
from engine.variants import get, names
from tests.oracles import settlement as TW

DEALS = 2_000
SEED = 7


def _values(opt) -> list:
    """The non-default values swept (those a what-if sweeps, the default apart)."""
    from analysis.rescoring import option_values

    return [a for a in option_values(opt) if a != opt.default]


def _context(variant: str, key: str) -> tuple:
    """The rules under which a payout option pays, when it is idle under the defaults
    (another formula's values, 游金, 鬼 ...): the declaration's ``rescore_context``."""
    ctx = get(variant).rescore_context.get(key, {})
    return tuple(sorted(ctx.items()))


def _blind(variant) -> list[str]:
    """The value-blind policies whose re-scores the sweep proves exact (random apart: it
    reads nothing by construction)."""
    return [p for p in get(variant).value_blind if p != "random"]


def _cases():
    out = []
    for v in names():
        for policy in _blind(v):
            for opt in get(v).options:
                if opt.payout:
                    for val in _values(opt):
                        tag = f"{v}-{opt.key}={val}" + (
                            "" if policy == "efficiency" else f"-{policy}"
                        )
                        out.append(pytest.param(v, opt.key, val, policy, id=tag))
    return out


@functools.cache
def _run(variant: str, changes: tuple = (), policy: str = "efficiency"):
    return engine.simulate(
        variant, deals=DEALS, seed=SEED, policies=policy, rules=dict(changes), progress=False
    )


@functools.cache
def _frame(variant: str, changes: tuple = (), policy: str = "efficiency") -> pd.DataFrame:
    return _run(variant, changes, policy).to_pandas()


def test_every_variant_declares_payout_options():
    for v in names():
        assert rs.payout_keys(v), f"{v} has no payout option"
        assert "efficiency" in get(v).value_blind, v


def test_is_exact_follows_the_variants_blind_policies():
    assert rs.is_exact("zhuji", ["efficiency"] * 4)
    assert not rs.is_exact("zhuji", ["strong", "efficiency", "efficiency", "efficiency"])
    # value and strong read the payouts (engine.runs.adapt, the 字牌 scorer): first-order
    for v in names():
        if v == "tiny":
            continue
        assert not rs.is_exact(v, ["value"] * get(v).n_players(get(v).resolve({}))), v
        assert not rs.is_exact(v, ["strong"] * get(v).n_players(get(v).resolve({}))), v


@pytest.mark.parametrize(("variant", "key", "value", "policy"), _cases())
def test_rescore_equals_simulation(variant, key, value, policy):
    ctx = _context(variant, key)
    got = analysis.rescore(_run(variant, ctx, policy), **{key: value})
    want = _frame(variant, tuple(sorted({**dict(ctx), key: value}.items())), policy)
    pd.testing.assert_frame_equal(
        got.reset_index(drop=True), want.reset_index(drop=True), check_exact=True
    )
    # and the identity is the new rule set's, with the source named
    meta = got.attrs["mjlab"]
    assert meta["rules_id"] == want["rules_id"].iloc[0]
    assert meta["rescored"]["changes"] == {key: value}


@pytest.mark.parametrize("variant", names())
def test_the_settlement_kernel_equals_its_twin(variant):
    """The settlement kernel over the record rows (rs.settled_columns, what a re-score
    writes) gives every column the numpy twin gives, under the recorded rules and under
    up to three other values of each payout option (played where it pays), whatever the
    policy (value-aware play too: the records' inputs are paid, not replayed)."""
    v = get(variant)
    policies = ["efficiency", "value"] if "value" in v.policies else ["efficiency"]
    for policy in policies:
        for opt in [None, *(o for o in v.options if o.payout)]:
            ctx = () if opt is None else _context(variant, opt.key)
            frame = _frame(variant, ctx, policy)
            rules = v.resolve(dict(ctx))
            values = [None] if opt is None else _values(opt)[:3]
            for val in values:
                new = rules if opt is None else {**rules, opt.key: val}
                got = rs.settled_columns(v, new, frame)
                want = TW.twin(v, new, frame)
                for col, w in want.items():
                    g = np.asarray(got[col], np.int64)
                    bad = np.flatnonzero(g != np.asarray(w, np.int64))
                    assert not len(bad), (
                        f"{variant} {policy} {opt and opt.key}={val}: {col} differs at "
                        f"{len(bad)} deals, first {bad[0]}: kernel {g[bad[0]]}, twin "
                        f"{np.asarray(w)[bad[0]]}"
                    )


@pytest.mark.parametrize("variant", names())
def test_rescore_changes_something(variant):
    """Each payout option moves some delta in the sample, played where it pays (else the
    sweep proves nothing), unless the pattern it pays for is absent from the sample (a
    big hand the efficiency bot never makes in 2,000 deals: the variant's tests check it
    on a scored hand)."""
    pattern_of = get(variant).payout_pattern
    idle = []
    for opt in get(variant).options:
        if not opt.payout:
            continue
        ctx = _context(variant, opt.key)
        base = _frame(variant, ctx)
        cols = [c for c in base.columns if c.startswith("delta_") or c == "value"]
        moved = False
        for val in _values(opt):
            f = analysis.rescore(_run(variant, ctx), **{opt.key: val})
            if not np.array_equal(f[cols].to_numpy(), base[cols].to_numpy()):
                moved = True
                break
        pattern = pattern_of.get(opt.key)
        if not moved and (pattern is None or base[f"pat_{pattern}"].any()):
            idle.append(opt.key)
    assert not idle, f"{variant}: {idle} change nothing in {DEALS} deals"


@pytest.mark.parametrize("variant", names())
def test_play_options_are_refused(variant):
    v = get(variant)
    play = [o for o in v.options if not o.payout and len(o.allowed) > 1]
    assert play, variant
    opt = play[0]
    other = next(a for a in opt.allowed if a != opt.default)
    with pytest.raises(UsageError, match=f"{opt.key} changes how .* simulate instead"):
        analysis.rescore(_run(variant), **{opt.key: other})


def test_bad_changes():
    run = _run("zhuji")
    with pytest.raises(UsageError, match="unknown rule option 'nope'"):
        analysis.rescore(run, nope=1)
    with pytest.raises(UsageError, match="no option to change"):
        analysis.rescore(run)
    with pytest.raises(UsageError, match="discard_pay=everyone is not allowed"):
        analysis.rescore(run, discard_pay="everyone")
    with pytest.raises(UsageError, match="needs the records' rule options"):
        analysis.rescore(pd.DataFrame({"a": [1]}), discard_pay="all_three")


def test_rescore_twice_names_the_first_source():
    run = _run("zhuji")
    once = analysis.rescore(run, discard_pay="all_three")
    twice = analysis.rescore(once, special8="add")
    meta = twice.attrs["mjlab"]
    assert meta["rescored"]["from_rules_id"] == run.rules_id
    assert meta["rescored"]["changes"] == {"discard_pay": "all_three", "special8": "add"}
    direct = analysis.rescore(run, discard_pay="all_three", special8="add")
    pd.testing.assert_frame_equal(twice, direct, check_exact=True)


def test_whatif_table_by_hand():
    """The what-if table's edges recomputed from re-scored frames by hand."""
    from analysis.rescoring import whatif_table

    run = _run("zhuji")
    t = whatif_table(run)
    assert set(t["option"]) == set(rs.payout_keys("zhuji"))
    rec = t[t["is_recorded"]]
    assert (rec["diff"] == 0).all() and rec["edge"].nunique() == 1
    for r in t.to_dict("records"):
        f = analysis.rescore(run, **{r["option"]: r["value"]}) if not r["is_recorded"] else (
            run.to_pandas())  # fmt: skip
        d = f[[f"delta_{s}" for s in range(4)]].to_numpy()
        edge = d[np.arange(len(f)), f["dealer"].to_numpy()].mean() * 4 / 3
        assert r["edge"] == pytest.approx(edge, abs=1e-12)
        assert r["lo"] < r["edge"] < r["hi"]
    moves = t.groupby("option", sort=False)["move"].first().to_numpy()
    assert (np.diff(moves) <= 0).all()
