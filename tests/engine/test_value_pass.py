"""Passing a discard win to wait for a self-draw (``value.pass_self``, ``strong.pass_self``).

In 福州 a self-draw is paid X by every other seat and a discard win by the discarder
alone; the value and strong bots pass a win on a discard while the wait's outs times the
live tiles reach their parameter. These tests check the rule in the records.
"""

import numpy as np
import pytest

from engine.runs.run import simulate


def _frame(pass_self, policy="value", deals=1600):
    over = {0: {"pass_self": pass_self}}
    pols = [policy] + ["efficiency"] * 3
    return simulate(
        "fuzhou", deals, seed=11, policies=pols, bot_params=over, workers=1, progress=False
    ).to_pandas()


def _discard_wins(df, seat):
    w = df["win_type"].astype(str).to_numpy()
    return int(((df["winner"].to_numpy() == seat) & np.isin(w, ("discard", "rob_kong"))).sum())


@pytest.mark.parametrize("policy", ["value", "strong"])
def test_a_bot_that_always_passes_wins_on_discards_only_at_the_wall_end(policy):
    never = _frame(0.0, policy)
    always = _frame(1.0, policy)  # any out and any live tile beyond the reserve: pass
    assert _discard_wins(never, 0) > 50
    # with outs * live >= 1 it passes every discard win but those with no live tile left
    # beyond the reserve (the last group) or with a wait of wilds only: a few at most
    assert _discard_wins(always, 0) < _discard_wins(never, 0) / 10
    # it self-draws more often instead
    sd = lambda df: int(((df["winner"] == 0) & (df["win_type"].astype(str) == "self_draw")).sum())  # noqa: E731
    assert sd(always) > sd(never)
    # the other seats' discard wins are untouched by seat 0's parameter only through play
    assert _discard_wins(always, 1) > 0


def test_no_pass_by_default_outside_fuzhou():
    from engine.play.bots import _defaults
    from engine.variants import get

    for name in ("lishui", "zhuji", "tuidaohu"):
        v = get(name)
        for policy in ("value", "strong"):
            assert _defaults(v, policy, v.resolve({})).get("pass_self", 0) == 0, (name, policy)
    v = get("fuzhou")
    assert _defaults(v, "value", v.resolve({}))["pass_self"] > 0


def test_the_tuner_tunes_pass_self_only_where_the_variant_opts_in():
    from engine.runs import tune
    from engine.variants import get

    for name, want in (("fuzhou", True), ("lishui", False), ("tuidaohu", False)):
        v = get(name)
        for policy in ("value", "strong"):
            dims = {d.name for d in tune._relevant(v, v.resolve({}), policy)}
            assert ("pass_self" in dims) == want, (name, policy)
