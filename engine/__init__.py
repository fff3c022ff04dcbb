"""mjlab engine: tiles, hand evaluation, variants, the game loop, simulation runs.

>>> from engine import tiles, hand
>>> int(hand.shanten(tiles.parse("123m456p789s1122z")))
0
"""

from __future__ import annotations

from importlib import import_module

__version__ = "0.1.0"

_LAZY = {"tiles", "hand", "exact", "rng", "variants", "records", "run", "game", "zipai"}


def __getattr__(name):
    if name in _LAZY:
        return import_module(f"engine.{name}")
    if name == "simulate":
        return import_module("engine.run").simulate
    raise AttributeError(f"module 'engine' has no attribute {name!r}")


__all__ = sorted(_LAZY | {"simulate", "__version__"})
