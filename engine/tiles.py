"""Tile kinds, the text notation, and glyphs for display.

Notation (DESIGN.md): digits followed by a suit letter, ``m`` 万 (characters), ``p``
筒/饼 (dots), ``s`` 条/索 (bamboo), ``z`` honors in the order ``1z`` 东 ``2z`` 南 ``3z`` 西
``4z`` 北 ``5z`` 白 ``6z`` 发 ``7z`` 中. Flowers are written ``f1`` .. ``f8`` (春夏秋冬梅兰竹菊),
one token each. Spaces separate groups and are ignored.

Kind index: 0-8 ``m``, 9-17 ``p``, 18-26 ``s``, 27-33 ``z``. A hand is held as
``counts``: a ``(34,)`` uint8 array, the number of tiles of each kind.

Examples
--------
>>> from engine import tiles
>>> c = tiles.parse("123m456p789s11z 222z")
>>> int(c.sum())
14
>>> tiles.format(c)
'123m456p789s11222z'
>>> tiles.kind_name(tiles.kind("7z"))
'7z'
"""

from __future__ import annotations

import re

import numpy as np

__all__ = [
    "N_KINDS",
    "N_FLOWERS",
    "SUITS",
    "HONOR_NAMES",
    "FLOWER_NAMES",
    "parse",
    "parse_flowers",
    "format",
    "format_flowers",
    "kind",
    "kind_name",
    "kinds",
    "glyphs",
    "glyph",
    "next_kind",
    "is_terminal_or_honor",
]

N_KINDS = 34
"""Number of tile kinds (27 suited + 7 honors)."""

N_FLOWERS = 8
"""Number of flower tiles (one copy each): 春夏秋冬梅兰竹菊."""

SUITS = "mpsz"
"""Suit letters in kind-index order."""

HONOR_NAMES = "东南西北白发中"
"""Hanzi of the honors 1z..7z."""

FLOWER_NAMES = "春夏秋冬梅兰竹菊"
"""Hanzi of the flowers f1..f8."""

ORPHANS = np.array([0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33], dtype=np.int64)
"""Kinds of the terminals and honors (幺九), used by 十三幺."""

_GLYPHS = (
    [chr(0x1F007 + i) for i in range(9)]  # 🀇..🀏 characters
    + [chr(0x1F019 + i) for i in range(9)]  # 🀙..🀡 dots
    + [chr(0x1F010 + i) for i in range(9)]  # 🀐..🀘 bamboo
    + [chr(c) for c in (0x1F000, 0x1F001, 0x1F002, 0x1F003, 0x1F006, 0x1F005, 0x1F004)]
)
_FLOWER_GLYPHS = [
    chr(c) for c in (0x1F026, 0x1F027, 0x1F028, 0x1F029, 0x1F022, 0x1F023, 0x1F025, 0x1F024)
]

_TOKEN = re.compile(r"\s+|f\d|\d+[a-zA-Z]?|.", re.S)


def _tokens(text: str):
    """Split notation into tokens; yields (token, position)."""
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if tok.isspace():
            continue
        yield tok, m.start()


def _parse(text: str, allow_flowers: bool, allow_empty: bool):
    if not isinstance(text, str):
        raise ValueError(f"tile notation must be a string, got {type(text).__name__}")
    counts = np.zeros(N_KINDS, dtype=np.uint8)
    flowers = np.zeros(N_FLOWERS, dtype=np.uint8)
    for tok, pos in _tokens(text):
        if tok[0] == "f" and len(tok) == 2 and tok[1].isdigit():
            number = int(tok[1])
            if not allow_flowers:
                raise ValueError(f"flower {tok!r} at position {pos} is not allowed here")
            if not 1 <= number <= N_FLOWERS:
                raise ValueError(f"bad flower {tok!r} at position {pos}: flowers are f1..f8")
            if flowers[number - 1]:
                raise ValueError(f"flower {tok!r} appears twice (there is one of each)")
            flowers[number - 1] = 1
            continue
        if tok.isdigit():
            raise ValueError(f"digits {tok!r} at position {pos} have no suit letter")
        if len(tok) >= 2 and tok[:-1].isdigit():
            suit = tok[-1]
            if suit not in SUITS:
                raise ValueError(
                    f"unknown suit letter {suit!r} in {tok!r} at position {pos} "
                    "(use m, p, s, z, or f1..f8 for flowers)"
                )
            base = SUITS.index(suit) * 9
            top = 7 if suit == "z" else 9
            for d in tok[:-1]:
                number = int(d)
                if not 1 <= number <= top:
                    raise ValueError(
                        f"bad tile {d}{suit} in {tok!r} at position {pos}: "
                        f"{suit} tiles are 1..{top}"
                    )
                k = base + number - 1
                if counts[k] >= 4:
                    raise ValueError(f"fifth copy of {d}{suit} in {tok!r}: at most 4 of a kind")
                counts[k] += 1
            continue
        raise ValueError(f"unexpected character {tok[0]!r} at position {pos} in {text!r}")
    if not allow_empty and counts.sum() == 0 and flowers.sum() == 0:
        raise ValueError("empty hand: no tiles given")
    return counts, flowers


def parse(text: str, *, flowers: bool = False, allow_empty: bool = False):
    """Parse tile notation into counts.

    Parameters
    ----------
    text : str
        Notation such as ``"123m456p789s11z 222z"``.
    flowers : bool
        If true, flower tokens ``f1..f8`` are accepted and ``(counts, flower_counts)``
        is returned, the second a ``(8,)`` uint8 array. Otherwise a flower is an error.
    allow_empty : bool
        Accept an empty string (returns zeros).

    Returns
    -------
    numpy.ndarray
        ``(34,)`` uint8 counts (and the ``(8,)`` flowers when ``flowers=True``).

    Raises
    ------
    ValueError
        Naming the offending token: unknown suit letter, a digit out of range (0, or 8/9
        on ``z``), a fifth copy, digits without a suit, stray characters, empty input.
    """
    counts, flower_counts = _parse(text, flowers, allow_empty)
    return (counts, flower_counts) if flowers else counts


def parse_flowers(text: str):
    """Parse a hand that may contain flowers; returns ``(counts, flower_counts)``."""
    return _parse(text, True, False)


def format(counts, flowers=None) -> str:  # noqa: A001 - mirrors tiles.parse
    """Format counts in canonical notation (suits in order m, p, s, z, then flowers).

    >>> format(parse("11z 3m 12m"))
    '123m11z'
    """
    counts = np.asarray(counts)
    if counts.shape != (N_KINDS,):
        raise ValueError(f"counts must have shape (34,), got {counts.shape}")
    out = []
    for s, letter in enumerate(SUITS):
        top = 7 if letter == "z" else 9
        digits = "".join(str(i + 1) * int(counts[s * 9 + i]) for i in range(top))
        if digits:
            out.append(digits + letter)
    if flowers is not None:
        out.extend(f"f{i + 1}" for i in range(N_FLOWERS) if flowers[i])
    return "".join(out)


def format_flowers(flowers) -> str:
    """Format a ``(8,)`` flower count array as ``f1f3...``."""
    return "".join(f"f{i + 1}" for i in range(N_FLOWERS) if flowers[i])


def kind(name: str) -> int:
    """Kind index of a single tile name such as ``"5m"`` or ``"7z"``."""
    c = parse(name)
    if c.sum() != 1:
        raise ValueError(f"expected one tile, got {name!r}")
    return int(np.flatnonzero(c)[0])


def kinds(text: str) -> list[int]:
    """Kind indices of a list of tiles (``"5m,5p"`` or ``"5m 5p"``), in order given."""
    out = []
    for part in re.split(r"[,\s]+", text.strip()):
        if part:
            c = parse(part)
            out.extend(int(k) for k in np.repeat(np.arange(N_KINDS), c))
    if not out:
        raise ValueError(f"no tile named in {text!r}")
    return out


def kind_name(k: int) -> str:
    """Notation of one kind index, e.g. ``0 -> '1m'``."""
    if not 0 <= k < N_KINDS:
        raise ValueError(f"kind index {k} out of range 0..33")
    return f"{k % 9 + 1}{SUITS[k // 9]}"


def glyph(k: int) -> str:
    """Unicode mahjong glyph of kind ``k`` (🀇 for 1m ... 🀄 for 7z)."""
    return _GLYPHS[k]


def glyphs(counts, flowers=None) -> str:
    """All tiles of ``counts`` as Unicode glyphs, in kind order."""
    counts = np.asarray(counts)
    s = "".join(_GLYPHS[k] * int(counts[k]) for k in range(N_KINDS))
    if flowers is not None:
        s += "".join(_FLOWER_GLYPHS[i] for i in range(N_FLOWERS) if flowers[i])
    return s


def next_kind(k: int) -> int:
    """The kind after ``k`` in the indicator cycle (9->1 in a suit, 东南西北, 中发白).

    Used where a flipped indicator names the wild as the next kind (翻鬼, 诸暨 财神).
    Dragons cycle 中→发→白→中 (RULEBOOK §2.4, §5.2).
    """
    if k < 27:
        return k - k % 9 + (k % 9 + 1) % 9
    if k < 31:
        return 27 + (k - 27 + 1) % 4
    return {33: 32, 32: 31, 31: 33}[k]


def is_terminal_or_honor(k: int) -> bool:
    """Whether kind ``k`` is a terminal (1 or 9) or an honor."""
    return k >= 27 or k % 9 in (0, 8)
