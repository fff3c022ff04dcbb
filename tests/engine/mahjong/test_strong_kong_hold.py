"""The strong bot holds concealed triplets for their kong (``strong.kong_hold``).

In 推倒胡 a kong pays money on its own (暗杠 2 from each, 放杠 3 from the feeder), as much
as a plain self-draw. With ``kong_hold`` the strong hand value adds, for each concealed
triplet whose fourth copy is unseen, that many points times the live bucket / 10, so the
bot keeps a triplet it would break for a wider hand; 0 (every other variant) plays as
before. The tuner searches it only where the variant opts in.
"""

import numpy as np
import pytest

from engine import tiles, variants
from engine.errors import UsageError
from engine.hand._tables import kernel_tables
from engine.mahjong import params as P
from engine.mahjong.layout import R_SHAPES
from engine.mahjong.strong import N_FSC, N_OSUM, SSCR, best_discard, waiting_value
from engine.play.bots import _defaults, seat_bots
from engine.runs import tune

TAB = kernel_tables()
V = variants.get("tuidaohu")
RES = V.resolve({})
SHAPES = int(V.pack(RES)[R_SHAPES])
FIXED = dict(
    alpha=1.0, alpha_kong=0.0, claim_bias=0.0, chow_bias=0.0, kong_bias=0.0, rob=1.0,
    mult=[1.0] * P.N_TARGET,
)  # fmt: skip


def _bot(hold):
    _, rows = seat_bots(V, RES, ("strong",) * 4, {0: {**FIXED, "kong_hold": hold}})
    return rows[0]


def _discard(hand, hold, tb=8):
    h = tiles.parse(hand).astype(np.int64)
    unseen = np.maximum(4 - h, 0)
    k, _ = best_discard(
        h, 0, 4, SHAPES, TAB, _bot(hold), unseen, np.array([0, 1, 0, 0], np.int64), False, tb,
        0, False, np.zeros((3, N_OSUM), np.int64), 3, 0, 3, False, False,
        np.zeros(0, np.uint64), np.zeros(SSCR, np.int64), np.zeros(N_FSC),
    )  # fmt: skip
    return k


def test_a_triplet_broken_for_a_wider_hand_is_kept_with_kong_hold():
    # four pairs and a triplet: without kong_hold a 2p goes, toward 七对子 (five pairs)
    hand = "7m2227788p1s99s1237z"
    assert _discard(hand, 0.0) == tiles.kind("2p")
    held = _discard(hand, 6.0)
    assert held != tiles.kind("2p")
    assert tiles.parse(hand)[held] == 1  # a lone tile goes instead


def test_kong_hold_adds_to_the_waiting_value_per_live_triplet():
    h = tiles.parse("555p777s123m45m99s").astype(np.int64)
    unseen = np.maximum(4 - h, 0)

    def wv(hold, uns):
        return waiting_value(
            h, 0, 4, SHAPES, TAB, _bot(hold), uns, np.array([0, 1, 0, 0], np.int64), False, 5, 0,
            np.zeros(SSCR, np.int64),
        )  # fmt: skip

    base = wv(0.0, unseen)
    assert wv(2.0, unseen) == pytest.approx(base + 2.0 * 2 * 5 / 10)
    seen = unseen.copy()
    seen[tiles.kind("5p")] = 0  # the fourth 5p is visible: no kong to come from it
    assert wv(2.0, seen) == pytest.approx(wv(0.0, seen) + 2.0 * 1 * 5 / 10)


def test_kong_hold_is_tuned_only_where_the_variant_opts_in():
    for name in ("lishui", "zhuji", "fuzhou", "tuidaohu"):
        v = variants.get(name)
        opted = "kong_hold" in _defaults(v, "strong", v.resolve({}))
        dims = {d.name for d in tune._relevant(v, v.resolve({}), "strong")}
        assert ("kong_hold" in dims) == opted == (name == "tuidaohu"), name


def test_tune_only_searches_the_named_parameters():
    res = tune.tune(
        "tuidaohu", "strong", deals=32, generations=1, popsize=2, progress=False,
        only=["kong_hold"],
    )  # fmt: skip
    start = res["start"]
    changed = {k for k, val in res["params"].items() if val != start.get(k)}
    assert changed <= {"kong_hold"}
    assert res["tune"]["dims"] == ["kong_hold"]
    assert res["tune"]["command"].endswith("--only kong_hold")
    assert res["tune"]["start_from"].startswith("mjlab tune tuidaohu --policy strong")
    for bad in (["nope"], [""], ["alpha"]):  # alpha: no discard wins in 推倒胡
        with pytest.raises(UsageError, match="--only"):
            tune.tune("tuidaohu", "strong", deals=32, generations=1, progress=False, only=bad)
