"""Observed target tables of the strong fit (engine.play.mahjong.fit._observed_target)."""

import json

import numpy as np
import pytest

from engine import variants
from engine.mahjong import params as P
from engine.play.bots import BOTDATA
from engine.play.mahjong import fit as F


def _rows(rng, n, rate):
    """``n`` positions at random (distance, live bucket), each won with its pattern at
    ``rate[d, tb]``."""
    d = rng.integers(1, P.N_D, n)
    tb = rng.integers(0, P.N_T, n)
    won = (rng.random(n) < rate[d, tb]).astype(np.float64)
    return d, tb, won


def _monotone_rate():
    """A true rate that falls with the distance and rises with the live tiles."""
    d = np.arange(P.N_D)[:, None]
    tb = np.arange(P.N_T)[None, :]
    return np.clip(0.9 * np.exp(-0.5 * (d - 1)) * (0.3 + 0.07 * tb), 0.0, 1.0)


def test_with_many_positions_a_cell_is_its_observed_rate():
    rng = np.random.default_rng(3)
    rate = _monotone_rate()
    d, tb, won = _rows(rng, 400_000, rate)
    race = np.zeros((P.N_D, P.N_T))
    tab = F._observed_target(d, tb, won, race)
    n = np.zeros((P.N_D, P.N_T))
    np.add.at(n, (d, tb), 1.0)
    se = np.sqrt(rate[1:] * (1 - rate[1:]) / n[1:]) + 1e-9
    assert (np.abs(tab[1:] - rate[1:]) < 5 * se + F.OBSERVED_SHRINK / n[1:]).all()
    assert np.array_equal(tab[0], tab[1])


def test_an_empty_cell_is_the_race_and_a_thin_one_leans_on_it():
    race = np.full((P.N_D, P.N_T), 0.2)
    # one won position at distance 3, bucket 4; nothing elsewhere
    tab = F._observed_target(np.array([3]), np.array([4]), np.array([1.0]), race)
    assert tab[3, 4] == pytest.approx((1 + F.OBSERVED_SHRINK * 0.2) / (1 + F.OBSERVED_SHRINK))
    assert tab[6, 0] == pytest.approx(0.2)
    # no position at all: the race itself
    empty = np.array([], np.int64)
    assert np.allclose(F._observed_target(empty, empty, empty.astype(float), race), race)


def test_a_table_never_rewards_a_farther_hand_or_fewer_live_tiles():
    rng = np.random.default_rng(5)
    # a noisy, non-monotone truth: the table must still be ordered
    rate = rng.random((P.N_D, P.N_T)) * 0.5
    d, tb, won = _rows(rng, 5_000, rate)
    tab = F._observed_target(d, tb, won, np.zeros((P.N_D, P.N_T)))
    assert (np.diff(tab[1:], axis=0) <= 1e-12).all()  # farther: never more
    assert (np.diff(tab, axis=1) >= -1e-12).all()  # more live tiles: never less
    # rows past the last distance bucket count in it, as the kernel reads them
    far = F._observed_target(np.array([40, 40]), np.array([2, 2]), np.array([1.0, 1.0]),
                             np.zeros((P.N_D, P.N_T)))  # fmt: skip
    assert far[P.N_D - 1, 2] > 0
    # 99 marks a target the hand cannot reach: it counts nowhere
    none = F._observed_target(np.array([99]), np.array([2]), np.array([1.0]),
                              np.zeros((P.N_D, P.N_T)))  # fmt: skip
    assert not none.any()


FITTED = [
    n
    for n in variants.names()
    if variants.get(n).family == "mahjong" and (BOTDATA / n / "strong.json").exists()
]
"""The mahjong variants with a committed strong model (the 字牌 one has no target tables)."""


def test_zhuji_fits_observed_tables_and_the_others_the_race():
    assert "zhuji" in FITTED and len(FITTED) >= 4
    assert {n: variants.get(n).target_tables for n in FITTED} == {
        n: "observed" if n == "zhuji" else "race" for n in FITTED
    }


@pytest.mark.parametrize("name", FITTED)
def test_each_committed_model_was_fitted_with_its_variants_target_tables(name):
    v = variants.get(name)
    path = BOTDATA / name / "strong.json"
    race = json.loads(path.read_text(encoding="utf-8"))["fit"]["race"]
    assert race.get("target_tables", "race") == v.target_tables
    for refit in sorted((path.parent / "refits").glob("strong-*.json")):
        body = json.loads(refit.read_text(encoding="utf-8"))
        assert body["fit"]["race"].get("target_tables", "race") == v.target_tables, refit.name
        # and the targets read from positions whatever the variant says (游金's)
        rules = v.resolve(body["fit"]["rules"])
        own = sorted(F._observed_targets(v, rules)) if v.target_tables != "observed" else []
        assert body["fit"]["race"].get("observed_targets", []) == own, refit.name


def test_under_youjin_the_wild_target_is_read_from_the_positions():
    """游金's wild target (one gold free, then any draw wins) is no plain race: its table
    is the positions' own rate (a 游ing hand, distance 1, wins most deals), the others
    stay the race's."""
    v = variants.get("fuzhou")
    assert F._observed_targets(v, v.resolve({})) == frozenset()
    assert F._observed_targets(v, v.resolve({"youjin": "minnan"})) == {P.T_WILDPAIR}
    rng = np.random.default_rng(8)
    n = 20_000
    hand = np.zeros((n, F.O.H_HONORS + 1), np.int64)
    d = rng.integers(1, 5, n)
    hand[:, F.O.H_D + P.T_PLAIN] = d
    hand[:, F.O.H_D + P.T_WILDPAIR] = d
    for t in (P.T_FLUSH, P.T_HALF, P.T_TRIPLETS, P.T_PAIRS, P.T_BUDA):
        hand[:, F.O.H_D + t] = 99
    hand[:, F.O.H_LIVE] = rng.integers(8, 80, n)
    hand[:, F.O.H_UKE] = rng.integers(1, 20, n)
    # a position at distance 1 wins with the target's pattern 80% of the time
    won = rng.random(n) < np.where(d == 1, 0.8, 0.05)
    hand[:, F.O.H_WON] = won
    hand[:, F.O.H_BITS_LO] = np.where(won & (d == 1), 1, 0)
    bits = np.zeros(P.N_TARGET, np.int64)
    bits[P.T_WILDPAIR] = 1
    _, race_tab, _ = F._win_tables(hand, bits, 4)
    _, own_tab, fit = F._win_tables(hand, bits, 4, observed_targets=frozenset({P.T_WILDPAIR}))
    assert fit["observed_targets"] == [P.T_WILDPAIR]
    assert race_tab[P.T_WILDPAIR, 1].max() < 0.7  # the race cannot say it
    assert own_tab[P.T_WILDPAIR, 1, 3:].min() > 0.7  # the positions' rate
    assert np.array_equal(own_tab[P.T_PLAIN], race_tab[P.T_PLAIN])
