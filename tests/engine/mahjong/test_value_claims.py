"""The value bot's claims against its score (``value.claim_margin``).

A 碰 or 吃 is made when the hand after it scores better than the hand as it stands; the
margin is what the claim must gain on the value bot's score (quarter tiles), so with 1 a
claim that only widens the hand (same distance, more ukeire) is refused.
"""

import numpy as np

from engine import tiles, variants
from engine.hand._kernels import _distance
from engine.hand._tables import kernel_tables
from engine.mahjong.bots import waiting_sc
from engine.play.bots import seat_bots
from engine.runs.run import simulate

TAB = kernel_tables()


def _row(**params):
    v = variants.get("lishui")
    _, rows = seat_bots(v, v.resolve({}), ("value",) * 4, {0: params})
    return rows[0]


def test_the_margin_is_taken_off_the_standing_hand_only():
    h = tiles.parse("123m456p789s1133z").astype(np.int64)
    minfo = np.array([0, 1, 0], np.int64)
    d = _distance(h, 0, 4, 1, TAB)
    flat = dict(flush=0, triplets=0, pairs=0)
    plain = waiting_sc(2, h, 0, 4, 1, TAB, _row(**flat, claim_margin=0), minfo)
    assert plain == 4 * d
    marg = waiting_sc(2, h, 0, 4, 1, TAB, _row(**flat, claim_margin=1), minfo)
    assert marg == plain - 1
    # the committed 丽水 value bot claims with a margin (engine/variants/lishui/value.json)
    assert waiting_sc(2, h, 0, 4, 1, TAB, _row(**flat), minfo) == plain - 1
    # the efficiency bot has no margin
    assert waiting_sc(1, h, 0, 4, 1, TAB, _row(claim_margin=3), minfo) == 4 * d


def test_a_margin_no_claim_can_beat_slows_the_hand():
    """On the same walls, a value seat whose claims must gain more than a tile makes
    (almost) none, and wins less often than with the efficiency bot's rule (丽水)."""

    def won(margin):
        df = simulate(
            "lishui", 3000, seed=23, policies=["value"] + ["efficiency"] * 3,
            bot_params={0: {"claim_margin": margin}}, workers=1, progress=False,
        ).to_pandas()  # fmt: skip
        return (df["winner"].to_numpy() == 0).astype(float)

    d = won(5.0) - won(0.0)
    se = d.std(ddof=1) / np.sqrt(len(d))
    assert d.mean() < -3 * se < 0
