"""The strong bot counts the 台 a hand holds toward a variant's minimum (诸暨 ``min_tai``)."""

from __future__ import annotations

import numpy as np
import pytest

from engine import tiles, variants
from engine.hand._tables import kernel_tables
from engine.mahjong import params as P
from engine.mahjong.layout import R_SHAPES
from engine.mahjong.strong import N_FSC, N_OSUM, SSCR, tai_need
from engine.play.bots import seat_bots
from engine.play.mahjong import fit as F
from engine.play.mahjong.loop import _strong_pong

TAB = kernel_tables()
V = variants.get("zhuji")
VIEW = np.array([3, 1, 4, 5, 0, 1, 1, 1, 0] + [0] * 7, np.int64)
FIXED = dict(
    alpha=1.0, alpha_kong=1.0, claim_bias=0.0, chow_bias=0.0, kong_bias=0.0, rob=1.0,
    mult=[1.0] * P.N_TARGET, legal=[1.0, 0.5, 0.25, 0.1],
)  # fmt: skip


def _bot(rules, **more):
    resolved = V.resolve(rules)
    _, rows = seat_bots(V, resolved, ("strong",) * 4, {0: {**FIXED, **more}})
    return rows[0], int(V.pack(resolved)[R_SHAPES])


def test_the_kernel_and_the_fit_count_the_same_need():
    """tai_need (the kernel) and the fit's reading of an observation row agree."""
    bot, _ = _bot({})
    tai = F._tai_params(V, V.resolve({}))
    rng = np.random.default_rng(5)
    for _ in range(300):
        h = np.zeros(34, np.int64)
        for k in rng.choice(34, size=13):
            h[k] = min(h[k] + 1, 4)
        w = int(rng.integers(0, 5))
        melded = int(rng.integers(0, 128)) & ~sum(1 << i for i in range(7) if h[27 + i] >= 3)
        bits = melded | sum(1 << i for i in range(7) if h[27 + i] >= 3)
        row = np.zeros((1, 32), np.int64)
        row[0, F.O.H_HONORS] = bits
        row[0, F.O.H_W] = w
        assert tai_need(bot, h, w, melded) == F._tai_need(row, tai)[0]


def test_honor_and_wild_tai_come_from_the_rules():
    bot, _ = _bot({})
    h = tiles.parse("111z555z777z123m4p").astype(np.int64)
    assert tai_need(bot, h, 0, 0) == 3 - (2 + 1 + 1)
    assert tai_need(bot, tiles.parse("123m456p").astype(np.int64), 3, 0) == 3 - 2
    bot0, _ = _bot({"caishen": 0})
    assert tai_need(bot0, tiles.parse("123m456p").astype(np.int64), 3, 0) == 3
    assert tai_need(_bot({"min_tai": 0})[0], h, 0, 0) == 0


def test_the_legal_factor_falls_by_one_ratio_per_tai():
    won = np.array([40.0] * 100 + [10.0] * 100 + [5.0] * 100 + [1.0] * 100) / 40
    pred = np.ones(400) * 0.5
    need = np.repeat(np.arange(4), 100)
    g = F._legal(won, pred, need)
    ratios = g[1:] / g[:-1]
    assert np.allclose(ratios, ratios[0]) and ratios[0] < 1
    flat = F._legal(np.zeros(0), np.zeros(0), np.zeros(0, np.int64))
    assert np.allclose(flat, 1.0)  # no data: no penalty
    rising = F._legal(need * 1.0, pred, need)  # more 台 needed never counts as likelier
    assert np.allclose(rising, rising[0])


def _pong(rules, hand, tile):
    bot, shapes = _bot(rules)
    h = tiles.parse(hand).astype(np.int64)
    k = tiles.kind(tile)
    unseen = np.maximum(4 - h, 0)
    unseen[k] -= 1
    return _strong_pong(
        k, False, h, 0, 4, shapes, TAB, bot, unseen, np.array([0, 1, 0, 0], np.int64),
        np.zeros((4, N_OSUM), np.int64), VIEW.copy(), np.zeros(SSCR, np.int64), np.zeros(N_FSC),
        np.zeros(0, np.uint64),
    )  # fmt: skip


@pytest.mark.parametrize("east", ["1z"])
def test_a_pong_of_east_is_taken_for_its_tai_where_a_minimum_needs_them(east):
    """Waiting on 1s/4s with a pair of 东: the 碰 narrows the wait (8 tiles to 3) but
    brings 2 of the 3 台 the minimum needs; without a minimum it is refused."""
    hand = f"123m456p789s23s{east}{east}"
    assert _pong({"min_tai": 0}, hand, east) == 0
    assert _pong({}, hand, east) == 1
