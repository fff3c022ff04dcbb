"""福州麻将 (fuzhou) pattern and settlement kernels (numba). Kernels only.

Rule slots (``rules[R_VAR + i]``) are written by :mod:`engine.variants.fuzhou`: the
formula, whether a kept draw adds to 连庄数, the formula's 底, the value of every special
win under that formula and the 游金 multipliers (the last four from payout options).
The loop fills the winner's flowers, golds and context in ``ctx`` (engine.mahjong.layout
X_*); :func:`patterns` stores the winner's kongs and golds in scratch for :func:`settle`.
"""

from __future__ import annotations

import numpy as np

from engine.jit.njit import kernel
from engine.mahjong.layout import (
    C_EXTRA,
    CTX,
    M_ADDKONG,
    M_ANKONG,
    M_KONG,
    R_VAR,
    RULES,
    WIN_DISCARD,
    WIN_ROB_KONG,
    X_ANKONGS,
    X_DEAL_MAX_WILDS,
    X_DEALER,
    X_DEALER_WINS,
    X_DISCARDER,
    X_FIRST_TURN,
    X_FLOWER_QUADS,
    X_FLOWER_SUITES,
    X_FLOWERS,
    X_LAST_GROUP,
    X_MINGKONGS,
    X_OPENING_WIN,
    X_RESERVE,
    X_ROB_INDICATOR,
    X_STREAK,
    X_WILD0,
    X_WILD_DISCARDS,
    X_WIN_TYPE,
    X_WINNER,
    X_YOUJIN,
)
from engine.mahjong.patterns import rest_distance
from engine.mahjong.settlement import row_context

from .._base import Extra, Pattern, big_mask, extra_index, pattern_bits

# ---- the patterns: one declaration each (record column pat_<name>, bit = place) -----
PATTERNS = (
    Pattern("tianhu", "天胡", "The dealer's 17 tiles win at the opening (QQ 30).", True,
            values=(("qq", 30), ("xinxiuding", 40))),
    Pattern("dihu", "地胡", "A non-dealer wins on the dealer's first discard (QQ 30; only with "
            "jin=0, as a waiting non-dealer wins by 抢金 first).", True, values=(("qq", 30),)),
    Pattern("qiangjin", "抢金", "Win by taking the 金 indicator at the opening (QQ 30).", True,
            values=(("qq", 30), ("xinxiuding", 20), ("multiplier", 5))),
    Pattern("sanjindao", "三金倒", "Holding the three golds (QQ 40).", True,
            values=(("qq", 40), ("xinxiuding", 10), ("multiplier", 3))),
    Pattern("jinque", "金雀", "Two golds as the pair (QQ 60).", True,
            values=(("qq", 60), ("xinxiuding", 30), ("multiplier", 4))),
    Pattern("jinlong", "金龙", "Three golds as a set of their own (QQ 120).", True,
            values=(("qq", 120), ("multiplier", 6))),
    Pattern("wuhua", "平胡无花无杠", "No flower, no gold, no kong (QQ 30).", False,
            values=(("qq", 30),)),
    Pattern("yizhanghua", "平胡一张花", "Exactly one flower or gold, no kong (QQ 15).", False,
            values=(("qq", 15),)),
    Pattern("danyou", "单游", "游金 win, level 1 (youjin=minnan: X × 4).", True, value=4),
    Pattern("shuangyou", "双游", "游金 win, level 2 (youjin=minnan: X × 8).", True, value=8),
    Pattern("sanyou", "三游", "游金 win, level 3 (youjin=minnan: X × 16).", True, value=16),
    Pattern("qianggang", "抢杠", "Win by robbing a 补杠 (a discard win; context).", False),
)  # fmt: skip
"""The scoring patterns, in bit order: each one's bit, the big mask, the record columns
and the payout table's defaults are read from here. ``values``: a special's worth under
each ``scoring`` formula that prices it (番 added to X for qq and xinxiuding, × X for
multiplier; only the largest counts), the defaults of ``pay_<name>_<formula>``;
``value``: a 游金 level's multiplier of X under ``youjin=minnan`` (``pay_<name>``)."""
BIT = pattern_bits(PATTERNS)
"""Bit number of each pattern by name."""
BIG_MASK = big_mask(PATTERNS)
"""The bits of the big hands."""

KERNEL_ID = 4
"""This variant's id in ``rules[R_VARIANT]``: the game loop's hooks (engine.play.mahjong.hooks)
call this module's hook kernels for it."""

# ---- pattern bits (order = engine.variants.fuzhou.PATTERNS) -----------------------------
P_TIANHU = BIT["tianhu"]
P_DIHU = BIT["dihu"]
P_QIANGJIN = BIT["qiangjin"]
P_SANJINDAO = BIT["sanjindao"]
P_JINQUE = BIT["jinque"]
P_JINLONG = BIT["jinlong"]
P_WUHUA = BIT["wuhua"]
P_YIZHANGHUA = BIT["yizhanghua"]
P_DANYOU = BIT["danyou"]
P_SHUANGYOU = BIT["shuangyou"]
P_SANYOU = BIT["sanyou"]
P_QIANGGANG = BIT["qianggang"]
N_PATTERNS = len(PATTERNS)

# ---- option slots ---------------------------------------------------------------------
VAR = RULES.sub("var", "fuzhou rules")
F_FORMULA = VAR.block("formula")
"""0 QQ/同城游 (default), 1 新修订 (xinxiuding), 2 multiplier."""
F_JIN = VAR.block("jin")
"""金 kinds: 0, 1 (default) or 2."""
F_DRAW_ADDS = VAR.block("draw_adds")
"""1: 连庄数 counts the drawn deals the dealer kept (``draw_adds_lianzhuang``): the
settlement reads X_STREAK instead of X_DEALER_WINS (the dealer keeps the deal on a draw,
so the two counts agree but for those draws)."""
F_BASE = VAR.block("base")
"""The formula's constant: QQ's 5, 新修订's 底番 1, the multiplier formula's 1
(``pay_base_<formula>``)."""
F_SPECIAL = VAR.block("special", N_PATTERNS, at=R_VAR + 8)
"""From R_VAR+8, one slot per pattern bit: the value of each pattern bit under the formula
(additive 番 for QQ and 新修订, a multiplier for ``multiplier``; 0 = not a special)."""
F_YOU_MULT = VAR.block("you_mult", 3)
"""Right after F_SPECIAL (R_VAR+20 .. R_VAR+22 with 12 patterns): 单游, 双游, 三游
multipliers of X (游金 option)."""

FORMULA_QQ = 0
FORMULA_XINXIUDING = 1
FORMULA_MULTIPLIER = 2

# ---- the extra record columns: one declaration each (index = place) -------------------
EXTRAS = (
    Extra("flowers", doc="The winner's flower tiles."),
    Extra("huafan", doc="The winner's 花番 (flowers, sets of four as 6, kongs)."),
    Extra("golds", doc="Golds in the winning hand."),
    Extra("lianzhuang", doc="连庄数."),
    Extra("kongs", doc="Kongs made in the deal."),
    Extra("reserve", doc="The final reserve."),
    Extra("youjin", doc="The winner's 游金 level."),
    Extra("gold_discards", doc="Golds discarded."),
    Extra("last_group", doc="Whether the last group was reached."),
    Extra("jin", doc="The gold kind (-1 none)."),
    Extra("deal_max_golds", doc="The most golds any seat held at the opening."),
    Extra("special", doc="The special counted (番 or multiplier)."),
    Extra("dealer_wins", doc="The dealer's consecutive wins before the deal without the "
          "drawn deals he kept (连庄数 is this, or ``dealer_streak`` under "
          "``draw_adds_lianzhuang``: a re-score reads it)."),
)  # fmt: skip
"""The extra record columns, in index order (the ``E_*`` indices below are read from here,
in this order: tests/engine/variants/test_extras.py checks each name against its extra)."""
(E_FLOWERS, E_HUAFAN, E_GOLDS, E_LIANZHUANG, E_KONGS, E_RESERVE, E_YOUJIN, E_GOLD_DISCARDS,
 E_LAST_GROUP, E_JIN, E_DEAL_MAX_GOLDS, E_SPECIAL,
 E_DEALER_WINS) = extra_index(EXTRAS).values()  # fmt: skip

# ---- scratch ctx slots written by patterns() for settle() ---------------------------------
SCRATCH = CTX.sub("scratch", "fuzhou scratch")
S_MING = SCRATCH.block("ming")
"""The winner's 明杠 (kong from a discard or 补杠)."""
S_AN = SCRATCH.block("an")
"""The winner's 暗杠."""
S_GOLDS = SCRATCH.block("golds")
"""Golds in the winning hand (the robbed indicator included)."""

SANJIN = 3
"""Golds that make 三金倒."""

XINXIUDING_BASE = 1
"""新修订's default 底番 (the seed's 「刚开始底番为1番」, RULEBOOK §3.5 rule 22): no win is
worth 0 (option ``pay_base_xinxiuding``; the kernel reads F_BASE)."""


@kernel
def flower_points(ctx, seat):
    """花 of a seat's flowers: 1 each, a set of four (four alike, 春夏秋冬, 梅兰竹菊) 6."""
    return ctx[X_FLOWERS + seat] + 2 * (ctx[X_FLOWER_QUADS + seat] + ctx[X_FLOWER_SUITES + seat])


@kernel
def jinque(h, w, sets, tab):
    """金雀: two golds can be the pair, the rest ``sets`` sets (other golds wild)."""
    return w >= 2 and rest_distance(h, sets, np.bool_(False), tab) <= w - 2


@kernel
def jinlong(h, w, sets, tab):
    """金龙: three golds can be a set of their own, the rest ``sets - 1`` sets and a pair."""
    return w >= 3 and sets >= 1 and rest_distance(h, sets - 1, np.bool_(True), tab) <= w - 3


@kernel
def patterns(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Pattern bits of the winner's hand and context (any reading with golds wild).

    Also stores the winner's kongs and golds in the scratch slots (S_MING, S_AN, S_GOLDS).
    """
    winner = ctx[X_WINNER]
    dealer = ctx[X_DEALER]
    wt = ctx[X_WIN_TYPE]
    ming = 0
    an = 0
    for i in range(nmeld):
        t = melds[i, 0]
        if t == M_KONG or t == M_ADDKONG:
            ming += 1
        elif t == M_ANKONG:
            an += 1
    ctx[S_MING] = ming
    ctx[S_AN] = an
    ctx[S_GOLDS] = w
    robbed = ctx[X_ROB_INDICATOR]
    bits = np.int64(0)
    if ctx[X_OPENING_WIN] == 1 and winner == dealer and robbed == 0 and wt != WIN_DISCARD:
        if rest_distance(h, sets, np.bool_(True), tab) <= w:
            bits |= 1 << P_TIANHU
    if ctx[X_FIRST_TURN] == 1 and wt == WIN_DISCARD and ctx[X_DISCARDER] == dealer:
        bits |= 1 << P_DIHU
    if robbed == 1:
        bits |= 1 << P_QIANGJIN
    if w - robbed >= SANJIN:
        bits |= 1 << P_SANJINDAO
    if jinque(h, w, sets, tab):
        bits |= 1 << P_JINQUE
    if jinlong(h, w, sets, tab):
        bits |= 1 << P_JINLONG
    flowers = ctx[X_FLOWERS + winner]
    if ming + an == 0:
        if flowers + w == 0:
            bits |= 1 << P_WUHUA
        elif flowers + w == 1:
            bits |= 1 << P_YIZHANGHUA
    level = ctx[X_YOUJIN + winner]
    if level == 1:
        bits |= 1 << P_DANYOU
    elif level == 2:
        bits |= 1 << P_SHUANGYOU
    elif level >= 3:
        bits |= 1 << P_SANYOU
    if wt == WIN_ROB_KONG:
        bits |= 1 << P_QIANGGANG
    return bits


@kernel
def win_priority(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Claim priority of a discard win: 1 for 金雀 (beats nearer seats), else 0."""
    return 1 if jinque(h, w, sets, tab) else 0


@kernel
def special_value(rules, bits):
    """The single largest special of the hand under the formula (0 or 1 if none)."""
    formula = rules[F_FORMULA]
    best = 1 if formula == FORMULA_MULTIPLIER else 0
    for i in range(N_PATTERNS):
        if (bits >> i) & 1:
            v = rules[F_SPECIAL + i]
            if v > best:
                best = v
    return best


@kernel
def youjin_multiplier(rules, bits):
    """游金 multiplier of X (1 unless the winner 游ed)."""
    if (bits >> P_SANYOU) & 1:
        return rules[F_YOU_MULT + 2]
    if (bits >> P_SHUANGYOU) & 1:
        return rules[F_YOU_MULT + 1]
    if (bits >> P_DANYOU) & 1:
        return rules[F_YOU_MULT + 0]
    return 1


@kernel
def lianzhuang(rules, ctx):
    """连庄数: the dealer's consecutive wins before this deal, and under F_DRAW_ADDS the
    drawn deals he kept among them too (his streak).
    """
    return ctx[X_STREAK] if rules[F_DRAW_ADDS] == 1 else ctx[X_DEALER_WINS]


@kernel
def amount(rules, ctx, bits):
    """Per-payer amount X of the win and the special counted: ``(x, special)``.

    QQ/同城游: X = (底 5 + 花番 + 金 + 连庄数) × 2 + the largest special.
    新修订: (底番 1 + 花番 + 金 + 连庄数) × (2 on a self-draw) + the largest special.
    multiplier: (底 1 + 花番 + 金 + 连庄数) × (2 on a self-draw) × the largest multiplier.
    花番 = flowers (a set of four counts 6) + 明杠 + 2·暗杠; then × the 游金 multiplier.
    The 底 (F_BASE), the specials and the 游金 multipliers are the payout options'.
    """
    winner = ctx[X_WINNER]
    huafan = flower_points(ctx, winner) + ctx[S_MING] + 2 * ctx[S_AN]
    base = huafan + ctx[S_GOLDS] + lianzhuang(rules, ctx)
    wt = ctx[X_WIN_TYPE]
    self_draw = wt != WIN_DISCARD and wt != WIN_ROB_KONG
    special = special_value(rules, bits)
    formula = rules[F_FORMULA]
    if formula == FORMULA_QQ:
        x = (rules[F_BASE] + base) * 2 + special
    elif formula == FORMULA_XINXIUDING:
        x = (rules[F_BASE] + base) * (2 if self_draw else 1) + special
    else:
        x = (rules[F_BASE] + base) * (2 if self_draw else 1) * special
    return x * youjin_multiplier(rules, bits), special


@kernel
def settle(rules, ctx, pay, bits, players, delta, extra):
    """Payments of a deal into ``delta`` and the extra columns; returns X (0 if drawn).

    A discard win (a robbed 补杠 included) is paid by the discarder alone, a self-draw
    (三金倒, 抢金, 天胡 and last-group wins included) by each other seat; under 新修订 each
    other seat pays on every win. A drawn deal pays nothing.
    """
    winner = ctx[X_WINNER]
    for i in range(extra.shape[0]):
        extra[i] = 0
    extra[E_LIANZHUANG] = lianzhuang(rules, ctx)
    extra[E_DEALER_WINS] = ctx[X_DEALER_WINS]
    extra[E_KONGS] = ctx[X_MINGKONGS] + ctx[X_ANKONGS]
    extra[E_RESERVE] = ctx[X_RESERVE]
    extra[E_GOLD_DISCARDS] = ctx[X_WILD_DISCARDS]
    extra[E_LAST_GROUP] = ctx[X_LAST_GROUP]
    extra[E_JIN] = ctx[X_WILD0]
    extra[E_DEAL_MAX_GOLDS] = ctx[X_DEAL_MAX_WILDS]
    if winner < 0:
        return 0
    x, special = amount(rules, ctx, bits)
    extra[E_FLOWERS] = ctx[X_FLOWERS + winner]
    extra[E_HUAFAN] = flower_points(ctx, winner) + ctx[S_MING] + 2 * ctx[S_AN]
    extra[E_GOLDS] = ctx[S_GOLDS]
    extra[E_YOUJIN] = ctx[X_YOUJIN + winner]
    extra[E_SPECIAL] = special
    wt = ctx[X_WIN_TYPE]
    if (wt == WIN_DISCARD or wt == WIN_ROB_KONG) and rules[F_FORMULA] != FORMULA_XINXIUDING:
        pay[ctx[X_DISCARDER], winner] += x
    else:
        for s in range(players):
            if s != winner:
                pay[s, winner] += x
    for p in range(players):
        for q in range(players):
            delta[q] += pay[p, q]
            delta[p] -= pay[p, q]
    return x


@kernel
def restore(rules, ctx, pay, row):
    """What :func:`settle` reads, from a record row (re-scoring): the deal's slots, the
    winner's flowers, 花番, golds and 游金 level, and the deal's counts as recorded; the
    pattern bits are the record's (no payout option moves them). The 花番 beyond one a
    flower (sets of four, kongs) goes to S_MING, which :func:`amount` adds the same.
    """
    bits = row_context(ctx, row)
    x = row[C_EXTRA:]
    winner = ctx[X_WINNER]
    ctx[X_DEALER_WINS] = x[E_DEALER_WINS]
    ctx[X_MINGKONGS] = x[E_KONGS]
    ctx[X_RESERVE] = x[E_RESERVE]
    ctx[X_WILD_DISCARDS] = x[E_GOLD_DISCARDS]
    ctx[X_LAST_GROUP] = x[E_LAST_GROUP]
    ctx[X_WILD0] = x[E_JIN]
    ctx[X_DEAL_MAX_WILDS] = x[E_DEAL_MAX_GOLDS]
    if winner >= 0:
        ctx[X_FLOWERS + winner] = x[E_FLOWERS]
        ctx[S_MING] = x[E_HUAFAN] - x[E_FLOWERS]
        ctx[S_GOLDS] = x[E_GOLDS]
        ctx[X_YOUJIN + winner] = x[E_YOUJIN]
    return bits
