"""诸暨麻将 (zhuji) 台 counting, legality and settlement kernels (numba). Kernels only.

Rule slots (``rules[R_VAR + i]``) are written by :mod:`engine.variants.zhuji`.

How the 台 of a hand is found (the best over decompositions and 财神 assignments). A
complete concealed part is 4 minus the exposed melds sets plus one pair; every real tile
is used and the 财神 fill the rest, any kind, even fifth copies (RULEBOOK §0.1). What
the ordinary 台 (RULEBOOK §2.3 rules 13-16) of one reading depends on:

- the honor triplets (中发白 1, 东 2, once per kind: RULEBOOK §0.1) - only honors can
  host them, so the honors are read apart: :func:`honor_table` gives, for every number
  ``k`` of honor sets and ``p`` of honor pairs, the most honor 台 a covering of the real
  honor tiles can reach;
- the shape: all sequences (平胡 1), all triplets (对对胡 1) or mixed (0); the suited
  tiles then must form the remaining ``sets - k`` sets and ``1 - p`` pair under that
  shape (:func:`seq_bits`, :func:`triplets_fit`, the standard distance table);
- the suits used: real tiles and melds, plus honors when ``k + p > 0``, plus one suit
  when the suited groups are made of 财神 alone; 清一色 3, 混一色 1, 全字牌 special;
- the 财神 held (三财神 2 for three or more) and the context (杠开, 抢杠 1 each).

Every (shape, k, p) is one reading class. The reading paid is the most valuable one
that may be declared (ordinary 台 at the minimum, or 全字牌), ties to the most ordinary 台;
its pattern bits and ordinary 台 are reported with its value, so the flags of a win
always add up to the ordinary 台 it records (RULEBOOK §2.3 rule 13).
"""

from __future__ import annotations

import numpy as np

from engine.jit.njit import kernel
from engine.mahjong.layout import (
    C_EXTRA,
    C_WILDS,
    CTX,
    M_CHOW,
    N_MEMO,
    R_SHAPES,
    RULES,
    WIN_DISCARD,
    WIN_KONG_DRAW,
    WIN_ROB_KONG,
    WIN_SELF_DRAW,
    X_DEALER,
    X_DISCARDER,
    X_FIRST_TURN,
    X_KONGS,
    X_MEMO,
    X_ROBBED,
    X_VALUE,
    X_WILD0,
    X_WILD1,
    X_WIN_TYPE,
    X_WINNER,
)
from engine.mahjong.patterns import rest_distance, triplets_fit
from engine.mahjong.settlement import row_context

from ...hand._kernels import _distance, _pairs_formula, _suit_indices
from .._base import Extra, Pattern, big_mask, extra_index, pattern_bits

# ---- the patterns: one declaration each (record column pat_<name>, bit = place) -----
PATTERNS = (
    Pattern("zhong", "红中", "Triplet or kong of 中: 1 台.", value=1),
    Pattern("fa", "发财", "Triplet or kong of 发: 1 台.", value=1),
    Pattern("bai", "白板", "Triplet or kong of 白: 1 台.", value=1),
    Pattern("dongfeng", "东风", "Triplet or kong of 东: 2 台 for every seat.", value=2),
    Pattern("pinghu", "平胡", "All sequences and a pair, no 碰/杠: 1 台.", value=1),
    Pattern("duiduihu", "对对胡", "All triplets and a pair: 1 台.", value=1),
    Pattern("qingyise", "清一色", "One suit, no honors: 3 台.", big=True, value=3),
    Pattern("hunyise", "混一色", "One suit and honors: 1 台.", value=1),
    Pattern("sancaishen", "三财神", "Three or more 财神 held: 2 台.", value=2),
    Pattern("gangkai", "杠开", "Win on a kong replacement: 1 台.", value=1),
    Pattern("qianggang", "抢杠", "Win on a robbed 补杠: 1 台.", value=1),
    Pattern("tianhu", "天胡", "The dealer's first fourteen win: 8-台 hand.", big=True, value=8),
    Pattern("dihu", "地胡", "A non-dealer wins on his first draw: 8-台 hand.", big=True, value=8),
    Pattern("quanzipai", "全字牌", "Honors only: 8-台 hand, no minimum.", big=True, value=8),
    Pattern("wucai", "无财", "No 财神 held: 8-台 hand.", big=True, value=8),
    Pattern("qidui", "七对", "Seven pairs (option seven_pairs).", big=False),
)
"""The scoring patterns, in bit order: each one's bit, the big mask, the record columns
and the 台 tables (:data:`TAI`, :data:`HONOR_TAI`, the ``TAI_*`` constants the kernels
add) are read from here. ``value`` is a pattern's ordinary 台, or for the 8-台 hands
(:data:`SPECIAL8`) their 台, the default of ``pay_special8``; 七对 is worth none."""
BIT = pattern_bits(PATTERNS)
"""Bit number of each pattern by name."""
BIG_MASK = big_mask(PATTERNS)
"""The bits of the big hands."""

KERNEL_ID = 3
"""This variant's id in ``rules[R_VARIANT]``: the game loop's hooks (engine.play.mahjong.hooks)
call this module's hook kernels for it."""

# option slots
VAR = RULES.sub("var", "zhuji rules")
Z_CAISHEN = VAR.block("caishen")
"""财神 kinds in play (0, 1, 2)."""
Z_DISCARD_PAY = VAR.block("discard_pay")
"""0 the discarder pays 台 alone, 1 all three pay 台, 2 the discarder pays 3 x 台."""
Z_SPECIAL8 = VAR.block("special8")
"""0: an 8-台 hand is worth max(8, ordinary 台); 1: 8 + ordinary 台."""
Z_WUCAI = VAR.block("wucai")
"""0: 无财 = no 财神 held; 1 (归位): also when every 财神 can stand for its own kind."""
Z_MIN_TAI = VAR.block("min_tai")
"""Ordinary 台 a win needs (3; 全字牌 exempt)."""
Z_SEVEN_PAIRS = VAR.block("seven_pairs")
"""1: seven pairs (七对) is a winning shape."""
Z_PASS_LOCK = VAR.block("pass_lock")
"""Pass lock mode (0 lock, 1 value, 2 none); the loop reads R_PASS_LOCK."""

# payout table (rules[R_PAY + i]), written by engine.variants.zhuji.pack from the pay
# options; the legality of a win never reads it (the bots do not either)
PAY = RULES.sub("pay", "zhuji payouts")
Z_PAY_TIANHU = PAY.block("tianhu")
"""台 of a 天胡 hand (8): with several 8-台 hands the largest counts."""
Z_PAY_DIHU = PAY.block("dihu")
"""台 of a 地胡 hand (8)."""
Z_PAY_QUANZIPAI = PAY.block("quanzipai")
"""台 of a 全字牌 hand (8)."""
Z_PAY_WUCAI = PAY.block("wucai")
"""台 of a 无财 hand (8)."""
Z_TAI_CAP = PAY.block("tai_cap")
"""Most 台 a win pays (applied after the reading is chosen), 0 = no cap."""

# pattern bits (order = engine.variants.zhuji.PATTERNS)
P_ZHONG = BIT["zhong"]
P_FA = BIT["fa"]
P_BAI = BIT["bai"]
P_DONGFENG = BIT["dongfeng"]
P_PINGHU = BIT["pinghu"]
P_DUIDUIHU = BIT["duiduihu"]
P_QINGYISE = BIT["qingyise"]
P_HUNYISE = BIT["hunyise"]
P_SANCAISHEN = BIT["sancaishen"]
P_GANGKAI = BIT["gangkai"]
P_QIANGGANG = BIT["qianggang"]
P_TIANHU = BIT["tianhu"]
P_DIHU = BIT["dihu"]
P_QUANZIPAI = BIT["quanzipai"]
P_WUCAI = BIT["wucai"]
P_QIDUI = BIT["qidui"]

SPECIAL8 = ("tianhu", "dihu", "quanzipai", "wucai")
"""The 8-台 hands (RULEBOOK §2.3 rule 17): no ordinary 台; one option (``pay_special8``)
sets all their 台, so they declare one value."""
TAI = np.array([0 if p.name in SPECIAL8 else p.value for p in PATTERNS], np.int64)
"""Ordinary 台 of each pattern, in bit order (0 for the 8-台 hands), from the declarations."""


def _special8_tai() -> int:
    values = {p.value for p in PATTERNS if p.name in SPECIAL8}
    if len(values) != 1:
        raise ValueError(f"the 8-台 hands {SPECIAL8} declare {sorted(values)}: one value")
    return values.pop()


SPECIAL8_TAI = _special8_tai()
"""台 of an 8-台 hand (8), the default of ``pay_special8``."""
TAI_PINGHU = int(TAI[P_PINGHU])
TAI_DUIDUIHU = int(TAI[P_DUIDUIHU])
TAI_QINGYISE = int(TAI[P_QINGYISE])
TAI_HUNYISE = int(TAI[P_HUNYISE])
TAI_SANCAISHEN = int(TAI[P_SANCAISHEN])
TAI_GANGKAI = int(TAI[P_GANGKAI])
TAI_QIANGGANG = int(TAI[P_QIANGGANG])
"""The 台 of the shape, suit and context patterns as compile-time constants of the kernels."""

# ---- the extra record columns: one declaration each (index = place) -------------------
EXTRAS = (
    Extra("kongs", doc="Kongs made in the deal."),
    Extra("tai_ordinary", doc="The ordinary 台 (without the 8-台 specials) of the reading "
          "paid, the one whose pattern flags the record carries (the best declarable "
          "reading: most value, then most ordinary 台)."),
    Extra("refused", doc="Complete hands refused during the deal for want of 台."),
    Extra("alt_tai", doc="A re-score's input: the ordinary 台 of the best declarable reading "
          "of the other kind (全字牌 if the one paid is not, else not; -1 when there is "
          "none): the only readings whose order an 8-台 value or the 无财 rule can change."),
    Extra("score_in", doc="A re-score's input: the pattern bits of that reading (0-15), "
          "whether it was found first (bit 16) and whether the winner's 财神 can all stand "
          "for their own kinds (bit 17, 无财 under wucai=guiwei)."),
)  # fmt: skip
"""The extra record columns, in index order (the ``E_*`` indices below are read from here,
in this order: tests/engine/variants/test_extras.py checks each name against its extra)."""
(E_KONGS, E_TAI_ORDINARY, E_REFUSED, E_ALT_TAI,
 E_SCORE_IN) = extra_index(EXTRAS).values()  # fmt: skip

# bit fields of the score_in column (the inputs of a re-score, engine.runs.rescore)
IN_ALT_BITS = (1 << 16) - 1
"""Bits 0..15: the pattern bits of the alternative reading (see ``alt_tai``)."""
IN_ALT_FIRST = 1 << 16
"""The alternative reading was found before the one paid (it wins ties)."""
IN_GUIWEI = 1 << 17
"""The winner holds 财神 and every one can stand for its own kind (无财 under guiwei)."""

SCRATCH = CTX.sub("scratch", "zhuji scratch")
S_REFUSED = SCRATCH.block("refused")
"""ctx slot: complete hands refused this deal for lack of 台."""
S_ORDINARY = SCRATCH.block("ordinary")
"""ctx slot: the winner's best ordinary 台 (set by :func:`patterns`)."""
S_MEMO_NEXT = SCRATCH.block("memo_next", 4)
"""ctx slots 82..85: the next memo entry each seat overwrites (a ring of MEMO_WAYS)."""
S_LAST = SCRATCH.block("last", 8)
"""ctx slots 86..93: the last hand :func:`win_legal` allowed (key words 0-1, then the
value, pattern bits and ordinary 台 of its evaluation, and the alternative reading's
ordinary 台, bits and order), reused by :func:`patterns`."""
S_ALT = SCRATCH.block("alt", 2)
"""ctx slots 94..95: the winner's alternative reading: ordinary 台 (-1 none) and the
score_in bits (set by :func:`patterns`)."""
MEMO_WAYS = 8
"""Refused hands remembered per seat (ctx slots X_MEMO + seat * 2 * MEMO_WAYS ...)."""
assert 4 * 2 * MEMO_WAYS <= N_MEMO

HONOR_PATTERNS = ("dongfeng", "", "", "", "bai", "fa", "zhong")
"""The pattern a triplet of each honor makes, 东南西北白发中 ("": none; 东 for every seat)."""
HONOR_TAI = np.array([TAI[BIT[n]] if n else 0 for n in HONOR_PATTERNS], np.int64)
"""台 of one triplet of each honor, 东南西北白发中 (东 2 for every seat, dragons 1)."""
_HONOR_BIT = np.array([BIT[n] if n else -1 for n in HONOR_PATTERNS], np.int64)
WILD_TRIPLETS_TAI = np.cumsum(np.concatenate(([0], np.sort(HONOR_TAI)[::-1]))).astype(np.int64)
"""Most honor 台 that n triplets of 财神 alone can make (n = 0..7): the n richest honor
kinds' (东 2, then a dragon 1 each)."""

SHAPE_SEQ = 0
SHAPE_TRIP = 1
SHAPE_MIXED = 2

O_VALUE = 0
O_BITS = 1
O_ORDINARY = 2
O_LEGAL = 3
O_QUAN = 4
O_ANY_VALUE = 5
O_ANY_BITS = 6
O_ANY_ORDINARY = 7
O_Q_ORD = 8
O_Q_BITS = 9
O_Q_AT = 10
O_N_ORD = 11
O_N_BITS = 12
O_N_AT = 13
O_COUNT = 14
N_OUT = 15
"""evaluate's out slots: the reading paid, the best of all, and the best declarable
全字牌 (Q) and other (N) readings with the order they were found in (O_COUNT counts the
readings): the reading paid is the better of those two, so the other one is all a
re-score needs to choose again under another 8-台 value or 无财 rule."""


@kernel
def honor_table(h, sets, val, hmask, taken):
    """Most honor 台 per (k honor sets, p honor pairs), real honor tiles all used.

    h : int64 (34,) concealed logical counts (only 27..33 read).
    val : int64 (5, 2) out: best 台 of the honor triplets, -1 where no covering exists
        (the 财神 fill every group; a kind may host several groups, 3t + 2q >= count).
        A kind's 台 counts once however many triplets it hosts, and not at all for the
        kinds in ``taken`` (RULEBOOK §0.1).
    hmask : int64 (5, 2) out: honor kinds (bit i = kind 27 + i) holding a triplet in the
        configuration reaching ``val`` (the first found).
    taken : bit set of the honor kinds (bit i = kind 27 + i) whose 台 an exposed pong or
        kong already counts.
    """
    nv = np.empty((5, 2), np.int64)
    nm = np.empty((5, 2), np.int64)
    val[:, :] = -1
    hmask[:, :] = 0
    val[0, 0] = 0
    for i in range(7):
        c = h[27 + i]
        v = 0 if (taken >> i) & 1 else HONOR_TAI[i]
        nv[:, :] = -1
        nm[:, :] = 0
        for k in range(sets + 1):
            for p in range(2):
                cur = val[k, p]
                if cur < 0:
                    continue
                for t in range(sets - k + 1):
                    for q in range(2 - p):
                        if 3 * t + 2 * q < c:
                            continue
                        x = cur + (v if t > 0 else 0)
                        if x > nv[k + t, p + q]:
                            nv[k + t, p + q] = x
                            nm[k + t, p + q] = hmask[k, p] | ((1 << i) if t > 0 else 0)
        for k in range(5):  # by element: an array assigned to a slice compiles numba's
            for p in range(2):  # shape-mismatch message too
                val[k, p] = nv[k, p]
                hmask[k, p] = nm[k, p]
    return


@kernel
def _seq_suit(h, base, out):
    """Sequence-only coverings of one suit: out[2*s + p] = 1 if the suit's real tiles
    fit ``s`` sequences and ``p`` pairs exactly (财神 fill, several groups per kind).
    """
    # state code: ((p1 * 5 + p2) * 5 + n) * 2 + pr; p1/p2 sequences started at the
    # previous / second previous rank, n sequences so far, pr pair used
    cur = np.zeros(250, np.bool_)
    nxt = np.zeros(250, np.bool_)
    cur[0] = True
    for r in range(9):
        c = h[base + r]
        nxt[:] = False
        for code in range(250):
            if not cur[code]:
                continue
            pr = code % 2
            n = (code // 2) % 5
            p2 = (code // 10) % 5
            p1 = code // 50
            top = 4 - n if r <= 6 else 0
            for nr in range(top + 1):
                for q in range(2 - pr):
                    if p1 + p2 + nr + 2 * q < c:
                        continue
                    nxt[((nr * 5 + p1) * 5 + n + nr) * 2 + pr + q] = True
        for code in range(250):  # by element (see honor_table)
            cur[code] = nxt[code]
    for i in range(10):
        out[i] = 0
    for n in range(5):
        for pr in range(2):
            if cur[n * 2 + pr]:
                out[2 * n + pr] = 1


@kernel
def seq_bits(h):
    """Sequence-only coverings of all three suits: bit ``2*s + p`` set when the suited
    real tiles fit ``s`` sequences and ``p`` pairs exactly.
    """
    acc = np.zeros(10, np.int64)
    acc[0] = 1
    one = np.zeros(10, np.int64)
    tmp = np.zeros(10, np.int64)
    for su in range(3):
        empty = True
        for r in range(9):
            if h[9 * su + r] > 0:
                empty = False
        if empty:
            for i in range(10):
                one[i] = 1
        else:
            _seq_suit(h, 9 * su, one)
        tmp[:] = 0
        for i in range(10):
            if acc[i] == 0:
                continue
            for j in range(10):
                if one[j] == 0:
                    continue
                s = i // 2 + j // 2
                p = i % 2 + j % 2
                if s <= 4 and p <= 1:
                    tmp[2 * s + p] = 1
        for i in range(10):  # by element (see honor_table)
            acc[i] = tmp[i]
    bits = 0
    for i in range(10):
        if acc[i]:
            bits |= 1 << i
    return bits


@kernel
def _guiwei(rules, ctx, h, w, sets, tab):
    """Whether every 财神 held can stand for its own kind in a complete hand (归位)."""
    w0 = ctx[X_WILD0]
    w1 = ctx[X_WILD1]
    if w0 < 0:
        return False
    h2 = h.copy()
    if w1 < 0:
        if h[w0] + w > 4:
            return False
        h2[w0] += w
        return _distance(h2, np.int64(0), sets, rules[R_SHAPES], tab) == 0
    for a in range(w + 1):
        if h[w0] + a > 4 or h[w1] + w - a > 4:
            continue
        h2[w0] = h[w0] + a
        h2[w1] = h[w1] + w - a
        if _distance(h2, np.int64(0), sets, rules[R_SHAPES], tab) == 0:
            return True
    return False


@kernel(inline="always")
def _popcount3(m):
    return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1)


@kernel(inline="always")
def _eight(rules, eight, quan):
    """The 8-台 value of a reading: the hand's, or with 全字牌 the larger of it and 全字牌's."""
    if quan:
        return max(eight, rules[Z_PAY_QUANZIPAI])
    return eight


@kernel
def _consider(rules, out, ordinary, bits, quan, eight):
    """Fold one reading into ``out``: the best declarable reading (legal: ordinary 台 at
    the minimum, or 全字牌) in the O_VALUE slots, the best of all in the O_ANY slots;
    best = most value, then most ordinary 台 (the first found on a tie). ``eight`` is the
    台 of the reading's 8-台 hands (the largest of them), -1 when it has none.
    """
    if quan:
        out[O_QUAN] = 1
    legal = quan or ordinary >= rules[Z_MIN_TAI]
    at = out[O_COUNT]
    out[O_COUNT] = at + 1
    if legal:
        if quan:
            if ordinary > out[O_Q_ORD]:
                out[O_Q_ORD] = ordinary
                out[O_Q_BITS] = bits
                out[O_Q_AT] = at
        elif ordinary > out[O_N_ORD]:
            out[O_N_ORD] = ordinary
            out[O_N_BITS] = bits
            out[O_N_AT] = at
    v = ordinary
    if eight >= 0:
        if rules[Z_SPECIAL8] == 1:
            v = eight + ordinary
        elif ordinary < eight:
            v = eight
    if v > out[O_ANY_VALUE] or (v == out[O_ANY_VALUE] and ordinary > out[O_ANY_ORDINARY]):
        out[O_ANY_VALUE] = v
        out[O_ANY_BITS] = bits
        out[O_ANY_ORDINARY] = ordinary
    if not legal:
        return
    out[O_LEGAL] = 1
    if v > out[O_VALUE] or (v == out[O_VALUE] and ordinary > out[O_ORDINARY]):
        out[O_VALUE] = v
        out[O_BITS] = bits
        out[O_ORDINARY] = ordinary


@kernel
def _seven_pairs(rules, out, h, w, n_h, suits_real, ctx_bits, ctx_tai, eight):
    """Fold the seven-pairs readings (七对, option) into ``out``."""
    pairs = 0
    singles = 0
    for k in range(34):
        pairs += h[k] // 2
        singles += h[k] % 2
    if _pairs_formula(pairs, singles) <= w:
        spare = w > singles  # some pairs are made of 财神 alone
        hon = n_h > 0
        for opt in range(2):
            n_suits = _popcount3(suits_real)
            z = hon
            if opt == 1:
                # pairs of 财神 alone may be read as a suit's (混一色 instead of 全字牌)
                if not spare or suits_real != 0:
                    continue
                n_suits = 1
            bits = ctx_bits | (1 << P_QIDUI)
            ordinary = ctx_tai
            quan = n_suits == 0
            if n_suits == 1:
                if z:
                    ordinary += TAI_HUNYISE
                    bits |= 1 << P_HUNYISE
                else:
                    ordinary += TAI_QINGYISE
                    bits |= 1 << P_QINGYISE
            if quan:
                bits |= 1 << P_QUANZIPAI
            _consider(rules, out, ordinary, bits, quan, _eight(rules, eight, quan))


@kernel
def evaluate(rules, ctx, h, w, sets, melds, nmeld, tab, out):
    """台 of a complete hand: the best over decompositions and 财神 assignments.

    h : int64 (34,) concealed logical counts with the winning tile, 财神 excluded.
    w : 财神 held; sets : sets the concealed tiles form; melds (>= nmeld, 3) exposed.
    ctx : the deal context (X_WIN_TYPE, X_FIRST_TURN, X_WINNER, X_DEALER, X_WILD0/1).
    out : int64 (N_OUT,) filled with the reading paid: its value (台 with the 8-台
        specials), pattern bits and ordinary 台 (the best declarable reading, or the best
        reading when none may be declared); legal (some reading has the minimum ordinary
        台, or is 全字牌); whether a 全字牌 reading exists; and the best reading of all
        in the O_ANY slots. Value -1 if no reading completes the hand.
    """
    _no_reading(out)
    meld_tai = 0
    meld_bits = np.int64(0)
    has_chow = False
    has_trip = False
    meld_mask = 0
    taken = 0
    for i in range(nmeld):
        k = melds[i, 1]
        meld_mask |= 1 << (k // 9 if k < 27 else 3)
        if melds[i, 0] == M_CHOW:
            has_chow = True
        else:
            has_trip = True
            if k >= 27 and HONOR_TAI[k - 27] > 0:
                meld_tai += HONOR_TAI[k - 27]
                meld_bits |= np.int64(1) << _HONOR_BIT[k - 27]
                taken |= 1 << (k - 27)
    n_s = 0
    n_h = 0
    real = meld_mask
    for k in range(34):
        if h[k] > 0:
            if k < 27:
                n_s += h[k]
            else:
                n_h += h[k]
            real |= 1 << (k // 9 if k < 27 else 3)
    suits_real = real & 7
    # context 台 and the specials that do not depend on the reading
    wt = ctx[X_WIN_TYPE]
    ctx_tai = 0
    ctx_bits = np.int64(0)
    if wt == WIN_KONG_DRAW:
        ctx_tai += TAI_GANGKAI
        ctx_bits |= 1 << P_GANGKAI
    if wt == WIN_ROB_KONG:
        ctx_tai += TAI_QIANGGANG
        ctx_bits |= 1 << P_QIANGGANG
    if w >= 3:
        ctx_tai += TAI_SANCAISHEN
        ctx_bits |= 1 << P_SANCAISHEN
    eight = -1  # the 台 of the hand's 8-台 hands (the largest), -1 none
    if ctx[X_FIRST_TURN] == 1 and wt == WIN_SELF_DRAW and nmeld == 0:
        if ctx[X_WINNER] == ctx[X_DEALER]:
            ctx_bits |= 1 << P_TIANHU
            eight = max(eight, rules[Z_PAY_TIANHU])
        else:
            ctx_bits |= 1 << P_DIHU
            eight = max(eight, rules[Z_PAY_DIHU])
    if ctx[X_WILD0] >= 0:
        wucai = w == 0
        if not wucai and rules[Z_WUCAI] == 1:
            wucai = _guiwei(rules, ctx, h, w, sets, tab)
        if wucai:
            ctx_bits |= 1 << P_WUCAI
            eight = max(eight, rules[Z_PAY_WUCAI])
    # honors apart, suits apart
    hval = np.empty((5, 2), np.int64)
    hmask = np.empty((5, 2), np.int64)
    honor_table(h, sets, hval, hmask, taken)
    hs = h.copy()
    for k in range(27, 34):
        hs[k] = 0
    sbits = -1
    for shape in range(3):
        if shape == SHAPE_SEQ and has_trip:
            continue
        if shape == SHAPE_TRIP and has_chow:
            continue
        for k in range(sets + 1):
            if shape == SHAPE_SEQ and k > 0:
                break
            for p in range(2):
                hv = hval[k, p]
                if hv < 0:
                    continue
                s_need = sets - k
                p_need = 1 - p
                room = 3 * s_need + 2 * p_need - n_s
                if room < 0:
                    continue
                if shape == SHAPE_SEQ:
                    if sbits < 0:
                        sbits = seq_bits(hs)
                    ok = (sbits >> (2 * s_need + p_need)) & 1 == 1
                elif shape == SHAPE_TRIP:
                    ok = triplets_fit(hs, np.int64(0), np.int64(27), s_need, p_need)
                else:
                    ok = rest_distance(hs, s_need, p_need == 1, tab) <= room
                if not ok:
                    continue
                n_suits = _popcount3(suits_real)
                if suits_real == 0 and s_need + p_need > 0:
                    n_suits = 1
                z = (meld_mask & 8) != 0 or k + p > 0
                bits = ctx_bits | meld_bits
                ordinary = hv + meld_tai + ctx_tai
                for i in range(7):
                    if (hmask[k, p] >> i) & 1 and _HONOR_BIT[i] >= 0:
                        bits |= np.int64(1) << _HONOR_BIT[i]
                if shape == SHAPE_SEQ:
                    ordinary += TAI_PINGHU
                    bits |= 1 << P_PINGHU
                elif shape == SHAPE_TRIP:
                    ordinary += TAI_DUIDUIHU
                    bits |= 1 << P_DUIDUIHU
                quan = n_suits == 0
                if n_suits == 1:
                    if z:
                        ordinary += TAI_HUNYISE
                        bits |= 1 << P_HUNYISE
                    else:
                        ordinary += TAI_QINGYISE
                        bits |= 1 << P_QINGYISE
                if quan:
                    bits |= 1 << P_QUANZIPAI
                _consider(rules, out, ordinary, bits, quan, _eight(rules, eight, quan))
    if rules[Z_SEVEN_PAIRS] == 1 and sets == 4:
        _seven_pairs(rules, out, h, w, n_h, suits_real, ctx_bits, ctx_tai, eight)
    _reading_paid(out)


@kernel(inline="always")
def _no_reading(out):
    """``out`` before any reading is considered (:func:`_consider`)."""
    out[O_VALUE] = -1
    out[O_BITS] = 0
    out[O_ORDINARY] = -1
    out[O_LEGAL] = 0
    out[O_QUAN] = 0
    out[O_ANY_VALUE] = -1
    out[O_ANY_BITS] = 0
    out[O_ANY_ORDINARY] = -1
    out[O_Q_ORD] = -1
    out[O_Q_BITS] = 0
    out[O_Q_AT] = 0
    out[O_N_ORD] = -1
    out[O_N_BITS] = 0
    out[O_N_AT] = 0
    out[O_COUNT] = 0


@kernel(inline="always")
def _reading_paid(out):
    """The reading paid: the best declarable one, or the best of all when none is."""
    if out[O_LEGAL] == 0:
        out[O_VALUE] = out[O_ANY_VALUE]
        out[O_BITS] = out[O_ANY_BITS]
        out[O_ORDINARY] = out[O_ANY_ORDINARY]


@kernel(refcount=False)
def tai_upper_bound(ctx, h, w, sets, melds, nmeld):
    """A quick upper bound of a complete hand's ordinary 台, or 99 when it may be 全字牌.

    Honor triplets: the melds' plus each honor kind held that could be a triplet (three
    held, or the 财神 to fill it), once per kind, plus the triplets of 财神 alone (the
    richest honor kinds', :data:`WILD_TRIPLETS_TAI`); the shape 台 (平胡 when no triplet
    and at most one honor pair rule sequences out, else 对对胡 when all triplets fit, the
    larger when both may hold); 清一色 (混一色 when honors are held) if one suit is held;
    三财神; context.
    """
    suits = 0
    honors = 0
    tai = 0
    chow = False
    trip = False
    for i in range(nmeld):
        k = melds[i, 1]
        if melds[i, 0] == M_CHOW:
            chow = True
        else:
            trip = True
        if k >= 27:
            honors = 1
            if melds[i, 0] != M_CHOW:
                tai += HONOR_TAI[k - 27]
        else:
            suits |= 1 << (k // 9)
    for k in range(27):
        if h[k] > 0:
            suits |= 1 << (k // 9)
    if suits == 0:
        return 99
    honor_kinds = 0
    honor_max = 0
    for k in range(27, 34):
        c = h[k]
        if c > 0:
            honors = 1
            honor_kinds += 1
            if c > honor_max:
                honor_max = c
            if c + w >= 3:
                tai += HONOR_TAI[k - 27]
    if w >= 3:
        tai += WILD_TRIPLETS_TAI[w // 3]
    shape_tai = 0
    if not trip and honor_kinds <= 1 and honor_max <= 2:
        shape_tai = TAI_PINGHU  # 平胡 not ruled out
    if (
        not chow
        and shape_tai < TAI_DUIDUIHU
        and triplets_fit(h, np.int64(0), np.int64(34), sets, np.int64(1))
    ):
        shape_tai = TAI_DUIDUIHU
    tai += shape_tai
    if _popcount3(suits) == 1:
        tai += TAI_HUNYISE if honors else TAI_QINGYISE
    if w >= 3:
        tai += TAI_SANCAISHEN
    wt = ctx[X_WIN_TYPE]
    if wt == WIN_KONG_DRAW:
        tai += TAI_GANGKAI
    elif wt == WIN_ROB_KONG:
        tai += TAI_QIANGGANG
    return tai


@kernel(inline="always")
def _eval_key(ctx, h, w, nmeld):
    """Two words that fix everything :func:`evaluate` reads that changes within a deal.

    The concealed counts (the four suits' base-5 numbers), the 财神 held, the number of
    melds (a seat's melds only grow during a deal, and a 补杠 reads as its pong), the win
    type, the first-turn flag and the winner; the wild kinds, dealer and rules are fixed
    for the deal. The top bit marks a used entry (zeroed slots never match).
    """
    i0, i1, i2, i3 = _suit_indices(h)
    a = i0 | (i1 << 21) | (i2 << 42)
    b = (
        i3
        | (w << 17)
        | (nmeld << 21)
        | (ctx[X_WIN_TYPE] << 24)
        | (ctx[X_FIRST_TURN] << 28)
        | (ctx[X_WINNER] << 29)
        | (np.int64(1) << 40)
    )
    return a, b


@kernel
def win_legal(rules, ctx, h, w, sets, melds, nmeld, tab):
    """A complete hand may be declared only with the minimum 台 (or as 全字牌).

    Refused hands are remembered per seat for the deal (a wait that lacks 台 is offered
    again on every discard of its tile), the allowed one for :func:`patterns`.
    """
    if tai_upper_bound(ctx, h, w, sets, melds, nmeld) < rules[Z_MIN_TAI]:
        ctx[S_REFUSED] += 1
        return False
    a, b = _eval_key(ctx, h, w, nmeld)
    seat = ctx[X_WINNER]
    memo = 0 <= seat < 4
    base = X_MEMO + seat * 2 * MEMO_WAYS
    if memo:
        for i in range(MEMO_WAYS):
            if ctx[base + 2 * i] == a and ctx[base + 2 * i + 1] == b:
                ctx[S_REFUSED] += 1
                return False
    out = np.empty(N_OUT, np.int64)
    evaluate(rules, ctx, h, w, sets, melds, nmeld, tab, out)
    if out[O_LEGAL] == 1:
        ctx[S_LAST] = a
        ctx[S_LAST + 1] = b
        ctx[S_LAST + 2] = out[O_VALUE]
        ctx[S_LAST + 3] = out[O_BITS]
        ctx[S_LAST + 4] = out[O_ORDINARY]
        _alternative(out, ctx, S_LAST + 5)
        return True
    if memo:
        i = ctx[S_MEMO_NEXT + seat]
        ctx[base + 2 * i] = a
        ctx[base + 2 * i + 1] = b
        ctx[S_MEMO_NEXT + seat] = (i + 1) % MEMO_WAYS
    ctx[S_REFUSED] += 1
    return False


@kernel
def _alternative(out, ctx, at):
    """ctx[at .. at+2]: the best declarable reading of the other kind (全字牌 or not)
    than the one paid: its ordinary 台 (-1 none), pattern bits and whether it was found
    first (the inputs a re-score chooses the reading again from).
    """
    paid_quan = (out[O_BITS] >> P_QUANZIPAI) & 1 == 1
    if paid_quan:
        ctx[at] = out[O_N_ORD]
        ctx[at + 1] = out[O_N_BITS]
        ctx[at + 2] = 1 if out[O_N_ORD] >= 0 and out[O_N_AT] < out[O_Q_AT] else 0
    else:
        ctx[at] = out[O_Q_ORD]
        ctx[at + 1] = out[O_Q_BITS]
        ctx[at + 2] = 1 if out[O_Q_ORD] >= 0 and out[O_Q_AT] < out[O_N_AT] else 0
    if ctx[at] < 0:
        ctx[at + 1] = 0


@kernel
def patterns(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Pattern bits of the best reading; its 台 goes to ctx[X_VALUE], its alternative
    and the 归位 test to the S_ALT slots (the score_in inputs).
    """
    a, b = _eval_key(ctx, h, w, nmeld)
    if ctx[S_LAST] == a and ctx[S_LAST + 1] == b:
        value = ctx[S_LAST + 2]
        bits = ctx[S_LAST + 3]
        ordinary = ctx[S_LAST + 4]
    else:
        out = np.empty(N_OUT, np.int64)
        evaluate(rules, ctx, h, w, sets, melds, nmeld, tab, out)
        value = out[O_VALUE]
        bits = out[O_BITS]
        ordinary = out[O_ORDINARY]
        _alternative(out, ctx, S_LAST + 5)
    guiwei = w > 0 and ctx[X_WILD0] >= 0 and _guiwei(rules, ctx, h, w, sets, tab)
    _paid(ctx, value, ordinary, guiwei)
    return bits


@kernel(inline="always")
def _paid(ctx, value, ordinary, guiwei):
    """The reading paid into the slots :func:`settle` reads: its 台, its ordinary 台, and
    the score_in inputs (the alternative reading :func:`_alternative` left in S_LAST + 5
    .., and the 归位 test).
    """
    ctx[X_VALUE] = value if value > 0 else 0
    ctx[S_ORDINARY] = ordinary
    ctx[S_ALT] = ctx[S_LAST + 5]
    score_in = ctx[S_LAST + 6] | (IN_ALT_FIRST if ctx[S_LAST + 7] == 1 else 0)
    if guiwei:
        score_in |= IN_GUIWEI
    ctx[S_ALT + 1] = score_in


@kernel(inline="always")
def _specials8(rules, bits):
    """The 台 of a reading's 8-台 hands but 全字牌 (the largest), -1 when it has none."""
    eight = -1
    if (bits >> P_TIANHU) & 1:
        eight = max(eight, rules[Z_PAY_TIANHU])
    if (bits >> P_DIHU) & 1:
        eight = max(eight, rules[Z_PAY_DIHU])
    if (bits >> P_WUCAI) & 1:
        eight = max(eight, rules[Z_PAY_WUCAI])
    return eight


@kernel
def restore(rules, ctx, pay, row):
    """What :func:`settle` reads, from a record row (re-scoring): the deal's slots, and
    the reading paid chosen again by :func:`_consider`, as in play, between the two the
    record carries (the one paid and ``alt_tai``/``score_in``'s alternative of the other
    kind, in the order they were found), each priced under the packed table with 无财 set
    again under the packed ``wucai`` (no 财神 held, or under guiwei all standing for their
    own kinds).
    """
    bits = row_context(ctx, row)
    x = row[C_EXTRA:]
    ctx[X_KONGS] = x[E_KONGS]
    ctx[S_REFUSED] = x[E_REFUSED]
    if ctx[X_WINNER] < 0:
        return bits
    si = x[E_SCORE_IN]
    guiwei = (si & IN_GUIWEI) != 0
    wucai = rules[Z_CAISHEN] > 0 and (row[C_WILDS] == 0 or (rules[Z_WUCAI] == 1 and guiwei))
    wbit = np.int64(1) << P_WUCAI
    paid = (bits | wbit) if wucai else (bits & ~wbit)
    alt = ((si & IN_ALT_BITS) | wbit) if wucai else (si & IN_ALT_BITS & ~wbit)
    out = np.empty(N_OUT, np.int64)
    _no_reading(out)
    for i in range(2):
        first_alt = (si & IN_ALT_FIRST) != 0
        if (i == 0) == first_alt:
            if x[E_ALT_TAI] < 0:
                continue
            b, ordinary = alt, x[E_ALT_TAI]
        else:
            b, ordinary = paid, x[E_TAI_ORDINARY]
        quan = (b >> P_QUANZIPAI) & 1 == 1
        _consider(rules, out, ordinary, b, quan, _eight(rules, _specials8(rules, b), quan))
    _reading_paid(out)
    _alternative(out, ctx, S_LAST + 5)
    _paid(ctx, out[O_VALUE], out[O_ORDINARY], guiwei)
    return out[O_BITS]


@kernel
def settle(rules, ctx, pay, bits, players, delta, extra):
    """Payments (RULEBOOK §2.4 rule 18): 1 台 = 1 point.

    The 台 paid is the reading's, at most tai_cap (when set). Self-draw: each other seat
    pays 台. Discard win: the discarder pays 台 alone
    (``discard_pay=all_three``: each of the three pays 台; ``discarder_x3``: the
    discarder pays 3 x 台). A robbed 补杠 is paid by the kong player as a discarder.
    """
    winner = ctx[X_WINNER]
    value = 0
    extra[E_ALT_TAI] = -1
    if winner >= 0:
        value = ctx[X_VALUE]
        cap = rules[Z_TAI_CAP]
        if cap > 0 and value > cap:
            value = cap
        wt = ctx[X_WIN_TYPE]
        feeder = -1
        if wt == WIN_DISCARD:
            feeder = ctx[X_DISCARDER]
        elif wt == WIN_ROB_KONG:
            feeder = ctx[X_ROBBED]
        mode = rules[Z_DISCARD_PAY]
        if feeder < 0 or mode == 1:
            for s in range(players):
                if s != winner:
                    pay[s, winner] += value
        elif mode == 2:
            pay[feeder, winner] += 3 * value
        else:
            pay[feeder, winner] += value
        extra[E_TAI_ORDINARY] = ctx[S_ORDINARY]
        extra[E_ALT_TAI] = ctx[S_ALT]
        extra[E_SCORE_IN] = ctx[S_ALT + 1]
    for p in range(players):
        for q in range(players):
            delta[q] += pay[p, q]
            delta[p] -= pay[p, q]
    extra[E_KONGS] = ctx[X_KONGS]
    extra[E_REFUSED] = ctx[S_REFUSED]
    return value


# ---- exact P(天胡) with the 3-台 minimum (engine.variants.zhuji.exact_tianhu) -------------
#
# A dealt 14-tile hand is summarised suit by suit: for a number suit its tile count and,
# for each shape (mixed, all sequences, all triplets), the bit set of (s sets, p pairs)
# its real tiles fit exactly (bit 2*s + p); for the honors their count and the honor
# table. Summaries of the three suits join by sums of those bit sets; the last join with
# the honors and the 财神 count decides completeness and legality at 天胡 (self-drawn,
# no melds, no context 台).


@kernel
def _sumset(a, b):
    """Bit set of (s1 + s2, p1 + p2) over the members of two (s, p) bit sets (s <= 4,
    p <= 1).
    """
    out = 0
    for i in range(10):
        if (a >> i) & 1 == 0:
            continue
        for j in range(10):
            if (b >> j) & 1 == 0:
                continue
            s = i // 2 + j // 2
            p = i % 2 + j % 2
            if s <= 4 and p <= 1:
                out |= 1 << (2 * s + p)
    return out


@kernel
def sumset_table():
    """All (1024, 1024) sums of two (s, p) bit sets, int16."""
    t = np.zeros((1024, 1024), np.int16)
    for a in range(1024):
        for b in range(a, 1024):
            v = _sumset(a, b)
            t[a, b] = v
            t[b, a] = v
    return t


_BINOM = np.array(
    [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 2, 1, 0, 0], [1, 3, 3, 1, 0], [1, 4, 6, 4, 1]]
)


@kernel
def suit_summaries(q, tab, keys, weights):
    """Summaries of every count vector of one number suit with live copies ``q`` (9,).

    keys[i] : n | mixed << 4 | seq << 14 | trip << 24 | nonempty << 34 for vector i
    (base-5 index), -1 when the vector holds more than 14 tiles or more than q allows;
    weights[i] : number of physical tile sets with those counts.
    """
    c = np.zeros(34, np.int64)
    one = np.zeros(10, np.int64)
    for idx in range(5**9):
        x = idx
        n = 0
        wgt = 1
        for r in range(9):
            d = x % 5
            x //= 5
            c[r] = d
            n += d
            wgt *= _BINOM[q[r], d] if d <= q[r] else 0
        if n > 14 or wgt == 0:
            keys[idx] = -1
            weights[idx] = 0
            continue
        mixed = 0
        trip = 0
        for s in range(5):
            for p in range(2):
                room = 3 * s + 2 * p - n
                if room < 0:
                    continue
                if rest_distance(c, s, p == 1, tab) <= room:
                    mixed |= 1 << (2 * s + p)
                if triplets_fit(c, np.int64(0), np.int64(9), s, p):
                    trip |= 1 << (2 * s + p)
        seq = 0
        if n == 0:
            seq = 1023
        else:
            _seq_suit(c, np.int64(0), one)
            for i in range(10):
                if one[i]:
                    seq |= 1 << i
        keys[idx] = n | (mixed << 4) | (seq << 14) | (trip << 24) | ((1 if n > 0 else 0) << 34)
        weights[idx] = wgt


@kernel
def honor_summaries(q, keys, weights):
    """Summaries of every count vector of the honors with live copies ``q`` (7,).

    keys[i] : n | (honor table + 1, 4 bits per (k, p) entry) << 4; -1 if impossible.
    """
    h = np.zeros(34, np.int64)
    val = np.empty((5, 2), np.int64)
    hm = np.empty((5, 2), np.int64)
    for idx in range(5**7):
        x = idx
        n = 0
        wgt = 1
        for r in range(7):
            d = x % 5
            x //= 5
            h[27 + r] = d
            n += d
            wgt *= _BINOM[q[r], d] if d <= q[r] else 0
        if n > 14 or wgt == 0:
            keys[idx] = -1
            weights[idx] = 0
            continue
        honor_table(h, np.int64(4), val, hm, np.int64(0))
        key = np.int64(0)
        for i in range(10):
            key |= np.int64(val[i // 2, i % 2] + 1) << (4 + 4 * i)
        keys[idx] = key | n
        weights[idx] = wgt


@kernel
def join_suits(ka, wa, kb, wb, table, keys, weights):
    """Join two lists of suit summaries (tile counts add, bit sets sum, suits count)."""
    m = 0
    for i in range(ka.shape[0]):
        a = ka[i]
        na = a & 15
        for j in range(kb.shape[0]):
            b = kb[j]
            n = na + (b & 15)
            if n > 14:
                continue
            mixed = table[(a >> 4) & 1023, (b >> 4) & 1023]
            seq = table[(a >> 14) & 1023, (b >> 14) & 1023]
            trip = table[(a >> 24) & 1023, (b >> 24) & 1023]
            ne = ((a >> 34) & 3) + ((b >> 34) & 3)
            if ne > 2:
                ne = 2
            keys[m] = n | (np.int64(mixed) << 4) | (np.int64(seq) << 14)
            keys[m] |= (np.int64(trip) << 24) | (np.int64(ne) << 34)
            weights[m] = wa[i] * wb[j]
            m += 1
    return m


@kernel
def tianhu_counts(ks, kh, wh, n_wild, min_tai, wild_binom, legal, complete):
    """For each joined three-suit summary ``ks[g]``: the weighted number of (honors,
    财神) completions making a complete hand (``complete[g]``) and a legal one at 天胡
    (``legal[g]``: ordinary 台 >= min_tai, or 全字牌). ``wild_binom[w]`` = C(n_wild, w).
    """
    for g in range(ks.shape[0]):
        a = ks[g]
        ns = a & 15
        mixed = (a >> 4) & 1023
        seq = (a >> 14) & 1023
        trip = (a >> 24) & 1023
        ne = (a >> 34) & 3
        lg = 0
        cp = 0
        for j in range(kh.shape[0]):
            b = kh[j]
            w = 14 - ns - (b & 15)
            if w < 0 or w > n_wild:
                continue
            is_complete = False
            is_legal = False
            cai = TAI_SANCAISHEN if w >= 3 else 0
            for shape in range(3):
                bits = seq if shape == SHAPE_SEQ else (trip if shape == SHAPE_TRIP else mixed)
                if bits == 0:
                    continue
                for i in range(10):
                    hv = ((b >> (4 + 4 * i)) & 15) - 1
                    if hv < 0:
                        continue
                    k = i // 2
                    p = i % 2
                    if shape == SHAPE_SEQ and k > 0:
                        continue
                    s_need = 4 - k
                    if (bits >> (2 * s_need + 1 - p)) & 1 == 0:
                        continue
                    is_complete = True
                    n_suits = ne
                    if ne == 0 and s_need + 1 - p > 0:
                        n_suits = 1
                    ordinary = hv + cai
                    if shape == SHAPE_SEQ:
                        ordinary += TAI_PINGHU
                    elif shape == SHAPE_TRIP:
                        ordinary += TAI_DUIDUIHU
                    if n_suits == 1:
                        ordinary += TAI_HUNYISE if k + p > 0 else TAI_QINGYISE
                    if ordinary >= min_tai or n_suits == 0:
                        is_legal = True
                        break
                if is_legal:
                    break
            if is_complete:
                cp += wh[j] * wild_binom[w]
            if is_legal:
                lg += wh[j] * wild_binom[w]
        legal[g] = lg
        complete[g] = cp
