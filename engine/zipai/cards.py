"""字牌 cards: the 20 kinds, 王 (jokers), red cards, the text notation and hanzi names.

Cards (RULEBOOK §4.1 rule 1): ranks 1..10 in two sizes, four copies of each kind (80
cards), plus ``k`` 王 jokers (the ``kings`` option, 0..4).

Notation (DESIGN.md): one token per card, a size letter and a rank, ``x1``..``x10`` for
the small cards 一..十 and ``d1``..``d10`` for the big cards 壹..拾, ``w`` for 王.
Spaces are ignored. The hanzi of the cards are accepted as well (一..十, 壹..拾, 叁 or
参, 王), so ``"四四肆"`` is the 大小搭 of the seed page.

Kind index: 0-9 small (``x1`` = 0 .. ``x10`` = 9), 10-19 big (``d1`` = 10 .. ``d10`` =
19); ``size = kind // 10`` (0 small, 1 big), ``rank = kind % 10 + 1``. A hand is held as
``counts``, a ``(20,)`` uint8 array of cards per kind, and ``kings``, the number of 王,
kept apart because a 王 is no kind until a hand is evaluated.

Red cards (rule 5): 二 七 十 and 贰 柒 拾, 24 of the 80; a 王 takes the colour of the card
it stands for.

Examples
--------
>>> from engine.zipai import cards
>>> counts, kings = cards.parse("x1x2x3 d10 w")
>>> int(counts.sum()), kings
(4, 1)
>>> cards.format(counts, kings)
'x1x2x3d10w'
>>> cards.names(counts, kings)
'一二三拾王'
>>> int(cards.red_count(counts))
2
"""

from __future__ import annotations

import re

import numpy as np

__all__ = [
    "N_KINDS",
    "N_RANKS",
    "COPIES",
    "MAX_KINGS",
    "SMALL_NAMES",
    "BIG_NAMES",
    "WANG_NAME",
    "RED",
    "parse",
    "format",
    "names",
    "card",
    "card_name",
    "card_hanzi",
    "red_count",
    "is_red",
]

N_KINDS = 20
"""Number of card kinds: 小 一..十 (0-9) and 大 壹..拾 (10-19)."""

N_RANKS = 10
"""Ranks per size."""

COPIES = 4
"""Copies of each kind in the deck."""

MAX_KINGS = 4
"""Most 王 a deal can hold (the ``kings`` option is 0..4, RULEBOOK §4.1 rule 2)."""

SMALL_NAMES = "一二三四五六七八九十"
"""Hanzi of the small cards ``x1``..``x10``."""

BIG_NAMES = "壹贰叁肆伍陆柒捌玖拾"
"""Hanzi of the big cards ``d1``..``d10`` (the seed writes 叁 as 参; both parse)."""

WANG_NAME = "王"
"""Hanzi of the joker ``w``."""

RED = np.zeros(N_KINDS, dtype=np.bool_)
"""``RED[k]``: kind ``k`` is red (二 七 十 贰 柒 拾)."""
for _rank in (2, 7, 10):
    RED[_rank - 1] = True
    RED[N_RANKS + _rank - 1] = True
RED.setflags(write=False)

_HANZI = {ch: i for i, ch in enumerate(SMALL_NAMES + BIG_NAMES)}
_HANZI["参"] = _HANZI["叁"]
_TOKEN = re.compile(r"\s+|[A-Za-z]\d*|\d+|.", re.S)


def _tokens(text: str):
    """Split notation into tokens; yields (token, position), spaces dropped."""
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if not tok.isspace():
            yield tok, m.start()


def _kind_of_token(tok: str, pos: int) -> int:
    """Kind index of one card token, 20 for 王; ValueError naming the token otherwise."""
    if tok in ("w", WANG_NAME):
        return N_KINDS
    if tok in _HANZI:
        return _HANZI[tok]
    if tok.isdigit():
        raise ValueError(f"rank {tok!r} at position {pos} has no size letter (x small, d big)")
    letter, digits = tok[0], tok[1:]
    if not letter.isascii() or not letter.isalpha():
        raise ValueError(f"unexpected character {tok!r} at position {pos}")
    if letter == "w":
        raise ValueError(f"王 takes no rank: {tok!r} at position {pos}")
    if letter not in "xd":
        raise ValueError(
            f"unknown card letter {letter!r} in {tok!r} at position {pos} "
            "(use x1..x10 small, d1..d10 big, w for 王)"
        )
    if not digits:
        raise ValueError(f"card {tok!r} at position {pos} has no rank (1..10)")
    rank = int(digits)
    if not 1 <= rank <= N_RANKS:
        raise ValueError(f"bad card {tok!r} at position {pos}: ranks are 1..10")
    return (0 if letter == "x" else N_RANKS) + rank - 1


def parse(text: str, *, allow_empty: bool = False):
    """Parse 字牌 notation into ``(counts, kings)``.

    Parameters
    ----------
    text : str
        Cards such as ``"x1x2x3 d10 w"`` (or hanzi, ``"一二三拾王"``).
    allow_empty : bool
        Accept a text with no card (returns zeros).

    Returns
    -------
    counts : numpy.ndarray
        ``(20,)`` uint8, cards per kind.
    kings : int
        Number of 王.

    Raises
    ------
    ValueError
        Naming the offending token: an unknown letter, a rank outside 1..10 (``x0``,
        ``d11``), a missing size letter or rank, a fifth copy of a kind or a fifth 王,
        a stray character, or an empty text.

    Examples
    --------
    >>> c, k = parse("四四肆")
    >>> format(c, k)
    'x4x4d4'
    """
    if not isinstance(text, str):
        raise ValueError(f"card notation must be a string, got {type(text).__name__}")
    counts = np.zeros(N_KINDS, dtype=np.uint8)
    kings = 0
    for tok, pos in _tokens(text):
        k = _kind_of_token(tok, pos)
        if k == N_KINDS:
            if kings >= MAX_KINGS:
                raise ValueError(f"fifth 王 {tok!r} at position {pos}: at most {MAX_KINGS}")
            kings += 1
            continue
        if counts[k] >= COPIES:
            raise ValueError(f"fifth copy of {card_name(k)} in {tok!r} at position {pos}")
        counts[k] += 1
    if not allow_empty and kings == 0 and counts.sum() == 0:
        raise ValueError("empty hand: no card given")
    return counts, kings


def format(counts, kings: int = 0) -> str:  # noqa: A001 - mirrors parse
    """Canonical notation of ``counts`` (small cards, big cards, then 王).

    >>> format(parse("w d10 x3 x1")[0], 1)
    'x1x3d10w'
    """
    counts = _check_counts(counts)
    return "".join(card_name(k) * int(counts[k]) for k in range(N_KINDS)) + "w" * int(kings)


def names(counts, kings: int = 0) -> str:
    """The cards as hanzi, in kind order, 王 last (``'一二三拾王'``)."""
    counts = _check_counts(counts)
    return "".join(card_hanzi(k) * int(counts[k]) for k in range(N_KINDS)) + WANG_NAME * int(kings)


def card(name: str) -> int:
    """Kind index of one card name (``"x3"`` -> 2, ``"d10"`` -> 19, ``"w"`` -> 20)."""
    toks = list(_tokens(name)) if isinstance(name, str) else []
    if len(toks) != 1:
        raise ValueError(f"expected one card, got {name!r}")
    return _kind_of_token(*toks[0])


def card_name(k: int) -> str:
    """Notation of kind ``k`` (0 -> ``'x1'``, 19 -> ``'d10'``, 20 -> ``'w'``)."""
    if k == N_KINDS:
        return "w"
    if not 0 <= k < N_KINDS:
        raise ValueError(f"card kind {k} out of range 0..20")
    return f"{'xd'[k // N_RANKS]}{k % N_RANKS + 1}"


def card_hanzi(k: int) -> str:
    """Hanzi of kind ``k`` (0 -> 一, 19 -> 拾, 20 -> 王)."""
    if k == N_KINDS:
        return WANG_NAME
    if not 0 <= k < N_KINDS:
        raise ValueError(f"card kind {k} out of range 0..20")
    return (SMALL_NAMES + BIG_NAMES)[k]


def is_red(k: int) -> bool:
    """红字 red card: whether kind ``k`` is 二 七 十 贰 柒 拾."""
    return bool(RED[k])


def red_count(counts):
    """红字 red cards: how many of ``counts (..., 20)`` are red, as int64 ``(...)``."""
    counts = np.asarray(counts)
    if counts.shape[-1:] != (N_KINDS,):
        raise ValueError(f"counts must have shape (..., 20), got {counts.shape}")
    return (counts.astype(np.int64) * RED).sum(axis=-1)


def _check_counts(counts):
    counts = np.asarray(counts)
    if counts.shape != (N_KINDS,):
        raise ValueError(f"counts must have shape (20,), got {counts.shape}")
    return counts
