"""Bot parameters of the mahjong family: the layout of one seat's parameter row.

Every seat's bot is a policy code and a row of float64 parameters (``bots[seat]``, an
array ``(4, N_BOT)`` the loop receives next to the policy codes). A policy reads only
its own blocks. The rows are built on the Python side (:mod:`engine.bots`) from the
variant's defaults, the committed tuned parameters and fitted models, so two seats of
the same policy may play with different parameters (tuning plays a candidate against
the field this way). Slots are handed out by :class:`engine._slots.Slots`.
"""

from __future__ import annotations

from .._slots import Slots

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

N_BOT = LAYOUT.size
"""Length of one seat's parameter row (grows as blocks are declared above)."""


def slots(policy: str) -> dict[str, tuple[int, int]]:
    """The parameters of ``policy``: ``name -> (first slot, length)``."""
    return LAYOUT.group(policy)
