"""A refit's self-play pass and the observation buffer that grows (engine.play.mahjong.fit,
engine.play.drivers.collect)."""

import dataclasses

import numpy as np
import pytest

from engine import variants
from engine.play import drivers
from engine.play.mahjong import fit as F
from engine.play.mahjong import observe as O
from engine.play.mahjong.testing import DRIVER


def _collect(v, resolved, rows_per_deal, deals=32, seed=5, threads=1):
    return drivers.collect(
        DRIVER, v, resolved, deals, seed, ("strong",) * 4, match_length=16, threads=threads,
        block_matches=1, on_block=None, rows_per_deal=rows_per_deal, obs_width=O.OBS_W,
        split=lambda r: (r[r[:, 0] == O.O_HAND].copy(), r[r[:, 0] == O.O_DANGER].copy()),
    )  # fmt: skip


def test_a_block_that_overflows_its_rows_is_played_again_with_room_for_them():
    v = variants.get("zhuji")
    resolved = v.resolve({"caishen": 0})
    hand, danger, rec = _collect(v, resolved, F.ROWS_PER_DEAL * 4)
    # far too little room: every block overflows and is played again
    assert (hand.shape[0] + danger.shape[0]) / rec.shape[0] > 20
    small = _collect(v, resolved, 20, threads=2)
    for a, b in zip((hand, danger, rec), small, strict=True):
        assert np.array_equal(a, b)


@pytest.fixture(scope="module")
def zhuji_one_wild():
    v = variants.get("zhuji")
    base = v.resolve({})
    resolved = v.resolve({"caishen": 1})
    assert not F.same_wilds(v, resolved, base)
    model = {"danger": [0.0], "kong_danger": [0.0]}  # never kept: the wilds moved
    first = F.fit_mahjong(v, resolved, 64, 3, "value", threads=1)
    second = F.refit_mahjong(v, resolved, 64, 3, "value", 1, False, model, base)
    return v, resolved, base, first, second


def test_a_self_play_refit_keeps_the_first_passs_danger_and_refits_the_win_tables(
    zhuji_one_wild,
):
    v, _, _, first, second = zhuji_one_wild
    assert v.refit_self_play
    for k in ("danger", "kong_danger"):
        assert second["model"][k] == first["model"][k]
    moved = [k for k in F.SELF_PLAY_BLOCKS if second["model"][k] != first["model"][k]]
    assert "p_target" in moved and "value" in moved, moved
    info = second["summary"]["self_play"]
    assert info["policy"] == "strong" and info["hand_positions"] > 0
    assert second["identity"] == first["identity"]  # the command that repeats it


def test_a_self_play_refit_is_a_pure_function_of_its_inputs(zhuji_one_wild, monkeypatch):
    import functools

    v, resolved, base, _, second = zhuji_one_wild
    # one match a block, so the two threads share the 4 matches out
    monkeypatch.setattr(F, "collect", functools.partial(F.collect, block_matches=1))
    again = F.refit_mahjong(v, resolved, 64, 3, "value", 2, False, {}, base)
    assert again["model"] == second["model"]


def test_without_self_play_or_with_the_same_wilds_a_refit_is_one_pass(zhuji_one_wild):
    v, resolved, base, first, _ = zhuji_one_wild
    plain = dataclasses.replace(v, refit_self_play=False)
    assert F.refit_mahjong(plain, resolved, 64, 3, "value", 1, False, {}, base) == first
    none = F.refit_mahjong(v, v.resolve({"caishen": 0}), 64, 3, "value", 1, False, {}, base)
    assert not F.has_wilds(v, v.resolve({"caishen": 0})) and "self_play" not in none["summary"]
    same = v.resolve({"min_tai": 2})
    kept = {"danger": first["model"]["danger"], "kong_danger": first["model"]["kong_danger"]}
    one = F.refit_mahjong(v, same, 64, 3, "value", 1, False, kept, base)
    assert "self_play" not in one["summary"]
    assert one["model"]["danger"] == kept["danger"]
