"""The kinds a 字牌 hand waits on, from one search (luodisao ``wait_kinds``, over
engine.zipai.huxi ``wait_search``), against the win check asked kind by kind
(``can_win``, itself checked against brute force through the scorer's search).

The hands are built to wait: groups of the 80-card deck (句, 二七十, 大小搭, alike, a
pair, 王 standing in) less one or two cards, with up to four 王 held, so that the kinds'
answers, the 胡息 floor and the 王-only groups all matter.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import variants
from engine.variants.luodisao._kernels import can_win, wait_kinds
from engine.zipai.huxi import (
    ERQISHI,
    KAN,
    N_TEMPLATES,
    TEMPLATES,
    WAIT_ANY,
    WANG,
    YIERSAN,
    _wang_values_x,
    _workspace,
    packed_values,
)
from engine.zipai.layout import HOW_SELF

V = variants.get("luodisao")


def _rules(kings, table):
    """Packed rules, 胡息 table and 王-group values. ``rich``: a table where a 3-card
    group of 一二三 or 二七十 is worth more than three alike (the seed's ties them), so
    that which group a 王 completes decides whether a hand reaches the floor.
    """
    rules = V.pack(V.resolve({"kings": kings}))
    values = packed_values(rules)
    if table == "rich":
        values = values.copy()
        for code, row in ((YIERSAN, (5, 8)), (ERQISHI, (4, 9)), (KAN, (3, 4))):
            values[code] = row
    return rules, values, _wang_values_x(values, np.int64(-1))


def _check(rules, values, wvx0, counts, kings, ntab, th, ws, best2):
    """The kinds ``wait_kinds`` gives, asserted kind by kind against ``can_win``."""
    got = wait_kinds(rules, values, wvx0, counts, kings, ntab, th, ws, best2)
    any_ = can_win(rules, values, wvx0, counts, kings, ntab, th, WANG, HOW_SELF, 0, ws, best2)
    assert bool(got & WAIT_ANY) == any_, (counts.tolist(), kings, ntab, th)
    kinds = set()
    for x in range(20):
        if any_ and counts[x] < 3:  # a 坎's fourth card: the game loop asks can_win
            want = can_win(rules, values, wvx0, counts, kings, ntab, th, x, HOW_SELF, 0, ws,
                           best2)  # fmt: skip
            assert bool((got >> x) & 1) == want, (counts.tolist(), kings, ntab, th, x)
            if want:
                kinds.add(x)
    return any_, kinds


def _waiting_hand(rng, kings_in_deck):
    """A complete-ish hand of ``need`` 门子 (with a pair) less one or two cards."""
    ntab = int(rng.integers(0, 4))
    need = 5 - ntab
    counts = np.zeros(20, np.int64)
    kings = 0
    groups = need - 1 if rng.random() < 0.8 else need
    for _ in range(groups):
        k = int(rng.integers(20))
        r = rng.random()
        if r < 0.5 and N_TEMPLATES[k] > 0:
            cards = list(TEMPLATES[k, int(rng.integers(N_TEMPLATES[k])), 2:])
        elif r < 0.85:
            cards = [k] * 3
        else:
            cards = [k] * 4
        for c in cards:
            if counts[c] < 4:
                counts[c] += 1
            elif kings < kings_in_deck:
                kings += 1
    if groups < need:  # the pair
        k = int(rng.integers(20))
        counts[k] = min(counts[k] + 2, 4)
    for _ in range(int(rng.integers(1, 3))):  # less one or two cards (a 王 may stand in)
        held = np.flatnonzero(counts)
        if held.size:
            counts[int(rng.choice(held))] -= 1
        if kings < kings_in_deck and rng.random() < 0.3:
            kings += 1
    return counts, kings, ntab, int(rng.integers(0, 12))


@pytest.mark.parametrize("table", ["seed", "rich"])
@pytest.mark.parametrize("kings_in_deck", [1, 2, 4])
def test_one_search_answers_as_the_win_check_kind_by_kind(rng, kings_in_deck, table):
    rules, values, wvx0 = _rules(kings_in_deck, table)
    ws, best2 = _workspace(), np.zeros((5, 5), np.int64)
    waiting = kinds = 0
    for _ in range(1500):
        counts, kings, ntab, th = _waiting_hand(rng, kings_in_deck)
        any_, ks = _check(rules, values, wvx0, counts, kings, ntab, th, ws, best2)
        waiting += any_
        kinds += len(ks)
    assert waiting >= 300 and kinds >= 600  # waiting hands, on many kinds, were checked


def test_three_wang_alone_stand_for_the_group_worth_most():
    """Four 句 of no 胡息 and two 王: the arriving card and the 王 make the last 门子,
    which reaches the 6 胡息 only as a big 一二三 or 二七十 (8, 9) under the rich table,
    not as three alike (4): the kinds of those groups are waited on, from the group of
    王 alone that the search scores at its last 门子.
    """
    from engine.zipai import cards

    rules, values, wvx0 = _rules(2, "rich")
    counts, kings = cards.parse("x4x5x6 x7x8x9 d4d5d6 d7d8d9 w w")
    ws, best2 = _workspace(), np.zeros((5, 5), np.int64)
    any_, kinds = _check(rules, values, wvx0, np.array(counts, np.int64), kings, 0, 0, ws,
                         best2)  # fmt: skip
    assert any_ and {cards.card(c) for c in ("d1", "d2", "d3", "d10")} <= kinds
