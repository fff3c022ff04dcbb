"""Strong version 3: the order of an opponent's discards in the danger model, and 不搭 as
a target (丽水)."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from engine import tiles, variants
from engine.hand._kernels import BUDA, SEVEN_PAIRS, STANDARD, _distance
from engine.hand._tables import kernel_tables
from engine.mahjong import params as P
from engine.mahjong.strong import (
    EARLY,
    MAX_FI,
    N_OSUM,
    RECENT,
    danger_features,
    hand_value,
    opp_summary,
    target_dists,
)
from engine.play.bots import seat_bots
from engine.runs import tune

TAB = kernel_tables()
ROLE = np.arange(136, dtype=np.int64) // 4  # tile id -> kind (no wilds)


def _summary(kinds):
    """Seat 1's summary after discarding ``kinds`` (names, in order)."""
    disc = np.zeros((4, 40), np.int64)
    ndisc = np.zeros(4, np.int64)
    for i, name in enumerate(kinds):
        disc[1, i] = 4 * tiles.kind(name)
    ndisc[1] = len(kinds)
    out = np.full(N_OSUM, -1, np.int64)
    melds = np.zeros((4, 4, 3), np.int64)
    opp_summary(0, 0, 1, melds, np.zeros(4, np.int64), disc, ndisc, ROLE, out)
    return out


@numba.njit(cache=False)
def _feats(osum, k):
    fi = np.zeros(MAX_FI, np.int64)
    n = danger_features(osum, k, 3, 0, 2, fi)
    return fi[:n].copy()


def _bits(names):
    return sum(1 << tiles.kind(n) for n in set(names))


@pytest.mark.parametrize("seed", range(3))
def test_the_summary_holds_his_latest_and_first_discards(seed):
    rng = np.random.default_rng(seed)
    for n in range(0, 18):
        kinds = [tiles.kind_name(int(k)) for k in rng.integers(0, 34, n)]
        out = _summary(kinds)
        assert out[1] == n
        assert out[2] == _bits(kinds)
        assert out[8] == _bits(kinds[max(0, n - RECENT) :])
        assert out[9] == _bits(kinds[:EARLY])


def test_the_order_features_follow_his_discards():
    # early: 1m 9p 2s 1z 4z 3z; late: 5s 4m 7p
    osum = _summary(["1m", "9p", "2s", "1z", "4z", "3z", "6z", "2z", "5s", "4m", "7p"])
    f = {name: set(_feats(osum, tiles.kind(name)).tolist()) for name in ("4m", "1m")}
    assert 80 in f["4m"]  # among his last three
    assert 80 not in f["1m"]  # discarded, but early
    assert 18 in f["1m"] and 18 in f["4m"]
    assert 81 in set(_feats(osum, tiles.kind("5m")).tolist())  # 4m + 1, 4m late
    assert 81 in set(_feats(osum, tiles.kind("9p")).tolist())  # 7p + 2
    assert 81 not in set(_feats(osum, tiles.kind("4p")).tolist())  # 7p - 3 is suji, not near
    assert 82 in set(_feats(osum, tiles.kind("4m")).tolist())  # 1m + 3, 1m early
    assert 82 in set(_feats(osum, tiles.kind("6p")).tolist())  # 9p - 3
    assert 82 not in set(_feats(osum, tiles.kind("7s")).tolist())  # 2s + 5
    # a middle tile among the last three (5s, 4m, 7p) is a tile-free feature
    assert 83 in set(_feats(osum, tiles.kind("1z")).tolist())
    quiet = _summary(["5m", "5p", "5s", "1m", "9s", "1z"])
    assert 83 not in set(_feats(quiet, tiles.kind("1z")).tolist())
    for k in range(34):
        idx = _feats(osum, k)
        assert (idx < P.N_FEATURES).all() and len(set(idx.tolist())) == len(idx)


def test_the_fitted_danger_models_have_the_order_weights():
    for name in ("lishui", "zhuji", "fuzhou", "tuidaohu"):
        v = variants.get(name)
        _, rows = seat_bots(v, v.resolve({}), ("strong",) * 4)
        w = rows[0, P.M_DANGER : P.M_DANGER + P.N_FEATURES]
        assert np.isfinite(w).all() and (w[80:84] != 0).any(), name


@pytest.mark.parametrize("seed", range(3))
def test_the_buda_distance_is_the_buda_shape_distance(seed):
    rng = np.random.default_rng(seed)
    out = np.zeros(P.N_TARGET, np.int64)
    for _ in range(200):
        wall = np.repeat(np.arange(34), 4)
        rng.shuffle(wall)
        h = np.bincount(wall[:13], minlength=34).astype(np.int64)
        w = int(rng.integers(0, 2))
        if w:
            h[np.flatnonzero(h)[0]] -= 1
        shapes = STANDARD | SEVEN_PAIRS | BUDA
        target_dists(h, w, 4, shapes, TAB, np.array([0, 1, 0, 0], np.int64), True, out)
        assert out[P.T_BUDA] == _distance(h, w, 4, BUDA, TAB)
        assert out[P.T_PLAIN] <= out[P.T_BUDA]
        target_dists(h, w, 4, STANDARD | SEVEN_PAIRS, TAB, np.array([0, 1, 0, 0], np.int64), True,
                     out)  # fmt: skip
        assert out[P.T_BUDA] == 99
    h10 = h.copy()
    target_dists(h10, 0, 3, shapes, TAB, np.array([0, 1, 1], np.int64), True, out)
    assert out[P.T_BUDA] == 99  # after a meld: no 不搭


def test_lishui_strong_weighs_a_buda_hand_by_its_value_and_mult_6():
    v = variants.get("lishui")
    _, rows = seat_bots(v, v.resolve({}), ("strong",) * 4)
    bot = rows[0]
    pt = bot[P.M_PTARGET : P.M_PTARGET + P.N_TARGET * P.N_D * P.N_T].reshape(
        P.N_TARGET, P.N_D, P.N_T
    )
    assert (pt[P.T_BUDA, 1] > 0).all()  # the fit saw 不搭 wins
    value = bot[P.M_VALUE : P.M_VALUE + 2 * P.N_TARGET].reshape(P.N_TARGET, 2)
    assert value[P.T_BUDA, 0] > value[P.T_PLAIN, 0]  # 2 倍 against 1
    plain = np.full(P.N_TARGET, 99, np.int64)
    plain[P.T_PLAIN] = 2
    buda = plain.copy()
    buda[P.T_BUDA] = 2
    for m6 in (0.0, 0.5, 1.0, 2.0):
        b = bot.copy()
        b[P.S_MULT : P.S_MULT + P.N_TARGET] = 1.0
        b[P.S_MULT + P.T_BUDA] = m6
        p = pt[P.T_BUDA, 2, 5]
        stake = b[P.M_STAKE]
        # the 不搭 share of the win chance is paid at its own value, times mult.6
        want = hand_value(b, plain, -1, 5, 0, 0) + p * (
            m6 * (value[P.T_BUDA, 0] + stake) - (value[P.T_PLAIN, 0] + stake)
        )
        assert hand_value(b, buda, -1, 5, 0, 0) == pytest.approx(want)
    b[P.S_MULT + P.T_BUDA] = 1.0
    assert hand_value(b, buda, -1, 5, 0, 0) > hand_value(b, plain, -1, 5, 0, 0)


def test_mult_of_buda_is_tuned_only_where_buda_is_a_target():
    for name in ("lishui", "zhuji", "fuzhou", "tuidaohu"):
        v = variants.get(name)
        dims = {d.name for d in tune._relevant(v, v.resolve({}), "strong")}
        assert ("mult.6" in dims) == (name == "lishui"), name
