"""The strong bot's claims against the hand's distance (``strong.claim_closer``).

A 碰 or 吃 is made when the hand after it is worth more than passing by the claim bias;
with ``claim_closer`` 1 it must also bring the hand a tile closer, so a claim that only
widens the hand (same distance, a better wait or more ukeire) is refused.
"""

import numpy as np
import pytest

from engine import tiles, variants
from engine.hand._kernels import _distance
from engine.hand._tables import kernel_tables
from engine.mahjong import params as P
from engine.mahjong.layout import R_SHAPES
from engine.mahjong.strong import N_FSC, N_OSUM, SSCR
from engine.play.bots import seat_bots
from engine.play.mahjong.loop import _strong_chow, _strong_pong

TAB = kernel_tables()
V = variants.get("lishui")
SHAPES = int(V.pack(V.resolve({}))[R_SHAPES])
# no wilds in view, 3 opponents with nothing shown, mid-deal, a discard can be won on
VIEW = np.array([3, 0, 4, 5, 0, 1, 1, 0, 0] + [0] * 7, np.int64)  # the loop's view is 16 long
# the scalar parameters pinned, so that a retune of the committed file moves nothing here
FIXED = dict(
    alpha=1.0, alpha_kong=1.0, claim_bias=0.0, chow_bias=0.0, kong_bias=0.0, rob=1.0,
    mult=[1.0] * P.N_TARGET,
)  # fmt: skip


def _bot(closer, **more):
    over = {0: {**FIXED, "claim_closer": closer, **more}}
    _, rows = seat_bots(V, V.resolve({}), ("strong",) * 4, over)
    return rows[0]


def _claim(fn, hand, tile, closer, view=VIEW, **more):
    h = tiles.parse(hand).astype(np.int64)
    k = tiles.kind(tile)
    unseen = np.maximum(4 - h, 0)
    unseen[k] -= 1
    args = (
        h, 0, 4, SHAPES, TAB, _bot(closer, **more), unseen, np.array([0, 1, 0, 0], np.int64),
        np.zeros((4, N_OSUM), np.int64), view, np.zeros(SSCR, np.int64), np.zeros(N_FSC),
        np.zeros(0, np.uint64),
    )  # fmt: skip
    if fn is _strong_pong:
        return fn(k, False, *args)
    return fn(k, *args, h.reshape(1, -1).copy(), 0, 0)


def _after(hand, tile, taken):
    h = tiles.parse(hand).astype(np.int64)
    for t in tiles.kinds(taken):
        h[t] -= 1
    return _distance(tiles.parse(hand).astype(np.int64), 0, 4, SHAPES, TAB), _distance(
        h, 0, 3, SHAPES, TAB
    )


def test_a_pong_that_only_widens_the_hand_is_refused():
    hand, tile = "3357m12357p589s4z", "3m"
    now, after = _after(hand, tile, "33m")
    assert now == after == 3  # the 碰 brings the hand no closer
    assert _claim(_strong_pong, hand, tile, 0.0) == 1  # its expected value says 碰
    assert _claim(_strong_pong, hand, tile, 1.0) == 0


def test_a_chow_that_only_widens_the_wait_is_refused():
    # waiting on 6z alone; 吃 5m with 67m leaves 5678m (a two-sided wait), still waiting
    hand, tile = "566778m456p123s6z", "5m"
    now, after = _after(hand, tile, "67m")
    assert now == after == 1
    assert _claim(_strong_chow, hand, tile, 0.0) == 4  # the 吃 from rank 5 (567m)
    assert _claim(_strong_chow, hand, tile, 1.0) == -1


def test_a_claim_that_brings_the_hand_closer_is_still_made():
    # 碰 9s: 3 tiles away before, 2 after (the pair of 9s becomes a set, 77s stays a pair)
    hand, tile = "1239m456p77s99s15z", "9s"
    now, after = _after(hand, tile, "99s")
    assert after == now - 1
    assert _claim(_strong_pong, hand, tile, 0.0) == 1
    assert _claim(_strong_pong, hand, tile, 1.0) == 1


def test_a_third_chow_from_the_same_discarder_costs_its_tongbao():
    # 吃 5m with 67m is worth making (claim_closer 0); as the third 吃 from this 上家 (统包)
    # it costs strong.tongbao: a large one refuses it, none changes nothing
    hand, tile = "566778m456p123s6z", "5m"
    third = VIEW.copy()
    third[9] = 1
    assert _claim(_strong_chow, hand, tile, 0.0, tongbao=0.0) == 4
    assert _claim(_strong_chow, hand, tile, 0.0, third, tongbao=0.0) == 4
    assert _claim(_strong_chow, hand, tile, 0.0, VIEW, tongbao=50.0) == 4
    assert _claim(_strong_chow, hand, tile, 0.0, third, tongbao=50.0) == -1


def test_only_lishui_weighs_tongbao():
    for name in ("lishui", "zhuji", "fuzhou", "tuidaohu"):
        v = variants.get(name)
        _, rows = seat_bots(v, v.resolve({}), ("strong",) * 4)
        first, _ = P.slots("strong")["tongbao"]
        assert (rows[:, first] > 0).all() == (name == "lishui"), name


@pytest.mark.parametrize("variant", ["tuidaohu", "zhuji", "fuzhou"])
def test_other_variants_keep_the_expected_value_rule(variant):
    v = variants.get(variant)
    _, rows = seat_bots(v, v.resolve({}), ("strong",) * 4)
    first, _ = P.slots("strong")["claim_closer"]
    assert (rows[:, first] == 0).all()
