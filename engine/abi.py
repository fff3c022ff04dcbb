"""The kernel ABI shared by both families: the record row, win types, policy codes and
the seating by dealer.

Both game loops (:mod:`engine.play.mahjong.loop`, :mod:`engine.play.zipai.loop`) write one int32
row per deal with the columns below, and the runs, records and checks read them; the
family-specific encodings (rule slots, events, melds or table groups) stay in each
family's ``_layout``. The row's columns are handed out by :class:`engine._slots.Slots`,
so the fixed columns and the variant's extra columns cannot overlap.

>>> (C_DEALER, C_DELTA, C_EXTRA, N_COLS)
(0, 8, 14, 38)
"""

from __future__ import annotations

from engine.jit.njit import kernel

from ._slots import Slots

__all__ = [
    "ROW",
    "C_DEALER",
    "C_STREAK",
    "C_WINNER",
    "C_WIN_TYPE",
    "C_DISCARDER",
    "C_TURNS",
    "C_WILDS",
    "C_VALUE",
    "C_DELTA",
    "C_PAT_LO",
    "C_PAT_HI",
    "C_EXTRA",
    "N_FIXED",
    "MAX_SEATS",
    "MAX_EXTRA",
    "N_COLS",
    "WIN_NONE",
    "WIN_SELF_DRAW",
    "WIN_DISCARD",
    "WIN_ROB_KONG",
    "WIN_KONG_DRAW",
    "WIN_INSTANT",
    "WIN_TYPE_NAMES",
    "P_RANDOM",
    "P_EFFICIENCY",
    "P_VALUE",
    "P_STRONG",
    "POLICY_NAMES",
    "MAX_SEED",
    "MAX_MATCHES",
    "MAX_MATCH_LENGTH",
    "seat_of_place",
    "seat_by_dealer",
]

# ---- record columns (int32 per deal) ---------------------------------------------------
MAX_SEATS = 4
"""Seats a record row has payment columns for."""
MAX_EXTRA = 24
"""Extra columns a variant may fill from C_EXTRA on."""

ROW = Slots("record row")
C_DEALER = ROW.block("dealer")
C_STREAK = ROW.block("streak")
C_WINNER = ROW.block("winner")
C_WIN_TYPE = ROW.block("win_type")
C_DISCARDER = ROW.block("discarder")
C_TURNS = ROW.block("turns")
C_WILDS = ROW.block("wilds")
C_VALUE = ROW.block("value")
C_DELTA = ROW.block("delta", MAX_SEATS)
"""C_DELTA + seat: the seat's payment."""
C_PAT_LO = ROW.block("pat_lo")
"""Pattern bits 0..30 (bit 31 and up in C_PAT_HI)."""
C_PAT_HI = ROW.block("pat_hi")
N_FIXED = ROW.size
"""Columns every variant fills."""
C_EXTRA = ROW.block("extra", MAX_EXTRA)
"""C_EXTRA + i: the variant's i-th extra column."""
N_COLS = ROW.size
ROW.limit = N_COLS

# ---- the records' ranges ------------------------------------------------------------------
MAX_SEED = 2**63 - 1
"""Largest run seed (the records' ``run_seed`` is int64)."""

MAX_MATCHES = 2**31 - 1
"""Most matches in a run (the records' ``match`` is int32)."""

MAX_MATCH_LENGTH = 2**15 - 1
"""Most deals in a match (the records' ``deal`` is int16)."""

# ---- win types (the record's win_type) --------------------------------------------------
WIN_NONE = 0
WIN_SELF_DRAW = 1
WIN_DISCARD = 2
WIN_ROB_KONG = 3
WIN_KONG_DRAW = 4
WIN_INSTANT = 5
WIN_TYPE_NAMES = ("none", "self_draw", "discard", "rob_kong", "kong_draw", "instant")

# ---- policies -----------------------------------------------------------------------------
P_RANDOM = 0
P_EFFICIENCY = 1
P_VALUE = 2
P_STRONG = 3
POLICY_NAMES = ("random", "efficiency", "value", "strong")


# ---- seating by dealer (the run setting seating="dealer") ------------------------------
@kernel(inline="always")
def seat_of_place(dealer, place, players):
    """The seat of place ``place`` counted from the dealer: ``(dealer + place) % players``.

    The one definition of the rotation: both loops seat by it, and the runs layer reads
    it (``seat_of_place.py_func``, on plain ints or whole numpy columns) to find the seat
    a policy held in each row of a by-dealer run.

    >>> seat_of_place.py_func(3, 2, 4)
    1
    """
    return (dealer + place) % players


@kernel
def seat_by_dealer(policies, bots, dealer, players, pols, brows):
    """Seat the policies and bot parameter rows given by place from the dealer: place
    ``j`` sits at seat :func:`seat_of_place` ``(dealer, j, players)``; ``pols`` and
    ``brows`` receive them by seat. The policies (and their rows) are read cyclically, so
    one policy may stand for every place.
    """
    n = policies.shape[0]
    for j in range(players):
        s = seat_of_place(dealer, j, players)
        pols[s] = policies[j % n]
        for k in range(bots.shape[1]):
            brows[s, k] = bots[j % n, k]
