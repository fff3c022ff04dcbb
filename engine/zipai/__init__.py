"""The 字牌 family (祁阳落地扫 ``luodisao``): cards, hand evaluation (胡息), game loop.

- :mod:`engine.zipai.cards`: the 20 card kinds and 王, red cards, notation.
- :mod:`engine.zipai.hand`: splitting a player's cards into 5 门子 with the most 胡息
  (API around the kernels of ``_huxi``).
- :mod:`engine.zipai.scoring`: table groups from notation (``mjlab score --melds``).
- :mod:`engine.zipai.exact`: the exact probability of 天胡 (``mjlab exact``).
- :mod:`engine.play.zipai.replay`: one deal turn by turn (``mjlab replay``).
- :mod:`engine.play.zipai.scenario`: stacked decks for tests and examples.
- :mod:`engine.play.zipai.testing`: the family's conformance checks.
- Kernels: ``_huxi`` (胡息 search), ``_bots`` (policies), ``_loop`` (the game loop),
  encodings in ``_layout``. The variant's own scoring (醒, 囤, 番, payments) and patterns
  are in its folder, :mod:`engine.variants.luodisao`.
"""

from __future__ import annotations

from . import cards, hand

__all__ = ["cards", "hand"]
