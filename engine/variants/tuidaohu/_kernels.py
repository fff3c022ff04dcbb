"""广东推倒胡 (tuidaohu) scoring and settlement kernels (numba). Kernels only.

Rule slots (``rules[R_VAR + i]``) and the payout table (``rules[R_PAY + i]``: the base,
the factors, the 大胡 multipliers, the kong money, the horse factor, from the payout
options) are written by :mod:`engine.variants.tuidaohu`. :func:`on_kong` tallies each
seat's kongs in the scratch slots, and :func:`settle` records them with the horse tiles
and the 杠爆 feeder, so that a record carries every input of the payment.
"""

from __future__ import annotations

import numpy as np

from engine.jit.njit import kernel
from engine.mahjong.layout import (
    C_EXTRA,
    C_WILDS,
    CTX,
    M_ADDKONG,
    M_ANKONG,
    M_KONG,
    R_PLAYERS,
    RULES,
    WIN_DISCARD,
    WIN_INSTANT,
    WIN_KONG_DRAW,
    WIN_ROB_KONG,
    X_DEALER,
    X_DISCARDER,
    X_FIRST_TURN,
    X_HORSE,
    X_KONG_FROM,
    X_KONGS,
    X_NHORSE,
    X_ROBBED,
    X_STREAK,
    X_WILD0,
    X_WIN_TYPE,
    X_WINNER,
)
from engine.mahjong.patterns import (
    count_kongs,
    count_open_triplets,
    forced_groups,
    suit_mask,
    triplets_only_distance,
)
from engine.mahjong.settlement import row_context

from ...hand._kernels import _orphans, _pairs_formula
from .._base import Extra, Pattern, big_mask, extra_index, pattern_bits

# ---- the patterns: one declaration each (record column pat_<name>, bit = place) -----
PATTERNS = (
    Pattern("tianhu", "天胡", "The dealer's first fourteen tiles win. 大胡.", True, value=2),
    Pattern("qingyise", "清一色", "One suit, no honors. 大胡.", True, value=2),
    Pattern("ziyise", "字一色", "Honors only. 大胡.", True, value=2),
    Pattern("qidui", "七对子", "Seven pairs (four alike count as two). 大胡.", True, value=2),
    Pattern("sianke", "四暗刻", "All concealed triplets, no 碰 (暗杠 allowed). 大胡.", True,
            value=2),
    Pattern("shibaluohan", "十八罗汉", "Four kongs. 大胡.", True, value=2),
    Pattern("dasanyuan", "大三元", "Triplets of 中, 发 and 白. 大胡.", True, value=2),
    Pattern("xiaosixi", "小四喜", "Three wind triplets and a wind pair. 大胡.", True, value=2),
    Pattern("dasixi", "大四喜", "Four wind triplets. 大胡.", True, value=2),
    Pattern("shisanyao", "十三幺", "Thirteen orphans. 大胡.", True, value=2),
    Pattern("sigui", "四鬼胡", "Four 鬼 held (option four_ghost_win). 大胡.", True, value=2),
    Pattern("hunyise", "混一色", "One suit plus honors (小胡, recorded only).", False),
    Pattern("gangkai", "杠上开花", "Win on a kong replacement tile (context).", False),
    Pattern("qianggang", "抢杠胡", "Win by robbing a 补杠 (context).", False, value=3),
    Pattern("wugui", "无鬼", "No 鬼 in the winning hand under no_ghost_double (×2).", False,
            value=2),
)  # fmt: skip
"""The scoring patterns, in bit order: each one's bit, the big mask and the record
columns are read from here. ``value`` is the default of the pattern's ``pay_<name>``
option (a 大胡's multiplier, 无鬼's factor, the shares a robbed 补杠 player pays for 抢杠胡);
0 for the patterns with no option of their own (recorded only, or paid as 自摸)."""
BIT = pattern_bits(PATTERNS)
"""Bit number of each pattern by name."""
BIG_MASK = big_mask(PATTERNS)
"""The bits of the big hands."""

KERNEL_ID = 1
"""This variant's id in ``rules[R_VARIANT]``: the game loop's hooks (engine.play.mahjong.hooks)
call this module's hook kernels for it."""

# option slots
VAR = RULES.sub("var", "tuidaohu rules")
T_DIANPAO = VAR.block("dianpao")
T_HUANGGANG = VAR.block("huanggang")
T_GHOST = VAR.block("ghost")  # 0 none, 1 baiban, 2 fan, 3 shuang
T_FOUR_GHOST = VAR.block("four_ghost")
T_NO_GHOST_DOUBLE = VAR.block("no_ghost_double")
T_HORSE_MODE = VAR.block(
    "horse_mode"
)  # 0 dealer min(4, 1+streak), 1 fixed dealer count, 2 winner:N
T_HORSE_N = VAR.block("horse_n")
T_HORSE_MAP = VAR.block("horse_map")  # 0 seed/code, 1 MIL

# payout table (engine.variants.tuidaohu's pay_* options)
PAY = RULES.sub("pay", "tuidaohu payout")
T_BASE = PAY.block("base")
"""底分 of a win (1)."""
T_ZIMO = PAY.block("zimo")
"""Factor of a win that is not on a discard (自摸, 杠上开花, 抢杠, 四鬼: 2)."""
T_WUGUI = PAY.block("wugui")
"""Factor of a 无鬼 win under no_ghost_double (2)."""
T_QIANGGANG = PAY.block("qianggang")
"""Shares of the win amount the robbed kong player pays for 抢杠胡 (3)."""
T_GANGBAO = PAY.block("gangbao")
"""Shares the feeder of the 放杠 pays for 杠上开花 after it (杠爆全包, 3)."""
T_FANGGANG = PAY.block("fanggang")
"""Kong money of a 明杠 from a discard, from the feeder (3)."""
T_BUGANG = PAY.block("bugang")
"""Kong money of a 补杠, from each other seat (1)."""
T_ANGANG = PAY.block("angang")
"""Kong money of a 暗杠, from each other seat (2)."""
T_HORSE = PAY.block("horse")
"""Times each horse copies what it copies (1)."""

# pattern bits (order = engine.variants.tuidaohu.PATTERNS)
P_TIANHU = BIT["tianhu"]
P_QINGYISE = BIT["qingyise"]
P_ZIYISE = BIT["ziyise"]
P_QIDUI = BIT["qidui"]
P_SIANKE = BIT["sianke"]
P_SHIBALUOHAN = BIT["shibaluohan"]
P_DASANYUAN = BIT["dasanyuan"]
P_XIAOSIXI = BIT["xiaosixi"]
P_DASIXI = BIT["dasixi"]
P_SHISANYAO = BIT["shisanyao"]
P_SIGUI = BIT["sigui"]
P_HUNYISE = BIT["hunyise"]
P_GANGKAI = BIT["gangkai"]
P_QIANGGANG = BIT["qianggang"]
P_WUGUI = BIT["wugui"]
"""Bits 0..10 are 大胡 (big hands); the rest are informational or context."""
N_PATTERNS = len(PATTERNS)
T_BIG = PAY.block("big", N_PATTERNS)
"""One slot per pattern bit: the multiplier of each 大胡 (2; 大胡 never stack, the largest
counts), 1 for the other patterns."""

# ---- the extra record columns: one declaration each (index = place) -------------------
EXTRAS = (
    Extra("horses", doc="Horses drawn (买马)."),
    Extra("horse_hits", doc="Horses naming the winner."),
    Extra("kongs", doc="Kongs made in the deal."),
    Extra("kong_money", 4, "Each seat's net kong money."),
    Extra("horse_money", 4, "Each seat's net horse money."),
    Extra("kong_tally", 4, "A re-score's input: each seat's kongs (补杠 in bits 0..2, 暗杠 "
          "in 3..5, and in 6 + 3 (k - 1) the 明杠 made on a discard of seat (s + k) % 4)."),
    Extra("horse_tiles", doc="A re-score's input: the horse tiles by class (4 bits per "
          "class, 1 5 9 东 / 2 6 南 / 3 7 西 / 4 8 北 / 中 / 发 / 白)."),
    Extra("kong_feeder", doc="A re-score's input: the seat that fed the 明杠 before a "
          "杠上开花 (-1 none)."),
)  # fmt: skip
"""The extra record columns, in index order (the ``E_*`` indices below are read from here,
in this order: tests/engine/variants/test_extras.py checks each name against its extra)."""
(E_HORSES, E_HORSE_HITS, E_KONGS, E_KONG_MONEY, E_HORSE_MONEY, E_KONG_TALLY, E_HORSE_TILES,
 E_KONG_FEEDER) = extra_index(EXTRAS).values()  # fmt: skip

# ---- the kong tally of a seat (3 bits a field) and the horse tiles (4 bits a class) ----
TALLY_BUGANG = 0
"""Bits 0..2: 补杠 the seat made."""
TALLY_ANGANG = 3
"""Bits 3..5: 暗杠 the seat made."""
TALLY_FANGGANG = 6
"""Bits 6 + 3 (k - 1): 明杠 the seat made from a discard of seat (seat + k) % 4, k = 1..3."""
HORSE_CLASS_BITS = 4
"""horse_tiles: 4 bits per class, classes 0..3 the suited and wind horses by the seat offset
they name (1 5 9 东: 0, 2 6 南: 1, 3 7 西: 2, 4 8 北: 3), 4 中, 5 发, 6 白 (the dragons name
a seat by horse_map)."""

SCRATCH = CTX.sub("scratch", "tuidaohu scratch")
S_TALLY = SCRATCH.block("tally", 4)
"""Each seat's kong tally this deal (the TALLY_* fields), kept by on_kong."""

_DRAGONS = np.array([31, 32, 33], np.int64)
_WINDS = np.array([27, 28, 29, 30], np.int64)


@kernel(refcount=False)
def horses_for_deal(rules, ctx):
    """Tiles set aside from the tail at the start as horses (买马)."""
    mode = rules[T_HORSE_MODE]
    if mode == 0:
        n = 1 + ctx[X_STREAK]
        return n if n < 4 else 4
    return rules[T_HORSE_N]


deal_setup = horses_for_deal
"""The deal_setup hook: horses set aside after dealing."""


@kernel(refcount=False)
def four_wild_win(rules):
    """Whether holding four wilds wins at once (推倒胡 四鬼胡牌)."""
    return rules[T_FOUR_GHOST] == 1


@kernel
def horse_offset(rules, phys):
    """Seat offset (0 = the counting seat, 1 = its next seat...) named by a horse tile."""
    if phys < 27:
        return (phys % 9) % 4
    if phys <= 30:
        return phys - 27  # 东南西北
    # dragons 白 31, 发 32, 中 33
    if rules[T_HORSE_MAP] == 0:
        return (0, 1, 2)[33 - phys]  # 中 0, 发 1, 白 2 (seed / code)
    return (1, 2, 3)[33 - phys]  # MIL: 中 下家, 发 对家, 白 上家


@kernel
def patterns(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Pattern bits of a complete hand (any reading with wilds)."""
    bits = np.int64(0)
    mask = suit_mask(h, melds, nmeld)
    if ctx[X_FIRST_TURN] == 1 and ctx[X_WINNER] == ctx[X_DEALER] and nmeld == 0:
        bits |= 1 << P_TIANHU
    if mask == 1 or mask == 2 or mask == 4:
        bits |= 1 << P_QINGYISE
    if mask == 8:
        bits |= 1 << P_ZIYISE
    if mask == 9 or mask == 10 or mask == 12:
        bits |= 1 << P_HUNYISE
    if nmeld == 0 and sets == 4:
        pairs = 0
        singles = 0
        for k in range(34):
            pairs += h[k] // 2
            singles += h[k] % 2
        if _pairs_formula(pairs, singles) <= w:
            bits |= 1 << P_QIDUI
        if _orphans(h) <= w:
            bits |= 1 << P_SHISANYAO
    if count_open_triplets(melds, nmeld) == 0 and _chowless(melds, nmeld):
        if triplets_only_distance(h, sets) <= w:
            bits |= 1 << P_SIANKE
    if count_kongs(melds, nmeld) == 4:
        bits |= 1 << P_SHIBALUOHAN
    if forced_groups(h, w, sets, tab, melds, nmeld, _DRAGONS, np.int64(3), np.int64(-1)):
        bits |= 1 << P_DASANYUAN
    if forced_groups(h, w, sets, tab, melds, nmeld, _WINDS, np.int64(4), np.int64(-1)):
        bits |= 1 << P_DASIXI
    else:
        trip = np.empty(3, np.int64)
        for pair in range(4):
            j = 0
            for i in range(4):
                if i != pair:
                    trip[j] = _WINDS[i]
                    j += 1
            if forced_groups(h, w, sets, tab, melds, nmeld, trip, np.int64(3), _WINDS[pair]):
                bits |= 1 << P_XIAOSIXI
                break
    wt = ctx[X_WIN_TYPE]
    if wt == WIN_KONG_DRAW:
        bits |= 1 << P_GANGKAI
    if wt == WIN_ROB_KONG:
        bits |= 1 << P_QIANGGANG
    if wt == WIN_INSTANT:
        bits |= 1 << P_SIGUI
    if wugui(rules, ctx[X_WILD0] >= 0, w):
        bits |= 1 << P_WUGUI
    return bits


@kernel(inline="always")
def wugui(rules, ghosts, w):
    """无鬼 under no_ghost_double: 鬼 are in play and the winning hand holds none."""
    return rules[T_NO_GHOST_DOUBLE] == 1 and ghosts and w == 0


@kernel(inline="always")
def _chowless(melds, nmeld):
    for i in range(nmeld):
        if melds[i, 0] == 1:
            return False
    return True


@kernel
def win_amount(rules, ctx, bits):
    """Amount each payer owes the winner (before horses): 底 1 × 自摸 2 × the largest 大胡
    multiplier (2) × 无鬼 2, the numbers from the payout table.
    """
    amount = rules[T_BASE]
    if ctx[X_WIN_TYPE] != WIN_DISCARD:
        amount *= rules[T_ZIMO]
    big = 1
    for i in range(N_PATTERNS):
        if (BIG_MASK >> i) & 1 and (bits >> i) & 1 and rules[T_BIG + i] > big:
            big = rules[T_BIG + i]
    amount *= big
    if (bits >> P_WUGUI) & 1:
        amount *= rules[T_WUGUI]
    return amount


@kernel(refcount=False)
def on_kong(rules, ctx, pay, seat, mtype, from_seat, players):
    """Kong money (杠钱): 放杠 3 from the feeder, 补杠 1 and 暗杠 2 from each other seat
    (the payout table's numbers); the kong is tallied for the record.
    """
    if mtype == M_KONG:
        pay[from_seat, seat] += rules[T_FANGGANG]
        k = (from_seat - seat) % players
        ctx[S_TALLY + seat] += 1 << (TALLY_FANGGANG + 3 * (k - 1))
    elif mtype == M_ADDKONG:
        ctx[S_TALLY + seat] += 1 << TALLY_BUGANG
        for s in range(players):
            if s != seat:
                pay[s, seat] += rules[T_BUGANG]
    elif mtype == M_ANKONG:
        ctx[S_TALLY + seat] += 1 << TALLY_ANGANG
        for s in range(players):
            if s != seat:
                pay[s, seat] += rules[T_ANGANG]


@kernel
def horse_class(phys):
    """The horse_tiles class of a horse tile (HORSE_CLASS_BITS)."""
    if phys < 27:
        return (phys % 9) % 4
    if phys <= 30:
        return phys - 27
    return 4 + 33 - phys  # 中 4, 发 5, 白 6


@kernel
def settle(rules, ctx, pay, bits, players, delta, extra):
    """Final payments of a deal into ``delta`` (and the extra record columns).

    ``pay[p, q]`` holds the kong money p owes q; the win payment is added here, then
    horses copy the hit seats' transfers onto the dealer (RULEBOOK §5.4).
    """
    winner = ctx[X_WINNER]
    dealer = ctx[X_DEALER]
    kong_pay = pay.copy()
    if winner < 0 and rules[T_HUANGGANG] == 1:
        pay[:, :] = 0
        kong_pay[:, :] = 0
    for s in range(players):
        extra[E_KONG_MONEY + s] = 0
        extra[E_HORSE_MONEY + s] = 0
        for q in range(players):
            extra[E_KONG_MONEY + s] += kong_pay[q, s] - kong_pay[s, q]
    amount = 0
    if winner >= 0:
        amount = win_amount(rules, ctx, bits)
        wt = ctx[X_WIN_TYPE]
        if wt == WIN_DISCARD:
            pay[ctx[X_DISCARDER], winner] += amount
        elif wt == WIN_ROB_KONG:
            pay[ctx[X_ROBBED], winner] += rules[T_QIANGGANG] * amount
        elif wt == WIN_KONG_DRAW and ctx[X_KONG_FROM] >= 0:
            pay[ctx[X_KONG_FROM], winner] += rules[T_GANGBAO] * amount  # 杠爆全包
        else:
            for s in range(players):
                if s != winner:
                    pay[s, winner] += amount
    nh = ctx[X_NHORSE]
    hits = 0
    times = rules[T_HORSE]
    horse = np.zeros((players, players), np.int64)
    if rules[T_HORSE_MODE] == 2:
        # winner's horses: each horse naming the winner adds each payer's amount again
        if winner >= 0:
            for i in range(nh):
                seat = (winner + horse_offset(rules, ctx[X_HORSE + i])) % players
                if seat == winner:
                    hits += 1
                    for s in range(players):
                        if s != winner and pay[s, winner] > 0:
                            horse[s, winner] += times * (pay[s, winner] - kong_pay[s, winner])
    else:
        for i in range(nh):
            seat = (dealer + horse_offset(rules, ctx[X_HORSE + i])) % players
            if seat == winner:
                hits += 1
            for p in range(players):
                if p != dealer and pay[p, seat] != 0:
                    horse[p, dealer] += times * pay[p, seat]
                if p != dealer and pay[seat, p] != 0:
                    horse[dealer, p] += times * pay[seat, p]
    for p in range(players):
        for q in range(players):
            delta[q] += pay[p, q] + horse[p, q]
            delta[p] -= pay[p, q] + horse[p, q]
            extra[E_HORSE_MONEY + q] += horse[p, q]
            extra[E_HORSE_MONEY + p] -= horse[p, q]
    extra[E_HORSES] = nh
    extra[E_HORSE_HITS] = hits
    extra[E_KONGS] = ctx[X_KONGS]
    tiles = 0
    for i in range(nh):
        tiles += 1 << (HORSE_CLASS_BITS * horse_class(ctx[X_HORSE + i]))
    extra[E_HORSE_TILES] = tiles
    for s in range(players):
        extra[E_KONG_TALLY + s] = ctx[S_TALLY + s]
    extra[E_KONG_FEEDER] = (
        ctx[X_KONG_FROM] if winner >= 0 and ctx[X_WIN_TYPE] == WIN_KONG_DRAW else -1
    )
    return amount


_HORSE_OF_CLASS = np.array([0, 1, 2, 3, 33, 32, 31], np.int64)
"""A horse tile of each horse_tiles class (:func:`horse_class` of it is the class)."""


@kernel(refcount=False)
def restore(rules, ctx, pay, row):
    """What :func:`settle` reads, from a record row (re-scoring): the deal's slots, the
    kong money of each recorded kong paid again by :func:`on_kong`, the horse tiles (one
    of each recorded class: a horse pays by its class), the 杠爆 feeder, and the pattern
    bits with 无鬼 set again under the packed no_ghost_double.
    """
    bits = row_context(ctx, row)
    players = rules[R_PLAYERS]
    x = row[C_EXTRA:]
    ctx[X_KONGS] = x[E_KONGS]
    ctx[X_KONG_FROM] = x[E_KONG_FEEDER]
    tiles = x[E_HORSE_TILES]
    n = 0
    for c in range(7):
        for _ in range((tiles >> (HORSE_CLASS_BITS * c)) & 15):
            ctx[X_HORSE + n] = _HORSE_OF_CLASS[c]
            n += 1
    ctx[X_NHORSE] = n
    for s in range(players):
        t = x[E_KONG_TALLY + s]
        for _ in range((t >> TALLY_BUGANG) & 7):
            on_kong(rules, ctx, pay, s, np.int64(M_ADDKONG), np.int64(-1), players)
        for _ in range((t >> TALLY_ANGANG) & 7):
            on_kong(rules, ctx, pay, s, np.int64(M_ANKONG), np.int64(-1), players)
        for k in range(1, 4):
            for _ in range((t >> (TALLY_FANGGANG + 3 * (k - 1))) & 7):
                on_kong(rules, ctx, pay, s, np.int64(M_KONG), (s + k) % players, players)
    bits &= ~(np.int64(1) << P_WUGUI)
    if ctx[X_WINNER] >= 0 and wugui(rules, rules[T_GHOST] != 0, row[C_WILDS]):
        bits |= 1 << P_WUGUI
    return bits
