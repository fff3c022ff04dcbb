"""胡息 hand evaluation of the 字牌 family: 5 门子, the best 胡息, red cards, batched.

A player's cards are his concealed hand (``counts`` and ``kings`` 王), the groups he has
laid on the table (a :class:`Table`: how many, their 胡息, their red cards) and, when a
win is being checked, a *candidate* card. :func:`evaluate` splits the concealed cards
and the candidate into the 门子 still missing and returns the most 胡息 of any split,
the red cards of that split and whether it wins. Leading dimensions are a batch.

Rules (RULEBOOK §4.2, §4.4, §4.5), as implemented:

- **门子** (rule 16): all the cards form exactly 5 门子: 3-card groups, 4-card groups and at
  most one pair (将). The number of cards decides the mix: 15 cards are five 3-card
  groups; after a 跑 that cost a discard, 4+3+3+3+2 (the pair); after a 倾, 4+3+3+3+3.
- **3-card groups** (rule 6): 句, three consecutive ranks of one size (胡息 0, but
  一二三 3 and 壹贰叁 6); 二七十 3 and 贰柒拾 6; 大小搭, two of a rank in one size and one
  of the same rank in the other (四四肆, 肆肆四; 0); three alike.
- **胡息 of alike groups** (rule 7, :data:`HUXI`, small / big): three alike in the hand,
  坎 3 / 6; completed by a self-drawn candidate, 啸, also 3 / 6 (so it is valued as 坎);
  completed by a candidate from another player (a discard or a card he turned up), 碰
  1 / 3. Four alike: 倾 9 / 12 when all the player's own (four dealt, a self-drawn
  fourth card of a 坎, or with 王), 跑 6 / 9 when the fourth came from another player.
  The pair and 大小搭 and plain 句 have 0.
- **Table groups** keep the 胡息 they were laid with (:func:`parse_table`): 碰 1 / 3,
  啸 3 / 6, 倾 9 / 12, 跑 6 / 9, and a 吃 group its own value (一二三 / 二七十 3 / 6).
- **坎 never split** (rule 12): three real cards of a kind in the hand stay together as
  three alike, or as four alike with the candidate or a 王. Four real alike are one
  4-card group (a 倾 the player must lay down). A self-drawn fourth card of a 坎 always
  joins it (倾 comes before 胡, rule 9); a candidate from another player may join it (跑)
  or go elsewhere (胡 comes before 跑). A candidate meeting a pair of the hand may make
  three alike (啸 if self-drawn, 碰 if not) or go elsewhere: the forced 啸 and 碰 give way
  to a win (rule 10).
- **王** (rules 14, 15; RULEBOOK §0.1): each 王 stands for any card, even a fifth copy,
  and counts as that card for 胡息 and colour. A 王 the player turns up himself is the
  candidate ``"w"``. At most four 王 in all (:data:`~engine.zipai.cards.MAX_KINGS`).
- **Minimum** (rule 17): a hand wins with at least ``min_huxi`` (6) 胡息 from all groups,
  table included.
- **Red cards**: 二七十 and 贰柒拾 among all the player's cards (hand, table,
  candidate), each 王 counting as the card it stands for. Splits with the most 胡息 may
  differ in the cards their 王 stand for; ``red`` is then the red count with the largest
  colour factor of RULEBOOK §4.6 rule 22 (黑胡 0 and 全红 > 9: 4, 一点朱 1: 3, 红胡 7-9: 2),
  then the smaller. ``huxi_by_red_kings`` keeps every option for a scorer that trades
  胡息 against colour.

Engine simplifications: the evaluation sees card counts, not the order of play, so the
game loop decides what the candidate is and whether it was self-drawn; 醒 and the 王 win
shapes (王钓, 王闯, 王炸) are scoring matters left to the scorer.

Examples
--------
>>> from engine.zipai import hand
>>> e = hand.evaluate("x1x2x3 d2d7d10 x4x4d4 d5d5d5 x8x9x10")
>>> int(e.huxi), int(e.red), bool(e.wins)
(15, 5, True)
>>> e = hand.evaluate("x1x2x3 d2d7d10 x4x4d4 x8x9", table="pao:d5")
>>> int(e.huxi), bool(e.wins)
(-1, False)
>>> int(hand.evaluate("x1x2x3 d2d7d10 x4x4d4 x8x9 w", table="pao:d5").huxi)
18
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from engine.zipai import cards
from engine.zipai import huxi as _huxi

__all__ = [
    "HUXI",
    "MIN_HUXI",
    "GROUPS",
    "Table",
    "Evaluation",
    "evaluate",
    "parse_table",
    "group_huxi",
    "values_table",
]

GROUPS = ("ju", "yiersan", "erqishi", "dazida", "kan", "peng", "xiao", "qing", "pao", "jiang")
"""Group names (pinyin), in the kernel's code order: 句, 一二三, 二七十, 大小搭, 坎, 碰, 啸,
倾, 跑, 将."""

HUXI = {
    "ju": (0, 0),
    "yiersan": (3, 6),
    "erqishi": (3, 6),
    "dazida": (0, 0),
    "kan": (3, 6),
    "peng": (1, 3),
    "xiao": (3, 6),
    "qing": (9, 12),
    "pao": (6, 9),
    "jiang": (0, 0),
}
"""胡息 of each group, (small, big) (RULEBOOK §4.2 rule 7; the seed page's 基本牌型)."""

MIN_HUXI = 6
"""Fewest 胡息 of a winning hand (RULEBOOK §4.5 rule 17, 「满6胡息即可胡牌」)."""

_TABLE_NAMES = ("chi", "peng", "xiao", "qing", "pao")


class Table(NamedTuple):
    """落地 groups on the table: how many, their 胡息 and their red cards.

    Each field is an int or an array broadcastable to the hands' leading shape.
    """

    groups: object = 0
    huxi: object = 0
    red: object = 0


class Evaluation(NamedTuple):
    """Result of :func:`evaluate` (leading dimensions ``...`` of the input).

    Attributes
    ----------
    huxi : int64 (...)
        The most 胡息 of any split into 门子, table groups included; -1 if the cards do
        not split into 5 门子.
    red : int64 (...)
        Red cards among all the player's cards in that split (-1 if none).
    wins : bool (...)
        The cards split and ``huxi >= min_huxi``.
    huxi_by_red_kings : int64 (..., 5)
        ``[..., j]``: the most 胡息 of a split in which ``j`` 王 stand for red cards,
        -1 if there is none; such a split has ``red_base + j`` red cards.
    red_base : int64 (...)
        Red cards among the real cards (hand, table, candidate).
    """

    huxi: np.ndarray
    red: np.ndarray
    wins: np.ndarray
    huxi_by_red_kings: np.ndarray
    red_base: np.ndarray


def values_table(huxi=None) -> np.ndarray:
    """The kernel's ``(10, 2)`` int64 胡息 table from a ``{name: (small, big)}`` mapping.

    Names missing from ``huxi`` keep their :data:`HUXI` value. A card from another player
    is never worth more than one's own: 碰 <= 坎 and 跑 <= 倾 (ValueError otherwise).
    """
    merged = dict(HUXI)
    for name, pair in (huxi or {}).items():
        if name not in HUXI:
            raise ValueError(f"unknown group {name!r}; groups are {', '.join(GROUPS)}")
        merged[name] = tuple(int(v) for v in pair)
    out = np.array([merged[name] for name in GROUPS], dtype=np.int64)
    if (out < 0).any():
        raise ValueError("胡息 values must be >= 0")
    if (out[_huxi.PENG] > out[_huxi.KAN]).any() or (out[_huxi.PAO] > out[_huxi.QING]).any():
        raise ValueError("胡息 values must have peng <= kan and pao <= qing")
    return out


_DEFAULT_VALUES = values_table()


def _classify(kinds: list[int]) -> tuple[str, int] | None:
    """Name and size of the group of distinct-kind 3 cards ``kinds``, or None."""
    kinds = sorted(kinds)
    sizes = {k // 10 for k in kinds}
    ranks = [k % 10 for k in kinds]
    if len(sizes) == 1:
        size = kinds[0] // 10
        if ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1:
            return ("yiersan" if ranks[0] == 0 else "ju"), size
        if ranks == [1, 6, 9]:
            return "erqishi", size
        return None
    if len(set(ranks)) == 1 and len(set(kinds)) == 2:
        pair_size = max(set(kinds), key=kinds.count) // 10
        return "dazida", pair_size
    return None


def group_huxi(name: str, text: str, values=None) -> int:
    """胡息 of one table group: ``name`` (``chi``, ``peng``, ``xiao``, ``qing``, ``pao``)
    over the cards ``text``.

    ``peng``/``xiao``/``qing``/``pao`` take one card (``"d3"``) or all of them
    (``"d3d3d3"``); ``chi`` takes the three cards of a 句, 二七十 or 大小搭.

    >>> group_huxi("qing", "d10"), group_huxi("chi", "x1x2x3"), group_huxi("chi", "x4x4d4")
    (12, 3, 0)
    """
    table = _DEFAULT_VALUES if values is None else np.asarray(values, dtype=np.int64)
    counts, kings = cards.parse(text)
    if kings:
        raise ValueError(f"a table group holds no 王: {text!r}")
    kinds = [int(k) for k in np.repeat(np.arange(cards.N_KINDS), counts)]
    if name == "chi":
        found = _classify(kinds) if len(kinds) == 3 else None
        if found is None:
            raise ValueError(f"{text!r} is not a 吃 group (句, 二七十 or 大小搭)")
        group, size = found
        return int(table[GROUPS.index(group), size])
    if name not in _TABLE_NAMES:
        raise ValueError(f"unknown table group {name!r}; use {', '.join(_TABLE_NAMES)}")
    want = 4 if name in ("qing", "pao") else 3
    if len(set(kinds)) != 1 or len(kinds) not in (1, want):
        raise ValueError(f"{name} takes one card or {want} alike, got {text!r}")
    return int(table[GROUPS.index(name), kinds[0] // 10])


_MELD = re.compile(r"([a-z]+):(\S+)")


def parse_table(text: str, values=None) -> Table:
    """Table groups from notation such as ``"peng:d3 pao:x5 chi:x1x2x3"``.

    Returns a :class:`Table` of ints: the number of groups, their 胡息
    (:func:`group_huxi`) and their red cards.

    >>> parse_table("peng:d3 pao:x5 chi:x2x7x10")
    Table(groups=3, huxi=12, red=3)
    """
    if not isinstance(text, str):
        raise ValueError(f"table notation must be a string, got {type(text).__name__}")
    groups = huxi = red = 0
    pos = 0
    for m in _MELD.finditer(text):
        if text[pos : m.start()].strip():
            raise ValueError(f"unexpected {text[pos : m.start()].strip()!r} in table {text!r}")
        pos = m.end()
        name, body = m.group(1), m.group(2)
        huxi += group_huxi(name, body, values)
        counts, _ = cards.parse(body)
        if name != "chi" and counts.sum() == 1:
            counts = counts * (4 if name in ("qing", "pao") else 3)
        red += int(cards.red_count(counts))
        groups += 1
    if text[pos:].strip():
        raise ValueError(f"unexpected {text[pos:].strip()!r} in table {text!r} (use name:cards)")
    if groups > 5:
        raise ValueError(f"{groups} table groups: at most 5")
    return Table(groups, huxi, red)


def _candidate_kind(candidate):
    """Kind index array of ``candidate``: None -> -1, a card name, or ints (-1..20)."""
    if candidate is None:
        return np.int64(-1)
    if isinstance(candidate, str):
        return np.int64(cards.card(candidate))
    return np.asarray(candidate, dtype=np.int64)


def evaluate(
    counts,
    kings=0,
    *,
    table=None,
    candidate=None,
    self_drawn=True,
    min_huxi=MIN_HUXI,
    values=None,
) -> Evaluation:
    """胡息 evaluation: split a player's cards into 5 门子 with the most 胡息.

    Parameters
    ----------
    counts : str or array_like (..., 20)
        The concealed hand: notation (its ``w`` are added to ``kings``) or cards per kind.
    kings : int or array_like
        王 in the concealed hand, besides any in ``counts`` notation.
    table : Table, str or None
        Groups on the table: a :class:`Table` (ints or arrays) or notation for
        :func:`parse_table`. The concealed cards form the other ``5 - groups`` 门子.
    candidate : str, int, array_like or None
        The card that may complete the hand: a card name (``"x3"``, ``"w"``), a kind
        index (0..19, 20 for 王, -1 for none), or an array of them; None for none.
    self_drawn : bool or array_like
        The candidate was turned up by the player himself (自摸); False if it came from
        another player (a discard, or a card another player turned up). A 王 candidate
        is always self-drawn.
    min_huxi : int
        Fewest 胡息 that win (rule 17).
    values : mapping or array, optional
        Group 胡息 ``{name: (small, big)}`` overriding :data:`HUXI`, or a ``(10, 2)``
        table from :func:`values_table`.

    Returns
    -------
    Evaluation
        ``huxi``, ``red``, ``wins``, ``huxi_by_red_kings``, ``red_base``.

    Raises
    ------
    ValueError
        Bad shapes or values: counts outside 0..4 (a candidate included), more than 4 王,
        more than 5 table groups, a 王 candidate not self-drawn.
    """
    if isinstance(counts, str):
        counts, extra = cards.parse(counts)
        kings = np.asarray(kings, dtype=np.int64) + extra
    counts = np.asarray(counts)
    if counts.ndim == 0 or counts.shape[-1] != cards.N_KINDS:
        raise ValueError(f"counts must have shape (..., 20), got {counts.shape}")
    if not np.issubdtype(counts.dtype, np.integer):
        raise ValueError(f"counts must be integers, got dtype {counts.dtype}")
    if counts.size and (counts.min() < 0 or counts.max() > cards.COPIES):
        raise ValueError("counts must be 0..4 per kind")
    lead = counts.shape[:-1]
    flat = np.ascontiguousarray(counts.reshape(-1, cards.N_KINDS), dtype=np.uint8)
    if isinstance(table, str):
        table = parse_table(table, values)
    table = Table() if table is None else Table(*table)
    if isinstance(values, np.ndarray):
        vals = np.ascontiguousarray(values, dtype=np.int64)
        if vals.shape != (len(GROUPS), 2):
            raise ValueError(f"values must have shape (10, 2), got {vals.shape}")
    else:
        vals = values_table(values)

    def flat_arg(x, name):
        try:
            return np.ascontiguousarray(
                np.broadcast_to(np.asarray(x, dtype=np.int64), lead).reshape(-1)
            )
        except ValueError as exc:
            raise ValueError(f"{name} does not broadcast to the hands' shape {lead}") from exc

    k = flat_arg(kings, "kings")
    cand = flat_arg(_candidate_kind(candidate), "candidate")
    own = flat_arg(self_drawn, "self_drawn")
    t_groups = flat_arg(table.groups, "table.groups")
    t_huxi = flat_arg(table.huxi, "table.huxi")
    t_red = flat_arg(table.red, "table.red")
    if ((cand < -1) | (cand > cards.N_KINDS)).any():
        raise ValueError("candidate kinds are -1 (none), 0..19, or 20 (王)")
    is_wang = cand == cards.N_KINDS
    if ((k < 0) | (k + is_wang > cards.MAX_KINGS)).any():
        raise ValueError(f"a hand holds 0..{cards.MAX_KINGS} 王, the candidate included")
    if (is_wang & (own == 0)).any():
        raise ValueError("a 王 candidate is always self-drawn (王 are never discarded)")
    real = (cand >= 0) & ~is_wang
    rows = np.flatnonzero(real)
    if rows.size and (flat[rows, cand[rows]] >= cards.COPIES).any():
        raise ValueError("the candidate would be a fifth copy of a kind")
    if ((t_groups < 0) | (t_groups > 5)).any():
        raise ValueError("table groups must be 0..5")
    n = flat.shape[0]
    out_huxi = np.empty(n, np.int64)
    out_red = np.empty(n, np.int64)
    out_win = np.empty(n, np.bool_)
    out_by = np.empty((n, cards.MAX_KINGS + 1), np.int64)
    _huxi._evaluate_batch(
        flat,
        k,
        5 - t_groups,
        cand,
        own,
        t_huxi,
        t_red,
        int(min_huxi),
        vals,
        out_huxi,
        out_red,
        out_win,
        out_by,
    )
    red_base = cards.red_count(flat) + t_red + np.where(real, cards.RED[np.clip(cand, 0, 19)], 0)
    return Evaluation(
        out_huxi.reshape(lead),
        out_red.reshape(lead),
        out_win.reshape(lead),
        out_by.reshape(lead + (cards.MAX_KINGS + 1,)),
        red_base.reshape(lead),
    )
