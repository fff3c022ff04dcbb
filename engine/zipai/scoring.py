"""字牌 table groups from notation (``mjlab score``'s ``--melds`` for the 字牌 family).

The notation of the 落地 groups (``"peng:d3 pao:x5 chi:x1x2x3"``) and their 胡息, red cards
and kinds; a variant's hand calculator (:func:`engine.variants.luodisao.score_hand`) scores
a win with them.

>>> ntab, huxi, red, tcnt, alike = parse_table_groups("peng:x9 chi:d2d7d10")
>>> ntab, huxi, red
(2, 7, 3)
"""

from __future__ import annotations

import numpy as np

from engine.zipai import layout as Z

from ..errors import UsageError
from . import cards
from . import hand as zhand

__all__ = ["TABLE_WORDS", "parse_table_groups"]

TABLE_WORDS = {
    "chi": Z.T_CHI,
    "peng": Z.T_PENG,
    "xiao": Z.T_XIAO,
    "chouxiao": Z.T_CHOUXIAO,
    "qing": Z.T_QING,
    "pao": Z.T_PAO,
}
"""Table group words: ``chi:x1x2x3`` (吃 or 比, three cards), ``peng:d3`` (碰), ``xiao:x5``
(啸), ``chouxiao:x5`` (臭啸, scored as a 啸), ``qing:d10`` (倾), ``pao:x5`` (跑)."""


def parse_table_groups(text: str):
    """落地 table groups from notation: ``(ntab, huxi, red, tcnt (20,), alike (20,))``.

    ``alike[k]``: the type (``T_*``) of the alike group of kind ``k``, 0 if none.
    UsageError on bad notation.
    """
    tcnt = np.zeros(20, np.int64)
    alike = np.zeros(20, np.int64)
    ntab = huxi = red = 0
    for item in (text or "").split():
        if ":" not in item:
            raise UsageError(f"table group {item!r}: expected WORD:CARDS such as peng:d3")
        word, body = item.split(":", 1)
        if word not in TABLE_WORDS:
            raise UsageError(f"table group {item!r}: unknown word; use {', '.join(TABLE_WORDS)}")
        name = "xiao" if word == "chouxiao" else word
        try:
            h = zhand.group_huxi(name, body)
            counts, kings = cards.parse(body)
        except ValueError as exc:
            raise UsageError(f"table group {item!r}: {exc}") from None
        if word != "chi":
            k = int(np.flatnonzero(counts)[0])
            if alike[k]:
                raise UsageError(f"table group {item!r}: two alike groups of {body}")
            alike[k] = TABLE_WORDS[word]
            counts = np.zeros(20, np.int64)
            counts[k] = 4 if word in ("qing", "pao") else 3
        tcnt += counts
        huxi += h
        red += int(cards.red_count(counts))
        ntab += 1
    if ntab > 5:
        raise UsageError(f"{ntab} table groups: at most 5")
    return ntab, huxi, red, tcnt, alike
