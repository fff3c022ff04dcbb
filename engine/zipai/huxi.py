"""Compiled 胡息 kernels of the 字牌 family (numba). Only numpy, numba and kernels here.

Encodings used by every function:

- ``counts``: int-like array ``(20,)``, the real cards of a player's concealed hand per
  kind (kind order of :mod:`engine.zipai.cards`: 0-9 小 一..十, 10-19 大 壹..拾). 王 are
  not in ``counts``; they are a count ``kings``.
- ``cand``: the candidate card (the card that may complete the hand): -1 none, 0..19 a
  kind, 20 a 王 (a 王 is always the drawer's own card). ``cand_self``: 1 if the player
  turned it up himself (自摸), 0 if it came from another player (a discard or a card
  another player turned up).
- ``need``: the 门子 the concealed cards (hand, candidate, 王) must still form: 5 minus
  the groups already on the table.
- ``values``: int64 ``(10, 2)``, the 胡息 of each group code (rows ``JU`` .. ``JIANG``
  below) for small (column 0) and big (column 1) cards; a 大小搭 uses the size of its
  two alike cards. ``wv``: int64 ``(5, 5)`` from :func:`_wang_values`, the best 胡息 of a
  group made of 王 only, by group size (2, 3, 4) and number of red cards it stands for.
- ``best``: int64 ``(5,)`` output, ``best[j]``: the most 胡息 of the concealed groups over
  the splits in which exactly ``j`` 王 stand for red cards, -1 if there is none.
- ``xk``: the 醒 kind (0..19) whose 王 are counted, -1 for none. ``best2``: int64
  ``(5, 5)`` output of :func:`_evaluate_core`, ``best2[j, x]``: the most 胡息 over the
  splits in which ``j`` 王 stand for red cards and ``x`` 王 stand for the kind ``xk``
  (RULEBOOK §4.4 rule 15: a 王 counts as the card it stands for, 醒 included). ``wvx``:
  int64 ``(5, 5, 5)`` from :func:`_wang_values_x`, the best 胡息 of a group of 王 only by
  size, red cards and cards of kind ``xk`` it stands for.
- ``pair_ok``: 1 if the split may hold the pair (将), 0 if not (the 王钓 shape, whose
  pair is the lone 王 and the drawn card).

The search (RULEBOOK §4.2, §4.4, §4.5): the lowest kind still holding a card must lie in
some group; try every group that contains it, filling any missing card with a 王, and
recurse. Groups: 句 (three consecutive ranks of one size), 二七十, 大小搭 (two of a rank in
one size and one in the other), three alike, four alike, and at most one pair (将). The
number of 门子 is fixed (``need``), so the card count decides the shape: 3-card groups,
4-card groups and a pair in any mix that adds up (4+3+3+3+2 after a 跑, 4+3+3+3+3 after
a 倾). A 坎 dealt into the hand (three real cards of a kind) is never split (rule 12):
they form three alike, or four alike with the candidate or a 王; four real alike are
one 4-card group. Three or four alike of the concealed hand are 坎 / 倾; if the candidate
came from another player and is one of them, 碰 / 跑 (rule 7). A self-drawn fourth card
of a 坎 always joins it (倾 before 胡, rule 9).

Pruning rests on two exchange arguments, both checked against the brute-force twin:
a real card is used before a 王 standing for the same kind (a spare 王 can do all a
spare real card can), and the candidate from another player is used before a real copy
in any group whose 胡息 does not depend on it (a spare real card is worth at least as
much as a spare candidate, since 碰 <= 坎 and 跑 <= 倾 in ``values``). A self-drawn
candidate is an ordinary concealed card: the triplet it completes is a 啸, worth a 坎.
Groups holding the same lowest kind are tried in option order only, so no split is
searched twice, and three cheap bounds cut the search: the cards left must fit the 门子
left (3 to 4 each, one fewer with the pair unused); cards beyond three per 门子 need as
many kinds that can still make four alike (:func:`_fours`); and a card that no group of
the hand's own cards can hold needs a 王, one 王 serving at most two such cards
(:func:`_isolated`, checked at the root and after each group that uses a 王).

From another kernel (the game loop): build ``wvx = _wang_values_x(values, xk)`` and
``ws = _workspace()`` once, then per hand call :func:`_evaluate_core` (or the
compatibility entry :func:`_evaluate_one` with ``wv = _wang_values(values)``), and
:func:`_summarize` on ``best2`` reduced over its 醒 axis.
"""

from __future__ import annotations

import numpy as np

from engine.jit.njit import kernel
from engine.zipai.layout import (
    HOW_DISCARD,
    HOW_FLIP,
    HOW_SELF,
    T_CHOUXIAO,
    T_PENG,
    T_XIAO,
    Z_VALUES,
)

N_KINDS = 20
WANG = 20
MAX_KINGS = 4

JU = 0
"""句: three consecutive ranks of one size other than 一二三 (胡息 0)."""
YIERSAN = 1
"""一二三 / 壹贰叁 (3 / 6)."""
ERQISHI = 2
"""二七十 / 贰柒拾 (3 / 6)."""
DAZIDA = 3
"""大小搭: two of a rank in one size, one of it in the other (0)."""
KAN = 4
"""坎: three alike in the hand, 啸 too (3 / 6)."""
PENG = 5
"""碰: three alike, one from another player (1 / 3)."""
XIAO = 6
"""啸: three alike laid on the table from a pair in hand (3 / 6); table groups only, as a
triplet that a self-drawn candidate completes in the hand is valued as a 坎."""
QING = 7
"""倾: four alike, all the player's own (9 / 12)."""
PAO = 8
"""跑: four alike, one from another player (6 / 9)."""
JIANG = 9
"""将: the pair (0)."""
N_CODES = 10

RED = np.zeros(N_KINDS, np.int64)
for _r in (1, 6, 9):
    RED[_r] = 1
    RED[10 + _r] = 1


def _build_templates():
    """For each kind, the groups of distinct cards that contain it.

    Rows ``(code, size, a, b, c)``: 句 (and 一二三), 二七十 and the two 大小搭; the groups of
    alike cards are searched apart (their 胡息 depend on where the cards came from).
    """
    tpl = np.zeros((N_KINDS, 6, 5), np.int64)
    n = np.zeros(N_KINDS, np.int64)
    for k in range(N_KINDS):
        size, rank = divmod(k, 10)
        base = size * 10
        rows = []
        for a in (rank - 2, rank - 1, rank):
            if 0 <= a <= 7:
                rows.append((YIERSAN if a == 0 else JU, size, base + a, base + a + 1, base + a + 2))
        if rank in (1, 6, 9):
            rows.append((ERQISHI, size, base + 1, base + 6, base + 9))
        other = k + 10 if size == 0 else k - 10
        rows.append((DAZIDA, size, k, k, other))
        rows.append((DAZIDA, 1 - size, k, other, other))
        n[k] = len(rows)
        tpl[k, : len(rows)] = rows
    return tpl, n


TEMPLATES, N_TEMPLATES = _build_templates()


@kernel
def _wang_values(values):
    """Best 胡息 of a group of 王 only, ``wv[size, red]`` (-1 if no such group).

    ``size`` 2 (the pair), 3 or 4 cards; ``red``: how many of them stand for red cards.
    """
    wv = np.full((5, 5), -1, np.int64)
    for s in range(2):
        for red in (0, 1):
            r = 2 * red
            wv[2, r] = max(wv[2, r], values[JIANG, s])
            r = 3 * red
            wv[3, r] = max(wv[3, r], values[KAN, s])
            wv[3, r] = max(wv[3, r], values[DAZIDA, s])
            r = 4 * red
            wv[4, r] = max(wv[4, r], values[QING, s])
        wv[3, 3] = max(wv[3, 3], values[ERQISHI, s])
        for a in range(8):
            r = RED[a] + RED[a + 1] + RED[a + 2]
            code = YIERSAN if a == 0 else JU
            wv[3, r] = max(wv[3, r], values[code, s])
    return wv


@kernel
def _wang_values_x(values, xk):
    """Best 胡息 of a group of 王 only, ``wvx[size, red, x]`` (-1 if no such group).

    ``size`` 2 (the pair), 3 or 4 cards; ``red``: how many of them stand for red cards;
    ``x``: how many stand for the kind ``xk`` (-1: none). ``wvx[:, :, 0]`` with
    ``xk = -1`` is :func:`_wang_values`. A new array (:func:`_wang_values_x_into` fills
    one the caller keeps).
    """
    wvx = np.empty((5, 5, 5), np.int64)
    _wang_values_x_into(values, xk, wvx)
    return wvx


@kernel(refcount=False)
def _wang_values_x_into(values, xk, wvx):
    """:func:`_wang_values_x` into ``wvx`` int64 ``(5, 5, 5)`` (the game loop's copy)."""
    for a in range(5):
        for b in range(5):
            for c in range(5):
                wvx[a, b, c] = -1
    for q in range(N_KINDS):
        s = q // 10
        isx = 1 if q == xk else 0
        r = RED[q]
        v = values[JIANG, s]
        if v > wvx[2, 2 * r, 2 * isx]:
            wvx[2, 2 * r, 2 * isx] = v
        v = values[KAN, s]
        if v > wvx[3, 3 * r, 3 * isx]:
            wvx[3, 3 * r, 3 * isx] = v
        v = values[QING, s]
        if v > wvx[4, 4 * r, 4 * isx]:
            wvx[4, 4 * r, 4 * isx] = v
        q2 = q + 10 if s == 0 else q - 10
        x2 = 2 * isx + (1 if q2 == xk else 0)
        v = values[DAZIDA, s]
        if v > wvx[3, 2 * r + RED[q2], x2]:
            wvx[3, 2 * r + RED[q2], x2] = v
    for s in range(2):
        base = 10 * s
        for a in range(8):
            r = RED[base + a] + RED[base + a + 1] + RED[base + a + 2]
            x = 0
            for q in range(base + a, base + a + 3):
                if q == xk:
                    x += 1
            v = values[YIERSAN if a == 0 else JU, s]
            if v > wvx[3, r, x]:
                wvx[3, r, x] = v
        x = 0
        for q in (base + 1, base + 6, base + 9):
            if q == xk:
                x += 1
        v = values[ERQISHI, s]
        if v > wvx[3, 3, x]:
            wvx[3, 3, x] = v


N_OPTIONS = 11
"""Options tried at a search node: locked 坎 (0-2) or, unlocked, alike 3 without / with
the candidate (0, 1), alike 4 without / with it (2, 3), the pair (4), the distinct-card
groups of ``TEMPLATES`` (5-10)."""

MAX_DEPTH = 8
"""Search depth bound: one level per 门子 (at most 5) and the leaf."""

# Rows of the workspace ``ws`` (int64, (N_ROWS, 20)): the cards left and the locks, then
# one column per search level: the state on entering the level (王 left, 门子 left, pair
# still allowed, cards left, 胡息, red 王, candidate flag), the kind grouped there, the
# next option to try, and what the applied option took (kinds, amounts, changed lock);
# last the 王 standing for the 醒 kind.
CNT, LOCK, S_W, S_G, S_P, S_C, S_H, S_J, S_CL, KIND, OPT = range(11)
UK, UA, LK, LV = 11, 14, 17, 18
S_X = 19
S_M = 20
N_ROWS = 21


@kernel
def _workspace():
    """A fresh workspace for :func:`_evaluate_one` (reuse it across calls)."""
    return np.zeros((N_ROWS, N_KINDS), np.int64)


@kernel(inline="always")
def _take(ws, d, p, q, amount):
    """Take ``amount`` cards of kind ``q`` as part ``p`` of level ``d``'s undo record."""
    ws[CNT, q] -= amount
    ws[UK + p, d] = q
    ws[UA + p, d] = amount


@kernel(inline="always")
def _apply(ws, d, o, k, cand, xk, values):
    """Try option ``o`` on the lowest kind ``k`` at level ``d``; apply it if legal.

    Returns ``(ok, size, w, jr, wx, dh, cl2, pair_used, wm)``: whether the group can be
    formed, its number of cards, the 王 it uses, how many of them stand for red cards and
    how many for the 醒 kind ``xk``, its 胡息, the candidate flag after it, whether it
    is the pair, and the kinds its 王 stand for (a bit set). On success ``ws`` holds the
    cards and lock taken, and level ``d``'s undo record (whose unused entries are -1:
    :func:`_undo` resets them).
    """
    size = k // 10
    cl = ws[S_CL, d]
    wang = ws[S_W, d]
    here = 1 if (cl == 1 and cand == k) else 0
    isx = 1 if k == xk else 0
    ok = False
    n = 0
    nk = 0
    w = 0
    jr = 0
    wx = 0
    dh = 0
    cl2 = cl
    pair_used = 0
    L = ws[LOCK, k]
    if L > 0:
        if o == 0:
            ok = True
            n = L
            nk = L
            dh = values[QING, size] if L == 4 else values[KAN, size]
        elif o == 1 and L == 3 and wang > 0:
            ok = True
            n = 4
            nk = 3
            w = 1
            jr = RED[k]
            wx = isx
            dh = values[QING, size]
        elif o == 2 and L == 3 and here == 1:
            ok = True
            n = 4
            nk = 4
            cl2 = 0
            dh = values[PAO, size]
        if ok:
            ws[LK, d] = k
            ws[LV, d] = L
            ws[LOCK, k] = 0
            _take(ws, d, 0, k, nk)
        return ok, n, w, jr, wx, dh, cl2, pair_used, np.int64(w > 0) << k
    real = ws[CNT, k] - here
    if o < 4:
        n = 3 if o < 2 else 4
        if o % 2 == 0:
            nk = min(n, real)
            w = n - nk
            ok = nk >= 1 and w <= wang
            dh = values[KAN if n == 3 else QING, size]
        elif here == 1:
            nk = min(n - 1, real) + 1
            w = n - nk
            ok = w <= wang
            cl2 = 0
            dh = values[PENG if n == 3 else PAO, size]
        jr = w * RED[k]
        wx = w * isx
    elif o == 4:
        if ws[S_P, d] == 1:
            n = 2
            nk = min(2, ws[CNT, k])
            w = 2 - nk
            ok = w <= wang
            cl2 = cl - here
            jr = w * RED[k]
            wx = w * isx
            dh = values[JIANG, size]
            pair_used = 1
    else:
        t = o - 5
        n = 3
        # Count the missing cards first (a repeated kind needs two available), then take.
        a = TEMPLATES[k, t, 2]
        b = TEMPLATES[k, t, 3]
        c = TEMPLATES[k, t, 4]
        fa = ws[CNT, a] - ws[LOCK, a]
        fb = ws[CNT, b] - ws[LOCK, b] - (1 if b == a else 0)
        fc = ws[CNT, c] - ws[LOCK, c] - (1 if c == b else 0)
        wm = np.int64(0)
        if fa <= 0:
            wm |= np.int64(1) << a
            w += 1
            jr += RED[a]
            wx += 1 if a == xk else 0
        if fb <= 0:
            wm |= np.int64(1) << b
            w += 1
            jr += RED[b]
            wx += 1 if b == xk else 0
        if fc <= 0:
            wm |= np.int64(1) << c
            w += 1
            jr += RED[c]
            wx += 1 if c == xk else 0
        if w <= wang:
            ok = True
            dh = values[TEMPLATES[k, t, 0], TEMPLATES[k, t, 1]]
            if fa > 0:
                _take(ws, d, 0, a, 1)
            if fb > 0:
                _take(ws, d, 1, b, 1)
            if fc > 0:
                _take(ws, d, 2, c, 1)
            if cl == 1 and (fa > 0 and a == cand or fb > 0 and b == cand or fc > 0 and c == cand):
                cl2 = 0
        return ok, n, w, jr, wx, dh, cl2, pair_used, wm
    if ok:
        _take(ws, d, 0, k, nk)
    return ok, n, w, jr, wx, dh, cl2, pair_used, np.int64(w > 0) << k


@kernel(inline="always")
def _undo(ws, d):
    """Give back what the option applied at level ``d`` took."""
    for p in range(3):
        q = ws[UK + p, d]
        if q >= 0:
            ws[CNT, q] += ws[UA + p, d]
            ws[UK + p, d] = -1
    if ws[LK, d] >= 0:
        ws[LOCK, ws[LK, d]] = ws[LV, d]
        ws[LK, d] = -1


NO_FLOOR = 1 << 40
"""The ``floor`` of a search that does not collect the kinds its 王 stand for."""

WAITS = MAX_DEPTH
"""The column of ``ws[S_M]`` where :func:`_search` collects what its 王 stood for (the
columns before it: the kinds the 王 of each level's groups so far stand for)."""

WAIT_ANY = np.int64(1) << N_KINDS
"""Bit of :func:`wait_search`: some split has the 胡息 asked (a 王 arriving completes the
cards)."""


@kernel(inline="always")
def _wild_group(values, w, q):
    """The most 胡息 of a group of ``w`` 王 alone that stands for a card of kind ``q`` (a
    pair, three alike or a 3-card group of ``TEMPLATES``, four alike), -1 if none.
    """
    s = q // 10
    if w == 2:
        return values[JIANG, s]
    if w == 4:
        return values[QING, s]
    if w != 3:
        return -1
    v = values[KAN, s]
    for t in range(N_TEMPLATES[q]):
        u = values[TEMPLATES[q, t, 0], TEMPLATES[q, t, 1]]
        if u > v:
            v = u
    return v


@kernel(refcount=False)
def _search(ws, cand, xk, values, wvx, best, floor):
    """Depth-first search over the splits of the cards in ``ws``; updates ``best (5, 5)``.

    With ``floor`` below :data:`NO_FLOOR` it also collects, in ``ws[S_M, WAITS]``, the
    kinds some 王 stands for in a split whose concealed 胡息 reaches ``floor``, and
    :data:`WAIT_ANY` when there is such a split (:func:`wait_search`).

    ``ws[CNT]``: cards per kind (the candidate included); ``ws[LOCK]``: 3 or 4 for a 坎 /
    four alike that must stay whole, else 0; column 0 of the state rows: 王, 门子 to form,
    pair allowed, cards (王 included), 胡息 0, red 王 0, 1 if the candidate came from
    another player (it is then tracked through the search), and 醒 王 0. An explicit
    stack, not recursion: numba cannot cache recursive kernels. Returns the nodes visited.
    """
    d = 0
    entering = True
    nodes = 0
    while d >= 0:
        if entering:
            nodes += 1
            entering = False
            g = ws[S_G, d]
            c = ws[S_C, d]
            leaf = c > 4 * g or c < 3 * g - ws[S_P, d]
            if not leaf and d > 0 and ws[S_W, d] < ws[S_W, d - 1]:
                leaf = _isolated(ws) > 2 * ws[S_W, d]
            if not leaf and c > 3 * g:
                leaf = _fours(ws, ws[S_W, d]) < c - 3 * g
            if not leaf:
                k = 0
                while k < N_KINDS and ws[CNT, k] == 0:
                    k += 1
                if k == N_KINDS:
                    leaf = True
                    w = ws[S_W, d]
                    h = ws[S_H, d]
                    j = ws[S_J, d]
                    x = ws[S_X, d]
                    if g == 0:
                        if h > best[j, x]:
                            best[j, x] = h
                        if h >= floor:
                            ws[S_M, WAITS] |= ws[S_M, d] | WAIT_ANY
                    elif g == 1 and (w >= 3 or ws[S_P, d] == 1):
                        for r in range(w + 1):
                            for xx in range(w + 1):
                                v = wvx[w, r, xx]
                                if v >= 0 and h + v > best[j + r, x + xx]:
                                    best[j + r, x + xx] = h + v
                        if floor < NO_FLOOR:
                            for q in range(N_KINDS):
                                v = _wild_group(values, w, q)
                                if v >= 0 and h + v >= floor:
                                    ws[S_M, WAITS] |= ws[S_M, d] | WAIT_ANY | (np.int64(1) << q)
                elif g == 0:
                    leaf = True
                else:
                    ws[KIND, d] = k
                    # Groups holding the same lowest kind come in option order, so that no
                    # split is searched twice (not across a 坎's own group).
                    if d > 0 and ws[KIND, d - 1] == k and ws[LK, d - 1] != k:
                        ws[OPT, d] = ws[OPT, d - 1] - 1
                    else:
                        ws[OPT, d] = 0
            if leaf:
                d -= 1
                if d >= 0:
                    _undo(ws, d)
                continue
        k = ws[KIND, d]
        o = ws[OPT, d]
        end = 3 if ws[LOCK, k] > 0 else 5 + N_TEMPLATES[k]
        fast = ws[LOCK, k] == 0 and not (ws[S_CL, d] == 1 and cand == k)
        advanced = False
        while o < end:
            if fast and o < 4 and (o % 2 == 1 or ws[CNT, k] + ws[S_W, d] < 3 + o // 2):
                o += 1
                continue
            ok, n, w, jr, wx, dh, cl2, pu, wm = _apply(ws, d, o, k, cand, xk, values)
            o += 1
            if ok:
                advanced = True
                break
        ws[OPT, d] = o
        if advanced:
            ws[S_W, d + 1] = ws[S_W, d] - w
            ws[S_G, d + 1] = ws[S_G, d] - 1
            ws[S_P, d + 1] = ws[S_P, d] - pu
            ws[S_C, d + 1] = ws[S_C, d] - n
            ws[S_H, d + 1] = ws[S_H, d] + dh
            ws[S_J, d + 1] = ws[S_J, d] + jr
            ws[S_X, d + 1] = ws[S_X, d] + wx
            ws[S_CL, d + 1] = cl2
            ws[S_M, d + 1] = ws[S_M, d] | wm
            d += 1
            entering = True
        else:
            d -= 1
            if d >= 0:
                _undo(ws, d)
    return nodes


@kernel(refcount=False)
def _isolated(ws):
    """Cards that no group of the hand's own cards can hold (a lower bound on 王 use).

    A card of a kind with one free card (not in a 坎), in no 句 / 二七十 / 大小搭 of free
    cards, can only lie in a group with a 王, and one 王 serves at most two such cards:
    a hand with more than ``2 * wang`` of them has no split.
    """
    n = 0
    for q in range(N_KINDS):
        if ws[LOCK, q] > 0 or ws[CNT, q] != 1:
            continue
        covered = False
        for t in range(N_TEMPLATES[q]):
            a = TEMPLATES[q, t, 2]
            b = TEMPLATES[q, t, 3]
            c = TEMPLATES[q, t, 4]
            if (
                ws[CNT, a] - ws[LOCK, a] > 0
                and ws[CNT, b] - ws[LOCK, b] - (1 if b == a else 0) > 0
                and ws[CNT, c] - ws[LOCK, c] - (1 if c == b else 0) > 0
            ):
                covered = True
                break
        if not covered:
            n += 1
    return n


@kernel(inline="always")
def _fours(ws, wang):
    """Kinds that can still make four alike (with the 王 left), and one for four 王."""
    n = 1 if wang >= 4 else 0
    for q in range(N_KINDS):
        if ws[CNT, q] > 0 and ws[CNT, q] + wang >= 4:
            n += 1
    return n


@kernel(refcount=False)
def _evaluate_core(counts, kings, need, cand, cand_self, pair_ok, xk, values, wvx, best2, ws):
    """胡息 best split: fill ``best2 (5, 5)`` with the most concealed 胡息 per red-王 and
    醒-王 count.

    Compiled. ``counts`` (20,) the concealed real cards, ``kings`` the 王 held, ``need``
    the 门子 still to form, ``cand``/``cand_self`` the candidate card, ``pair_ok`` whether
    the pair is allowed, ``xk`` the 醒 kind (-1 none), ``wvx`` from
    :func:`_wang_values_x` for that ``xk``, ``ws`` a workspace from :func:`_workspace`
    (module docstring). ``best2[j, x]`` is -1 when no split has ``j`` 王 standing for red
    cards and ``x`` for ``xk``. Returns the search nodes visited.
    """
    wang = _load(counts, kings, need, cand, cand_self, pair_ok, best2, ws)
    if need < 0 or _isolated(ws) > 2 * wang:
        return 0
    return _search(ws, np.int64(cand), xk, values, wvx, best2, np.int64(NO_FLOOR))


@kernel(refcount=False)
def wait_search(counts, kings, need, floor, values, wvx, best2, ws):
    """The kinds whose card, turned up by the player himself, completes the concealed
    cards (``counts``, ``kings`` 王) into ``need`` 门子 with at least ``floor`` concealed
    胡息, as a bit set, with :data:`WAIT_ANY` when a 王 turned up would.

    One search of the cards with a 王 more, collecting the kinds its 王 stand for in the
    splits that reach ``floor``: a card of kind ``x`` completes them exactly when a 王
    standing for ``x`` does (the groups' 胡息 do not ask which cards are real). So it
    answers for a kind held fewer than three times whose arrival joins no table group;
    ask :func:`_evaluate_core` for the others (a 坎's fourth card, an upgrade). ``wvx``
    from :func:`_wang_values_x` with ``xk = -1``. ``kings`` must be at most 3: with four
    held, the five 王 may make two groups of 王 alone, which the search never forms (it
    groups 王 alone only in the last 门子), so a 王 standing for ``x`` there is missed.
    """
    wang = _load(counts, kings, need, np.int64(WANG), np.int64(1), np.int64(1), best2, ws)
    ws[S_M, WAITS] = 0
    if need < 0 or _isolated(ws) > 2 * wang:
        return np.int64(0)
    _search(ws, np.int64(WANG), np.int64(-1), values, wvx, best2, floor)
    return ws[S_M, WAITS]


@kernel(inline="always")
def _load(counts, kings, need, cand, cand_self, pair_ok, best2, ws):
    """Set ``best2`` to -1 and ``ws`` to the root of a search (:func:`_evaluate_core`);
    returns the 王 there, an arriving 王 included.
    """
    for i in range(best2.shape[0]):
        for x in range(best2.shape[1]):
            best2[i, x] = -1
    cards = 0
    for k in range(N_KINDS):
        c = np.int64(counts[k])
        ws[CNT, k] = c
        ws[LOCK, k] = c if c >= 3 else 0
        cards += c
    for d in range(MAX_DEPTH):
        ws[UK, d] = -1
        ws[UK + 1, d] = -1
        ws[UK + 2, d] = -1
        ws[LK, d] = -1
    wang = np.int64(kings)
    cand_left = 0
    ck = np.int64(cand)
    if ck == WANG:
        wang += 1
    elif ck >= 0:
        ws[CNT, ck] += 1
        cards += 1
        if cand_self:
            if ws[LOCK, ck] == 3:
                ws[LOCK, ck] = 4
        else:
            cand_left = 1
    ws[S_W, 0] = wang
    ws[S_G, 0] = need
    ws[S_P, 0] = 1 if pair_ok else 0
    ws[S_C, 0] = cards + wang
    ws[S_H, 0] = 0
    ws[S_J, 0] = 0
    ws[S_X, 0] = 0
    ws[S_CL, 0] = cand_left
    ws[S_M, 0] = 0
    return wang


@kernel
def _evaluate_one(counts, kings, need, cand, cand_self, values, wv, best, ws):
    """胡息 best split: fill ``best (5,)`` with the most concealed 胡息 per red-王 count.

    Compiled. ``counts`` (20,) the concealed real cards, ``kings`` the 王 held, ``need``
    the 门子 still to form, ``cand``/``cand_self`` the candidate card (module docstring),
    ``wv`` from :func:`_wang_values`, ``ws`` a workspace from :func:`_workspace`.
    ``best[j]`` is -1 when no split has ``j`` 王 standing for red cards. Returns the search
    nodes visited. (A convenience entry: it allocates; hot loops call
    :func:`_evaluate_core`.)
    """
    wvx = np.full((5, 5, 5), -1, np.int64)
    for s in range(5):
        for r in range(5):
            wvx[s, r, 0] = wv[s, r]
    best2 = np.empty((5, 5), np.int64)
    nodes = _evaluate_core(
        counts, kings, need, cand, cand_self, np.int64(1), np.int64(-1), values, wvx, best2, ws
    )
    for j in range(best.shape[0]):
        best[j] = best2[j, 0]
    return nodes


@kernel(inline="always")
def _colour_rank(red):
    """Default colour factor of a red count (黑胡 4, 全红 4, 一点朱 3, 红胡 2, else 1)."""
    if red == 0 or red > 9:
        return 4
    if red == 1:
        return 3
    if red >= 7:
        return 2
    return 1


@kernel(refcount=False)
def _summarize(best, table_huxi, red_base):
    """Pick the best split from ``best`` (5,): ``(huxi, red)``, (-1, -1) if none.

    Most 胡息 first (table groups included); among equal 胡息, the red count with the
    larger default colour factor (:func:`_colour_rank`), then the fewer red cards.
    """
    huxi = -1
    red = -1
    for jj in range(best.shape[0]):
        if best[jj] < 0:
            continue
        h = best[jj] + table_huxi
        r = red_base + jj
        if (
            h > huxi
            or h == huxi
            and (
                _colour_rank(r) > _colour_rank(red)
                or _colour_rank(r) == _colour_rank(red)
                and r < red
            )
        ):
            huxi = h
            red = r
    return huxi, red


@kernel
def _evaluate_batch(
    counts,
    kings,
    need,
    cand,
    cand_self,
    table_huxi,
    table_red,
    min_huxi,
    values,
    out_huxi,
    out_red,
    out_win,
    out_by_red,
):
    """胡息 of a batch of hands. Compiled.

    Parameters
    ----------
    counts : uint8 (n, 20)
        Concealed real cards per kind.
    kings, need, cand, cand_self, table_huxi, table_red : int64 (n,)
        王 held, 门子 still to form, candidate card and whether self-drawn (module
        docstring), and the 胡息 and red cards of the groups on the table.
    min_huxi : int
        Fewest 胡息 a winning hand has (RULEBOOK §4.5 rule 17: 6).
    values : int64 (10, 2)
        胡息 per group code and size.
    out_huxi, out_red : int64 (n,)
        Output: the most 胡息 over all splits (table included) and the red cards of that
        split (:func:`_summarize`); -1 when the cards do not split into 门子.
    out_win : bool (n,)
        Output: a split exists and ``out_huxi >= min_huxi``.
    out_by_red : int64 (n, 5)
        Output: ``[i, j]`` the most 胡息 (table included) over the splits in which ``j``
        王 stand for red cards (red cards ``red_base + j``), -1 if none.
    """
    wvx = _wang_values_x(values, np.int64(-1))
    best2 = np.empty((MAX_KINGS + 1, MAX_KINGS + 1), np.int64)
    best = np.empty(MAX_KINGS + 1, np.int64)
    ws = _workspace()
    for i in range(counts.shape[0]):
        _evaluate_core(counts[i], kings[i], need[i], cand[i], cand_self[i], np.int64(1),
                       np.int64(-1), values, wvx, best2, ws)  # fmt: skip
        for jj in range(MAX_KINGS + 1):
            best[jj] = best2[jj, 0]
        red_base = table_red[i]
        for k in range(N_KINDS):
            red_base += RED[k] * counts[i, k]
        if 0 <= cand[i] < N_KINDS:
            red_base += RED[cand[i]]
        h, r = _summarize(best, table_huxi[i], red_base)
        out_huxi[i] = h
        out_red[i] = r
        out_win[i] = h >= 0 and h >= min_huxi
        for jj in range(MAX_KINGS + 1):
            out_by_red[i, jj] = best[jj] + table_huxi[i] if best[jj] >= 0 else -1


# ---- the 胡息 table and the win's work arrays, as the game loop and the variants read them ---
@kernel
def packed_values(rules):
    """The ``(10, 2)`` 胡息 table packed in ``rules`` (slots ``Z_VALUES``)."""
    v = np.empty((10, 2), np.int64)
    for i in range(10):
        v[i, 0] = rules[Z_VALUES + 2 * i]
        v[i, 1] = rules[Z_VALUES + 2 * i + 1]
    return v


@kernel(inline="always")
def upgrade_delta(values, up, how, kind):
    """胡息 gained when the winning card joins the table group ``up`` of its kind.

    -1 when it cannot: 啸 -> 倾 on one's own flip, 啸 -> 跑 on another's card, 碰 -> 跑 on
    any flipped card (never on a discard, rule 11 「有人摸到该张」).
    """
    if kind < 0 or kind >= WANG:
        return -1
    size = kind // 10
    if up == T_XIAO or up == T_CHOUXIAO:
        if how == HOW_SELF:
            return values[QING, size] - values[XIAO, size]
        if how == HOW_DISCARD or how == HOW_FLIP:
            return values[PAO, size] - values[XIAO, size]
    elif up == T_PENG:
        if how == HOW_SELF or how == HOW_FLIP:
            return values[PAO, size] - values[PENG, size]
    return -1


@kernel
def score_scratch():
    """Work arrays of a win's scoring: ``(sq, wvx, gcounts)``, int64 ``(4, 5, 5)``,
    ``(5, 5, 5)`` and ``(20,)`` (made once per match by the game loop).
    """
    sq = np.zeros((4, MAX_KINGS + 1, MAX_KINGS + 1), np.int64)
    wvx = np.zeros((5, 5, 5), np.int64)
    gcounts = np.zeros(20, np.int64)
    return sq, wvx, gcounts
