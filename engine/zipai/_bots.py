"""Bot policies of the 字牌 family, compiled (numba). Kernels only.

Three policies, chosen per seat (codes ``P_*`` of :mod:`engine.game._layout`):

``random``
    Discards a uniformly random kind among its legal discards, takes each optional claim
    (碰, 吃) with probability 1/2 and a uniformly random 吃 among the legal ones, and
    declares every win (forced actions, 倾 啸 跑, are not choices).
``efficiency``
    Aims at 5 门子 with at least 6 胡息 by a cheap *structure* measure (below): discards
    the card whose keeping is worth least, claims when the structure after the claim and
    its discard beats passing, declares every win.
``value``
    The same measure with 胡息 always counted (囤 = 胡息 + 3 醒) and the colour factors
    in view: with at most two red cards it sheds red ones (黑胡 ×4, 一点朱 ×3), with six
    or more it keeps them (红胡 ×2, 全红 ×4). It passes an optional win on another
    player's card when a later self-draw (×2 from every player) is likely enough
    (:func:`want_win`).

The structure measure (the bots' distance to a win). For each card kind ``k`` the player
holds free (not in a 坎, not a 王), its *keep value* is the sum over the 3-card groups that
contain ``k`` (句, 一二三, 二七十, 大小搭 and three alike) of: ``W_FULL`` when the hand holds
the whole group, ``W_PART`` when it holds all but one card and that card is still unseen
somewhere (scaled by how many copies are unseen), plus ``W_PAIR`` for a pair; each group
weighs more by its 胡息 (one point per 胡息 while the hand is short of 6, always for
``value``). The hand's structure is the sum of its cards' keep values; a 王 adds
``W_WANG`` for every partial group it could complete. It costs one pass over the kinds and
their six group templates (O(120)), so the bots stay cheap enough for 10,000 deals/s.
:func:`distance` turns the same pass into an estimate of the cards still missing.

All randomness comes from the deal's bot stream (engine.rng BOTS).
"""

from __future__ import annotations

from .. import rng
from .._numba import kernel
from ..game._layout import P_EFFICIENCY, P_RANDOM, P_VALUE
from ._huxi import N_TEMPLATES, RED, TEMPLATES, WANG

W_FULL = 12
"""Keep value of a card in a complete 3-card group of the hand."""
W_PART = 4
"""Keep value of a card in a group missing one unseen card (times unseen copies / 4)."""
W_PAIR = 7
"""Keep value of a pair (a 啸 / 碰 / 将 to be)."""
W_WANG = 2
"""Extra keep value per 王 held, for each partial group a 王 could complete."""
W_GROUP = 30
"""Value of a complete group laid on the table by a claim."""
W_HUXI = 2
"""Keep value per 胡息 point of a group."""
RED_SHED = 6
"""Value-bot penalty for keeping a red card when aiming at 黑胡 / 一点朱."""
RED_KEEP = 4
"""Value-bot bonus for keeping a red card when aiming at 红胡 / 全红."""

__all__ = [
    "keep_values",
    "structure",
    "distance",
    "choose_discard",
    "want_claim",
    "choose_chi",
    "want_win",
]


@kernel(inline="always")
def _avail(h, q, k):
    """Free copies of ``q`` in ``h`` (not in a 坎), one copy of ``k`` set aside."""
    have = h[q] if h[q] < 3 else 0
    if q == k:
        have -= 1
    return have


@kernel
def keep_values(h, unseen, values, huxi_weight, red_pref, out):
    """Keep value of one free card of each kind into ``out (20,)`` int64 (0 if none held).

    ``h``: the hand (21,), index 20 = 王; ``unseen`` (20,): copies the player cannot see;
    ``huxi_weight``: points per 胡息 of a group; ``red_pref``: -1 shed red cards, +1 keep
    them, 0 indifferent. Cards of a 坎 (three alike) are not free and get 0; a held free
    card gets at least 1.
    """
    kings = h[WANG]
    for k in range(20):
        out[k] = 0
    for k in range(20):
        f = h[k]
        if f == 0 or f >= 3:
            continue
        v = 0
        size = k // 10
        if f >= 2:
            v += W_PAIR + huxi_weight * values[4, size] // 2
        for t in range(N_TEMPLATES[k]):
            a = TEMPLATES[k, t, 2]
            b = TEMPLATES[k, t, 3]
            c = TEMPLATES[k, t, 4]
            hx = values[TEMPLATES[k, t, 0], TEMPLATES[k, t, 1]]
            if a == k:
                o1, o2 = b, c
            elif b == k:
                o1, o2 = a, c
            else:
                o1, o2 = a, b
            miss = 0
            mk = o1
            if o1 == o2:
                have = _avail(h, o1, k)
                if have < 2:
                    miss = 2 - have
            else:
                if _avail(h, o1, k) < 1:
                    miss += 1
                    mk = o1
                if _avail(h, o2, k) < 1:
                    miss += 1
                    mk = o2
            if miss == 0:
                v += W_FULL + huxi_weight * hx
            elif miss == 1:
                v += (W_PART + huxi_weight * hx // 2) * min(unseen[mk], 4) // 4
                v += W_WANG * kings
            elif kings >= 2:
                v += W_WANG
        if red_pref < 0 and RED[k] == 1:
            v -= RED_SHED
        elif red_pref > 0 and RED[k] == 1:
            v += RED_KEEP
        out[k] = max(v + 1, 1)
    return out


@kernel
def in_group(h, k, extra):
    """Whether a free card of kind ``k`` lies in a complete 3-card group of ``h``.

    ``extra``: a kind counted as one more card (the claimed card), -1 for none.
    """
    for t in range(N_TEMPLATES[k]):
        a = TEMPLATES[k, t, 2]
        b = TEMPLATES[k, t, 3]
        c = TEMPLATES[k, t, 4]
        if a == k:
            o1, o2 = b, c
        elif b == k:
            o1, o2 = a, c
        else:
            o1, o2 = a, b
        h1 = _avail(h, o1, k) + (1 if o1 == extra else 0)
        if o1 == o2:
            if h1 >= 2:
                return True
        elif h1 >= 1 and _avail(h, o2, k) + (1 if o2 == extra else 0) >= 1:
            return True
    return False


@kernel
def structure(h, unseen, values, huxi_weight, red_pref, kv):
    """The hand's structure: the sum of its free cards' keep values (``kv`` scratch)."""
    keep_values(h, unseen, values, huxi_weight, red_pref, kv)
    s = 0
    for k in range(20):
        if 0 < h[k] < 3:
            s += kv[k] * h[k]
    return s


@kernel
def distance(h, need, unseen, values, kv):
    """Estimated cards still missing for ``need`` 门子 (a cheap, optimistic measure).

    Free cards whose keep value shows them in a complete group count 1 each, in a
    partial group 2/3 each; 坎 cards count fully; each 王 fills one gap. The estimate is
    ``3 * need`` minus that credit, at least 0. Used for reporting and tests; the bots
    rank moves by :func:`structure` directly.
    """
    keep_values(h, unseen, values, 0, 0, kv)
    credit3 = 0
    for k in range(20):
        if h[k] >= 3:
            credit3 += 3 * h[k]
        elif h[k] > 0:
            v = kv[k] - 1
            if v >= W_FULL:
                credit3 += 3 * h[k]
            elif v > 0:
                credit3 += 2 * h[k]
    credit3 += 3 * h[WANG]
    d = 3 * need - credit3 // 3
    return d if d > 0 else 0


@kernel
def _red_pref(policy, red_total):
    """Colour aim of the value bot from the red cards it holds (hand and table)."""
    if policy != P_VALUE:
        return 0
    if red_total <= 2:
        return -1
    if red_total >= 6:
        return 1
    return 0


@kernel
def _huxi_weight(policy, huxi_now, min_huxi):
    """胡息 weight of groups: value always, efficiency while short of the minimum."""
    if policy == P_VALUE:
        return W_HUXI
    if policy == P_EFFICIENCY and huxi_now < min_huxi:
        return W_HUXI
    return 0


@kernel
def choose_discard(policy, h, unseen, values, huxi_now, min_huxi, red_total, bstate, kv):
    """The kind to discard (a free card: count 1 or 2, never a 王 or a 坎); -1 if none."""
    n = 0
    for k in range(20):
        if h[k] == 1 or h[k] == 2:
            n += 1
    if n == 0:
        return -1
    if policy == P_RANDOM:
        pick = rng.below(bstate, n)
        for k in range(20):
            if h[k] == 1 or h[k] == 2:
                if pick == 0:
                    return k
                pick -= 1
        return -1
    keep_values(
        h,
        unseen,
        values,
        _huxi_weight(policy, huxi_now, min_huxi),
        _red_pref(policy, red_total),
        kv,
    )
    best = 1 << 40
    ties = 0
    for k in range(20):
        if h[k] == 1 or h[k] == 2:
            if kv[k] < best:
                best = kv[k]
                ties = 1
            elif kv[k] == best:
                ties += 1
    pick = rng.below(bstate, ties) if ties > 1 else 0
    for k in range(20):
        if (h[k] == 1 or h[k] == 2) and kv[k] == best:
            if pick == 0:
                return k
            pick -= 1
    return -1


@kernel
def _after_discard(h, unseen, values, hw, rp, kv):
    """Structure of ``h`` after its least valuable free card is discarded."""
    keep_values(h, unseen, values, hw, rp, kv)
    best = 1 << 40
    s = 0
    for k in range(20):
        if h[k] == 1 or h[k] == 2:
            s += kv[k] * h[k]
            if kv[k] < best:
                best = kv[k]
    if best == 1 << 40:
        return s
    return s - best


@kernel
def want_claim(policy, h, c, n_used, group_huxi, huxi_now, min_huxi, bstate):
    """Whether to take an optional 碰 of ``c`` (``n_used`` = 2 hand cards of kind ``c``).

    Random: a coin. Others: take it unless the pair's cards already lie in complete
    groups of the hand (a claim should complete a partial group, not break a whole one);
    a 碰 that brings 胡息 while the hand is short of the minimum is always taken.
    """
    if policy == P_RANDOM:
        return rng.below(bstate, 2) == 1
    if group_huxi > 0 and huxi_now < min_huxi:
        return True
    return not in_group(h, c, -1)


@kernel
def choose_chi(policy, h, claimed, opts, ng, nopt, values, huxi_now, min_huxi, bstate, h2):
    """Index of the 吃 option to take among ``nopt`` (-1 to pass).

    ``opts (n, 3, 5)``: per option up to three groups ``(code, size, a, b, c)`` (the first
    holds the ``claimed`` card, the others are the 比 groups of 下火), ``ng (n,)`` their
    number. Random: pass with probability 1/2, else a uniform option. Others: an option
    is acceptable when none of the hand cards it lays lies in another complete group of
    the hand (a claim should complete a partial group, not break a whole one); the
    acceptable option with the most 胡息, then the fewest groups, is taken.
    """
    if nopt == 0:
        return -1
    if policy == P_RANDOM:
        if rng.below(bstate, 2) == 0:
            return -1
        return rng.below(bstate, nopt)
    best = -1
    besti = -1
    for i in range(nopt):
        ok = True
        hx = 0
        for g in range(ng[i]):
            hx += values[opts[i, g, 0], opts[i, g, 1]]
        for g in range(ng[i]):
            if not ok:
                break
            for j in range(2, 5):
                q = opts[i, g, j]
                if g == 0 and q == claimed:
                    continue
                # The card's other uses: the hand without this option's other cards.
                for k in range(21):
                    h2[k] = h[k]
                for gg in range(ng[i]):
                    for jj in range(2, 5):
                        if not (gg == g and jj == j):
                            h2[opts[i, gg, jj]] -= 1
                h2[claimed] += 1
                if h2[q] >= 1 and in_group(h2, q, -1):
                    ok = False
                    break
        if ok:
            score = hx * 4 - ng[i]
            if score > best:
                best = score
                besti = i
    return besti


@kernel
def want_win(policy, forced, p_self):
    """Whether to declare an optional win.

    Always, except that the value bot passes a win on another player's card when it would
    self-draw with probability ``p_self`` >= 0.7 (a self-draw doubles the factor and every
    other player pays).
    """
    if forced or policy != P_VALUE:
        return True
    return p_self < 0.7
