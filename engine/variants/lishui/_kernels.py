"""丽水麻将 (lishui) scoring, penalty and settlement kernels (numba). Kernels only.

Rule slots (``rules[R_VAR + i]``) are written by :mod:`engine.variants.lishui`. Hands
arrive in logical kinds: under the 白板 stand-in the 白板 already count as the 财神's
kind, so every pattern below sees them as that kind (RULEBOOK §1.2 rule 6).
"""

from __future__ import annotations

import numpy as np

from engine.jit.njit import kernel
from engine.mahjong.layout import (
    C_EXTRA,
    C_STREAK,
    CTX,
    M_ADDKONG,
    M_ANKONG,
    M_CHOW,
    M_KONG,
    R_PLAYERS,
    RULES,
    WIN_DISCARD,
    WIN_KONG_DRAW,
    WIN_ROB_KONG,
    WIN_SELF_DRAW,
    X_CHOWS,
    X_DEALER,
    X_DEALER_WINS,
    X_DISCARDER,
    X_DISCARDS_TOTAL,
    X_FIRST_TURN,
    X_GEN,
    X_KONGS,
    X_PENALTY,
    X_ROBBED,
    X_RUN_LEN,
    X_RUN_START,
    X_VALUE,
    X_WILD0,
    X_WILD1,
    X_WIN_PHYS,
    X_WIN_TYPE,
    X_WINNER,
)
from engine.mahjong.patterns import suit_mask, triplets_fit
from engine.mahjong.settlement import owe_net, row_context

from ...hand._kernels import STANDARD, _buda, _distance, _pairs_formula
from .._base import Extra, Pattern, big_mask, extra_index, pattern_bits

# ---- the patterns: one declaration each (record column pat_<name>, bit = place) -----
PATTERNS = (
    Pattern("qingyise", "清一色", "One suit only. 8 倍 self-drawn, 4 otherwise.", True, value=4),
    Pattern("ziyise", "字一色", "Honors only. 8 / 4 倍.", True, value=4),
    Pattern("qiduizi", "七对子", "Seven pairs (four alike are two), concealed. 4 / 2 倍.", True,
            value=2),
    Pattern("daduizi", "大对子", "No sequence: all triplets + pair. 4 / 2 倍.", True, value=2),
    Pattern("buda", "不搭", "十三不搭: 14 unconnected tiles, concealed. 4 / 2 倍.", True,
            value=2),
    Pattern("tianhu", "天胡", "The dealer's first fourteen tiles win. 8 倍.", True, value=8),
    Pattern("dihu", "地胡", "A non-dealer wins on his first draw, no claim before. 4 倍.", True,
            value=4),
    Pattern("gangkai", "杠上开花", "Win on a kong replacement tile. 4 倍.", value=4),
    Pattern("caishenhui", "财神会", "Self-drawn win holding three 财神. 4 倍.", value=4),
    Pattern("qianggang", "抢杠", "Win on a robbed 补杠; the kong player pays all. 4 倍.",
            value=4),
)  # fmt: skip
"""The scoring patterns, in bit order: each one's bit, the big mask, the record columns
and the seed's 倍 tables (:data:`BEI_ZIMO`, :data:`BEI_FEI_ZIMO`) are read from here.
``value`` is the seed's 倍 on a discard win (非自摸), the default of ``pay_<name>``; a
pattern of :data:`SHAPE_PATTERNS` is worth :data:`ZIMO_X` times it self-drawn, any other
the same either way."""
BIT = pattern_bits(PATTERNS)
"""Bit number of each pattern by name."""
BIG_MASK = big_mask(PATTERNS)
"""The bits of the big hands."""

KERNEL_ID = 2
"""This variant's id in ``rules[R_VARIANT]``: the game loop's hooks (engine.play.mahjong.hooks)
call this module's hook kernels for it."""

# option slots
VAR = RULES.sub("var", "lishui rules")
L_CAISHEN = VAR.block("caishen")
"""财神 kinds in play (0, 1, 2)."""
L_BASE_CAP = VAR.block("base_cap")
"""Highest 底 (9), or 0 for no cap."""
L_CAISHENHUI = VAR.block("caishenhui")
"""0: 财神会 = a self-drawn win holding >= 3 财神; 1: any self-draw of a 财神."""
L_BEIGEN = VAR.block("beigen")
"""被跟: 0 any four identical discards in a row, 1 only the deal's first four, 2 off."""
L_KONG_PAY = VAR.block("kong_pay")
"""Kong money n: 明杠/补杠 n from each other seat, 暗杠 2n (0 = none, the seed)."""
L_PASS_LOCK = VAR.block("pass_lock")
"""Pass lock mode (0 lock, 1 value, 2 none); the loop reads R_PASS_LOCK."""
L_FANQIANG = VAR.block("fanqiang")
"""犯枪 fine the discarder pays the winner (1)."""
L_BEIGEN_FINE = VAR.block("beigen_fine")
"""被跟 fine paid to each other seat (1)."""

# payout table (rules[R_PAY + i]): written by engine.variants.lishui.pack from the
# pay_* options; read by bei() and base() only (the bots do not read them)
PAY = RULES.sub("pay", "lishui payouts")
L_BEI_ZIMO = PAY.block("bei_zimo", 10)
"""倍 of each pattern on a self-drawn win (自摸 column), in bit order."""
L_BEI_FEI = PAY.block("bei_fei", 10)
"""倍 of each pattern on a discard or robbed-kong win (非自摸 column), in bit order."""
L_PLAIN_ZIMO = PAY.block("plain_zimo")
"""倍 of a self-drawn win with no special pattern (2)."""
L_PLAIN_FEI = PAY.block("plain_fei")
"""倍 of a discard win with no special pattern (1)."""
L_BASE0 = PAY.block("base0")
"""底 with no dealer streak (3)."""
L_BASE_STEP = PAY.block("base_step")
"""底 added per consecutive dealer win (2)."""

# pattern bits (order = engine.variants.lishui.PATTERNS)
P_QINGYISE = BIT["qingyise"]
P_ZIYISE = BIT["ziyise"]
P_QIDUIZI = BIT["qiduizi"]
P_DADUIZI = BIT["daduizi"]
P_BUDA = BIT["buda"]
P_TIANHU = BIT["tianhu"]
P_DIHU = BIT["dihu"]
P_GANGKAI = BIT["gangkai"]
P_CAISHENHUI = BIT["caishenhui"]
P_QIANGGANG = BIT["qianggang"]
N_PATTERNS = len(PATTERNS)

SHAPE_PATTERNS = ("qingyise", "ziyise", "qiduizi", "daduizi", "buda")
"""The patterns with 自摸 / 非自摸 columns: in the seed's table the 自摸 value is twice the
非自摸 one for each of them and for the plain win, so the table is a 非自摸 倍 per pattern
and one 自摸 multiplier (``pay_zimo_x``)."""
ZIMO_X = 2
"""The seed's 自摸 multiplier of the shape patterns and the plain win (``pay_zimo_x``)."""
BEI_FEI_ZIMO = np.array([p.value for p in PATTERNS], np.int64)
"""The seed's 倍 on a discard or robbed-kong win (非自摸 column, in bit order), from the
declarations: the defaults of the pay_* options (the kernels read the packed table)."""
BEI_ZIMO = np.array(
    [p.value * (ZIMO_X if p.name in SHAPE_PATTERNS else 1) for p in PATTERNS], np.int64
)
"""The seed's 倍 of each pattern on a self-drawn win (自摸 column, in bit order)."""

# ---- the extra record columns: one declaration each (index = place) -------------------
EXTRAS = (
    Extra("kongs", doc="Kongs made in the deal."),
    Extra("base", doc="The deal's 底."),
    Extra("beigen", doc="被跟 events: every run of four identical discards, whatever "
          "``beigen``."),
    Extra("beigen_money", 4, "被跟 units per seat: the net fines of those runs at one point "
          "each, as under ``beigen=always`` (what is paid is ``pay_beigen`` x these, or only "
          "the first round's, or none)."),
    Extra("wuda_money", 4, "Each seat's net 误打财神 money."),
    Extra("fanqiang_money", 4, "Each seat's net 犯枪 money."),
    Extra("tongbao_money", 4, "Each seat's net shift of money by 统包."),
    Extra("kong_money", 4, "Each seat's net kong money."),
    Extra("score_in", doc="The inputs of a re-score as bits (``IN_*`` below: the readings "
          "the winning hand completes in and its suit tags, both 财神会 conditions, a "
          "first-round 被跟, each seat's kong units)."),
)  # fmt: skip
"""The extra record columns, in index order (the ``E_*`` indices below are read from here,
in this order: tests/engine/variants/test_extras.py checks each name against its extra)."""
(E_KONGS, E_BASE, E_BEIGEN, E_BEIGEN_MONEY, E_WUDA_MONEY, E_FANQIANG_MONEY, E_TONGBAO_MONEY,
 E_KONG_MONEY, E_SCORE_IN) = extra_index(EXTRAS).values()  # fmt: skip

# bit fields of the score_in column (the inputs of a re-score, engine.runs.rescore)
IN_STANDARD = 1 << 0
"""The winning hand completes in the standard shape."""
IN_DADUIZI = 1 << 1
"""... and its standard reading is 大对子 (all triplets, no exposed chow)."""
IN_QIDUIZI = 1 << 2
"""The winning hand completes as 七对子."""
IN_BUDA = 1 << 3
"""The winning hand completes as 不搭."""
IN_QINGYISE = 1 << 4
"""Its real tiles and melds are of one suit (清一色 for the standard and 七对子 readings)."""
IN_ZIYISE = 1 << 5
"""Its real tiles and melds are honors only (字一色, likewise)."""
IN_CSH_THREE = 1 << 6
"""财神会 under caishenhui=three: a self-draw holding three or more 财神."""
IN_CSH_DRAWN = 1 << 7
"""财神会 under caishenhui=drawn: a self-draw completed by drawing a 财神."""
IN_BEIGEN_FIRST = 1 << 8
"""A 被跟 in the deal's first four discards (its payer is the dealer, who discards first)."""
IN_KONG_SHIFT = 12
"""Bits 12 + 4s ..: seat s's kong units (明杠 and 补杠 1, 暗杠 2), 0..8."""

SCRATCH = CTX.sub("scratch", "lishui scratch")
S_BEIGEN = SCRATCH.block("beigen", 4)  # 80..83 net 被跟 money per seat
S_KONG = SCRATCH.block("kong", 4)  # 84..87 net kong money per seat
S_IN = SCRATCH.block("score_in")  # 88: the score_in bits gathered during the deal


@kernel
def bei(rules, bits, zimo):
    """倍数 of a win: the sum of its special patterns' values (the 自摸 or 非自摸 column of
    the payout table), else the plain 倍 (1 on a discard, 2 self-drawn by default).
    """
    total = 0
    for i in range(N_PATTERNS):
        if (bits >> i) & 1:
            total += rules[L_BEI_ZIMO + i] if zimo else rules[L_BEI_FEI + i]
    if total == 0:
        total = rules[L_PLAIN_ZIMO] if zimo else rules[L_PLAIN_FEI]
    return total


@kernel
def patterns(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Pattern bits of the best-scoring reading of a complete hand; 倍 to ctx[X_VALUE].

    Readings: the standard shape (with 大对子 when all triplets fit and no chow is
    exposed), 七对子 and 不搭 (concealed only); 清一色 / 字一色 hold for the standard and
    七对子 readings when the real tiles and melds are of one suit / honors only (the 财神
    go where those readings need them). The context patterns (天胡, 地胡, 杠上开花, 财神会,
    抢杠) hold for every reading. Ties keep the first of standard, 七对子, 不搭.
    """
    wt = ctx[X_WIN_TYPE]
    zimo = wt == WIN_SELF_DRAW or wt == WIN_KONG_DRAW
    ctx_bits = np.int64(0)
    found = 0
    if ctx[X_FIRST_TURN] == 1 and wt == WIN_SELF_DRAW and nmeld == 0:
        if ctx[X_WINNER] == ctx[X_DEALER]:
            ctx_bits |= 1 << P_TIANHU
        else:
            ctx_bits |= 1 << P_DIHU
    if wt == WIN_KONG_DRAW:
        ctx_bits |= 1 << P_GANGKAI
    if wt == WIN_ROB_KONG:
        ctx_bits |= 1 << P_QIANGGANG
    if zimo and ctx[X_WILD0] >= 0:
        if w >= 3:
            found |= IN_CSH_THREE
        ph = ctx[X_WIN_PHYS]
        if ph >= 0 and (ph == ctx[X_WILD0] or ph == ctx[X_WILD1]):
            found |= IN_CSH_DRAWN
    mask = suit_mask(h, melds, nmeld)
    if mask == 1 or mask == 2 or mask == 4:
        found |= IN_QINGYISE
    if mask == 8:
        found |= IN_ZIYISE
    if _distance(h, w, sets, np.int64(STANDARD), tab) == 0:
        chowless = True
        for i in range(nmeld):
            if melds[i, 0] == M_CHOW:
                chowless = False
        found |= IN_STANDARD
        if chowless and triplets_fit(h, np.int64(0), np.int64(34), sets, np.int64(1)):
            found |= IN_DADUIZI
    if sets == 4:
        pairs = 0
        singles = 0
        for k in range(34):
            pairs += h[k] // 2
            singles += h[k] % 2
        if _pairs_formula(pairs, singles) <= w:
            found |= IN_QIDUIZI
        if _buda(h, tab[4]) <= w:
            found |= IN_BUDA
    best, best_bits = best_reading(rules, ctx_bits, found, zimo)
    ctx[X_VALUE] = best if best > 0 else 0
    ctx[S_IN] = (ctx[S_IN] & ~np.int64(255)) | found
    return best_bits


@kernel(inline="always")
def best_reading(rules, ctx_bits, found, zimo):
    """``(倍, pattern bits)`` of the best-scoring reading among those ``found`` (the
    ``IN_*`` bits of a complete hand), with the context patterns ``ctx_bits``: the standard
    shape (with 大对子 when all triplets fit), 七对子 and 不搭, the suit tags on the first
    two, 财神会 under the packed condition; ties keep the first (-1 when none is found).
    """
    if found & (IN_CSH_DRAWN if rules[L_CAISHENHUI] == 1 else IN_CSH_THREE):
        ctx_bits |= 1 << P_CAISHENHUI
    tags = np.int64(0)
    if found & IN_QINGYISE:
        tags |= 1 << P_QINGYISE
    if found & IN_ZIYISE:
        tags |= 1 << P_ZIYISE
    best = -1
    best_bits = np.int64(0)
    if found & IN_STANDARD:
        b = ctx_bits | tags
        if found & IN_DADUIZI:
            b |= 1 << P_DADUIZI
        v = bei(rules, b, zimo)
        if v > best:
            best = v
            best_bits = b
    if found & IN_QIDUIZI:
        b = ctx_bits | tags | (1 << P_QIDUIZI)
        v = bei(rules, b, zimo)
        if v > best:
            best = v
            best_bits = b
    if found & IN_BUDA:
        b = ctx_bits | (1 << P_BUDA)
        v = bei(rules, b, zimo)
        if v > best:
            best = v
            best_bits = b
    return best, best_bits


@kernel
def base(rules, ctx):
    """底: 3 + 2 x the dealer's consecutive wins before this deal, capped (RULEBOOK §1.6);
    the 3 and the 2 are the payout table's (pay_base, pay_base_step).
    """
    b = rules[L_BASE0] + rules[L_BASE_STEP] * ctx[X_DEALER_WINS]
    cap = rules[L_BASE_CAP]
    if cap > 0 and b > cap:
        b = cap
    return b


@kernel(refcount=False)
def on_discard(rules, ctx, pay, seat, phys, players):
    """被跟: the fourth identical discard in a row (no claim between) fines the first.

    Every such run is counted (X_GEN) and its fines of one point (S_BEIGEN, the
    beigen_money columns) whatever the mode, so that a re-score can apply another; the
    mode and the fine decide what is paid.
    """
    if ctx[X_RUN_LEN] != players:
        return
    a = ctx[X_RUN_START]
    first = ctx[X_DISCARDS_TOTAL] == players
    for s in range(players):
        if s != a:
            ctx[S_BEIGEN + a] -= 1
            ctx[S_BEIGEN + s] += 1
    ctx[X_GEN] += 1
    if first:
        ctx[S_IN] |= IN_BEIGEN_FIRST
    mode = rules[L_BEIGEN]
    if mode == 2 or (mode == 1 and not first):
        return
    fine = rules[L_BEIGEN_FINE]
    for s in range(players):
        if s != a:
            pay[a, s] += fine


@kernel(refcount=False)
def on_kong(rules, ctx, pay, seat, mtype, from_seat, players):
    """Kong money under ``kong_pay=n`` (none by default, RULEBOOK §1.3 rule 13)."""
    if mtype == M_KONG or mtype == M_ADDKONG or mtype == M_ANKONG:
        units = 2 if mtype == M_ANKONG else 1
        ctx[S_IN] += np.int64(units) << (IN_KONG_SHIFT + 4 * seat)
    n = rules[L_KONG_PAY]
    if n == 0:
        return
    each = 2 * n if mtype == M_ANKONG else n
    if mtype == M_KONG or mtype == M_ADDKONG or mtype == M_ANKONG:
        for s in range(players):
            if s != seat:
                pay[s, seat] += each
                ctx[S_KONG + s] -= each
                ctx[S_KONG + seat] += each


@kernel
def tongbao_payer(ctx, winner, players):
    """统包: the seat that pays every loser's share, or -1 (RULEBOOK §1.6 rule 28).

    A pair is the discarder A and his 下家 B after B chowed A's discards three times. If
    the winner chowed three times from his 上家, the 上家 pays; else if his 下家 chowed
    three times from him, the 下家 pays.
    """
    up = (winner + players - 1) % players
    down = (winner + 1) % players
    if ctx[X_CHOWS + 4 * winner + up] >= 3:
        return up
    if ctx[X_CHOWS + 4 * down + winner] >= 3:
        return down
    return -1


@kernel
def settle(rules, ctx, pay, bits, players, delta, extra):
    """Payments of a deal (RULEBOOK §1.6) into ``delta`` and the extra columns.

    ``pay[p, q]`` already holds what p owes q for penalties (误打财神 from the loop,
    被跟) and kong money. The win: each loser's share is 底 x 倍 when the winner or that
    loser is the dealer, else 1 x 倍; 抢杠: the kong player pays all three shares;
    统包: the liable partner pays all shares; 犯枪: the discarder pays the winner one
    more point (not shifted by 统包).
    """
    winner = ctx[X_WINNER]
    dealer = ctx[X_DEALER]
    b = base(rules, ctx)
    value = 0
    for s in range(players):
        extra[E_BEIGEN_MONEY + s] = ctx[S_BEIGEN + s]
        extra[E_WUDA_MONEY + s] = ctx[X_PENALTY + s]
        extra[E_KONG_MONEY + s] = ctx[S_KONG + s]
        extra[E_FANQIANG_MONEY + s] = 0
        extra[E_TONGBAO_MONEY + s] = 0
    if winner >= 0:
        wt = ctx[X_WIN_TYPE]
        zimo = wt == WIN_SELF_DRAW or wt == WIN_KONG_DRAW
        value = bei(rules, bits, zimo)
        share = np.zeros(4, np.int64)
        total = 0
        for s in range(players):
            if s != winner:
                unit = b if (winner == dealer or s == dealer) else 1
                share[s] = unit * value
                total += share[s]
        if wt == WIN_ROB_KONG:
            pay[ctx[X_ROBBED], winner] += total
        else:
            liable = tongbao_payer(ctx, winner, players)
            if liable >= 0:
                pay[liable, winner] += total
                for s in range(players):
                    if s != winner and s != liable:
                        extra[E_TONGBAO_MONEY + s] += share[s]
                        extra[E_TONGBAO_MONEY + liable] -= share[s]
            else:
                for s in range(players):
                    if s != winner:
                        pay[s, winner] += share[s]
            if wt == WIN_DISCARD:
                d = ctx[X_DISCARDER]
                fine = rules[L_FANQIANG]
                pay[d, winner] += fine
                extra[E_FANQIANG_MONEY + d] -= fine
                extra[E_FANQIANG_MONEY + winner] += fine
    for p in range(players):
        for q in range(players):
            delta[q] += pay[p, q]
            delta[p] -= pay[p, q]
    extra[E_KONGS] = ctx[X_KONGS]
    extra[E_BASE] = b
    extra[E_BEIGEN] = ctx[X_GEN]
    extra[E_SCORE_IN] = ctx[S_IN] if winner >= 0 else ctx[S_IN] & ~np.int64(255)
    return value


_READINGS = (1 << P_CAISHENHUI) | (1 << P_QINGYISE) | (1 << P_ZIYISE) | (1 << P_DADUIZI)
_READINGS |= (1 << P_QIDUIZI) | (1 << P_BUDA)
"""The pattern bits a reading sets (the others are the win's context)."""


@kernel
def restore(rules, ctx, pay, row):
    """What :func:`settle` reads, from a record row (re-scoring): the deal's slots; 被跟
    (each run of the record's units replayed by :func:`on_discard`, the first-round one
    the dealer's), the kongs (each seat's units replayed by :func:`on_kong`) and 误打财神
    (as recorded) owed again; the 统包 seat the record charged; and the reading paid
    chosen again by :func:`best_reading` from the readings ``score_in`` holds.
    """
    bits = row_context(ctx, row)
    players = rules[R_PLAYERS]
    x = row[C_EXTRA:]
    winner = ctx[X_WINNER]
    si = x[E_SCORE_IN]
    ctx[X_KONGS] = x[E_KONGS]
    ctx[X_DEALER_WINS] = row[C_STREAK]
    ctx[S_IN] = si & ~(np.int64(0xFFFFFFFF) << IN_KONG_SHIFT)
    owe_net(pay, x[E_WUDA_MONEY : E_WUDA_MONEY + players], players)
    for s in range(players):
        ctx[X_PENALTY + s] = x[E_WUDA_MONEY + s]
    runs = x[E_BEIGEN]
    first = (si & IN_BEIGEN_FIRST) != 0
    for s in range(players):
        for j in range((runs - x[E_BEIGEN_MONEY + s]) // players):
            ctx[X_RUN_LEN] = players
            ctx[X_RUN_START] = s
            ctx[X_DISCARDS_TOTAL] = players if first and s == ctx[X_DEALER] and j == 0 else 0
            on_discard(rules, ctx, pay, s, np.int64(-1), players)
        for _ in range((si >> (IN_KONG_SHIFT + 4 * s)) & 15):
            on_kong(rules, ctx, pay, s, np.int64(M_KONG), np.int64(-1), players)
    if winner < 0:
        return bits
    low = 0
    liable = -1
    for s in range(players):
        if x[E_TONGBAO_MONEY + s] < low:
            low = x[E_TONGBAO_MONEY + s]
            liable = s
    if liable >= 0:
        if liable == (winner + players - 1) % players:
            ctx[X_CHOWS + 4 * winner + liable] = 3
        else:
            ctx[X_CHOWS + 4 * liable + winner] = 3
    wt = ctx[X_WIN_TYPE]
    zimo = wt == WIN_SELF_DRAW or wt == WIN_KONG_DRAW
    _, best_bits = best_reading(rules, bits & ~np.int64(_READINGS), si & 255, zimo)
    return best_bits
