"""Re-scoring (issue 22): for value-blind play, re-scoring recorded deals under a payout
option equals a fresh simulation under it, column for column, for every payout option
of every variant; play options are refused; the identity names the re-score."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

import analysis
import engine
from engine import rescore as rs
from engine.errors import UsageError
from engine.variants import get, names

DEALS = 2_000
SEED = 7


def _values(opt) -> list:
    """The non-default values swept (those a what-if sweeps, the default apart)."""
    from analysis.rescoring import option_values

    return [a for a in option_values(opt) if a != opt.default]


def _cases():
    out = []
    for v in names():
        for opt in get(v).options:
            if opt.payout:
                for val in _values(opt):
                    out.append(pytest.param(v, opt.key, val, id=f"{v}-{opt.key}={val}"))
    return out


@functools.cache
def _run(variant: str, changes: tuple = ()):
    return engine.simulate(
        variant, deals=DEALS, seed=SEED, policies="efficiency", rules=dict(changes), progress=False
    )


@functools.cache
def _frame(variant: str, changes: tuple = ()) -> pd.DataFrame:
    return _run(variant, changes).to_pandas()


def test_every_variant_declares_payout_options():
    for v in names():
        assert rs.payout_keys(v), f"{v} has no payout option"


@pytest.mark.parametrize(("variant", "key", "value"), _cases())
def test_rescore_equals_simulation(variant, key, value):
    got = analysis.rescore(_run(variant), **{key: value})
    want = _frame(variant, ((key, value),))
    pd.testing.assert_frame_equal(
        got.reset_index(drop=True), want.reset_index(drop=True), check_exact=True
    )
    # and the identity is the new rule set's, with the source named
    meta = got.attrs["mjlab"]
    assert meta["rules_id"] == want["rules_id"].iloc[0]
    assert meta["rescored"]["changes"] == {key: value}


@pytest.mark.parametrize("variant", names())
def test_rescore_changes_something(variant):
    """Each payout option moves some delta in the sample (else the sweep proves nothing)."""
    base = _frame(variant)
    cols = [c for c in base.columns if c.startswith("delta_") or c == "value"]
    idle = []
    for opt in get(variant).options:
        if not opt.payout:
            continue
        moved = False
        for val in _values(opt):
            f = analysis.rescore(_run(variant), **{opt.key: val})
            if not np.array_equal(f[cols].to_numpy(), base[cols].to_numpy()):
                moved = True
                break
        if not moved:
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
