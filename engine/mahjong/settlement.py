"""A deal's settlement inputs read back from its record row (re-scoring, engine.runs.rescore).

A variant's ``restore`` hook rebuilds what its ``settle`` hook reads (context slots, the
money matrix, the pattern bits) from a record row, so that re-scoring recorded deals under
other payout options runs the variant's own settlement, not a second copy of it
(:mod:`engine.play.mahjong.rescore`). :func:`row_context` sets the slots every variant's
settlement reads.
"""

from __future__ import annotations

import numpy as np

from engine.jit.njit import kernel
from engine.mahjong.layout import (
    C_DEALER,
    C_DISCARDER,
    C_PAT_HI,
    C_PAT_LO,
    C_STREAK,
    C_TURNS,
    C_WIN_TYPE,
    C_WINNER,
    X_DEALER,
    X_DISCARDER,
    X_KONG_FROM,
    X_ROBBED,
    X_STREAK,
    X_TURNS,
    X_WIN_TYPE,
    X_WINNER,
)

__all__ = ["row_context", "record_bits", "owe_net"]


@kernel(inline="always")
def record_bits(row):
    """The pattern bits a record row carries."""
    return (np.int64(row[C_PAT_LO]) & 0x7FFFFFFF) | ((np.int64(row[C_PAT_HI]) & 0x7FFFFFFF) << 31)


@kernel
def row_context(ctx, row):
    """Set the deal's context slots a record row carries (winner, dealer, streak, win type,
    the discarder, who is also the robbed kong player of a 抢杠 win, turns); the kong
    feeder -1 (a variant that records it sets it). Returns the recorded pattern bits.
    """
    ctx[X_WINNER] = row[C_WINNER]
    ctx[X_DEALER] = row[C_DEALER]
    ctx[X_STREAK] = row[C_STREAK]
    ctx[X_WIN_TYPE] = row[C_WIN_TYPE]
    ctx[X_DISCARDER] = row[C_DISCARDER]
    ctx[X_ROBBED] = row[C_DISCARDER]
    ctx[X_TURNS] = row[C_TURNS]
    ctx[X_KONG_FROM] = -1
    return record_bits(row)


@kernel(inline="always")
def owe_net(pay, net, players):
    """Add to ``pay[p, q]`` (what p owes q) debts that move ``net[s]`` (summing to 0) to
    each seat s: every seat but 0 settles with seat 0.
    """
    for s in range(1, players):
        pay[s, 0] -= net[s]
