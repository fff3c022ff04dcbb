"""Bot parameters of the 字牌 family: the layout of one seat's parameter row.

As :mod:`engine.game._params` for the mahjong family: ``bots[seat]`` is a float64 row
that the seat's policy reads its own blocks from.
"""

from __future__ import annotations

from .._slots import Slots

LAYOUT = Slots("zipai bot parameters")

N_BOT = LAYOUT.size
"""Length of one seat's parameter row."""


def slots(policy: str) -> dict[str, tuple[int, int]]:
    """The parameters of ``policy``: ``name -> (first slot, length)``."""
    return LAYOUT.group(policy)
