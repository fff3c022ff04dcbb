"""Brute-force twin of :func:`engine.zipai.hand.evaluate` (one hand, no numba).

Same signature and results as the engine, computed from the definitions by plain
enumeration, sharing no code with the kernel:

1. The *universe* of groups is every multiset of 2, 3 or 4 card kinds that a rule
   classifier accepts (将, 句, 一二三, 二七十, 大小搭, three or four alike).
2. A *split* is a multiset ``U`` of exactly ``need`` groups of the universe (at most one
   pair) whose cards cover every real card: ``U[k] >= real[k]`` for every kind, and the
   surplus ``U - real`` is exactly the 王 (each 王 stands for the card it fills, even a
   fifth copy). Every split is enumerated (groups holding no uncovered real card are
   made of 王 only), and with it the 王 assignment it implies.
3. For each split, every placement of a candidate from another player into a group
   holding its kind is tried; the 胡息 of each group follows from its kind and from
   whether it holds that candidate (碰 / 跑 instead of 坎 / 倾). A placement is legal if
   every 坎 of the hand (three or four real alike, a self-drawn fourth card joining
   three) lies whole in one group of alike cards.
4. The result per number ``j`` of 王 standing for red cards is the most 胡息 over the
   legal splits and placements; the summary picks as the engine does.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from engine.zipai import cards

__all__ = ["evaluate", "UNIVERSE", "classify"]

_DEFAULT = {
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
_NAMES = tuple(_DEFAULT)


def classify(kinds):
    """Group type of a sorted tuple of kinds: ``(type, size)`` or None.

    Types: ``jiang``, ``alike3``, ``alike4``, ``ju``, ``yiersan``, ``erqishi``, ``dazida``.
    ``size`` is 0 small, 1 big (for 大小搭, the size of its two alike cards).
    """
    n = len(kinds)
    size = [k // 10 for k in kinds]
    rank = [k % 10 + 1 for k in kinds]
    if len(set(kinds)) == 1:
        return {2: ("jiang", size[0]), 3: ("alike3", size[0]), 4: ("alike4", size[0])}[n]
    if n != 3:
        return None
    if len(set(size)) == 1:
        if rank[1] == rank[0] + 1 and rank[2] == rank[1] + 1:
            return ("yiersan" if rank[0] == 1 else "ju"), size[0]
        if rank == [2, 7, 10]:
            return "erqishi", size[0]
        return None
    if len(set(rank)) == 1:
        two = max(set(kinds), key=kinds.count)
        return "dazida", two // 10
    return None


def _universe():
    out = []
    for n in (2, 3, 4):
        for kinds in itertools.combinations_with_replacement(range(20), n):
            found = classify(list(kinds))
            if found is not None:
                vec = np.bincount(kinds, minlength=20)
                out.append((kinds, found[0], found[1], tuple(int(v) for v in vec)))
    return out


UNIVERSE = _universe()
"""Every group: ``(kinds, type, size, counts tuple)``."""

_CONTAINING = [[g for g in UNIVERSE if k in g[0]] for k in range(20)]
_RED = [bool(cards.RED[k]) for k in range(20)]


class Evaluation(NamedTuple):
    """Same fields as :class:`engine.zipai.hand.Evaluation`, as Python ints."""

    huxi: int
    red: int
    wins: bool
    huxi_by_red_kings: tuple
    red_base: int


def _value(values, typ, size, holds_candidate):
    if typ == "alike3":
        return values["peng" if holds_candidate else "kan"][size]
    if typ == "alike4":
        return values["pao" if holds_candidate else "qing"][size]
    return values[typ][size]


def _table(table, values):
    """(groups, huxi, red) of a table given as notation or a triple."""
    if table is None:
        return 0, 0, 0
    if not isinstance(table, str):
        return tuple(int(x) for x in table)
    groups = huxi = red = 0
    for token in table.split():
        name, body = token.split(":")
        counts, _ = cards.parse(body)
        kinds = [int(k) for k in np.repeat(np.arange(20), counts)]
        if name == "chi":
            typ, size = classify(kinds)
            huxi += values[typ][size]
        else:
            n = 4 if name in ("qing", "pao") else 3
            kinds = kinds * n if len(kinds) == 1 else kinds
            huxi += values[name][kinds[0] // 10]
        red += sum(_RED[k] for k in kinds)
        groups += 1
    return groups, huxi, red


def _colour(red):
    if red == 0 or red > 9:
        return 4
    if red == 1:
        return 3
    if red >= 7:
        return 2
    return 1


def evaluate(
    counts,
    kings=0,
    *,
    table=None,
    candidate=None,
    self_drawn=True,
    min_huxi=6,
    values=None,
):
    """The brute-force 胡息 evaluation of one hand (see the module docstring)."""
    vals = dict(_DEFAULT)
    if isinstance(values, np.ndarray):
        vals = {name: tuple(int(v) for v in values[i]) for i, name in enumerate(_NAMES)}
    elif values:
        vals.update(values)
    if isinstance(counts, str):
        counts, extra = cards.parse(counts)
        kings += extra
    hand = [int(c) for c in np.asarray(counts)]
    cand = -1 if candidate is None else candidate
    if isinstance(cand, str):
        cand = cards.card(cand)
    cand = int(cand)
    if cand == 20:
        kings += 1
        cand = -1
    t_groups, t_huxi, t_red = _table(table, vals)
    need = 5 - t_groups

    real = list(hand)
    if cand >= 0:
        real[cand] += 1
    other = cand if (cand >= 0 and not self_drawn) else -1
    # 坎 of the hand: kind -> real cards that must lie in one alike group.
    locks = {k: hand[k] for k in range(20) if hand[k] >= 3}
    if cand >= 0 and self_drawn and hand[cand] == 3:
        locks[cand] = 4
    total = sum(real) + kings

    best = [-1] * 5
    seen = set()

    def score(split):
        """Best 胡息 of a split over the candidate placements, or None if none is legal."""
        places = [None] if other < 0 else [i for i, g in enumerate(split) if other in g[0]]
        out = None
        for gi in places:
            legal = True
            for k, n in locks.items():
                room = [
                    len(g[0]) - (1 if i == gi else 0)
                    for i, g in enumerate(split)
                    if g[1] in ("alike3", "alike4") and g[0][0] == k
                ]
                if not any(r >= n for r in room):
                    legal = False
                    break
            if not legal:
                continue
            h = sum(_value(vals, g[1], g[2], i == gi) for i, g in enumerate(split))
            out = h if out is None else max(out, h)
        return out

    def finish(split):
        key = tuple(sorted(g[0] for g in split))
        if key in seen:
            return
        seen.add(key)
        if sum(g[1] == "jiang" for g in split) > 1:
            return
        u = [0] * 20
        for g in split:
            for k, c in enumerate(g[3]):
                u[k] += c
        if sum(u) != total or any(u[k] < real[k] for k in range(20)):
            return
        j = sum(u[k] - real[k] for k in range(20) if _RED[k])
        h = score(split)
        if h is not None and h > best[j]:
            best[j] = h

    def grow(split, u, short, pairs, last_kind, last_index):
        # ``short``: cards of the split beyond the real ones (王 so far). Groups chosen for
        # the same uncovered kind come in universe order, so no split is built twice.
        if len(split) > need or pairs > 1 or short > kings:
            return
        uncovered = next((k for k in range(20) if u[k] < real[k]), None)
        if uncovered is None:
            left = need - len(split)
            spare = total - sum(u)
            if not 3 * left - 1 <= spare <= 4 * left:
                return
            for extra in itertools.combinations_with_replacement(UNIVERSE, left):
                if sum(len(g[0]) for g in extra) == spare:
                    finish(split + list(extra))
            return
        start = last_index if uncovered == last_kind else 0
        for index in range(start, len(_CONTAINING[uncovered])):
            g = _CONTAINING[uncovered][index]
            v = list(u)
            extra = 0
            for k in g[0]:
                if v[k] >= real[k]:
                    extra += 1
                v[k] += 1
            grow(split + [g], v, short + extra, pairs + (g[1] == "jiang"), uncovered, index)

    grow([], [0] * 20, 0, 0, -1, 0)

    red_base = sum(r * c for r, c in zip(_RED, real, strict=True)) + t_red
    huxi, red = -1, -1
    by = []
    for j in range(5):
        h = best[j] + t_huxi if best[j] >= 0 else -1
        by.append(h)
        if h < 0:
            continue
        r = red_base + j
        if (h, _colour(r), -r) > (huxi, _colour(red), -red):
            huxi, red = h, r
    return Evaluation(huxi, red, huxi >= 0 and huxi >= min_huxi, tuple(by), red_base)
