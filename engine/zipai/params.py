"""Bot parameters of the 字牌 family: the layout of one seat's parameter row.

As :mod:`engine.mahjong.params` for the mahjong family: ``bots[seat]`` is a float64 row
that the seat's policy reads its own blocks from. The ``strong`` policy has
parameters (:mod:`engine.zipai.strong`): scalars tuned by self-play (``mjlab tune``)
and fitted models (``mjlab fit``, :mod:`engine.runs.fit`); the ``value`` policy has a few
hand-set weights of its claims and passes (:mod:`engine.zipai.bots`), tunable the same
way.
"""

from __future__ import annotations

from engine._slots import Slots

STRONG_VERSION = 2
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
"""Chance that a round of the other players passes without their win (self-draw race),
for the two others of a three-seat table (``** ((seats - 1) / 2)`` at another)."""
S_PASS_RISK = LAYOUT.block("strong.pass_risk")
"""Weight of what the others' wins cost while a passed win waits for its self-draw."""
S_PAIR = LAYOUT.block("strong.pair")
"""Share of the hand's expected points that one 胡息 a pair may still bring (as 碰 or 啸,
engine.zipai.bots.pair_potential) is worth: a 吃 that breaks the pair gives it up."""

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
N_OB = 8
"""Live-outs buckets of a waiting hand: 1, 2, 3, 4, 5, 6, 7-8, 9 and more."""
N_FEATURES = 72
"""Danger model features (engine.zipai.strong.danger_features)."""
M_PWIN = LAYOUT.block("strong.p_win", N_D * N_HS * N_T)
"""P(the seat wins the deal) from its distance, 胡息 class and the stock left: [d, hs, t]
(a hand that does not wait yet)."""
M_POUT = LAYOUT.block("strong.p_out", N_OB * N_T)
"""P(the seat wins the deal) from a waiting hand's live outs (the unseen cards that
complete it) and the stock left: [ob, t]; :data:`M_PWIN` is fitted on the hands that do
not wait."""
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

# ---- strong: what the wins were made of (fitted), to price them under other rules ------
N_COL = 5
"""Colour classes of a win: none, 黑胡, 一点朱, 红胡, 全红."""
N_METH = 8
"""Win methods: another player's card, 自摸, 王钓, 王钓王, 王闯, 王闯王, 王炸, 王炸王."""
N_FAN = 13
"""The 番 factors the packed rules hold (the variant's patterns, in bit order)."""
M_QCOL = LAYOUT.block("strong.q_colour", N_RED * N_COL)
"""P(a win's colour class | the red cards its winner held at the position): [red, c]."""
M_QCOL_ALL = LAYOUT.block("strong.q_colour_all", N_COL)
"""P(colour class) over all wins."""
M_QMETH = LAYOUT.block("strong.q_method", 2 * N_METH)
"""P(win method): [0] over all wins, [1] over the self-drawn and flipped wins."""
M_TUN = LAYOUT.block("strong.tun", N_HX * 3)
"""By the winner's certain 胡息 bucket at the position: the win's mean 胡息, its mean 醒
under 跟醒 (copies of the winning card) and the mean 醒 of a kind turned up at random
(the winner's real cards / 20 plus his 王): [hx, 3]."""
M_TUN_ALL = LAYOUT.block("strong.tun_all", 3)
"""The same three means over all wins."""
M_FIT_RULES = LAYOUT.block("strong.fit_rules", N_FAN + 5)
"""The rules the values were fitted under: the 番 factors, 囤 per 醒, 双醒, 番 added (1) or
multiplied (0), the players who pay a win and the 醒 procedure (0 跟醒)."""

# ---- strong: derived per match from the run's rules (not fitted, not tuned) -------------
D_RHX = LAYOUT.block("derived.r_huxi", N_HX)
"""Factor of a win's points under the run's 囤 per 醒, 双醒 and 醒 procedure against the
fit's, by certain 胡息 bucket."""
D_RRED = LAYOUT.block("derived.r_red", N_RED)
"""Factor of a win's points under the run's 番 factors against the fit's, by red cards."""
D_RALL = LAYOUT.block("derived.r_all")
"""Factor of a win's points: the players who pay it, against the fit's."""
D_RLOSS = LAYOUT.block("derived.r_loss", 2)
"""Factors of the two fitted losses (``strong.loss``) under the run's rules."""

# ---- value: weights of the claims and the passed wins (``mjlab tune --policy value``) ----
V_HUXI = LAYOUT.block("value.huxi")
"""Worth of one certain 胡息, in cards of distance (engine.zipai.bots.distance)."""
V_PAIR = LAYOUT.block("value.pair")
"""Weight of the 胡息 a pair may still bring as 碰 or 啸, lost when a 吃 breaks it."""
V_CLAIM = LAYOUT.block("value.claim_margin")
"""A 碰 or 吃 is made when it gains more than this many cards of distance (may be < 0)."""
V_PASS = LAYOUT.block("value.pass_margin")
"""An optional win on another player's card is passed when the self-draw race is worth
more than the win now by this share."""

N_BOT = LAYOUT.size
"""Length of one seat's parameter row."""


def slots(policy: str) -> dict[str, tuple[int, int]]:
    """The parameters of ``policy``: ``name -> (first slot, length)``."""
    return LAYOUT.group(policy)
