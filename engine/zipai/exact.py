"""Exact probability of 天胡 in 祁阳落地扫: the dealer's 15 dealt cards already win.

P(天胡) = Σ_j P(the dealer holds j 王) × P(15 - j real cards win with j 王), where the
dealer's cards are a uniform 15-card subset of the 80 + ``kings`` cards. The second
factor is ``complete_count(j) / C(80, 15 - j)``: :func:`complete_count` sums, over the
count vectors of 15 - j real cards that complete 5 门子 with at least 6 胡息 (RULEBOOK
§4.5; four dealt alike are a 倾, three a 坎 that is never split, a 王 stands for any
card), the number of card sets with those counts, Π_k C(4, c_k).

The count is an exact dynamic programme over the 20 kinds in rank order (小一, 大壹, 小二,
...). Its nondeterministic automaton tracks one partial split: 句 still waiting for the
next one or two ranks of a size, 二七十 waiting for 七 and 十, 大小搭 waiting for the big card
of the rank, groups formed, whether the pair is used, 胡息 so far (capped at the
minimum) and 王 used. The programme runs over *sets* of automaton states (a subset
construction), so a hand with several splits is counted once; each set carries the
number of card sets per cards dealt so far. It agrees with the hand evaluator on
millions of random hands (tests).

The programme takes seconds for j = 0, half a minute for j = 1, two minutes for j = 2
and eight for j = 3 in pure Python, so the counts are pinned as constants computed by
this same code (:data:`PINNED`; j = 0 is recomputed by the default tests, j = 1 and 2 by
slow tests, every pinned j agrees with the hand evaluator on random hands); a count that
is not pinned is computed once and cached on disk (:mod:`engine.jit.cache`).

>>> from engine.variants import get
>>> out = exact_tianhu(get("luodisao").resolve({"kings": 0}))
>>> round(float(out["tianhu"]), 7)
0.0007211
"""

from __future__ import annotations

import functools
from fractions import Fraction
from math import comb

import numpy as np

from ..errors import UsageError
from . import hand as zhand

__all__ = ["complete_count", "exact_tianhu", "PINNED"]

PINNED = {
    0: 4785236116224,
    1: 14685282954240,
    2: 18186390348672,
    3: 11882988119296,
}
"""``complete_count(j)`` for the default 胡息 table and minimum 6, computed by
:func:`_count` (j = 0 and 1 are recomputed by the tests, the others by a slow test)."""

_N_FIELDS = 12
# Automaton state fields: a0 b0 a1 b1 (句 of each size waiting for the next two ranks /
# the next one), t0 t1 (二七十 waiting for 七 and 十), u1 u2 (大小搭 waiting for one / two big
# cards of this rank), g (groups), pr (pair used), h (胡息, capped), w (王 used).


def _positions():
    for r in range(10):
        for s in (0, 1):
            yield s, r


def _make_trans(values: np.ndarray, hcap: int, j: int):
    """The automaton's step: ``trans(state, size, rank, real_count)`` -> frozenset."""
    yiersan = values[zhand.GROUPS.index("yiersan")]
    ju = values[zhand.GROUPS.index("ju")]
    erqishi = values[zhand.GROUPS.index("erqishi")]
    dazida = values[zhand.GROUPS.index("dazida")]
    kan = values[zhand.GROUPS.index("kan")]
    qing = values[zhand.GROUPS.index("qing")]
    jiang = values[zhand.GROUPS.index("jiang")]

    @functools.cache
    def trans(st, s, r, c):
        a = [st[0], st[2]]
        b = [st[1], st[3]]
        t = [st[4], st[5]]
        u1, u2, g, pr, h, w = st[6:]
        out = set()
        due = a[s] + b[s] + (t[s] if r in (6, 9) else 0) + ((u1 + 2 * u2) if s == 1 else 0)
        for wk in range(j - w + 1):
            y = c + wk - due
            if y < 0:
                continue
            for n3 in range((y if r <= 7 else 0) + 1):
                y1 = y - n3
                for n27 in range((y1 if r == 1 else 0) + 1):
                    y2 = y1 - n27
                    for m1 in range((y2 // 2 if s == 0 else 0) + 1):
                        y3 = y2 - 2 * m1
                        for m2 in range((y3 if s == 0 else 0) + 1):
                            y4 = y3 - m2
                            for k4 in range(y4 // 4 + 1):
                                y5 = y4 - 4 * k4
                                for k3 in range(y5 // 3 + 1):
                                    y6 = y5 - 3 * k3
                                    if y6 not in (0, 2) or (y6 == 2 and pr):
                                        continue
                                    kp = y6 // 2
                                    # A 坎 (three or four real alike) is one alike group.
                                    if c >= 3 and not (k4 >= 1 or (c == 3 and k3 >= 1)):
                                        continue
                                    g2 = g + n3 + n27 + m1 + m2 + k3 + k4 + kp
                                    if g2 > 5:
                                        continue
                                    seq = yiersan[s] if r == 0 else ju[s]
                                    h2 = h + n3 * seq + n27 * erqishi[s] + k3 * kan[s]
                                    h2 += k4 * qing[s] + kp * jiang[s]
                                    if s == 1:
                                        h2 += u1 * dazida[0] + u2 * dazida[1]
                                    na = list(a)
                                    nb = list(b)
                                    nt = list(t)
                                    nb[s] = a[s]
                                    na[s] = n3
                                    if r == 1:
                                        nt[s] = n27
                                    elif r == 9:
                                        nt[s] = 0
                                    if (r == 9 and (na[s] or nb[s])) or (r == 8 and na[s]):
                                        continue
                                    nu1, nu2 = (m1, m2) if s == 0 else (0, 0)
                                    out.add(
                                        (
                                            na[0],
                                            nb[0],
                                            na[1],
                                            nb[1],
                                            nt[0],
                                            nt[1],
                                            nu1,
                                            nu2,
                                            g2,
                                            1 if (pr or kp) else 0,
                                            min(h2, hcap),
                                            w + wk,
                                        )
                                    )
        return frozenset(out)

    return trans


def _count(j: int, values: np.ndarray, min_huxi: int) -> int:
    """The exact count of :func:`complete_count` (the subset-construction programme)."""
    nreal = 15 - j
    trans = _make_trans(values, min_huxi, j)
    dp = {frozenset([(0,) * _N_FIELDS]): [1] + [0] * nreal}
    for s, r in _positions():
        nd: dict = {}
        for states, vec in dp.items():
            for c in range(5):
                nxt = frozenset().union(*[trans(st, s, r, c) for st in states])
                if not nxt:
                    continue
                wc = comb(4, c)
                tgt = nd.get(nxt)
                if tgt is None:
                    tgt = nd[nxt] = [0] * (nreal + 1)
                for n in range(nreal + 1 - c):
                    if vec[n]:
                        tgt[n + c] += vec[n] * wc
        dp = nd
    good = 0
    for states, vec in dp.items():
        if any(st[8] == 5 and st[10] >= min_huxi and st[11] == j for st in states):
            good += vec[nreal]
    return good


@functools.cache
def complete_count(j: int, min_huxi: int = zhand.MIN_HUXI) -> int:
    """胡牌数 the card sets of 15 - j real cards that win with j 王 (default 胡息 table).

    Pinned values (:data:`PINNED`) are returned at once; others are computed (and cached
    on disk, keyed by this module's source).
    """
    if not 0 <= j <= 4:
        raise ValueError("j must be 0..4")
    if min_huxi == zhand.MIN_HUXI and j in PINNED:
        return PINNED[j]
    from engine.jit import cache as _cache

    from . import exact as me

    key = _cache.source_key(me) + f"-j{j}-m{min_huxi}"
    arrays = _cache.load_or_build(
        "zipai-tianhu",
        key,
        lambda: {"count": np.array([_count(j, zhand.values_table(), min_huxi)], np.int64)},
    )
    return int(arrays["count"][0])


def exact_tianhu(rules) -> dict:
    """天胡 exact probability under the resolved ``rules`` (``Variant.exact``).

    Returns a dict of Fractions: ``tianhu`` (any deal), ``tianhu_given_J_wang`` (the
    dealer holds J 王, J = 0..min(kings, 4)) and ``dealer_J_wang`` (that chance), and a
    ``note``. 天胡 depends on the dealer's 15 cards only, not on the player count.
    """
    kings = int(rules["kings"])
    missing = [j for j in range(min(kings, 4) + 1) if j not in PINNED and j > 1]
    if missing:
        raise UsageError(
            f"exact 天胡 with kings={kings} needs the count for {missing[0]} 王 in the "
            f"dealer's hand, which is not pinned (kings={max(PINNED)} at most)"
        )
    total = comb(80 + kings, 15)
    out: dict = {}
    p = Fraction(0)
    for j in range(min(kings, 15) + 1):
        pj = Fraction(comb(kings, j) * comb(80, 15 - j), total)
        cj = Fraction(complete_count(j), comb(80, 15 - j))
        out[f"dealer_{j}_wang"] = pj
        out[f"tianhu_given_{j}_wang"] = cj
        p += pj * cj
    out["tianhu"] = p
    out["note"] = (
        "天胡: the dealer's 15 dealt cards form 5 门子 with at least 6 胡息 (dealt four alike "
        "as 倾); exact, by a subset-construction programme over the 20 kinds"
    )
    return out
