"""The 字牌 family (祁阳落地扫 ``luodisao``): cards, hand evaluation (胡息), game loop.

- :mod:`engine.zipai.cards`: the 20 card kinds and 王, red cards, notation.
- :mod:`engine.zipai.hand`: splitting a player's cards into 5 门子 with the most 胡息
  (API around the kernels of ``_huxi``).
"""

from __future__ import annotations

from . import cards, hand

__all__ = ["cards", "hand"]
