"""Bot parameters of the 字牌 family: the layout of one seat's parameter row.

As :mod:`engine.mahjong.params` for the mahjong family: ``bots[seat]`` is a float64 row
that the seat's policy reads its own blocks from. Only the ``strong`` policy has
parameters (:mod:`engine.zipai.strong`): scalars tuned by self-play (``mjlab tune``)
and fitted models (``mjlab fit``, :mod:`engine.runs.fit`).
"""

from __future__ import annotations

from engine._slots import Slots

STRONG_VERSION = 1
"""Version of the strong policy's parameter layout and meaning; a file made for another
version is refused."""

LAYOUT = Slots("zipai bot parameters")

# ---- strong: scalar parameters (tuned by self-play, ``mjlab tune``) ----------------------
S_ALPHA = LAYOUT.block("strong.alpha")
"""Weight of the expected payment of feeding a win (danger x what a feeder pays) against
the hand's expected points."""
S_KEEP = LAYOUT.block("strong.keep")
"""Share of a discard's expected points given up per 64 units of its keep value (the
value bot's measure of how much a card helps): orders discards the tables tie."""
S_PENG_BIAS = LAYOUT.block("strong.peng_bias")
"""A 碰 is made when it gains more than this many mean wins' worth of points (may be < 0)."""
S_CHI_BIAS = LAYOUT.block("strong.chi_bias")
"""A 吃 is made when it gains more than this many mean wins' worth of points."""
S_COLOUR = LAYOUT.block("strong.colour")
"""Exponent of the fitted colour factor (红胡 / 黑胡 / 一点朱 / 全红 by red cards held)."""
S_SURVIVE = LAYOUT.block("strong.survive")
"""Chance that a round of the other players passes without their win (self-draw race)."""
S_PASS_RISK = LAYOUT.block("strong.pass_risk")
"""Weight of what the others' wins cost while a passed win waits for its self-draw."""

# ---- strong: fitted models (``mjlab fit``), bucket sizes ---------------------------------
N_D = 8
"""Distance buckets (engine.zipai.bots.distance after the discard): 0..6, 7 for more."""
N_HS = 3
"""Certain 胡息 classes: at least the minimum (6), 3-5, 0-2."""
N_T = 6
"""Stock buckets: stock left // 7, capped at 5."""
N_HX = 6
"""Certain 胡息 buckets of the value model: 0-2, 3-5, 6-8, 9-11, 12-17, 18 and more."""
N_RED = 16
"""Red cards held (hand and table): 0..14, 15 for more."""
N_FEATURES = 72
"""Danger model features (engine.zipai.strong.danger_features)."""
M_PWIN = LAYOUT.block("strong.p_win", N_D * N_HS * N_T)
"""P(the seat wins the deal) from its distance, 胡息 class and the stock left: [d, hs, t]."""
M_VBASE = LAYOUT.block("strong.v_base")
"""Mean points a win brings its winner (all payments of the others)."""
M_VHX = LAYOUT.block("strong.v_huxi", N_HX)
"""Factor of a win's points by the winner's certain 胡息 at the time (mean 1)."""
M_VRED = LAYOUT.block("strong.v_red", N_RED)
"""Factor of a win's points by the red cards the winner held at the time (mean 1)."""
M_LOSS = LAYOUT.block("strong.loss", 2)
"""Mean points paid: [by a discarder whose discard is won on (包赔), by each other player
of a self-drawn or flipped win]."""
M_DANGER = LAYOUT.block("strong.danger", N_FEATURES)
"""Logistic weights of P(an opponent can win on a discarded card now)."""

N_BOT = LAYOUT.size
"""Length of one seat's parameter row."""


def slots(policy: str) -> dict[str, tuple[int, int]]:
    """The parameters of ``policy``: ``name -> (first slot, length)``."""
    return LAYOUT.group(policy)
