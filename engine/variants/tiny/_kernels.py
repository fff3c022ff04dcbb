"""The tiny test variant's scoring and settlement kernels (numba). Kernels only.

Its three patterns are declared here, beside their detectors: each one's bit, the big
mask and the value table the kernels multiply (:data:`VALUES`) are read from the
declaration at import (numba freezes them as constants).
"""

from __future__ import annotations

import numpy as np

from engine.jit.njit import kernel
from engine.mahjong.layout import RULES, WIN_DISCARD, X_DISCARDER, X_WIN_TYPE, X_WINNER
from engine.mahjong.patterns import suit_mask, triplets_only_distance
from engine.mahjong.settlement import row_context

from .._base import Pattern, big_mask, pattern_bits

# ---- the patterns: one declaration each (record column pat_<name>, bit = place) -----
PATTERNS = (
    Pattern("pengpeng", "碰碰胡", "Four triplets or kongs and a pair (×2).", big=True, value=2),
    Pattern("qingyise", "清一色", "One suit, no honors (×4).", big=True, value=4),
    Pattern("zimo", "自摸", "Won on the winner's own draw (×2).", value=2),
)
"""The scoring patterns, in bit order; ``value`` is each one's factor (they multiply)."""
BIT = pattern_bits(PATTERNS)
"""Bit number of each pattern by name."""
BIG_MASK = big_mask(PATTERNS)
"""The bits of the big hands."""
N_PATTERNS = len(PATTERNS)
P_PENGPENG = BIT["pengpeng"]
P_QINGYISE = BIT["qingyise"]
P_ZIMO = BIT["zimo"]
VALUES = np.array([p.value for p in PATTERNS], np.int64)
"""Each pattern's factor, in bit order (from the declaration)."""

KERNEL_ID = 5
"""This variant's id in ``rules[R_VARIANT]``: the game loop's hooks (engine.play.mahjong.hooks)
call this module's hook kernels for it."""

VAR = RULES.sub("var", "tiny rules")
T_BASE = VAR.block("base")
"""Points of a win before the pattern factors (option ``pay_base``)."""


@kernel
def patterns(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Pattern bits of a complete hand (no wilds, no chows in this variant)."""
    bits = np.int64(0)
    mask = suit_mask(h, melds, nmeld)
    if mask == 1 or mask == 2 or mask == 4:
        bits |= 1 << P_QINGYISE
    if triplets_only_distance(h, sets) <= w:
        bits |= 1 << P_PENGPENG
    if ctx[X_WIN_TYPE] != WIN_DISCARD:
        bits |= 1 << P_ZIMO
    return bits


@kernel
def settle(rules, ctx, pay, bits, players, delta, extra):
    """Payments into ``delta``: the value (``pay_base`` × each pattern's factor) from the discarder
    of a discard win, else from every other seat.
    """
    winner = ctx[X_WINNER]
    if winner < 0:
        return 0
    amount = rules[T_BASE]
    for i in range(N_PATTERNS):
        if (bits >> i) & 1:
            amount *= VALUES[i]
    if ctx[X_WIN_TYPE] == WIN_DISCARD:
        pay[ctx[X_DISCARDER], winner] += amount
    else:
        for s in range(players):
            if s != winner:
                pay[s, winner] += amount
    for p in range(players):
        for q in range(players):
            delta[q] += pay[p, q]
            delta[p] -= pay[p, q]
    return amount


@kernel
def restore(rules, ctx, pay, row):
    """What :func:`settle` reads, from a record row (re-scoring): the deal's slots and
    its pattern bits, which no payout option moves.
    """
    return row_context(ctx, row)
