"""Bot parameters of the mahjong family: the layout of one seat's parameter row.

Every seat's bot is a policy code and a row of float64 parameters (``bots[seat]``, an
array ``(4, N_BOT)`` the loop receives next to the policy codes). A policy reads only
its own blocks. The rows are built on the Python side (:mod:`engine.play.bots`) from the
variant's defaults, the committed tuned parameters and fitted models, so two seats of
the same policy may play with different parameters (tuning plays a candidate against
the field this way). Slots are handed out by :class:`engine._slots.Slots`.
"""

from __future__ import annotations

from engine._slots import Slots

STRONG_VERSION = 3
"""Version of the strong policy's parameter layout and meaning; a file made for another
version is refused. 2: ``mult.0`` weighs the plain-only win chance (before, the targets'
multipliers scaled only their extra value) and the model has a ``stake`` and a feeder loss
measured against the seat's own bystander payment. 3: the danger models read the order of
an opponent's discards (features 80-83), and 不搭 is a target (``T_BUDA``, 丽水's 2 倍)."""

LAYOUT = Slots("mahjong bot parameters")

# ---- value: bonuses in quarter tiles (4 = one tile of distance) ---------------------------
B_FLUSH = LAYOUT.block("value.flush")
"""Bonus of 清一色 (one suit, no honors)."""
B_HALF = LAYOUT.block("value.half")
"""Bonus of 混一色 (one suit and honors)."""
B_TRIPLETS = LAYOUT.block("value.triplets")
"""Bonus of all triplets (对对胡 / 碰碰胡)."""
B_PAIRS = LAYOUT.block("value.pairs")
"""Bonus of seven pairs (concealed hands only)."""
B_WILD_PAIR = LAYOUT.block("value.wild_pair")
"""Bonus of two wilds as the pair (福州 金雀), when at most two tiles away."""
B_CHASE_MIN_LIVE = LAYOUT.block("value.chase_min_live")
"""Passes a plain win whose hand can wait for two wilds as the pair (金雀) while more
than this many live tiles beyond the reserve remain (0: never)."""

# ---- strong: scalar parameters (tuned by self-play, ``mjlab tune``) ----------------------
S_ALPHA = LAYOUT.block("strong.alpha")
"""Weight of the expected loss of feeding a win (danger x cost) against the hand's value."""
S_ALPHA_KONG = LAYOUT.block("strong.alpha_kong")
"""Weight of the expected cost of feeding a 明杠 (放杠)."""
S_CLAIM_BIAS = LAYOUT.block("strong.claim_bias")
"""Points a 碰 must gain over passing before it is made."""
S_CHOW_BIAS = LAYOUT.block("strong.chow_bias")
"""Points a 吃 must gain over passing before it is made."""
S_KONG_BIAS = LAYOUT.block("strong.kong_bias")
"""Points a kong may lose against not making it and still be made."""
S_KONG_AN = LAYOUT.block("strong.kong_an")
"""What a 暗杠 brings its maker (kong money, the 番 it adds), in points."""
S_KONG_ADD = LAYOUT.block("strong.kong_add")
"""What a 补杠 brings its maker, in points."""
S_KONG_MING = LAYOUT.block("strong.kong_ming")
"""What a 明杠 from a discard brings its maker, in points."""
S_FEED_KONG = LAYOUT.block("strong.feed_kong")
"""What feeding someone a 明杠 costs, in points (推倒胡 放杠 3)."""
S_ROB = LAYOUT.block("strong.rob")
"""What being robbed of a 补杠 costs, in units of the loss of feeding a win."""
S_CHASE_MIN_LIVE = LAYOUT.block("strong.chase_min_live")
"""As ``value.chase_min_live`` (福州 金雀), for the strong bot."""
N_TARGET = 7
"""Hand targets: plain, 清一色, 混一色, all triplets, seven pairs, wild pair (金雀; under 游金 the
游 shape, one wild left free: engine.mahjong.strong.WILDS_FREE), 不搭."""
T_PLAIN, T_FLUSH, T_HALF, T_TRIPLETS, T_PAIRS, T_WILDPAIR, T_BUDA = range(N_TARGET)
TARGETS = ("plain", "flush", "half", "triplets", "pairs", "wild_pair", "buda")
"""The targets' names, the keys of a variant's ``bot_targets`` (its patterns of each)."""
S_MULT = LAYOUT.block("strong.mult", N_TARGET)
"""Weight of each target's win chance (slot T_PLAIN: of the plain-only rest of the win
chance), see engine.mahjong.strong.hand_value."""

# ---- strong: fitted models (``mjlab fit``), bucket sizes ---------------------------------
N_D = 7
"""Distance buckets of a 13-tile hand: 0..5, and 6 for 6 or more."""
N_UK = 128
"""Ukeire values of the win table: 0..127 (more is read as 127)."""
N_T = 11
"""Live-tile buckets: live // 8, capped at 10."""
N_FEATURES = 84
"""Danger model features (engine.mahjong.strong.danger_features)."""
M_PPLAIN = LAYOUT.block("strong.p_plain", N_D * N_UK * N_T)
"""P(win) of a hand from its plain distance, ukeire and live tiles: [d, u, t]."""
M_UBAR = LAYOUT.block("strong.ubar", N_D)
"""Mean ukeire at each plain distance (for a hand whose ukeire is not computed)."""
M_PTARGET = LAYOUT.block("strong.p_target", N_TARGET * N_D * N_T)
"""P(win with target's pattern) from the target's distance and live tiles: [target, d, t]."""
M_VALUE = LAYOUT.block("strong.value", N_TARGET * 2)
"""Mean points a win of each target brings its winner: [target, winner is dealer]."""
M_STAKE = LAYOUT.block("strong.stake", 2)
"""What a seat loses on average in the deals it does not win (draws included), by
whether it deals: winning also spares it that, so a win is worth value + stake."""
M_LOSS = LAYOUT.block("strong.loss", 4)
"""Mean points the discarder pays when feeding a win: [discarder is dealer, winner is
dealer]."""
M_DANGER = LAYOUT.block("strong.danger", N_FEATURES)
"""Logistic weights of P(an opponent wins on a tile) (engine.mahjong.strong)."""
M_KONGDANGER = LAYOUT.block("strong.kong_danger", N_FEATURES)
"""Logistic weights of P(an opponent can 明杠 a tile)."""

# ---- value and strong: declared after the strong blocks so that their slots stay put --
B_PASS_SELF = LAYOUT.block("value.pass_self")
"""Passes a win on a discard (or a robbed kong) to wait for a self-draw while its outs
(unseen tiles completing it) times the live tiles beyond the reserve reach this (0:
never). Worth it where a self-draw pays far more than a discard win (福州: every other
seat pays X, against the discarder alone); under ``R_PASS_LOCK`` the seat is then locked
out of discard wins until its next draw."""
S_PASS_SELF = LAYOUT.block("strong.pass_self")
"""As ``value.pass_self``, for the strong bot."""
B_KONG_SLACK = LAYOUT.block("value.kong_slack")
"""Makes a kong (暗杠, 补杠, or 明杠 from a discard) while the hand's distance after it is at
most this many tiles more than without it (0: only when it is not farther, as the
efficiency bot). Worth it where kongs pay money on their own (推倒胡: 暗杠 2 from each,
补杠 1 from each, 放杠 3 from the feeder; a plain self-draw pays 2 from each)."""

B_SAFE_TIES = LAYOUT.block("value.safe_ties")
"""The value bot's defence: among the discards at the best distance, it ranks each by
its ukeire less this many ukeire per unseen copy of the tile (the fewer unseen, the more
already visible: the less use to an opponent's wait or 碰), so a small value breaks ties
toward the safer tile and a larger one gives up ukeire for safety; 0: the efficiency
order (ukeire, then random)."""

B_CLAIM_MARGIN = LAYOUT.block("value.claim_margin")
"""Quarter tiles a 碰 or 吃 must gain on the value bot's score (distance less its target
bonuses) before it is made; 0: as the efficiency bot, a claim that keeps the score but
widens the hand is made too. A claim opens the hand (no 七对子 or 不搭 after it) and, in
丽水, three 吃 from the 上家 bind the pair in 统包."""

S_CLAIM_CLOSER = LAYOUT.block("strong.claim_closer")
"""Tiles of distance a 碰 or 吃 must take off the strong bot's hand (before the claim
against after it, the discard to come included) before it is made, whatever its expected
value; 0: the expected value alone decides. In 丽水 1 (a claim that only widens the hand
is refused, as the value bot's ``claim_margin``); a claim opens the hand (no 七对子 or
不搭 after it)."""

S_KONG_HOLD = LAYOUT.block("strong.kong_hold")
"""Points the strong bot's hand value adds for each concealed triplet whose fourth copy it
cannot see, scaled by the live tiles left (``live bucket / 10``): what holding it for a
暗杠 (or a 明杠 on its discard) is worth, where kongs pay money on their own (推倒胡: 暗杠 6,
放杠 3 in all, as much as a plain self-draw). 0: kongs are weighed only when they can be
made (``kong_an``, ``kong_ming``), as before; a variant opts in through its strong
defaults."""

S_TONGBAO = LAYOUT.block("strong.tongbao")
"""Points the strong bot's 吃 loses when it would be its third from the same 上家 (丽水 统包:
after three, if that 上家 wins, the chower pays every loser's share; his own wins pay him
the same either way). 0: not weighed; a variant opts in through its strong defaults."""

S_KONG_TEMPO = LAYOUT.block("strong.kong_tempo")
"""Weight of a kong's tempo in the strong bot's kong choice: the replacement tile is a
draw the seat gets now, worth about ``players / 8`` of a live-tile bucket of its hand's
value (the win tables' buckets are 8 live tiles; a round of draws is ``players``). 0:
not weighed; a variant opts in through its strong defaults (诸暨, where a kong pays no
money, makes its kongs for this)."""

N_LEGAL = 4
"""Buckets of the 台 a hand still needs for the variant's minimum: 0, 1, 2, 3 or more."""
S_MIN_TAI = LAYOUT.block("strong.min_tai")
"""The 台 (or 番) a win needs (诸暨 ``min_tai``); 0: every complete hand may be declared and
the strong bot counts no 台 (the blocks below are not read). A variant derives it and the
next two blocks from its rules (its strong defaults)."""
S_HONOR_TAI = LAYOUT.block("strong.honor_tai", 7)
"""台 a 碰, kong or concealed triplet of each honor kind brings toward the minimum (东南西北
白发中, kinds 27..33)."""
S_WILD_TAI = LAYOUT.block("strong.wild_tai", 2)
"""台 that holding wilds brings toward the minimum: ``[台, from this many wilds]``."""
M_LEGAL = LAYOUT.block("strong.legal", N_LEGAL)
"""The chance of a win with no target's pattern (the plain-only rest of the win chance)
when the hand still needs 0, 1, 2, 3+ 台 for the minimum after its honors and wilds,
relative to the win tables' (fitted from the positions' outcomes, non-increasing in the
台 needed: engine.play.mahjong.fit)."""

N_BOT = LAYOUT.size
"""Length of one seat's parameter row (grows as blocks are declared above)."""


def slots(policy: str) -> dict[str, tuple[int, int]]:
    """The parameters of ``policy``: ``name -> (first slot, length)``."""
    return LAYOUT.group(policy)
