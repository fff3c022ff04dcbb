"""Bot policies of the mahjong family, compiled (numba). Kernels only.

Three policies, chosen per seat (codes in :mod:`engine.mahjong.layout`):

``random`` (P_RANDOM)
    Discards a uniformly random tile among its legal discards, takes each legal claim
    (吃/碰/杠) or passes uniformly at random, makes each possible kong with probability
    1/2, and declares every legal win (a bot that passed wins would measure only how often
    it passes; declaring is what every real player does).
``efficiency`` (P_EFFICIENCY)
    Discards to reach the fewest tiles needed (distance), then the most unseen winning
    draws (ukeire: 4 minus own tiles, discards and exposed melds), then at random. Keeps
    wild tiles (never discards one while another discard exists). Claims a 碰/吃 when the
    best hand after the claim and its discard scores better than passing; declares a kong
    when that does not make the hand farther; declares every legal win.
``value`` (P_VALUE)
    Efficiency on a score that also counts the variant's valuable targets: for each
    target (清一色 per suit, 混一色 per suit, all triplets, seven pairs) the distance minus
    a bonus (the seat's bot parameters, engine.mahjong.params, in quarter tiles); it aims at the
    target with the lowest score, so it leaves a plain hand only when a valuable one is
    nearly as close. Where the variant's defaults opt in (福州), the loop lets it pass a
    win on a discard to wait for a self-draw (``value.pass_self``: the wait's outs times
    the live tiles reach the parameter); (推倒胡) make a kong that leaves the hand a
    little farther (``value.kong_slack``); (丽水) prefer, among discards at the best
    distance, tiles with fewer unseen copies (``value.safe_ties``, its defence). A 碰 or
    吃 must gain ``value.claim_margin`` quarter tiles on its score (丽水, tuned: 1, so a
    claim that only widens the hand is refused; 0 elsewhere, the efficiency rule).

All randomness comes from the deal's bot stream (engine.rng BOTS).
"""

from __future__ import annotations

import math

import numpy as np

from engine import rng
from engine.abi import P_VALUE
from engine.hand._kernels import (
    SEVEN_PAIRS,
    _distance,
    _pairs_formula,
    _suit_indices,
    discard_ukeire,
    level,
)
from engine.jit.njit import kernel, lowest_bit
from engine.mahjong.evaluation import (
    count_categories,
    discard_scores,
    triplets_closed,
    wild_pair_distance,
)
from engine.mahjong.params import (
    B_CLAIM_MARGIN,
    B_FLUSH,
    B_HALF,
    B_PAIRS,
    B_SAFE_TIES,
    B_TRIPLETS,
    B_WILD_PAIR,
)

__all__ = [
    "SCRATCH",
    "choose_discard",
    "hand_sc",
    "hand_score",
    "random_discard",
    "waiting_sc",
    "waiting_ukeire",
]

INF = 99
SCRATCH = 228
"""Length of the int64 scratch the discard choice takes."""


@kernel(refcount=False)
def target_score(h, w, sets, shapes, tab, bot, minfo):
    """The value bot's score of a hand as it stands: min over targets of 4*distance-bonus."""
    suit_cls, honor_cls, comb, dist = tab[0], tab[1], tab[2], tab[3]
    d = _distance(h, w, sets, shapes, tab)
    best = 4 * d
    i0, i1, i2, i3 = _suit_indices(h)
    lv = level(w)
    bf = np.int64(bot[B_FLUSH])
    bh = np.int64(bot[B_HALF])
    if bf > 0 or bh > 0:
        for t in range(3):
            cls = suit_cls[i0] if t == 0 else (suit_cls[i1] if t == 1 else suit_cls[i2])
            other = minfo[0] & ~(1 << t)
            if bf > 0 and other == 0:
                v = max(0, dist[cls, lv, sets] - w) * 4 - bf
                if v < best:
                    best = v
            if bh > 0 and (other & 7) == 0:
                v = max(0, dist[comb[cls, honor_cls[i3]], lv, sets] - w) * 4 - bh
                if v < best:
                    best = v
    bt = np.int64(bot[B_TRIPLETS])
    if bt > 0 and minfo[1] == 1:
        n3, n2, n1 = count_categories(h)
        v = max(0, triplets_closed(n3, n2, n1, sets) - w) * 4 - bt
        if v < best:
            best = v
    bw = np.int64(bot[B_WILD_PAIR])
    if bw > 0:
        cls = comb[comb[comb[suit_cls[i0], suit_cls[i1]], suit_cls[i2]], honor_cls[i3]]
        v = wild_pair_distance(np.int64(tab[5][cls, level(w - 2 if w > 2 else 0), sets]), w)
        if v <= 2:
            v = 4 * v - bw
            if v < best:
                best = v
    bp = np.int64(bot[B_PAIRS])
    if bp > 0 and sets == 4 and minfo[2] == 0 and (shapes & SEVEN_PAIRS):
        pairs = 0
        singles = 0
        for k in range(34):
            pairs += h[k] // 2
            singles += h[k] % 2
        v = max(0, _pairs_formula(pairs, singles) - w) * 4 - bp
        if v < best:
            best = v
    return best


@kernel(refcount=False, inline="always")
def _break_tie(h, w, sets, shapes, tab, unseen, bstate, scr, best_sc, need_key, safe):
    """Best discard kind and its key ``score*1000 - ukeire`` from the scores in
    ``scr[0:34]`` (best ``best_sc``); -1, INF if none held.

    Ties on the score are broken by ukeire (with ``safe`` > 0, by the ukeire less
    ``safe`` times the unseen copies: the value bot's defence), then at random
    (``bstate``; none when it is empty). A lone best discard needs no ukeire: its key is
    then computed only when ``need_key`` (a claim comparing hands).
    """
    score = scr[0:34]
    uke = scr[34:68]
    tied = np.int64(0)
    for k in range(34):
        tied |= np.int64(score[k] == best_sc) << k
    if tied == 0:
        return -1, INF * 4000
    first = lowest_bit(tied)
    if tied == (np.int64(1) << first) and not need_key:
        return first, best_sc * 1000
    discard_ukeire(h, w, sets, shapes, tab, unseen, tied, uke, scr[68:228])
    best_key = INF * 4000
    n_best = 0
    choice = -1
    if safe > 0.0:
        # the value bot's defence: an unseen copy fewer is worth ``safe`` ukeire
        best_c = math.inf
        while tied != 0:
            k = lowest_bit(tied)
            tied &= tied - 1
            key = best_sc * 1000 - uke[k]
            c = key + safe * unseen[k]
            if c < best_c:
                best_c = c
                best_key = key
                n_best = 1
                choice = k
            elif c == best_c:
                n_best += 1
                if bstate.shape[0] > 0 and rng.below(bstate, n_best) == 0:
                    choice = k
                    best_key = key
        return choice, best_key
    while tied != 0:
        k = lowest_bit(tied)
        tied &= tied - 1
        key = best_sc * 1000 - uke[k]
        if key < best_key:
            best_key = key
            n_best = 1
            choice = k
        elif key == best_key:
            n_best += 1
            if bstate.shape[0] > 0 and rng.below(bstate, n_best) == 0:
                choice = k
    return choice, best_key


@kernel(refcount=False)
def choose_discard(policy, h, w, sets, shapes, tab, bot, unseen, bstate, minfo, allow_wild, scr):
    """Pick a discard for a ``3*sets+2``-tile hand; returns a kind 0..33, or -1 for a wild.

    h : int64 (34,) logical counts (wilds excluded), restored on return.
    unseen : int64 (34,) unseen copies per kind (for ukeire).
    minfo : int64 (3,) = (suit mask of exposed melds, all-triplets flag, n melds).
    allow_wild : whether discarding a wild is legal (it is also the only way on when the
        hand holds nothing else).
    scr : int64 (SCRATCH,) scratch.
    """
    total = 0
    for k in range(34):
        total += h[k]
    if policy == 0:
        return random_discard(h, total, w, bstate, allow_wild)
    if total == 0:
        return -1
    best_sc = discard_scores(policy, h, w, sets, shapes, tab, bot, minfo, scr[0:34])
    safe = bot[B_SAFE_TIES] if policy == P_VALUE else 0.0
    choice, _ = _break_tie(h, w, sets, shapes, tab, unseen, bstate, scr, best_sc, False, safe)
    return choice


@kernel(refcount=False, inline="always")  # small: the deal loop inlines it for random seats
def random_discard(h, total, w, bstate, allow_wild):
    """The random policy's discard from a hand with counts ``h`` (int64 (34,), wilds
    excluded; ``total`` tiles, their sum) and ``w`` wilds: a held tile drawn uniformly
    (a wild counted among them if ``allow_wild``), by kind 0..33, or -1 for a wild or an
    empty hand.
    """
    if total == 0:
        return -1
    if allow_wild:
        total += w
    r = rng.below(bstate, total)
    for k in range(34):
        if r < h[k]:
            return k
        r -= h[k]
    return -1


@kernel(refcount=False)
def hand_score(h, w, sets, shapes, tab, unseen, scr, best_sc, no_rng):
    """Key of the best discard of a ``3*sets+2``-tile hand (lower is better), from the
    scores :func:`hand_sc` left in ``scr`` (its result ``best_sc``) for this hand.

    no_rng : an empty uint64 array (a key needs no random tie-break).
    """
    _, key = _break_tie(h, w, sets, shapes, tab, unseen, no_rng, scr, best_sc, True, 0.0)
    return key


@kernel(refcount=False)
def hand_sc(policy, h, w, sets, shapes, tab, bot, minfo, scr):
    """Score of the best discard of a ``3*sets+2``-tile hand, without the ukeire.

    :func:`hand_score` is this score * 1000 minus the ukeire: a claim that compares
    hands needs the ukeire only when the scores tie.
    """
    return discard_scores(policy, h, w, sets, shapes, tab, bot, minfo, scr[0:34])


@kernel(refcount=False)
def waiting_sc(policy, h, w, sets, shapes, tab, bot, minfo):
    """Score of a ``3*sets+1``-tile hand as it stands, without the ukeire.

    The claims (碰, 吃) weigh it against the hand after the claim; the value bot's score
    here is less its ``value.claim_margin``, which a claim must then beat.
    """
    if policy == 2:
        return target_score(h, w, sets, shapes, tab, bot, minfo) - np.int64(bot[B_CLAIM_MARGIN])
    return 4 * _distance(h, w, sets, shapes, tab)


@kernel(refcount=False)
def waiting_ukeire(h, w, sets, shapes, tab, unseen, scr):
    """Ukeire of a ``3*sets+1``-tile hand as it stands.

    A waiting hand's key is ``waiting_sc * 1000 - waiting_ukeire``; claims need the
    ukeire only when the scores tie. Computed by :func:`discard_ukeire` as the hand plus
    one tile of a kind it holds fewer than four of, minus that tile (the same number as
    ``ukeire_core(h, -1, ...)``, by test). ``h`` is restored; ``scr`` (SCRATCH,) scratch.
    """
    x = 0
    while h[x] >= 4:
        x += 1
    h[x] += 1
    discard_ukeire(h, w, sets, shapes, tab, unseen, np.int64(1) << x, scr[0:34], scr[34:194])
    h[x] -= 1
    return scr[x]
