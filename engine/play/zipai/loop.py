"""The 字牌 game loop kernel (numba): deal, flips, claims, forced groups, wins, payments.

One compiled loop plays the 字牌 family's variants (祁阳落地扫, RULEBOOK §4); the rules
arrive as the packed int64 array ``rules`` (slots ``Z_*`` in :mod:`engine.zipai.layout`),
and the running variant's scoring, payments, record extras and the prices its bots read
are its hooks, called through :mod:`engine.play.zipai.hooks` (this module imports no
variant). :func:`play_matches` runs
a batch of matches in parallel (``prange``), each match deal by deal because the dealer
rotation connects them. The shuffle draws from the deal's WALL stream only and the bots
from its BOTS stream only (engine.rng), so records do not depend on threads or chunks.

A turn (rule 8): the player in turn flips the top stock card. A 王 goes into his hand
(he may win with it, else he discards). A real card: he may win with it (自摸); else it
completes his 坎 or his 啸 into a 倾 (forced, no discard, the next player flips), or his
pair into a 啸 (forced, then he discards); else it is shown and claimed in priority
(rule 9): 胡 by the others in turn order (王 holders never), 跑 (forced: a 坎 or 啸 of
another player, or anyone's 碰), 碰 by another player, 吃 by the flipper then his 下家;
unclaimed, it is dead and the 下家 flips. A discard is claimed the same way (跑 only onto
a 坎 or 啸, 吃 only by the 下家). After 吃 / 碰 / 啸 / a first 跑 the player discards; after
a 倾 or a later 跑 the next player flips (rule 11). The deal is drawn (黄庄) when a player
must flip from an empty stock.

State arrays (all int64; seats 0..3, card kinds 0..19 and 20 = 王):

- ``hand (4, 21)``: concealed cards per kind, ``[:, 20]`` the 王 held;
- ``tab (4, MAX_GROUPS, 6)``: table groups ``(type T_*, a, b, c, d, 胡息)``, d = -1 for
  three cards;
- ``ps (N_PS, 4)``: per seat: table groups, their 胡息 and red cards, 冲明跑 flag, 跑
  made, whether the seat plays this deal, the win-check cache (a key of the hand and its
  isolated cards), and what the others see of its play (discarded kinds, discards, 王
  shown);
- ``pk (N_PK, 4, 20)``: per seat and kind: table cards, index of the alike table group
  (-1 none), 过张 flags, table cards hidden from the others;
- ``pile (2, 21)``: dead cards, and cards every player has seen (dead or shown on a
  table);
- ``ctx (N_K,)``: the deal's scalars (``K_*`` of :mod:`engine.zipai.layout`, which the
  variant's ``record_deal`` hook reads).
"""

from __future__ import annotations

import numba
import numpy as np
from numba.core import types

from engine import rng
from engine._slots import Slots
from engine.abi import (
    C_DEALER,
    C_DELTA,
    C_DISCARDER,
    C_PAT_HI,
    C_PAT_LO,
    C_STREAK,
    C_TURNS,
    C_VALUE,
    C_WILDS,
    C_WIN_TYPE,
    C_WINNER,
    N_COLS,
    P_RANDOM,
    P_STRONG,
    P_VALUE,
    WIN_DISCARD,
    WIN_INSTANT,
    WIN_NONE,
    WIN_SELF_DRAW,
    seat_by_dealer,
)
from engine.jit.njit import bit_count, kernel, lowest_bit, parallel_kernel
from engine.play.zipai import hooks as _hooks
from engine.play.zipai.hooks import (
    can_win,
    colour_aim,
    pay_huangzhuang,
    pay_win,
    record_deal,
    record_win,
    score_win_into,
    wait_kinds,
    xing_kind,
)
from engine.play.zipai.hooks import derive_values as _derive_values
from engine.play.zipai.observe import OBS_W, observe_danger, observe_hand, observe_outcome
from engine.zipai.bots import (
    choose_chi,
    choose_discard,
    colour_weight,
    distance,
    pair_potential,
    value_chi,
    value_passes,
    value_peng,
    want_claim,
    want_win,
)
from engine.zipai.huxi import (
    KAN,
    N_TEMPLATES,
    PAO,
    PENG,
    QING,
    RED,
    TEMPLATES,
    WAIT_ANY,
    WANG,
    XIAO,
    _wang_values_x,
    _workspace,
    packed_values,
    score_scratch,
    upgrade_delta,
)
from engine.zipai.layout import (
    EV_CHI,
    EV_DEAD,
    EV_DEAL,
    EV_DECLINE,
    EV_DISCARD,
    EV_FLIP,
    EV_GROUP,
    EV_HUANG,
    EV_MINGPAO,
    EV_PAO,
    EV_PASS,
    EV_PAY,
    EV_PENG,
    EV_QING,
    EV_SCORE,
    EV_SISHOU,
    EV_WIN,
    EV_XIAO,
    EV_XING,
    EV_ZUOXING,
    FZ_DEAD,
    FZ_FLIGHT,
    FZ_HAND,
    FZ_INFO,
    FZ_STOCK,
    FZ_TABLE,
    FZ_WIN_HAND,
    HOW_DISCARD,
    HOW_FLIP,
    HOW_SELF,
    HOW_TIANHU,
    I_CAND,
    I_HUXI,
    I_NEED,
    I_RED,
    I_SELF,
    I_SHAPE,
    I_TGROUPS,
    I_THUXI,
    I_TRED,
    K_ACTIVE,
    K_AIM_HI,
    K_AIM_LO,
    K_CHOU,
    K_DEALER,
    K_ERROR,
    K_FIRST,
    K_GUO,
    K_LAST_DEALT,
    K_LOG,
    K_MINGPAO,
    K_NCARDS,
    K_NDISC,
    K_NEV,
    K_PAO,
    K_PASSER,
    K_PTR,
    K_QING,
    K_SEATS,
    K_SISHOU,
    K_TURNS,
    K_WINNER,
    K_XIAO,
    K_ZX,
    MAX_GROUPS,
    N_K,
    N_OUT,
    O_BITS,
    O_FAN,
    O_HUXI,
    O_RED,
    O_SHAPE,
    O_TUN,
    O_UPGRADE,
    O_VALUE,
    O_XING,
    O_XRAW,
    T_CHI,
    T_CHOUXIAO,
    T_PAO,
    T_PENG,
    T_QING,
    T_XIAO,
    Z_BY_DEALER,
    Z_DEALER_CARDS,
    Z_HAND_CARDS,
    Z_KINGS,
    Z_MIN_HUXI,
    Z_MUST_WIN,
    Z_SEATS,
    Z_XING,
    Z_ZUOXING,
)
from engine.zipai.params import (
    D_RALL,
    D_RLOSS,
    M_LOSS,
    M_VBASE,
    S_CHI_BIAS,
    S_PAIR,
    S_PASS_RISK,
    S_PENG_BIAS,
    S_SURVIVE,
)
from engine.zipai.strong import (
    MAX_FI,
    N_OSUM,
    OS_DEALER,
    OS_DMASK,
    OS_NDISC,
    OS_NHAND,
    OS_NTAB,
    OS_SEAT,
    OS_THX,
    OS_WSHOWN,
    best_discard,
    danger_features,
    hold_ev,
    partners,
)

PS_NTAB, PS_TH, PS_TR, PS_MINGPAO, PS_NPAO, PS_ACTIVE, PS_KEY, PS_ISO = range(8)
PS_DMASK, PS_NDISC, PS_WSHOWN = 8, 9, 10
"""What every player sees of a seat: the kinds it discarded (bit set), its discards, the
王 it turned up (shown in its hand)."""
N_PS = 11
PK_TCNT, PK_ALIKE, PK_GUO, PK_HIDDEN = range(4)
N_PK = 4
GUO_CLAIM = 1
"""过张: the seat passed a 吃 or 碰 of this kind and may not 吃 / 碰 it again (a seat
passing a 碰 may still 吃 the same card at once: it has not passed the card yet)."""
GUO_PENG = 2
"""The seat passed a 碰 of this kind (a later 啸 of it is a 臭啸)."""
PL_DEAD, PL_SEEN = 0, 1


PHASE_DISCARD = 0
PHASE_FLIP = 1
END = -1
"""A turn or claim phase's answer: someone wins (``ctx[K_WINNER]``); else the next step
is ``phase * 8 + seat``."""
NO_CLAIM = -2
"""A claim phase's answer: nobody claims the card that way."""
HUANG = -3
"""A flip turn's answer: the stock is empty (黄庄)."""
MAX_CARDS = 84
MAX_OPTS = 48
MAX_STEPS = 2000
SS = Slots("zipai strong policy scratch")
"""The strong policy's int64 scratch ``sscr``, block by block: the danger features of
one (opponent, card), the hand after a claim (:func:`_strong_peng`, :func:`_strong_chi`), a
score (``out`` of :func:`_strong_win`, ``N_OUT`` fields), the live outs after each
discard (:func:`_discard_outs`) and the deal's cache of winning cards (:func:`_win_mask`:
keys, -1 empty, and bit sets)."""
SS_FI = SS.block("feeds", MAX_FI)
SS_H3 = SS.block("claim_hand", 21)
SS_OUT = SS.block("score", N_OUT)
SS_OUTS = SS.block("outs", 20)
N_CACHE = 256
"""Slots of the strong policy's cache of winning cards per hand (:func:`_win_mask`)."""
SS_CKEY = SS.block("win_cache_keys", N_CACHE)
SS_CMASK = SS.block("win_cache_masks", N_CACHE)
SSCR = SS.size
"""Length of the strong policy's int64 scratch."""
SS.limit = SSCR
SURVIVE = 0.9
"""Value bot: the chance that a round of the two other players of a three-seat table ends
without their win (:func:`_self_race` scales it to other tables)."""


@kernel(inline="always")
def _next(s, seats, zx):
    """下家: the next seat in turn order that plays (skips the 坐醒 seat)."""
    n = (s + 1) % seats
    if n == zx:
        n = (n + 1) % seats
    return n


@kernel(inline="always")
def _ev(log, ctx, code, a, b, c, d):
    """Append one event row when the deal is being logged."""
    if ctx[K_LOG] == 1:
        i = ctx[K_NEV]
        if i < log.shape[0]:
            log[i, 0] = code
            log[i, 1] = a
            log[i, 2] = b
            log[i, 3] = c
            log[i, 4] = d
            ctx[K_NEV] = i + 1


@kernel(inline="always")
def _code(pols, i):
    """Policy code of seat ``i`` (the policies array is used cyclically)."""
    return pols[i % pols.shape[0]]


@kernel(inline="always")
def _bot(bots, pols, i):
    """Parameter row of seat ``i`` (cyclic like the policies)."""
    return bots[i % pols.shape[0]]


@kernel(refcount=False)
def _lay(tab, ps, pk, pile, p, typ, a, b, c, d, hx, nvis):
    """Lay a table group for seat ``p``: ``nvis`` of its cards are shown (in order)."""
    i = ps[PS_NTAB, p]
    tab[p, i, 0] = typ
    tab[p, i, 1] = a
    tab[p, i, 2] = b
    tab[p, i, 3] = c
    tab[p, i, 4] = d
    tab[p, i, 5] = hx
    ps[PS_NTAB, p] = i + 1
    ps[PS_TH, p] += hx
    n = 0
    for q in (a, b, c, d):
        if q < 0:
            continue
        pk[PK_TCNT, p, q] += 1
        ps[PS_TR, p] += RED[q]
        if n < nvis:
            pile[PL_SEEN, q] += 1
        else:
            pk[PK_HIDDEN, p, q] += 1
        n += 1
    if typ != T_CHI:
        pk[PK_ALIKE, p, a] = i


@kernel(refcount=False)
def _upgrade(tab, ps, pk, pile, values, p, kind, newtype):
    """Add the fourth card of ``kind`` to seat ``p``'s alike group: 倾 (hidden) or 跑 (shown)."""
    i = pk[PK_ALIKE, p, kind]
    old = tab[p, i, 0]
    size = kind // 10
    hx = values[QING, size] if newtype == T_QING else values[PAO, size]
    ps[PS_TH, p] += hx - tab[p, i, 5]
    tab[p, i, 0] = newtype
    tab[p, i, 4] = kind
    tab[p, i, 5] = hx
    pk[PK_TCNT, p, kind] += 1
    ps[PS_TR, p] += RED[kind]
    if newtype == T_QING:
        pk[PK_HIDDEN, p, kind] += 1
    else:
        hidden = pk[PK_HIDDEN, p, kind]
        pile[PL_SEEN, kind] += 1 + hidden
        pk[PK_HIDDEN, p, kind] = 0
    return old


@kernel(inline="always")
def _up_type(tab, pk, p, c):
    """Type of seat ``p``'s alike table group of kind ``c`` (0 none)."""
    if c < 0 or c >= WANG:
        return 0
    i = pk[PK_ALIKE, p, c]
    if i < 0:
        return 0
    return tab[p, i, 0]


@kernel(inline="always")
def _free_after(hand, p, c, n):
    """Whether seat ``p`` keeps a discardable card after giving up ``n`` copies of ``c``."""
    for k in range(20):
        h = hand[p, k] - (n if k == c else 0)
        if h == 1 or h == 2:
            return True
    return False


@kernel
def _unseen(hand, pk, pile, p, out):
    """Copies of each kind seat ``p`` cannot see (4 minus own, shown and dead cards)."""
    for k in range(20):
        u = 4 - hand[p, k] - pile[PL_SEEN, k] - pk[PK_HIDDEN, p, k]
        out[k] = u if u > 0 else 0
    return out


@kernel(refcount=False)
def _fill_unseen(hand, pk, pile, p, out):
    """:func:`_unseen` into ``out`` without returning it, for the kernels compiled with
    ``refcount=False``: they must not take an array a counted kernel returns (the
    reference it hands over would never be released, and the array never freed).
    """
    for k in range(20):
        u = 4 - hand[p, k] - pile[PL_SEEN, k] - pk[PK_HIDDEN, p, k]
        out[k] = u if u > 0 else 0


@kernel(inline="always")
def _huxi_now(hand, ps, values, p):
    """胡息 already certain for seat ``p``: table groups and 坎 in hand."""
    h = ps[PS_TH, p]
    for k in range(20):
        if hand[p, k] == 3:
            h += values[KAN, k // 10]
    return h


@kernel(inline="always")
def _red_total(hand, ps, p):
    r = ps[PS_TR, p]
    for k in range(20):
        r += RED[k] * hand[p, k]
    return r


@kernel(inline="always")
def _hand_key(hand, q):
    """An exact key of seat ``q``'s concealed hand (base 5 over the kinds, then the 王)."""
    key = np.int64(hand[q, WANG])
    for k in range(20):
        key = key * 5 + hand[q, k]
    return key


@kernel(inline="always")
def _isolated_bits(h):
    """The kinds of the free cards of ``h`` (21,) (single, not in a 坎) in no 3-card group
    of its free cards, as a bit set.
    """
    iso = np.int64(0)
    for k in range(20):
        if h[k] != 1:
            continue
        covered = False
        for t in range(N_TEMPLATES[k]):
            a = TEMPLATES[k, t, 2]
            b = TEMPLATES[k, t, 3]
            d = TEMPLATES[k, t, 4]
            fa = h[a] if h[a] < 3 else 0
            fb = (h[b] if h[b] < 3 else 0) - (1 if b == a else 0)
            fd = (h[d] if h[d] < 3 else 0) - (1 if d == b else 0)
            if fa > 0 and fb > 0 and fd > 0:
                covered = True
                break
        if not covered:
            iso |= np.int64(1) << k
    return iso


@kernel(inline="always")
def _paired(iso):
    """How many isolated cards (the kinds ``iso``, :func:`_isolated_bits`) share a 3-card
    group with another isolated card.
    """
    paired = 0
    m = iso
    while m != 0:
        k = lowest_bit(m)
        m &= m - 1
        paired += 1 if (iso & partners(k)) != 0 else 0
    return paired


@kernel(inline="always")
def _wangs_take(paired, wangs):
    """The most isolated cards ``wangs`` 王 can take into groups, ``paired`` of them
    sharing a 3-card group with another (:func:`_paired`). An isolated card is in no
    3-card group of the free cards and a 坎 is not broken, so in a winning split it
    shares a group with the arriving card or a 王. A 王's group holds two more cards at
    most, and two isolated ones only when both kinds are in one 3-card group.
    """
    return wangs + min(wangs, paired // 2)


@kernel(inline="always")
def _arrival_takes(iso, paired, c, wangs):
    """The most isolated cards (the kinds ``iso``, ``paired`` of them with a mate) the
    arriving card ``c`` and ``wangs`` 王 held can take into groups
    (:func:`_wangs_take`): a 王 arriving is one more; a card takes two at most, of its own
    kind or sharing a 3-card group with it. With no card (``c < 0``, 天胡) two more, as
    ever.
    """
    if c == WANG:
        return _wangs_take(paired, wangs + 1)
    if c < 0:
        return 2 + 2 * wangs
    mates = iso & ((np.int64(1) << c) | partners(c))
    return min(2, bit_count(mates)) + _wangs_take(paired, wangs)


@kernel(refcount=False)
def _win_check(rules, values, wvx0, ws, best2, hand, ps, pk, tab, q, c, how):
    """Whether seat ``q`` wins with card ``c`` arriving ``how`` (王 holders: own flips only).

    A sound pre-filter skips the search: in a winning split every card of the hand that
    lies in no 3-card group of the hand's own free cards shares a group with the arriving
    card or a 王, so a hand with more of them than these can take
    (:func:`_arrival_takes`) does not win. Those cards are cached per seat under an exact
    key of the hand (``ps[PS_KEY]``; ``ps[PS_ISO]`` their kinds, and :func:`_paired`
    above bit 32).
    """
    if hand[q, WANG] > 0 and how != HOW_SELF and how != HOW_TIANHU:
        return False
    key = _hand_key(hand, q)
    if ps[PS_KEY, q] != key:
        ps[PS_KEY, q] = key
        iso = _isolated_bits(hand[q])
        ps[PS_ISO, q] = iso | (_paired(iso) << 32)
    iso = ps[PS_ISO, q] & 0xFFFFFFFF
    n = bit_count(iso)
    w = hand[q, WANG]
    # two a card and two a 王 at most (what most hands fail), then the closer count
    if n > 2 + 2 * w or n > _arrival_takes(iso, ps[PS_ISO, q] >> 32, c, w):
        return False
    up = _up_type(tab, pk, q, c)
    return can_win(
        rules,
        values,
        wvx0,
        hand[q],
        hand[q, WANG],
        ps[PS_NTAB, q],
        ps[PS_TH, q],
        c,
        how,
        up,
        ws,
        best2,
    )


@kernel(refcount=False)
def _self_race(rules, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q, surv, scratch,
               out, sq, wvx, gcounts):  # fmt: skip
    """The self-draw race of seat ``q`` (the value and strong bots' passed wins):
    ``(p, vsum, good)``.

    ``good`` counts the unseen cards that win seat ``q`` a self-draw and ``vsum`` their
    scores summed (each by the engine's scorer under the run's rules, 醒 counted under 跟醒
    where it depends only on the winning card); ``p`` the chance to self-draw one of them
    in the flips left, the deal surviving each round of the others with chance ``surv``
    (given for two others, the three-seat table; ``surv ** ((active - 1) / 2)`` at
    another): ``sum_i surv**i (1 - w)**(i - 1) w``, ``w = good / unseen``. ``(0, 0, 0)``
    when no unseen card wins.
    """
    gen = rules[Z_XING] == 0
    _fill_unseen(hand, pk, pile, q, scratch)
    unseen = scratch
    total = 0
    good = 0
    vsum = 0.0
    for x in range(20):
        total += unseen[x]
        if unseen[x] > 0 and _win_check(
            rules, values, wvx0, ws, best2, hand, ps, pk, tab, q, x, np.int64(HOW_SELF)
        ):
            score_win_into(rules, values, hand[q], hand[q, WANG], ps[PS_NTAB, q], ps[PS_TH, q],
                            ps[PS_TR, q], pk[PK_TCNT, q], x, np.int64(HOW_SELF),
                            _up_type(tab, pk, q, x), np.bool_(False), x if gen else -1,
                            np.bool_(False), np.int64(0), ws, out, sq, wvx,
                            gcounts)  # fmt: skip
            if out[O_VALUE] > 0:
                good += unseen[x]
                vsum += unseen[x] * out[O_VALUE]
    if total <= 0 or good <= 0:
        return 0.0, 0.0, 0
    w = good / total
    flips = (ctx[K_NCARDS] - ctx[K_PTR]) // max(ctx[K_ACTIVE], 1)
    if ctx[K_ACTIVE] != 3:
        surv = surv ** ((ctx[K_ACTIVE] - 1) / 2.0)  # per two others, as at three seats
    p = 0.0
    alive = 1.0
    for _ in range(flips):
        alive *= surv
        p += alive * w
        alive *= 1.0 - w
    return p, vsum, good


@kernel(refcount=False)
def _value_win(rules, bot, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q, c, how,
               scratch, out, sq, wvx, gcounts):  # fmt: skip
    """Whether the value seat ``q`` declares an optional win on another player's card:
    it passes when the self-draw race (:func:`_self_race`, the others surviving each
    round with chance :data:`SURVIVE`) beats the win now (engine.zipai.bots.value_passes),
    every value from the engine's scorer under the run's rules.
    """
    gen = rules[Z_XING] == 0
    score_win_into(rules, values, hand[q], hand[q, WANG], ps[PS_NTAB, q], ps[PS_TH, q],
                    ps[PS_TR, q], pk[PK_TCNT, q], c, how, _up_type(tab, pk, q, c),
                    np.bool_(False), c if gen else -1, np.bool_(False), np.int64(0), ws, out,
                    sq, wvx, gcounts)  # fmt: skip
    now = out[O_VALUE]
    if now < 0:
        return True
    p, vsum, good = _self_race(rules, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q,
                               SURVIVE, scratch, out, sq, wvx, gcounts)  # fmt: skip
    if good <= 0:
        return True
    return not value_passes(bot, p, vsum / good, now)


@kernel(refcount=False)
def _decide_win(
    rules, pols, bots, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q, c, how, scratch,
    sscr, sq, wvx, gcounts,
):  # fmt: skip
    """Whether seat ``q`` declares a possible win (rule 18 decides what is forced)."""
    mode = rules[Z_MUST_WIN]
    forced = mode == 1 or (mode == 0 and how == HOW_DISCARD and hand[q, WANG] == 0)
    pol = _code(pols, q)
    if forced or how == HOW_SELF or how == HOW_TIANHU:
        return want_win(pol, np.bool_(True))
    if pol == P_STRONG:
        return _late_strong_win(
            rules,
            _bot(bots, pols, q),
            values,
            wvx0,
            ws,
            best2,
            hand,
            ps,
            pk,
            tab,
            pile,
            ctx,
            q,
            c,
            how,
            scratch,
            sscr[SS_OUT : SS_OUT + N_OUT],
            sq,
            wvx,
            gcounts,
        )
    if pol == P_VALUE:
        return _value_win(rules, _bot(bots, pols, q), values, wvx0, ws, best2, hand, ps, pk, tab,
                          pile, ctx, q, c, how, scratch, sscr[SS_OUT : SS_OUT + N_OUT], sq, wvx,
                          gcounts)  # fmt: skip
    return want_win(pol, np.bool_(False))


@kernel(refcount=False)
def _opp_summaries(rules, hand, ps, tab, ctx, p, osums):
    """What seat ``p`` sees of each opponent in play, into the rows of ``osums`` (3,
    N_OSUM); returns ``(opponents, 王 that p has not seen)``.

    The known 胡息 of a table counts a face-down 啸 as 3 and a 倾 as 9 (the least they
    can be worth); the cards in a hand are counted by everyone.
    """
    seats = ctx[K_SEATS]
    zx = ctx[K_ZX]
    n = 0
    shown = 0
    q = _next(p, seats, zx)
    while q != p:
        thx = 0
        for i in range(ps[PS_NTAB, q]):
            t = tab[q, i, 0]
            if t == T_XIAO:
                thx += 3
            elif t == T_QING:
                thx += 9
            else:
                thx += tab[q, i, 5]
        nh = 0
        for k in range(21):
            nh += hand[q, k]
        osums[n, OS_SEAT] = q
        osums[n, OS_NTAB] = ps[PS_NTAB, q]
        osums[n, OS_THX] = thx
        osums[n, OS_DMASK] = ps[PS_DMASK, q]
        osums[n, OS_NDISC] = ps[PS_NDISC, q]
        osums[n, OS_DEALER] = 1 if q == ctx[K_DEALER] else 0
        osums[n, OS_NHAND] = nh
        osums[n, OS_WSHOWN] = ps[PS_WSHOWN, q]
        shown += ps[PS_WSHOWN, q]
        n += 1
        q = _next(q, seats, zx)
    return n, rules[Z_KINGS] - hand[p, WANG] - shown


@kernel(refcount=False)
def _live_outs(rules, values, wvx0, ws, best2, h, ntab, th, tab, pk, q, unseen, wang_unseen,
               sscr, hyp):  # fmt: skip
    """Live outs of seat ``q``'s standing hand ``h`` (21,) with ``ntab`` table groups of
    ``th`` 胡息: the unseen cards (``unseen``, and ``wang_unseen`` 王) on whose own flip it
    would win (:func:`_win_mask`); 0 when it does not wait. ``hyp``: 1 when the table is
    one a claim would make (the cache keeps it apart from the seat's real table).
    """
    mask = _win_mask(rules, values, wvx0, ws, best2, h, ntab, th, tab, pk, q, sscr, hyp)
    if mask == 0:
        return 0
    n = wang_unseen if wang_unseen > 0 else 0
    for x in range(20):
        if (mask >> x) & 1 and unseen[x] > 0:
            n += unseen[x]
    return n


@kernel(refcount=False)
def _win_mask(rules, values, wvx0, ws, best2, h, ntab, th, tab, pk, q, sscr, hyp):
    """Bit set of the cards on whose own flip seat ``q``'s hand ``h`` wins (bit 20: a 王),
    by the engine's win check; cached per deal in ``sscr`` (:data:`SS_CKEY`).

    Two filters first: more isolated cards than a 王 arriving and the 王 held can take
    into groups (:func:`_win_check`'s count; any card that wins could be that 王), then
    the variant's ``wait_kinds``: one search with a 王 added, which answers for every kind
    held fewer than three times whose card joins no table group of the seat's (a hand
    that no 王 completes waits on nothing); the engine's win check asks for the others.
    """
    iso = _isolated_bits(h)
    n = bit_count(iso)
    w = h[WANG]
    if ntab > 5 or n > 2 + 2 * w or n > _arrival_takes(iso, _paired(iso), np.int64(WANG), w):
        return 0
    key = np.int64(h[WANG])
    for k in range(20):
        key = key * 5 + h[k]
    key = (((key * 8 + ntab) * 64 + min(th, 63)) * 4 + q) * 2 + hyp
    slot = (key ^ (key >> 21)) % N_CACHE
    if sscr[SS_CKEY + slot] == key:
        return sscr[SS_CMASK + slot]
    mask = 0
    waits = wait_kinds(rules, values, wvx0, h, h[WANG], ntab, th, ws, best2)
    if waits & WAIT_ANY:
        mask = 1 << WANG
        for x in range(20):
            up = _up_type(tab, pk, q, x)
            if up == 0 and h[x] < 3:
                mask |= ((waits >> x) & 1) << x
            elif can_win(rules, values, wvx0, h, h[WANG], ntab, th, x, np.int64(HOW_SELF), up,
                         ws, best2):  # fmt: skip
                mask |= 1 << x
    sscr[SS_CKEY + slot] = key
    sscr[SS_CMASK + slot] = mask
    return mask


@kernel(refcount=False)
def _discard_outs(rules, values, wvx0, ws, best2, h, ntab, th, tab, pk, q, unseen, wang_unseen,
                  outs, sscr, hyp):  # fmt: skip
    """``outs[k]``: the live outs (:func:`_live_outs`) of ``h`` after one card of kind ``k``
    is discarded (0 for a kind that is not free); ``h`` is restored.
    """
    for k in range(20):
        outs[k] = 0
        if h[k] == 1 or h[k] == 2:
            h[k] -= 1
            outs[k] = _live_outs(rules, values, wvx0, ws, best2, h, ntab, th, tab, pk, q, unseen,
                                 wang_unseen, sscr, hyp)  # fmt: skip
            h[k] += 1


@kernel
def _strong_discard(rules, bot, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, p, bstate,
                    kv, osums, sscr, scratch):  # fmt: skip
    """The strong policy's discard for seat ``p`` (engine.zipai.strong.best_discard)."""
    unseen = _unseen(hand, pk, pile, p, scratch)
    n_opp, wu = _opp_summaries(rules, hand, ps, tab, ctx, p, osums)
    outs = sscr[SS_OUTS : SS_OUTS + 20]
    _discard_outs(rules, values, wvx0, ws, best2, hand[p], ps[PS_NTAB, p], ps[PS_TH, p], tab, pk,
                  p, unseen, wu, outs, sscr, np.int64(0))  # fmt: skip
    k, _ = best_discard(
        bot, hand[p], 5 - ps[PS_NTAB, p], _huxi_now(hand, ps, values, p), rules[Z_MIN_HUXI],
        _red_total(hand, ps, p), unseen, values, ctx[K_NCARDS] - ctx[K_PTR], osums, n_opp, wu,
        np.bool_(True), bstate, kv, sscr[SS_FI : SS_FI + MAX_FI], outs,
    )  # fmt: skip
    return k


@kernel
def _strong_keep_value(rules, bot, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q,
                       osums, sscr, scratch):  # fmt: skip
    """Points of seat ``q``'s hand without the claim (as it stands, its live outs counted).

    ``scratch`` holds the seat's unseen cards on return.
    """
    unseen = _unseen(hand, pk, pile, q, scratch)
    _, wu = _opp_summaries(rules, hand, ps, tab, ctx, q, osums)
    ntab = ps[PS_NTAB, q]
    now = _live_outs(rules, values, wvx0, ws, best2, hand[q], ntab, ps[PS_TH, q], tab, pk, q,
                     unseen, wu, sscr, np.int64(0))  # fmt: skip
    return hold_ev(bot, hand[q], 5 - ntab, _huxi_now(hand, ps, values, q), rules[Z_MIN_HUXI],
                   _red_total(hand, ps, q), unseen, ctx[K_NCARDS] - ctx[K_PTR], now)  # fmt: skip


@kernel
def _strong_take_value(rules, bot, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q, h3,
                       dtab, dhx, dred, kv, osums, sscr, scratch):  # fmt: skip
    """Points of the best discard after a claim for seat ``q``.

    ``h3`` (21,): the hand after the claim's cards are laid (before its discard); the
    claim adds ``dtab`` table groups, ``dhx`` 胡息 and ``dred`` red cards (the claimed
    card, now on the table). ``scratch`` holds the seat's unseen cards on return.
    """
    unseen = _unseen(hand, pk, pile, q, scratch)
    n_opp, wu = _opp_summaries(rules, hand, ps, tab, ctx, q, osums)
    ntab = ps[PS_NTAB, q]
    outs = sscr[SS_OUTS : SS_OUTS + 20]
    _discard_outs(rules, values, wvx0, ws, best2, h3, ntab + dtab, ps[PS_TH, q] + dhx, tab, pk,
                  q, unseen, wu, outs, sscr, np.int64(1))  # fmt: skip
    _, take = best_discard(
        bot, h3, 5 - ntab - dtab, _huxi_now(hand, ps, values, q) + dhx, rules[Z_MIN_HUXI],
        _red_total(hand, ps, q) + dred, unseen, values, ctx[K_NCARDS] - ctx[K_PTR], osums,
        n_opp, wu, np.bool_(True), bstate_none(), kv, sscr[SS_FI : SS_FI + MAX_FI], outs,
    )  # fmt: skip
    return take


@kernel(inline="always")
def bstate_none():
    """An empty bot stream: evaluations that need no random choice."""
    return np.empty(0, np.uint64)


@kernel
def _strong_peng(rules, bot, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q, c, kv,
                 osums, sscr, scratch):  # fmt: skip
    """Whether the strong seat ``q`` makes an optional 碰 of ``c``."""
    h3 = sscr[SS_H3 : SS_H3 + 21]
    for k in range(21):
        h3[k] = hand[q, k]
    h3[c] -= 2
    keep = _strong_keep_value(rules, bot, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx,
                              q, osums, sscr, scratch)  # fmt: skip
    take = _strong_take_value(
        rules, bot, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q, h3, np.int64(1),
        values[PENG, c // 10], RED[c], kv, osums, sscr, scratch,
    )  # fmt: skip
    return take - keep > bot[S_PENG_BIAS] * bot[M_VBASE] * (1.0 + bot[D_RALL])


@kernel
def _strong_chi(rules, bot, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q, c, opts,
                ng, nopt, kv, osums, sscr, scratch):  # fmt: skip
    """The strong seat's 吃 of ``c``: the option index, or -1 to pass."""
    h3 = sscr[SS_H3 : SS_H3 + 21]
    best = -np.inf
    besti = -1
    keep = _strong_keep_value(rules, bot, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx,
                              q, osums, sscr, scratch)  # fmt: skip
    for i in range(nopt):
        for k in range(21):
            h3[k] = hand[q, k]
        hx = 0
        for g in range(ng[i]):
            for j in range(2, 5):
                h3[opts[i, g, j]] -= 1
            hx += values[opts[i, g, 0], opts[i, g, 1]]
        h3[c] += 1
        take = _strong_take_value(
            rules, bot, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q, h3, ng[i], hx,
            RED[c], kv, osums, sscr, scratch,
        )  # fmt: skip
        # the pairs the option breaks give up the 碰 / 啸 they may still become
        lost = 0.0
        for x in range(20):
            if hand[q, x] == 2 and h3[x] < 2:
                lost += pair_potential(x, scratch, ctx[K_NCARDS] - ctx[K_PTR], ctx[K_ACTIVE],
                                       values)  # fmt: skip
        take -= bot[S_PAIR] * lost * max(keep, 0.0)
        if take > best:
            best = take
            besti = i
    if besti >= 0 and best - keep > bot[S_CHI_BIAS] * bot[M_VBASE] * (1.0 + bot[D_RALL]):
        return besti
    return -1


@kernel
def _strong_win(rules, bot, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q, c, how,
                scratch, out, sq, wvx, gcounts):  # fmt: skip
    """Whether the strong seat ``q`` declares an optional win on another player's card.

    It passes when ``P(self-draw) x V(self-draw) - (1 - P) x pass_risk x (what each
    player pays on the others' wins)`` beats the win now, every value from the engine's
    scorer (醒 counted under 跟醒, where it depends only on the winning card).
    """
    gen = rules[Z_XING] == 0
    up = _up_type(tab, pk, q, c)
    xk = c if gen else -1
    score_win_into(rules, values, hand[q], hand[q, WANG], ps[PS_NTAB, q], ps[PS_TH, q],
                    ps[PS_TR, q], pk[PK_TCNT, q], c, how, up, np.bool_(False), xk,
                    np.bool_(False), np.int64(0), ws, out, sq, wvx, gcounts)  # fmt: skip
    now = out[O_VALUE]
    if now < 0:
        return True
    p, vsum, good = _self_race(rules, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q,
                               bot[S_SURVIVE], scratch, out, sq, wvx, gcounts)  # fmt: skip
    if good <= 0:
        return True
    later = p * vsum / good - (1.0 - p) * bot[S_PASS_RISK] * bot[M_LOSS + 1] * (
        1.0 + bot[D_RLOSS + 1]
    )
    return later <= now


@kernel
def _observe_discard(rules, pol, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, p, k,
                     osums, sscr, scratch, obs):  # fmt: skip
    """Observation rows (engine.play.zipai.observe) around seat ``p``'s discard of ``k``:
    danger rows before it (one deal discard in two), then its O_HAND row (the card is
    out of the hand when this is called).
    """
    fi = sscr[SS_FI : SS_FI + MAX_FI]
    live = ctx[K_NCARDS] - ctx[K_PTR]
    if ctx[K_NDISC] % 2 == 0:
        hand[p, k] += 1
        unseen = _unseen(hand, pk, pile, p, scratch)
        n_opp, wu = _opp_summaries(rules, hand, ps, tab, ctx, p, osums)
        for j in range(n_opp):
            o = osums[j, OS_SEAT]
            for x in range(20):
                if hand[p, x] != 1 and hand[p, x] != 2:
                    continue
                n = danger_features(osums[j], x, unseen[x], wu, live, fi)
                lab = 1 if _win_check(
                    rules, values, wvx0, ws, best2, hand, ps, pk, tab, o, x, np.int64(HOW_DISCARD)
                ) else 0  # fmt: skip
                observe_danger(obs, p, o, x, lab, fi, n)
        hand[p, k] -= 1
    if pol == P_RANDOM:
        return
    unseen = _unseen(hand, pk, pile, p, scratch)
    hx = _huxi_now(hand, ps, values, p)
    d = distance(hand[p], 5 - ps[PS_NTAB, p], hx, rules[Z_MIN_HUXI], unseen)
    _, wu = _opp_summaries(rules, hand, ps, tab, ctx, p, osums)
    outs = _live_outs(rules, values, wvx0, ws, best2, hand[p], ps[PS_NTAB, p], ps[PS_TH, p], tab,
                      pk, p, unseen, wu, sscr, np.int64(0))  # fmt: skip
    observe_hand(obs, p, 1 if p == ctx[K_DEALER] else 0, live, d, hx, _red_total(hand, ps, p),
                 ps[PS_NTAB, p], outs)  # fmt: skip


@kernel
def _chi_options(hand, p, c, opts, ng):
    """Legal 吃 of card ``c`` by seat ``p`` with 下火 (rule 12); returns the count.

    Option ``i``: ``ng[i]`` groups ``opts[i, g] = (code, size, a, b, c)``; group 0 holds
    the claimed card and two hand cards; the others (比) each hold a remaining copy of
    ``c`` and two more hand cards, until the hand holds no ``c``. No 坎 card and no 王
    may be used, a discardable card must remain, and the table must stay within 4
    groups (the claim is checked by the caller).
    """
    return _chi_options_into(hand, p, c, opts, ng, np.zeros(20, np.int64))


@kernel(refcount=False)
def _chi_options_into(hand, p, c, opts, ng, free):
    """:func:`_chi_options` with a work array ``free`` int64 (20,) of the caller's."""
    n = 0
    if hand[p, c] >= 3:
        return 0
    for t in range(N_TEMPLATES[c]):
        for k in range(20):
            free[k] = hand[p, k] if hand[p, k] < 3 else 0
        a = TEMPLATES[c, t, 2]
        b = TEMPLATES[c, t, 3]
        d = TEMPLATES[c, t, 4]
        # The two hand cards of the group: all but one copy of c.
        if a == c:
            o1, o2 = b, d
        elif b == c:
            o1, o2 = a, d
        else:
            o1, o2 = a, b
        free[o1] -= 1
        free[o2] -= 1
        if free[o1] < 0 or free[o2] < 0:
            continue
        m = free[c]
        if m == 0:
            if n < opts.shape[0]:
                _set_group(opts, n, 0, c, t)
                ng[n] = 1
                n += 1
            continue
        # 下火: every remaining copy of c goes into a group of hand cards.
        for t2 in range(N_TEMPLATES[c]):
            a2 = TEMPLATES[c, t2, 2]
            b2 = TEMPLATES[c, t2, 3]
            d2 = TEMPLATES[c, t2, 4]
            free[a2] -= 1
            free[b2] -= 1
            free[d2] -= 1
            if free[a2] >= 0 and free[b2] >= 0 and free[d2] >= 0:
                if free[c] == 0:
                    if n < opts.shape[0]:
                        _set_group(opts, n, 0, c, t)
                        _set_group(opts, n, 1, c, t2)
                        ng[n] = 2
                        n += 1
                else:
                    for t3 in range(t2, N_TEMPLATES[c]):
                        a3 = TEMPLATES[c, t3, 2]
                        b3 = TEMPLATES[c, t3, 3]
                        d3 = TEMPLATES[c, t3, 4]
                        free[a3] -= 1
                        free[b3] -= 1
                        free[d3] -= 1
                        if free[a3] >= 0 and free[b3] >= 0 and free[d3] >= 0 and free[c] == 0:
                            if n < opts.shape[0]:
                                _set_group(opts, n, 0, c, t)
                                _set_group(opts, n, 1, c, t2)
                                _set_group(opts, n, 2, c, t3)
                                ng[n] = 3
                                n += 1
                        free[a3] += 1
                        free[b3] += 1
                        free[d3] += 1
            free[a2] += 1
            free[b2] += 1
            free[d2] += 1
    return n


@kernel(inline="always")
def _set_group(opts, i, g, k, t):
    opts[i, g, 0] = TEMPLATES[k, t, 0]
    opts[i, g, 1] = TEMPLATES[k, t, 1]
    opts[i, g, 2] = TEMPLATES[k, t, 2]
    opts[i, g, 3] = TEMPLATES[k, t, 3]
    opts[i, g, 4] = TEMPLATES[k, t, 4]


@kernel(refcount=False)
def _option_ok(hand, p, c, opts, i, ng, ntab, used):
    """An enumerated 吃 option leaves a discardable card and at most 4 table groups.

    ``used``: a work array int64 (20,).
    """
    if ntab + ng[i] > 4:
        return False
    for k in range(20):
        used[k] = 0
    for g in range(ng[i]):
        for j in range(2, 5):
            used[opts[i, g, j]] += 1
    used[c] -= 1
    for k in range(20):
        h = hand[p, k] - used[k]
        if h == 1 or h == 2:
            return True
    return False


@kernel
def workspace(rules):
    """The work arrays of :func:`play_deal`, one tuple made once per match (nothing is
    allocated per deal): ``(values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2,
    opts, ng, kv, h2, used, scratch, out, delta, zmoney, states, kings_held, sq, wvx_s,
    gcounts, osums, sscr)``.

    ``values`` is the 胡息 table (:func:`_values`) and ``wvx0`` its 王 values; ``hand``,
    ``ps``, ``pk``, ``tab``, ``pile`` and ``ctx`` the deal's state (module docstring);
    ``stock`` the cards in stock order; ``ws`` and ``best2`` the win search's work arrays;
    ``opts`` and ``ng`` the 吃 options, ``kv``, ``h2``, ``used`` and ``scratch`` the bots'
    scratch; ``out`` a score, ``delta`` the payments, ``zmoney`` the 坐醒 and 黄庄 money;
    ``states`` uint64 (2, 4) the WALL and BOTS streams; ``kings_held`` int64 (4,);
    ``sq``, ``wvx_s``, ``gcounts`` the work arrays of the variant's ``score_win_into``; ``osums``
    int64 (3, N_OSUM) and ``sscr`` int64 (SSCR,) the strong policy's scratch.
    """
    values = packed_values(rules)
    sq, wvx_s, gcounts = score_scratch()
    return (
        values,
        np.zeros((4, 21), np.int64),
        np.zeros((N_PS, 4), np.int64),
        np.zeros((N_PK, 4, 20), np.int64),
        np.zeros((4, MAX_GROUPS, 6), np.int64),
        np.zeros((2, 21), np.int64),
        np.zeros(MAX_CARDS, np.int64),
        np.zeros(N_K, np.int64),
        _workspace(),
        _wang_values_x(values, np.int64(-1)),
        np.zeros((5, 5), np.int64),
        np.zeros((MAX_OPTS, 3, 5), np.int64),
        np.zeros(MAX_OPTS, np.int64),
        np.zeros(20, np.int64),
        np.zeros(21, np.int64),
        np.zeros(20, np.int64),
        np.zeros(20, np.int64),
        np.zeros(N_OUT, np.int64),
        np.zeros(4, np.int64),
        np.zeros(5, np.int64),
        np.zeros((2, 4), np.uint64),
        np.zeros(4, np.int64),
        sq,
        wvx_s,
        gcounts,
        np.zeros((3, N_OSUM), np.int64),
        np.zeros(SSCR, np.int64),
    )


@kernel(refcount=False)
def _record_win(rules, work, rec, final, log, q, card, how, feeder, di):
    """Win and payment: score and pay the win of seat ``q`` on ``card``; fill the record
    row (``di``: a 地胡, the deal's first discard).
    """
    (values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2, opts, ng, kv, h2, used,
     scratch, out, delta, zmoney, states, kings_held, sq, wvx, gcounts, osums,
     sscr) = work  # fmt: skip
    seats = ctx[K_SEATS]
    if rules[Z_XING] == 0:
        flip = -1
    elif ctx[K_PTR] < ctx[K_NCARDS]:
        flip = stock[ctx[K_PTR]]
    elif card >= 0:
        flip = card
    else:
        flip = ctx[K_LAST_DEALT]
    base_card = card if card >= 0 else ctx[K_LAST_DEALT]
    xk, xany, xmin = xing_kind(rules, base_card, flip)
    if card < 0 and base_card == WANG and rules[Z_XING] == 0:
        xmin = 1
    up = _up_type(tab, pk, q, card)
    score_win_into(
        rules, values, hand[q], hand[q, WANG], ps[PS_NTAB, q], ps[PS_TH, q], ps[PS_TR, q],
        pk[PK_TCNT, q], card, how, up, di, xk, xany, xmin, ws, out, sq, wvx, gcounts,
    )  # fmt: skip
    if out[O_VALUE] < 0:
        ctx[K_ERROR] += 1
        return
    capped, zm = pay_win(
        rules, seats, ps[PS_ACTIVE], q, how, feeder, out[O_VALUE], out[O_XING], out[O_FAN],
        ctx[K_ZX], delta,
    )  # fmt: skip
    zmoney[0] = zm
    ctx[K_WINNER] = q
    if how == HOW_TIANHU:
        wt = WIN_INSTANT
    elif how == HOW_SELF:
        wt = WIN_SELF_DRAW
    else:
        wt = WIN_DISCARD
    rec[C_WINNER] = q
    rec[C_WIN_TYPE] = wt
    rec[C_DISCARDER] = feeder if (how == HOW_DISCARD or how == HOW_FLIP) else -1
    rec[C_WILDS] = hand[q, WANG] + (1 if card == WANG else 0)
    rec[C_VALUE] = out[O_VALUE]
    bits = out[O_BITS]
    rec[C_PAT_LO] = bits & 0x7FFFFFFF
    rec[C_PAT_HI] = (bits >> 31) & 0x7FFFFFFF
    for s in range(4):
        rec[C_DELTA + s] = delta[s]
    xcard = flip if rules[Z_XING] != 0 else base_card
    record_win(rules, rec, out, np.int64(how), capped, zm, xcard)
    _ev(log, ctx, EV_WIN, q, wt, card, feeder)
    _ev(log, ctx, EV_XING, flip if rules[Z_XING] != 0 else base_card, out[O_XING], xk, 0)
    _ev(log, ctx, EV_SCORE, out[O_HUXI], out[O_XING], out[O_TUN], out[O_FAN])
    if final.shape[0] > FZ_INFO:
        for k in range(21):
            final[FZ_WIN_HAND, k] = hand[q, k]
        if card >= 0:
            final[FZ_FLIGHT, card] += 1
        info = final[FZ_INFO]
        dh = upgrade_delta(values, up, how, card) if out[O_UPGRADE] == 1 else 0
        info[I_CAND] = -1 if out[O_UPGRADE] == 1 else card
        info[I_SELF] = 1 if how == HOW_SELF or how == HOW_TIANHU else 0
        info[I_TGROUPS] = ps[PS_NTAB, q]
        info[I_THUXI] = ps[PS_TH, q] + dh
        info[I_TRED] = ps[PS_TR, q] + (RED[card] if out[O_UPGRADE] == 1 else 0)
        info[I_SHAPE] = out[O_SHAPE]
        info[I_HUXI] = out[O_HUXI]
        info[I_RED] = out[O_RED]
        info[I_NEED] = 5 - ps[PS_NTAB, q]


@kernel(refcount=False)
def _claims(rules, pols, bots, work, log, owner, c, is_flip):
    """Claim resolution on a shown card ``c`` of seat ``owner`` (rule 9, all but 倾 and 啸),
    in priority: 胡 (:func:`_claim_hu`), 跑 (:func:`_claim_pao`), 碰 (:func:`_claim_peng`),
    吃 (:func:`_claim_chi`); unclaimed, the card is dead and the owner's 下家 flips.

    Returns ``END`` when someone wins (the winner is in ``ctx[K_WINNER]``, the caller
    scores), else ``phase * 8 + seat`` of the next step.
    """
    (values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2, opts, ng, kv, h2, used,
     scratch, out, delta, zmoney, states, kings_held, sq, wvx_s, gcounts, osums,
     sscr) = work  # fmt: skip
    res = _claim_hu(rules, pols, bots, work, log, owner, c, is_flip)
    if res == NO_CLAIM:
        res = _claim_pao(work, log, owner, c, is_flip)
    if res == NO_CLAIM:
        res = _claim_peng(rules, pols, bots, work, log, owner, c)
    if res == NO_CLAIM:
        res = _claim_chi(rules, pols, bots, work, log, owner, c, is_flip)
    if res != NO_CLAIM:
        return res
    passer = ctx[K_PASSER]
    if passer >= 0:
        pk[PK_GUO, passer, c] |= GUO_CLAIM
    pile[PL_DEAD, c] += 1
    pile[PL_SEEN, c] += 1
    _ev(log, ctx, EV_DEAD, c, owner, 0, 0)
    return PHASE_FLIP * 8 + _next(owner, ctx[K_SEATS], ctx[K_ZX])


@kernel(inline="always")
def _claim_hu(rules, pols, bots, work, log, owner, c, is_flip):
    """Claim phase 胡: the others, in turn order from the owner (rule 9); ``END`` (the
    winner in ``ctx[K_WINNER]``) or ``NO_CLAIM``.
    """
    (values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2, opts, ng, kv, h2, used,
     scratch, out, delta, zmoney, states, kings_held, sq, wvx_s, gcounts, osums,
     sscr) = work  # fmt: skip
    seats = ctx[K_SEATS]
    zx = ctx[K_ZX]
    how = HOW_FLIP if is_flip else HOW_DISCARD
    q = _next(owner, seats, zx)
    while q != owner:
        if _win_check(rules, values, wvx0, ws, best2, hand, ps, pk, tab, q, c, how):
            if _decide_win(
                rules, pols, bots, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, q, c,
                how, scratch, sscr, sq, wvx_s, gcounts,
            ):  # fmt: skip
                ctx[K_WINNER] = q
                return END
            _ev(log, ctx, EV_DECLINE, q, c, 0, 0)
        q = _next(q, seats, zx)
    return NO_CLAIM


@kernel(inline="always")
def _claim_pao(work, log, owner, c, is_flip):
    """Claim phase 跑 (forced): onto a 坎 or 啸 of another seat; onto anyone's 碰 when the
    card was flipped. A first 跑 discards next, a later one passes the flip on.
    """
    (values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2, opts, ng, kv, h2, used,
     scratch, out, delta, zmoney, states, kings_held, sq, wvx_s, gcounts, osums,
     sscr) = work  # fmt: skip
    seats = ctx[K_SEATS]
    zx = ctx[K_ZX]
    q = owner
    for _ in range(ctx[K_ACTIVE]):
        if ps[PS_ACTIVE, q]:
            up = _up_type(tab, pk, q, c)
            how_pao = -1
            if q != owner:
                if hand[q, c] == 3:
                    how_pao = 0
                elif up == T_XIAO or up == T_CHOUXIAO:
                    how_pao = 1
                elif up == T_PENG and is_flip:
                    how_pao = 2
            elif is_flip and up == T_PENG:
                how_pao = 2
            if how_pao >= 0:
                if how_pao == 0:
                    hand[q, c] = 0
                    _lay(
                        tab,
                        ps,
                        pk,
                        pile,
                        q,
                        np.int64(T_PAO),
                        c,
                        c,
                        c,
                        c,
                        values[PAO, c // 10],
                        np.int64(4),
                    )
                else:
                    _upgrade(tab, ps, pk, pile, values, q, c, np.int64(T_PAO))
                _ev(log, ctx, EV_PAO, q, c, owner, how_pao)
                ctx[K_PAO] += 1
                if how_pao == 1 and not is_flip:
                    # 冲明跑: the discarder fed a 明跑 onto a 啸 (rule 13).
                    if ps[PS_MINGPAO, owner] == 0:
                        ps[PS_MINGPAO, owner] = 1
                        ctx[K_MINGPAO] += 1
                        _ev(log, ctx, EV_MINGPAO, owner, c, 0, 0)
                ps[PS_NPAO, q] += 1
                if ps[PS_NPAO, q] == 1:
                    return PHASE_DISCARD * 8 + q
                return PHASE_FLIP * 8 + _next(q, seats, zx)
        q = _next(q, seats, zx)
    return NO_CLAIM


@kernel(inline="always")
def _claim_peng(rules, pols, bots, work, log, owner, c):
    """Claim phase 碰: another seat holding a pair (rule 9), unless 过张 or 冲明跑. A seat
    that passes is marked (``ctx[K_PASSER]``: its 过张 starts once the card is gone by).
    """
    (values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2, opts, ng, kv, h2, used,
     scratch, out, delta, zmoney, states, kings_held, sq, wvx_s, gcounts, osums,
     sscr) = work  # fmt: skip
    seats = ctx[K_SEATS]
    zx = ctx[K_ZX]
    bstate = states[1]
    ctx[K_PASSER] = -1
    q = _next(owner, seats, zx)
    while q != owner:
        if (
            hand[q, c] == 2
            and (pk[PK_GUO, q, c] & GUO_CLAIM) == 0
            and ps[PS_MINGPAO, q] == 0
            and ps[PS_NTAB, q] <= 3
            and _free_after(hand, q, c, 2)
        ):
            pol = _code(pols, q)
            if pol == P_STRONG:
                take = _late_strong_peng(
                    rules, _bot(bots, pols, q), values, wvx0, ws, best2, hand, ps, pk, tab, pile,
                    ctx, q, c, kv, osums, sscr, scratch,
                )  # fmt: skip
            elif pol == P_VALUE:
                _fill_unseen(hand, pk, pile, q, scratch)
                take = value_peng(
                    _bot(bots, pols, q), hand[q], c, _huxi_now(hand, ps, values, q),
                    rules[Z_MIN_HUXI], 5 - ps[PS_NTAB, q], scratch, values,
                    ctx[K_NCARDS] - ctx[K_PTR], ctx[K_ACTIVE], sscr[SS_H3 : SS_H3 + 21],
                )  # fmt: skip
            else:
                take = want_claim(
                    pol, hand[q], c, np.int64(2), values[PENG, c // 10],
                    _huxi_now(hand, ps, values, q), rules[Z_MIN_HUXI], bstate,
                )  # fmt: skip
            if take:
                hand[q, c] -= 2
                _lay(
                    tab,
                    ps,
                    pk,
                    pile,
                    q,
                    np.int64(T_PENG),
                    c,
                    c,
                    c,
                    np.int64(-1),
                    values[PENG, c // 10],
                    np.int64(3),
                )
                _ev(log, ctx, EV_PENG, q, c, owner, 0)
                return PHASE_DISCARD * 8 + q
            # 过张 once the card is gone by (he may still 吃 it now); 臭啸 marks at once.
            pk[PK_GUO, q, c] |= GUO_PENG
            ctx[K_PASSER] = q
            ctx[K_GUO] += 1
            _ev(log, ctx, EV_PASS, q, c, 2, 0)
        q = _next(q, seats, zx)
    return NO_CLAIM


@kernel(inline="always")
def _claim_chi(rules, pols, bots, work, log, owner, c, is_flip):
    """Claim phase 吃: the flipper then his 下家 on a flipped card; the 下家 on a discard."""
    (values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2, opts, ng, kv, h2, used,
     scratch, out, delta, zmoney, states, kings_held, sq, wvx_s, gcounts, osums,
     sscr) = work  # fmt: skip
    seats = ctx[K_SEATS]
    zx = ctx[K_ZX]
    bstate = states[1]
    passer = ctx[K_PASSER]
    q = owner if is_flip else _next(owner, seats, zx)
    for i in range(2 if is_flip else 1):
        if i == 1:
            q = _next(owner, seats, zx)
        if (pk[PK_GUO, q, c] & GUO_CLAIM) != 0 or ps[PS_MINGPAO, q] != 0:
            continue
        n = _chi_options_into(hand, q, c, opts, ng, used)
        m = np.int64(0)  # not the constant 0: choose_chi would compile once more for it
        for j in range(n):
            if _option_ok(hand, q, c, opts, j, ng, ps[PS_NTAB, q], used):
                if m != j:
                    for g in range(3):
                        for e in range(5):
                            opts[m, g, e] = opts[j, g, e]
                    ng[m] = ng[j]
                m += 1
        if m == 0:
            continue
        pol = _code(pols, q)
        if pol == P_STRONG:
            pick = _late_strong_chi(
                rules, _bot(bots, pols, q), values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx,
                q, c, opts, ng, m, kv, osums, sscr, scratch,
            )  # fmt: skip
        elif pol == P_VALUE:
            _fill_unseen(hand, pk, pile, q, scratch)
            pick = value_chi(
                _bot(bots, pols, q), hand[q], c, opts, ng, m, values,
                _huxi_now(hand, ps, values, q), rules[Z_MIN_HUXI], 5 - ps[PS_NTAB, q], scratch,
                ctx[K_NCARDS] - ctx[K_PTR], ctx[K_ACTIVE], sscr[SS_H3 : SS_H3 + 21],
            )  # fmt: skip
        else:
            pick = choose_chi(
                pol, hand[q], c, opts, ng, m, values, _huxi_now(hand, ps, values, q),
                rules[Z_MIN_HUXI], bstate, h2,
            )  # fmt: skip
        if pick >= 0:
            if passer >= 0 and passer != q:
                pk[PK_GUO, passer, c] |= GUO_CLAIM
            _ev(log, ctx, EV_CHI, q, c, owner, ng[pick])
            for g in range(ng[pick]):
                a = opts[pick, g, 2]
                b = opts[pick, g, 3]
                d = opts[pick, g, 4]
                for x in (a, b, d):
                    hand[q, x] -= 1
                hx = values[opts[pick, g, 0], opts[pick, g, 1]]
                _lay(tab, ps, pk, pile, q, np.int64(T_CHI), a, b, d, np.int64(-1), hx, np.int64(3))
                _ev(log, ctx, EV_GROUP, q, a, b, d)
            hand[q, c] += 1
            return PHASE_DISCARD * 8 + q
        pk[PK_GUO, q, c] |= GUO_CLAIM
        ctx[K_GUO] += 1
        _ev(log, ctx, EV_PASS, q, c, 1, 0)
    return NO_CLAIM


@kernel(refcount=False)
def play_deal(
    rules, pols, bots, seed, match, deal, dealer, streak, zx, deck, work, rec, final, log,
    logging, obs,
):  # fmt: skip
    """一局 one deal: play it and write its record row ``rec (N_COLS,)``.

    ``deck``: int64 card codes in stock order (dealt from the top: the dealer's 15, then
    each next seat's 14, then the flips) replacing the shuffle when it holds the whole
    deck; an empty array shuffles (the WALL stream).

    ``work``: the match's work arrays (:func:`workspace`; nothing is allocated here);
    ``bots``: the seats' parameter rows (engine.zipai.params); ``final``: int16
    (N_ZONES, 21) to receive where every card ended (or a smaller array to skip that);
    ``log``: int32 (MAX_EVENTS, EVENT_COLS), filled when ``logging``; ``obs``: the
    observation buffer (engine.play.zipai.observe; one row: off). Returns the winner (-1 for
    黄庄).

    The deal runs in named phases, each a kernel of its own: the deal (:func:`_deal`), then
    turns of discard (:func:`_discard_turn`) or flip (:func:`_flip_turn`), with the claim
    resolution of :func:`_claims`, and the win and payment (:func:`_record_win`,
    :func:`_settle`). A turn answers the next step, ``phase * 8 + seat``; ``END`` (a win,
    scored; the winner in ``ctx[K_WINNER]``) or ``HUANG`` (the stock is empty).

    The turns are inlined into this loop and the claim phases into :func:`_claims`
    (``inline="always"``): a call passing the workspace copies its 27 array structs. The
    deal, the claims as a whole, the scoring and the settlement stay calls of their own,
    as the claims and the scoring were before the split.
    """
    ctx = work[7]
    for i in range(rec.shape[0]):
        rec[i] = 0
    _late_deal(rules, seed, match, deal, dealer, zx, deck, work, logging, log)
    rec[C_DEALER] = dealer
    rec[C_STREAK] = streak
    rec[C_WINNER] = -1
    rec[C_WIN_TYPE] = WIN_NONE
    rec[C_DISCARDER] = -1
    winner = -1
    # 天胡: the dealer's dealt cards (rule 22).
    if _tianhu(rules, work, dealer):
        ctx[K_WINNER] = dealer
        _late_record_win(rules, work, rec, final, log, dealer, -1, HOW_TIANHU, -1, False)
        winner = dealer
    res = PHASE_DISCARD * 8 + dealer
    ctx[K_FIRST] = 1
    steps = 0
    while winner < 0:
        steps += 1
        if steps > MAX_STEPS:
            ctx[K_ERROR] += 1
            break
        if res // 8 == PHASE_DISCARD:
            res = _discard_turn(rules, pols, bots, work, rec, final, log, obs, res % 8)
        else:
            res = _flip_turn(rules, pols, bots, work, rec, final, log, res % 8)
        if res == END:
            winner = ctx[K_WINNER]
            break
        if res == HUANG:
            break
    _late_settle(rules, work, rec, final, log, obs, dealer, winner)
    return winner


@kernel(refcount=False)
def _deal(rules, seed, match, deal, dealer, zx, deck, work, logging, log):
    """Deal phase: clear the deal's state, shuffle (WALL stream) or stack the deck, seed the
    bots' stream, deal (the dealer 15, the others 14, in turn order from the dealer) and
    lay the four alike dealt as 倾 at once (rule 10; dealer first).
    """
    (values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2, opts, ng, kv, h2, used,
     scratch, out, delta, zmoney, states, kings_held, sq, wvx_s, gcounts, osums,
     sscr) = work  # fmt: skip
    seats = rules[Z_SEATS]
    kings = rules[Z_KINGS]
    ncards = 80 + kings
    hand[:] = 0
    ps[:] = 0
    ps[PS_KEY] = -1
    pk[:] = 0
    pk[PK_ALIKE] = -1
    tab[:] = 0
    pile[:] = 0
    ctx[:] = 0
    ctx[K_AIM_LO], ctx[K_AIM_HI] = colour_aim(rules)
    sscr[SS_CKEY : SS_CKEY + N_CACHE] = -1
    ctx[K_SEATS] = seats
    ctx[K_ZX] = zx
    ctx[K_DEALER] = dealer
    ctx[K_NCARDS] = ncards
    ctx[K_LOG] = 1 if logging else 0
    ctx[K_WINNER] = -1
    active = 0
    for s in range(seats):
        if s != zx:
            ps[PS_ACTIVE, s] = 1
            active += 1
    ctx[K_ACTIVE] = active
    wst = states[0]
    rng.seed_state(wst, seed, match, deal, rng.WALL)
    if deck.shape[0] == ncards:
        for i in range(ncards):
            stock[i] = deck[i]
    else:
        for i in range(80):
            stock[i] = i // 4
        for i in range(kings):
            stock[80 + i] = WANG
        rng.shuffle(wst, stock, ncards)
    rng.seed_state(states[1], seed, match, deal, rng.BOTS)
    ptr = 0
    s = dealer
    for _ in range(active):
        n = rules[Z_DEALER_CARDS] if s == dealer else rules[Z_HAND_CARDS]
        for i in range(n):
            hand[s, stock[ptr + i]] += 1
        if s == dealer:
            ctx[K_LAST_DEALT] = stock[ptr + n - 1]
        ptr += n
        s = _next(s, seats, zx)
    ctx[K_PTR] = ptr
    if zx >= 0:
        _ev(log, ctx, EV_ZUOXING, zx, 0, 0, 0)
    for s in range(seats):
        for k in range(21):
            if hand[s, k] > 0:
                _ev(log, ctx, EV_DEAL, s, k, hand[s, k], 0)
    s = dealer
    for _ in range(active):
        for k in range(20):
            if hand[s, k] == 4:
                hand[s, k] = 0
                _lay(
                    tab,
                    ps,
                    pk,
                    pile,
                    s,
                    np.int64(T_QING),
                    k,
                    k,
                    k,
                    k,
                    values[QING, k // 10],
                    np.int64(0),
                )
                ctx[K_QING] += 1
                _ev(log, ctx, EV_QING, s, k, 0, 0)
        s = _next(s, seats, zx)


@kernel(inline="always")
def _tianhu(rules, work, dealer):
    """Whether the dealer's dealt cards win (天胡, rule 22)."""
    (values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2, opts, ng, kv, h2, used,
     scratch, out, delta, zmoney, states, kings_held, sq, wvx_s, gcounts, osums,
     sscr) = work  # fmt: skip
    return _win_check(
        rules,
        values,
        wvx0,
        ws,
        best2,
        hand,
        ps,
        pk,
        tab,
        dealer,
        np.int64(-1),
        np.int64(HOW_TIANHU),
    )


@kernel(inline="always")
def _discard_turn(rules, pols, bots, work, rec, final, log, obs, p):
    """Turn phase: seat ``p`` discards (死守 when it cannot, rule 13) and the others may
    claim the card (:func:`_claims`); a win on it is scored here.
    """
    (values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2, opts, ng, kv, h2, used,
     scratch, out, delta, zmoney, states, kings_held, sq, wvx_s, gcounts, osums,
     sscr) = work  # fmt: skip
    bstate = states[1]
    pol = _code(pols, p)
    if pol == P_STRONG:
        k = _late_strong_discard(
            rules, _bot(bots, pols, p), values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, p,
            bstate, kv, osums, sscr, scratch,
        )  # fmt: skip
    else:
        hx = _huxi_now(hand, ps, values, p)
        _fill_unseen(hand, pk, pile, p, scratch)
        unseen = scratch
        red_w = colour_weight(pol, _red_total(hand, ps, p), ctx[K_AIM_LO], ctx[K_AIM_HI])
        k = choose_discard(
            pol, hand[p], unseen, values, hx, rules[Z_MIN_HUXI], red_w, bstate, kv
        )  # fmt: skip
    if k < 0:
        # 死守: nothing may be discarded (rule 13).
        ctx[K_SISHOU] += 1
        _ev(log, ctx, EV_SISHOU, p, 0, 0, 0)
        res = PHASE_FLIP * 8 + _next(p, ctx[K_SEATS], ctx[K_ZX])
    else:
        hand[p, k] -= 1
        if obs.shape[0] > 1:
            _late_observe_discard(rules, pol, values, wvx0, ws, best2, hand, ps, pk, tab,
                                  pile, ctx, p, k, osums, sscr, scratch, obs)  # fmt: skip
        ctx[K_NDISC] += 1
        ps[PS_DMASK, p] |= 1 << k
        ps[PS_NDISC, p] += 1
        _ev(log, ctx, EV_DISCARD, p, k, 0, 0)
        res = _late_claims(rules, pols, bots, work, log, p, k, False)
        if res == END:
            q = ctx[K_WINNER]
            _late_record_win(rules, work, rec, final, log, q, k, HOW_DISCARD, p, ctx[K_FIRST] == 1)
    ctx[K_FIRST] = 0
    return res


@kernel(inline="always")
def _flip_turn(rules, pols, bots, work, rec, final, log, p):
    """Turn phase: seat ``p`` flips the top stock card (``HUANG`` when none is left): a win
    with it (自摸, scored here), a 王 into the hand, a forced 倾 or 啸, else the claims on
    the shown card (:func:`_claims`).
    """
    (values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2, opts, ng, kv, h2, used,
     scratch, out, delta, zmoney, states, kings_held, sq, wvx_s, gcounts, osums,
     sscr) = work  # fmt: skip
    seats = ctx[K_SEATS]
    zx = ctx[K_ZX]
    if ctx[K_PTR] >= ctx[K_NCARDS]:
        return HUANG
    c = stock[ctx[K_PTR]]
    ctx[K_PTR] += 1
    ctx[K_TURNS] += 1
    _ev(log, ctx, EV_FLIP, p, c, 0, 0)
    if _win_check(rules, values, wvx0, ws, best2, hand, ps, pk, tab, p, c, np.int64(HOW_SELF)):
        if _decide_win(
            rules, pols, bots, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx, p, c,
            np.int64(HOW_SELF), scratch, sscr, sq, wvx_s, gcounts,
        ):  # fmt: skip
            ctx[K_WINNER] = p
            _late_record_win(rules, work, rec, final, log, p, c, HOW_SELF, -1, False)
            return END
        _ev(log, ctx, EV_DECLINE, p, c, 0, 0)
    if c == WANG:
        # A 王 turned up goes into the hand, shown (rule 14); then a discard.
        hand[p, WANG] += 1
        ps[PS_WSHOWN, p] += 1
        return PHASE_DISCARD * 8 + p
    up = _up_type(tab, pk, p, c)
    if up == T_XIAO or up == T_CHOUXIAO:
        _upgrade(tab, ps, pk, pile, values, p, c, np.int64(T_QING))
        ctx[K_QING] += 1
        _ev(log, ctx, EV_QING, p, c, 2, 0)
        return PHASE_FLIP * 8 + _next(p, seats, zx)
    if hand[p, c] == 3:
        hand[p, c] = 0
        _lay(tab, ps, pk, pile, p, np.int64(T_QING), c, c, c, c, values[QING, c // 10], np.int64(0))
        ctx[K_QING] += 1
        _ev(log, ctx, EV_QING, p, c, 1, 0)
        return PHASE_FLIP * 8 + _next(p, seats, zx)
    if hand[p, c] == 2:
        hand[p, c] = 0
        chou = (pk[PK_GUO, p, c] & GUO_PENG) != 0
        hx = values[XIAO, c // 10]
        if chou:
            _lay(tab, ps, pk, pile, p, np.int64(T_CHOUXIAO), c, c, c, np.int64(-1), hx, np.int64(1))
            ctx[K_CHOU] += 1
        else:
            _lay(tab, ps, pk, pile, p, np.int64(T_XIAO), c, c, c, np.int64(-1), hx, np.int64(0))
        ctx[K_XIAO] += 1
        _ev(log, ctx, EV_XIAO, p, c, 1 if chou else 0, 0)
        return PHASE_DISCARD * 8 + p
    res = _late_claims(rules, pols, bots, work, log, p, c, True)
    if res == END:
        _late_record_win(rules, work, rec, final, log, ctx[K_WINNER], c, HOW_FLIP, p, False)
    return res


@kernel(refcount=False)
def _settle(rules, work, rec, final, log, obs, dealer, winner):
    """Win and payment, the deal's end: 黄庄 payments (the 王 holders pay, rule 24), the
    record's counts, the pay events, the outcome's observation rows and (tests) where
    every card ended.
    """
    (values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2, opts, ng, kv, h2, used,
     scratch, out, delta, zmoney, states, kings_held, sq, wvx_s, gcounts, osums,
     sscr) = work  # fmt: skip
    seats = ctx[K_SEATS]
    if winner < 0:
        _ev(log, ctx, EV_HUANG, 0, 0, 0, 0)
        for s in range(4):
            kings_held[s] = 0
        for s in range(seats):
            kings_held[s] = hand[s, WANG]
        pay_huangzhuang(rules, seats, ps[PS_ACTIVE], dealer, kings_held, delta, zmoney[1:5])
        for s in range(4):
            rec[C_DELTA + s] = delta[s]
    rec[C_TURNS] = ctx[K_TURNS]
    record_deal(rules, ctx, rec, winner, kings_held)
    for s in range(seats):
        _ev(log, ctx, EV_PAY, s, rec[C_DELTA + s], 0, 0)
    if obs.shape[0] > 1:
        xr = 0
        if winner >= 0:
            # the 醒 a kind turned up at random gives: his real cards / 20, and his 王
            real = 1
            for k in range(20):
                real += hand[winner, k] + pk[PK_TCNT, winner, k]
            xr = (100 * real) // 20 + 100 * hand[winner, WANG]
        # the win's 胡息 and 醒 before 双醒 as scored (none unless the win was recorded)
        scored = rec[C_WINNER] >= 0
        _late_observe_outcome(
            obs, winner, rec[C_DELTA : C_DELTA + 4], rec[C_WIN_TYPE],
            out[O_HUXI] if scored else 0, out[O_XRAW] if scored else 0, xr, rec[C_PAT_LO],
        )  # fmt: skip
    if final.shape[0] > FZ_INFO:
        for s in range(seats):
            for k in range(21):
                final[FZ_HAND + s, k] = hand[s, k]
                if k < 20:
                    final[FZ_TABLE + s, k] = pk[PK_TCNT, s, k]
        for k in range(21):
            final[FZ_DEAD, k] = pile[PL_DEAD, k]
        for i in range(ctx[K_PTR], ctx[K_NCARDS]):
            final[FZ_STOCK, stock[i]] += 1


NO_TABLES = (np.zeros(1, np.int64),)
"""The ``tab`` argument of :func:`play_matches` (the mahjong family's hand tables there;
this loop reads none, so a 字牌 run neither builds nor compiles them)."""


def no_tables() -> tuple:
    """:data:`NO_TABLES` (engine.play.family: the tables argument of this family's runs)."""
    return NO_TABLES


# Late calls (engine.jit.late): the deal, its phases met once a deal (the deal itself, the
# win's scoring, the settlement), the claims, the strong policy's decisions and the
# observations are compiled each in a library of its own when a run can reach them, not
# linked into every kernel above and optimised again there; a run without a strong seat
# does not compile the strong policy at all.
LATE = _hooks.LATE
_late_play_deal = LATE.late(play_deal, types.int64)
_late_claims = LATE.late(_claims, types.int64)
_late_strong_discard = LATE.late(_strong_discard, types.int64)
_late_strong_peng = LATE.late(_strong_peng, types.boolean)
_late_strong_chi = LATE.late(_strong_chi, types.int64)
_late_strong_win = LATE.late(_strong_win, types.boolean)
_late_observe_discard = LATE.late(_observe_discard, types.none)
_late_observe_outcome = LATE.late(observe_outcome, types.none)
_late_deal = LATE.late(_deal, types.none)
_late_record_win = LATE.late(_record_win, types.none)
_late_settle = LATE.late(_settle, types.none)
_DEAL_LATE = (play_deal, _claims, _deal, _record_win, _settle)
_STRONG_LATE = (_strong_discard, _strong_peng, _strong_chi, _strong_win)


def _late_needed(args):
    """The late kernels a call with these arguments (by name) can reach, callers first:
    the deal, its claims and once-a-deal phases always, the strong policy's if a seat
    plays it, the observations' if ``obs`` has room for rows.
    """
    obs = args.get("obs")
    return (
        _DEAL_LATE
        + (_STRONG_LATE if P_STRONG in args["policies"] else ())
        + ((_observe_discard, observe_outcome) if obs is not None and obs.shape[0] > 1 else ())
    )


@kernel
def _play_match(
    rules, policies, seed, match, n_deals, rec_out, final_out, log, log_deal, deck, first_dealer,
    bots, obs,
):  # fmt: skip
    """一场 one match: play its first ``n_deals`` deals; rows go to ``rec_out``.

    ``final_out``: int16 (n_deals, N_ZONES, 21) to receive where every card ended, or an
    array of another first dimension to skip that; ``log``: the replay log (int32
    (MAX_EVENTS, EVENT_COLS)) filled for deal ``log_deal``; ``deck``: a stacked deck for
    every deal (see :func:`play_deal`; empty: shuffle); ``first_dealer``: the first
    dealer, or -1 to draw it (MATCH stream); ``bots``: the seats' parameter rows
    (float64 (4, N_BOT)); ``obs``: an observation buffer (engine.play.zipai.observe; an
    array of one row: off). Returns the errors met (0).
    """
    seats = rules[Z_SEATS]
    work = workspace(rules)
    ctx = work[7]
    row = np.zeros(N_COLS, np.int64)
    no_final = np.zeros((1, 1), np.int16)
    fin_buf = np.zeros((13, 21), np.int16)
    ms = np.empty(4, np.uint64)
    rng.seed_state(ms, seed, match, np.int64(0), rng.MATCH)
    dealer = rng.below(ms, seats)
    if first_dealer >= 0:
        dealer = first_dealer
    streak = 0
    errors = 0
    by_dealer = rules[Z_BY_DEALER] == 1
    pols = np.empty(seats, np.int64) if by_dealer else policies
    # the strong rows' values priced under this run's rules (derive_values)
    priced = bots.copy()
    active = seats - (1 if rules[Z_ZUOXING] == 1 else 0)
    for s in range(priced.shape[0]):
        _derive_values(rules, priced[s], active)
    brows = priced.copy() if by_dealer else priced
    for d in range(n_deals):
        zx = (dealer + 2) % seats if rules[Z_ZUOXING] == 1 else -1
        if by_dealer:
            seat_by_dealer(policies, priced, dealer, seats, pols, brows)
        want_final = (
            final_out.shape[0] == n_deals
            and final_out.shape[1] >= fin_buf.shape[0]
            and final_out.shape[2] >= 21
        )
        fin_buf[:] = 0
        fin = fin_buf if want_final else no_final
        logging = d == log_deal
        winner = _late_play_deal(
            rules, pols, brows, seed, match, d, dealer, streak, zx, deck, work, row, fin, log,
            logging, obs,
        )  # fmt: skip
        errors += ctx[K_ERROR]
        for i in range(N_COLS):
            rec_out[d, i] = row[i]
        if want_final:
            for a in range(fin_buf.shape[0]):
                for b in range(21):
                    final_out[d, a, b] = fin_buf[a, b]
        # Rule 25: the winner deals next; after 黄庄 the dealer's 下家.
        if winner == dealer:
            streak += 1
        elif winner >= 0:
            dealer = winner
            streak = 0
        else:
            dealer = _next(dealer, seats, zx)
            streak = 0
    return errors


@parallel_kernel
def play_matches(rules, policies, bots, seed, match_lo, n_matches, match_len, n_last, tab, rec_out):
    """多场 matches ``match_lo .. match_lo + n_matches - 1``, played in parallel.

    Same signature as the mahjong family's :func:`engine.play.mahjong.loop.play_matches`
    (``tab``, the mahjong hand tables, is not used; ``bots`` holds the seats' parameter
    rows, read by the strong policy). Each match has ``match_len`` deals
    except the last, which has ``n_last``; rows go to ``rec_out`` at
    ``(m - match_lo) * match_len``.
    """
    no_final = np.zeros((0, 1, 1), np.int16)
    no_log = np.zeros((1, 5), np.int32)
    no_deck = np.zeros(0, np.int64)
    no_obs = np.zeros((1, OBS_W), np.int64)
    errors = np.zeros(n_matches, np.int64)
    for i in numba.prange(n_matches):
        n = match_len if i < n_matches - 1 else n_last
        lo = i * match_len
        errors[i] = _play_match(
            rules,
            policies,
            seed,
            match_lo + i,
            n,
            rec_out[lo : lo + n],
            no_final,
            no_log,
            np.int64(-1),
            no_deck,
            np.int64(-1),
            bots,
            no_obs,
        )
    return errors.sum()


@kernel
def observe_matches(rules, policies, bots, seed, match_lo, n_matches, match_len, rec_out, obs):
    """Play matches ``match_lo ..`` one after another, writing observation rows to ``obs``
    (engine.play.zipai.observe; rows ``(m - match_lo) * match_len`` of ``rec_out``).
    """
    no_final = np.zeros((0, 1, 1), np.int16)
    no_log = np.zeros((1, 5), np.int32)
    no_deck = np.zeros(0, np.int64)
    errors = 0
    for i in range(n_matches):
        lo = i * match_len
        errors += _play_match(
            rules, policies, seed, match_lo + i, match_len, rec_out[lo : lo + match_len],
            no_final, no_log, np.int64(-1), no_deck, np.int64(-1), bots, obs,
        )  # fmt: skip
    return errors


play_matches = _hooks.binding(play_matches, _late_needed)
observe_matches = _hooks.binding(observe_matches, _late_needed)
play_match = _hooks.binding(_play_match, _late_needed)
derive_values = _hooks.binding(_derive_values, hooks=("derive_values",))
"""The variant's ``derive_values`` hook from Python: a strong row's win values priced
under the packed rules (engine.zipai.strong.derive_values)."""
