"""Exact probabilities of deal events (天胡 and its wildcard versions, the dealt shanten).

Every number here is a ratio of two integers: the number of ``n``-tile hands (sets of
physical tiles) with some property over the number of all ``n``-tile hands, ``C(T, n)``
for a deck of ``T`` tiles. They are computed by generating functions over the four suits,
never by sampling, and returned as :class:`fractions.Fraction`.

**Method.** A hand is a count vector ``c`` (tiles held per kind); it stands for
``prod_i C(q_i, c_i)`` physical hands, ``q_i`` being the live copies of kind ``i``. Every
distance the hand evaluator computes is a function of per-suit summaries:

- the standard shape: the suit's row of the distance table (:mod:`engine.hand._tables`),
  combined across suits by the min-plus step; the rows take only a few hundred distinct
  values. A row has one entry per excess level: a hand with ``w`` wilds may complete
  with up to ``w`` copies beyond the fourth of a kind, a wild-free hand with none;
- seven pairs (七对): the number of pairs ``sum(c_i // 2)`` (four alike are two pairs);
  with ``m`` non-wild tiles the distance is ``7 - pairs + max(7 + pairs - m, 0)``;
- thirteen orphans (十三幺): the number of distinct terminal/honor kinds held and whether
  one of them is held twice.

So the count vectors of one suit are grouped by (tiles, table row, pairs, orphans), the
weights ``prod C(q_i, c_i)`` summed within a group; the m and p suits are joined into one
half, the s suit and the honors into the other (a min-plus step on the rows, sums of the
other summaries, products of the weights), and the two halves are joined a last time
into the exact count of hands for each (wild tiles held, distance of the other tiles).
A hand holding ``w`` wild tiles is complete when the other tiles' distance (at excess
level ``w``) is at most ``w``; its shanten is ``max(distance - w, 0) - 1`` (the same
rules as :mod:`engine.hand`: a real kind gets at most ``4 - held`` more tiles, a wild
fills any gap, even a fifth copy). Only the 5**9 count vectors of one suit are
ever listed, never whole hands: the 136-tile, 14-tile case takes one or two seconds
(most of it grouping the suit's vectors, which is then cached for the process).

**Wilds.** A named wild kind has 4 live copies, or 3 when an indicator of that kind has
been set aside (``wild_copies=3``). ``wild="flip"`` averages over a uniformly random
indicator tile set aside from the deck, whose *next* kind (:func:`engine.tiles.next_kind`)
is wild (翻鬼, 诸暨 ``caishen=1``); ``"flip2"`` makes the next two kinds wild (诸暨
``caishen=2``, 广东 双鬼); ``"flip0"`` makes the indicator's own kind wild with its 3
remaining copies (丽水 财神, 福州 金). The indicator is one of the deck's tiles, so each
kind is picked with probability ``copies / T`` and the hand is dealt from ``T - 1`` tiles.

Examples
--------
>>> from engine import exact
>>> p = exact.p_complete(tiles=136, hand=14)
>>> p["any"]                    # 天和: about 1 in 330,000
Fraction(269217010349, 88548021441004500)
>>> p["any"] > p["standard"]
True
>>> sum(exact.shanten_distribution(tiles=136, hand=13).values())
Fraction(1, 1)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from fractions import Fraction
from math import comb
from typing import NamedTuple

import numpy as np

from . import tiles as _tiles
from ._exact_kernels import _join_halves

__all__ = [
    "DECKS",
    "EXACT_SHAPES",
    "FLIP_MODES",
    "deck",
    "default_shapes",
    "hand_counts",
    "p_complete",
    "shanten_distribution",
]

DECKS = (136, 108)
"""Supported decks: 136 tiles (34 kinds x 4) and 108 tiles (the three suits only)."""

EXACT_SHAPES = ("standard", "seven_pairs", "thirteen_orphans")
"""Shapes the exact computation covers (不搭 is not covered)."""

FLIP_MODES = ("flip", "flip2", "flip0")
"""Random-indicator wild modes: next kind, next two kinds, the indicator's own kind."""

_STD, _PAIRS, _ORPH = 1, 2, 4
_BITS = {"standard": _STD, "seven_pairs": _PAIRS, "thirteen_orphans": _ORPH}
_MAX_HAND = 17
_VBITS = 5  # bits per table entry in a packed row key (entries are <= 17)


def deck(tiles: int) -> np.ndarray:
    """Copies of each kind in a deck of ``tiles`` tiles, int64 ``(34,)``.

    >>> int(deck(108).sum()), int(deck(136).sum())
    (108, 136)
    """
    if tiles not in DECKS:
        raise ValueError(f"tiles must be one of {DECKS}, got {tiles}")
    copies = np.full(34, 4, np.int64)
    if tiles == 108:
        copies[27:] = 0
    return copies


def default_shapes(tiles: int, hand: int) -> tuple[str, ...]:
    """The shapes a hand of that size can take in that deck.

    Special shapes exist only for 13/14-tile hands (four sets); 十三幺 needs the honors.
    """
    if hand // 3 != 4:
        return ("standard",)
    if tiles == 108:
        return ("standard", "seven_pairs")
    return EXACT_SHAPES


def _sets(hand: int) -> int:
    """Sets a hand of ``hand`` tiles must form (``3*sets + 1`` or ``3*sets + 2`` tiles)."""
    if not isinstance(hand, int | np.integer) or not 1 <= hand <= _MAX_HAND or hand % 3 == 0:
        raise ValueError(
            f"hand must hold 3k+1 or 3k+2 tiles (1, 2, 4, 5, ... 16, 17), got {hand!r}"
        )
    return int(hand) // 3


def _mask(shapes, sets: int) -> int:
    if isinstance(shapes, str):
        shapes = (shapes,)
    shapes = tuple(shapes)
    if not shapes:
        raise ValueError("no shape given")
    mask = 0
    for name in shapes:
        if name not in _BITS:
            raise ValueError(f"unknown shape {name!r}; exact covers {', '.join(EXACT_SHAPES)}")
        if name != "standard" and sets != 4:
            raise ValueError(f"shape {name!r} needs a 13- or 14-tile hand (four sets)")
        mask |= _BITS[name]
    return mask


# --- per-suit summaries -----------------------------------------------------------------


@functools.cache
def _rows(n_ranks: int) -> dict[str, np.ndarray]:
    """Every count vector of a suit of ``n_ranks`` ranks and its kind-wise summaries."""
    size = 5**n_ranks
    idx = np.arange(size, dtype=np.int64)
    digits = np.empty((n_ranks, size), np.int8)
    x = idx.copy()
    for i in range(n_ranks):
        digits[i] = x % 5
        x //= 5
    orphan = [0, 8] if n_ranks == 9 else list(range(n_ranks))
    return {
        "digits": digits,
        "t": digits.sum(axis=0, dtype=np.int8),
        "pairs": (digits // 2).sum(axis=0, dtype=np.int8),
        "distinct": (digits[orphan] > 0).sum(axis=0, dtype=np.int8),
        "opair": (digits[orphan] >= 2).any(axis=0).astype(np.int8),
    }


def _pack_rows(v: np.ndarray) -> list[np.ndarray]:
    """Int64 keys of table rows, twelve entries (``_VBITS`` bits each) a key."""
    keys = []
    for lo in range(0, v.shape[1], 12):
        key = np.zeros(v.shape[0], np.int64)
        for j in range(lo, min(lo + 12, v.shape[1])):
            key = (key << _VBITS) | v[:, j].astype(np.int64)
        keys.append(key)
    return keys


class _Groups(NamedTuple):
    """Count vectors of some kinds grouped by their summaries, one entry per group.

    ``t`` tiles; ``v`` the distance-table row at excess levels ``0 .. n_levels - 1``
    (int64 ``(g, n_levels * n_cols)``, level by level; no columns when the standard
    shape is not asked for); ``pairs``, ``distinct`` (terminal/honor kinds held),
    ``opair`` (one of them held twice); ``w`` the number of physical tile sets (int64).
    Summaries a shape mask does not need are zero.
    """

    t: np.ndarray
    v: np.ndarray
    pairs: np.ndarray
    distinct: np.ndarray
    opair: np.ndarray
    w: np.ndarray | None


def _sort_groups(t, v, pairs, distinct, opair) -> tuple[np.ndarray, np.ndarray]:
    """An order that puts equal summaries together, and where each run starts in it."""
    keys = _pack_rows(v) + [((t * 16 + pairs) * 16 + distinct) * 2 + opair]
    order = np.lexsort(keys)
    start = np.zeros(len(order), bool)
    start[:1] = True
    for key in keys:
        k = key[order]
        start[1:] |= k[1:] != k[:-1]
    return order, np.flatnonzero(start)


def _reduce(t, v, pairs, distinct, opair, w) -> _Groups:
    """Merge entries with equal summaries, summing their weights (exact int64)."""
    order, starts = _sort_groups(t, v, pairs, distinct, opair)
    first = order[starts]
    sums = np.add.reduceat(w[order], starts) if len(order) else w[:0]
    return _Groups(t[first], v[first], pairs[first], distinct[first], opair[first], sums)


@functools.cache
def _suit_index(n_ranks: int, nmax: int, n_cols: int, feats: int, n_levels: int):
    """Group the count vectors of one suit holding at most ``nmax`` tiles (no weights).

    Returns ``(rows, starts, groups)``: the row numbers sorted by group, the start of each
    group in that order, and the groups' summaries (weights unset). ``feats`` is the
    shape mask: only the summaries its shapes need are kept. The rows keep the excess
    levels ``0 .. n_levels - 1`` (a hand with ``w`` wilds may use ``w`` copies beyond
    the fourth of a kind, :mod:`engine.hand._tables`).
    """
    from .hand._tables import suit_rows

    r = _rows(n_ranks)
    rows = np.flatnonzero(r["t"] <= nmax)
    t = r["t"][rows].astype(np.int64)
    if feats & _STD:
        table = suit_rows(n_ranks)
        pick = np.minimum(np.arange(n_levels), table.shape[1] - 1)
        v = table[rows][:, pick, :n_cols].reshape(len(rows), -1).astype(np.int64)
    else:
        v = np.zeros((len(rows), 0), np.int64)
    zero = np.zeros(len(rows), np.int64)
    pairs = np.minimum(r["pairs"][rows], 8).astype(np.int64) if feats & _PAIRS else zero
    distinct = r["distinct"][rows].astype(np.int64) if feats & _ORPH else zero
    opair = r["opair"][rows].astype(np.int64) if feats & _ORPH else zero
    order, starts = _sort_groups(t, v, pairs, distinct, opair)
    first = order[starts]
    g = _Groups(t[first], v[first], pairs[first], distinct[first], opair[first], None)
    return rows[order], starts, g


_BINOM = np.array([[comb(q, c) for c in range(5)] for q in range(5)], np.int64)


@functools.cache
def _suit_groups(
    n_ranks: int, copies: tuple[int, ...], nmax: int, n_cols: int, feats: int, n_levels: int
):
    """The groups of one suit whose kinds have ``copies`` live non-wild copies each."""
    rows, starts, g = _suit_index(n_ranks, nmax, n_cols, feats, n_levels)
    digits = _rows(n_ranks)["digits"]
    w = np.ones(len(rows), np.int64)
    for i, q in enumerate(copies):
        w *= _BINOM[q][digits[i, rows]]
    sums = np.add.reduceat(w, starts)
    keep = sums > 0
    return _Groups(g.t[keep], g.v[keep], g.pairs[keep], g.distinct[keep], g.opair[keep], sums[keep])


def _minplus(va: np.ndarray, vb: np.ndarray, sets: int, n_levels: int) -> np.ndarray:
    """Row-wise min-plus combine of two stacks of table rows (k sets, with/without pair),
    ``n_levels`` excess levels each: the budgets add (``e1 + e2 = e``).
    """
    n_cols = va.shape[1] // n_levels
    a = va.reshape(len(va), n_levels, n_cols)
    b = vb.reshape(len(vb), n_levels, n_cols)
    out = np.empty_like(a)
    for e in range(n_levels):
        for k in range(sets + 1):
            b0 = b1 = None
            for e1 in range(e + 1):
                x, y = a[:, e1], b[:, e - e1]
                for k1 in range(k + 1):
                    k2 = k - k1
                    c0 = x[:, 2 * k1] + y[:, 2 * k2]
                    c1 = np.minimum(
                        x[:, 2 * k1] + y[:, 2 * k2 + 1], x[:, 2 * k1 + 1] + y[:, 2 * k2]
                    )
                    b0 = c0 if b0 is None else np.minimum(b0, c0)
                    b1 = c1 if b1 is None else np.minimum(b1, c1)
            out[:, e, 2 * k] = b0
            out[:, e, 2 * k + 1] = b1
    return out.reshape(len(va), -1)


def _join(a: _Groups, b: _Groups, nmax: int, sets: int, n_levels: int) -> _Groups:
    """Groups of the union of two disjoint sets of kinds (at most ``nmax`` tiles)."""
    i, j = np.nonzero(a.t[:, None] + b.t[None, :] <= nmax)
    v = _minplus(a.v[i], b.v[j], sets, n_levels) if a.v.shape[1] else a.v[i]
    return _reduce(
        a.t[i] + b.t[j],
        v,
        np.minimum(a.pairs[i] + b.pairs[j], 8),
        a.distinct[i] + b.distinct[j],
        a.opair[i] | b.opair[j],
        a.w[i] * b.w[j],
    )


@functools.cache
def _half(q1: tuple[int, ...], q2: tuple[int, ...], hand: int, mask: int, n_levels: int) -> _Groups:
    """The joined groups of two suits (the second may be the honors)."""
    sets = hand // 3
    n_cols = 2 * (sets + 1)
    g1 = _suit_groups(9, q1, hand, n_cols, mask, n_levels)
    g2 = _suit_groups(len(q2), q2, hand, n_cols, mask, n_levels)
    return _join(g1, g2, hand, sets, n_levels)


def _canonical(plain: tuple[int, ...]) -> tuple:
    """A relabelling-invariant key of the non-wild copies per kind.

    The distances do not change when the three suits are permuted, when a suit's ranks
    are reversed (1..9 -> 9..1) or when the honors are permuted, so decks that differ
    only by such a relabelling are counted once. Plain suits sort first, so the first
    half (two suits) is shared by most decks.
    """
    suits = [min(plain[9 * s : 9 * s + 9], plain[9 * s : 9 * s + 9][::-1]) for s in range(3)]
    return (*sorted(suits, reverse=True), tuple(sorted(plain[27:], reverse=True)))


@functools.cache
def _count_table(key: tuple, n_wild: int, hand: int, mask: int) -> tuple[tuple[int, ...], ...]:
    """Exact hand counts ``N[w][d]``: hands of ``hand`` tiles holding ``w`` of the
    ``n_wild`` wild tiles whose other tiles have distance ``d`` (min over ``mask``).
    """
    from .hand._tables import LEVELS

    sets = hand // 3
    # a hand holding w wilds may use w copies beyond the fourth of a kind
    n_levels = min(n_wild, hand, LEVELS - 1) + 1
    a = _half(key[0], key[1], hand, mask, n_levels)
    b = _half(key[2], key[3], hand, mask, n_levels)
    n_d = 3 * sets + 3
    per_a = np.zeros((len(a.t), n_wild + 1, n_d), np.int64)
    worst = _join_halves(
        a.t, a.v.reshape(len(a.t), n_levels, -1), a.pairs, a.distinct, a.opair,
        b.t, b.v.reshape(len(b.t), n_levels, -1), b.pairs, b.distinct, b.opair, b.w,
        hand, n_wild, sets, mask, per_a,
    )  # fmt: skip
    if worst >= n_d:
        raise AssertionError(f"distance {worst} above its bound {n_d - 1}")
    # Second-half sums are exact in int64; their products with the first half's
    # weights are taken in Python integers (they can exceed 2**63).
    flat = per_a.reshape(len(a.t), -1)
    used = np.flatnonzero(flat.any(axis=0))
    sums = [0] * flat.shape[1]
    if len(used):
        dots = np.dot(a.w.astype(object), flat[:, used].astype(object))
        for c, x in zip(used, dots, strict=True):
            sums[c] = int(x)
    return tuple(
        tuple(comb(n_wild, w) * x for x in sums[w * n_d : (w + 1) * n_d]) for w in range(n_wild + 1)
    )


# --- public API ---------------------------------------------------------------------------


def hand_counts(copies, hand: int, wild_kinds: Iterable[int] = (), shapes=EXACT_SHAPES):
    """Exact counts of ``hand``-tile hands by wild tiles held and distance of the rest.

    Parameters
    ----------
    copies : array_like of int, shape (34,)
        Live copies of each kind (0..4), wild kinds included: the deck the hand is dealt
        from, e.g. :func:`deck` with a set-aside indicator removed.
    hand : int
        Tiles in the hand: ``3*sets + 1`` or ``3*sets + 2``, at most 17.
    wild_kinds : iterable of int
        Kind indices whose tiles are wild.
    shapes : str or sequence of str
        Shapes the distance is the minimum over (:data:`EXACT_SHAPES`); the special
        shapes need ``sets == 4``.

    Returns
    -------
    list of list of int
        ``n[w][d]``: hands (sets of physical tiles) holding ``w`` wild tiles whose other
        tiles have distance ``d`` (0 .. ``3*sets + 2``). The entries sum to
        ``C(sum(copies), hand)``. The hand's own distance is ``max(d - w, 0)``.

    Examples
    --------
    >>> import numpy as np
    >>> c = np.zeros(34, int); c[0:3] = 4           # 1m 2m 3m only, 12 tiles
    >>> n = hand_counts(c, 2, shapes="standard")    # a 2-tile hand: complete iff a pair
    >>> n[0][0], sum(map(sum, n))                   # 3 * C(4, 2) pairs of 66 hands
    (18, 66)
    """
    sets = _sets(hand)
    mask = _mask(shapes, sets)
    copies = np.asarray(copies)
    if copies.shape != (34,) or not np.issubdtype(copies.dtype, np.integer):
        raise ValueError("copies must be an integer array of shape (34,)")
    if copies.min() < 0 or copies.max() > 4:
        raise ValueError("copies must be 0..4 per kind")
    wild = sorted({int(k) for k in wild_kinds})
    if any(not 0 <= k < 34 for k in wild):
        raise ValueError("wild kinds must be kind indices 0..33")
    plain = [int(x) for x in copies]
    n_wild = sum(plain[k] for k in wild)
    for k in wild:
        plain[k] = 0
    if sum(plain) + n_wild < hand:
        raise ValueError(f"a deck of {sum(plain) + n_wild} tiles cannot deal {hand}")
    table = _count_table(_canonical(tuple(plain)), n_wild, hand, mask)
    return [list(row) for row in table]


def _resolve_wild(tiles: int, wild, wild_copies) -> list[tuple[Fraction, np.ndarray, list[int]]]:
    """The decks to average over: ``[(probability, copies (34,), wild kinds)]``."""
    base = deck(tiles)
    if isinstance(wild, str) and wild.strip().lower() in FLIP_MODES:
        mode = wild.strip().lower()
        if wild_copies not in (4, None):
            raise ValueError(f"wild_copies does not apply to wild={mode!r} (set by the flip)")
        total = int(base.sum())
        out = []
        for ind in np.flatnonzero(base):
            copies = base.copy()
            copies[ind] -= 1
            if mode == "flip0":
                kinds = [int(ind)]
            elif mode == "flip":
                kinds = [_tiles.next_kind(int(ind))]
            else:
                first = _tiles.next_kind(int(ind))
                kinds = [first, _tiles.next_kind(first)]
            out.append((Fraction(int(base[ind]), total), copies, kinds))
        return out
    if wild is None or (isinstance(wild, str) and not wild.strip()):
        kinds = []
    elif isinstance(wild, str):
        kinds = _tiles.kinds(wild)
    else:
        kinds = [k if isinstance(k, int | np.integer) else _tiles.kind(k) for k in wild]
    kinds = [int(k) for k in kinds]
    if len(set(kinds)) != len(kinds):
        raise ValueError(f"a wild kind is named twice: {wild!r}")
    for k in kinds:
        if not 0 <= k < 34:
            raise ValueError(f"wild kind index {k} out of range 0..33")
        if base[k] == 0:
            raise ValueError(f"wild kind {_tiles.kind_name(k)} is not in the {tiles}-tile deck")
    if isinstance(wild_copies, int | np.integer) or wild_copies is None:
        per_kind = [4 if wild_copies is None else int(wild_copies)] * len(kinds)
    else:
        per_kind = [int(x) for x in wild_copies]
        if len(per_kind) != len(kinds):
            raise ValueError("give one wild_copies value per wild kind")
    if any(q not in (3, 4) for q in per_kind):
        raise ValueError("wild_copies must be 3 or 4")
    copies = base.copy()
    for k, q in zip(kinds, per_kind, strict=True):
        copies[k] = q
    return [(Fraction(1), copies, kinds)]


def p_complete(
    tiles: int = 136,
    hand: int | None = None,
    wild=(),
    wild_copies: int | Sequence[int] = 4,
    shapes: Sequence[str] | None = None,
) -> dict[str, Fraction]:
    """Probability that a dealt hand of ``hand`` tiles is complete (天胡 odds), exactly.

    Parameters
    ----------
    tiles : {136, 108}
        The deck: all 34 kinds, or the three suits only.
    hand : int, optional
        Tiles dealt, ``3*sets + 2`` (2, 5, 8, 11, 14 or 17); default 14 (136) or 17 (108).
    wild : str or sequence, optional
        Wild kinds: ``"7z"``, ``"5m,5p"``, ``("5m", "5p")`` or kind indices; or one of
        :data:`FLIP_MODES` (``"flip"``, ``"flip2"``, ``"flip0"``) to average over a randomly
        flipped indicator. Default: no wild.
    wild_copies : int or sequence of int
        Live copies of each named wild kind, 4 or 3 (an indicator of that kind set aside,
        so the deal comes from one tile fewer); an int applies to every named kind.
    shapes : sequence of str, optional
        Default :func:`default_shapes` (standard, seven pairs and thirteen orphans for a
        14-tile hand from 136 tiles; standard only for 17 tiles).

    Returns
    -------
    dict of str to Fraction
        One entry per shape, plus ``"any"`` for the hand being complete in some shape.

    Examples
    --------
    >>> p = p_complete(136, 14, wild="7z")
    >>> p["any"] > p["standard"] > p_complete(136, 14)["standard"]
    True
    """
    if hand is None:
        hand = 14 if tiles == 136 else 17
    sets = _sets(hand)
    if hand % 3 != 2:
        raise ValueError(f"a complete hand holds 3k+2 tiles (2, 5, ... 14, 17), not {hand}")
    deck(tiles)
    shapes = tuple(default_shapes(tiles, hand) if shapes is None else shapes)
    _mask(shapes, sets)
    decks = _resolve_wild(tiles, wild, wild_copies)
    out: dict[str, Fraction] = {}
    for name, group in [(s, (s,)) for s in shapes] + [("any", shapes)]:
        total = Fraction(0)
        for prob, copies, kinds in decks:
            n = hand_counts(copies, hand, kinds, group)
            good = sum(n[w][d] for w in range(len(n)) for d in range(min(w, len(n[w]) - 1) + 1))
            total += prob * Fraction(good, comb(int(copies.sum()), hand))
        out[name] = total
    return out


def shanten_distribution(
    tiles: int = 136,
    hand: int | None = None,
    wild=(),
    wild_copies: int | Sequence[int] = 4,
    shapes: Sequence[str] | str | None = None,
) -> dict[int, Fraction]:
    """Exact distribution of the shanten of a dealt hand (-1 complete, 0 waiting, ...).

    Parameters
    ----------
    tiles, wild, wild_copies
        As in :func:`p_complete`.
    hand : int, optional
        Tiles dealt, ``3*sets + 1`` or ``3*sets + 2``; default 13 (136) or 16 (108).
    shapes : str or sequence of str, optional
        The shanten is the minimum over these shapes; default :func:`default_shapes`.

    Returns
    -------
    dict of int to Fraction
        Shanten -> probability, for every shanten with a non-zero probability (they sum
        to 1), in increasing order.

    Examples
    --------
    >>> d = shanten_distribution(136, 13, shapes="standard")
    >>> min(d), max(d)
    (0, 8)
    """
    if hand is None:
        hand = 13 if tiles == 136 else 16
    sets = _sets(hand)
    deck(tiles)
    if shapes is None:
        shapes = default_shapes(tiles, hand)
    mask_shapes = (shapes,) if isinstance(shapes, str) else tuple(shapes)
    _mask(mask_shapes, sets)
    acc: dict[int, Fraction] = {}
    for prob, copies, kinds in _resolve_wild(tiles, wild, wild_copies):
        n = hand_counts(copies, hand, kinds, mask_shapes)
        total = comb(int(copies.sum()), hand)
        for w, row in enumerate(n):
            for d, x in enumerate(row):
                if x:
                    s = max(d - w, 0) - 1
                    acc[s] = acc.get(s, Fraction(0)) + prob * Fraction(x, total)
    return dict(sorted(acc.items()))
