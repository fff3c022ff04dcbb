"""mjlab engine: tiles, hand evaluation, variants, the game loop, simulation runs.

>>> from engine import tiles, hand
>>> int(hand.shanten(tiles.parse("123m456p789s1122z")))
0
"""

from __future__ import annotations

from importlib import import_module

__version__ = "0.1.0"

_LAZY = {
    # name: the module it is (imported on first use)
    "tiles": "engine.tiles",
    "hand": "engine.hand",
    "exact": "engine.exact",
    "rng": "engine.rng",
    "variants": "engine.variants",
    "mahjong": "engine.mahjong",
    "zipai": "engine.zipai",
    "records": "engine.play.records",
    "run": "engine.runs.run",
}


def __getattr__(name):
    if name in _LAZY:
        return import_module(_LAZY[name])
    if name == "simulate":
        return import_module("engine.runs.run").simulate
    raise AttributeError(f"module 'engine' has no attribute {name!r}")


__all__ = sorted(_LAZY.keys() | {"simulate", "__version__"})
