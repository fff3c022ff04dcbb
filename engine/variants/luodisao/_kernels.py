"""祁阳落地扫 (luodisao) scoring kernels: wins, 醒, 囤, 番, payments (numba). Kernels only.

The patterns are declared here, beside their detectors (:data:`PATTERNS`): each one's
bit, the seed's 番 table (:data:`FAN_DEFAULTS`, from each pattern's ``value``) and the
packed factors (the 字牌 layout's ``Z_F`` block, one slot per pattern) follow that
declaration; the variant's own slots (``Z_HONG_*``) are inside the block the layout
leaves to it. The hooks at the end write the extra record columns (:data:`EXTRAS`) and
give the bots the prices they read from these patterns.

RULEBOOK §4.5-4.6, as implemented here (the variant docstring states the decisions):

- **囤** = 胡息 + 3 × 醒 (rule 20); ``value`` = 囤 × 番 is what each payer owes before a
  cap (``Z_CAP``).
- **醒** (rule 21): the cards of the 醒 kind among all the winner's cards (hand, table,
  the winning card), each 王 standing for that kind counting too (rule 15); doubled
  under 双醒. Which kind: :func:`xing_kind`.
- **番** (rule 22): win method ``M`` (a discard or another player's flipped card 1,
  自摸 2, or the 王 factor of rule 19 instead of 自摸), colour ``C`` (黑胡 0 red 4, 一点朱
  1 red 3, 红胡 7-9 red 2, 全红 more than 9 red 4, else 1) and 地胡 2, multiplied (or
  added under ``Z_FAN_ADD``: the sum of the factors above 1, at least 1). 天胡 takes only
  its largest single factor, max(2, C), never with 自摸 or a 王 factor.
- **Best reading**: the winner's cards may split several ways; the scorer takes the
  split (and, with 王, what each 王 stands for, and the 醒 kind a 王 醒 card names) with
  the highest value under the seed's table (:data:`FAN_DEFAULTS`
  multiplied, 3 囤 per 醒 before 双醒), then the most 胡息, and pays that reading under
  the packed table (``Z_F``, ``Z_FAN_ADD``, ``Z_TUN_PER_XING``, ``Z_SHUANGXING``). Under
  the default rules that is the reading of highest ``value``; under other payout rules
  the reading stays the one the seed's table prefers, so a win's recorded 胡息, 醒, red
  cards and patterns never depend on the payout options (a re-score is exact). A win
  on a card that can also join a table group (啸 -> 倾 / 跑, 碰 -> 跑) is scored both
  ways where both are legal. The 王 shapes (王钓, 王闯, 王炸) are readings of
  a self-draw: the concealed cards less 1, 2 or 3 王 form every other 门子 (no pair
  besides a 王钓's), and the 王 with the drawn card form the last one.

Arrays: ``counts`` int64 (20,) concealed real cards before the winning card; ``tcnt``
int64 (20,) the winner's table cards per kind; ``out`` int64 (:data:`N_OUT`,) the best
reading (``O_*``). Card codes: 0..19 kinds, 20 王, -1 none.
"""

from __future__ import annotations

import numpy as np

from engine import abi
from engine.jit.njit import kernel
from engine.zipai import layout as Z
from engine.zipai.huxi import (
    MAX_KINGS,
    RED,
    WAIT_ANY,
    WANG,
    _evaluate_core,
    _wang_values_x_into,
    score_scratch,
    wait_search,
)
from engine.zipai.huxi import packed_values as _values
from engine.zipai.huxi import upgrade_delta as _upgrade_delta
from engine.zipai.layout import (
    HOW_DISCARD,
    HOW_FLIP,
    HOW_SELF,
    HOW_TIANHU,
    N_OUT,
    O_BITS,
    O_FAN,
    O_HUXI,
    O_RED,
    O_SEED,
    O_SHAPE,
    O_TUN,
    O_UPGRADE,
    O_VALUE,
    O_XING,
    O_XK,
    O_XRAW,
    T_CHOUXIAO,
    T_XIAO,
    Z_CAP,
    Z_FAN_ADD,
    Z_HZ_PER_WANG,
    Z_HZ_POOL,
    Z_MIN_HUXI,
    Z_SHUANGXING,
    Z_TUN_PER_XING,
    Z_XING,
)
from engine.zipai.strong import derive_values as _derive_values

from .._base import Extra, Pattern, big_mask, extra_index, pattern_bits

# ---- the patterns: one declaration each (record column pat_<name>, bit = place) -----
PATTERNS = (
    Pattern("tianhu", "天胡", "The dealer's dealt cards win; its single largest factor (2).", True,
            value=2),
    Pattern("dihu", "地胡", "A non-dealer wins on the dealer's first discard (×2).", True, value=2),
    Pattern("zimo", "自摸", "Won on a card the winner turned up (×2; not with 王 wins).", value=2),
    Pattern("honghu", "红胡", "7-9 red cards among all the winner's cards (×2).", value=2),
    Pattern("yidianzhu", "一点朱", "Exactly one red card (×3).", value=3),
    Pattern("quanhong", "全红", "More than 9 red cards (×4).", True, value=4),
    Pattern("heihu", "黑胡", "No red card (×4).", True, value=4),
    Pattern("wangdiao", "王钓", "Self-draw pairing a lone 王, all else formed (×4).", value=4),
    Pattern("wangdiaowang", "王钓王", "王钓 completed by a 王 (×8).", True, value=8),
    Pattern("wangchuang", "王闯", "Self-draw joining two 王 as the last 门子 (×8).", True, value=8),
    Pattern("wangchuangwang", "王闯王", "王闯 completed by a 王 (×16).", True, value=16),
    Pattern("wangzha", "王炸", "Self-draw joining three 王 as four alike (×16).", True, value=16),
    Pattern("wangzhawang", "王炸王", "王炸 completed by the fourth 王 (×32).", True, value=32),
)  # fmt: skip
"""The scoring patterns, in bit order; ``value`` is the seed's 番 factor (RULEBOOK §4.6
rule 22, §4.5 rule 19)."""
BIT = pattern_bits(PATTERNS)
"""Bit number of each pattern by name."""
BIG_MASK = big_mask(PATTERNS)
"""The bits of the big hands."""
N_PATTERNS = len(PATTERNS)
P_TIANHU = BIT["tianhu"]
P_DIHU = BIT["dihu"]
P_ZIMO = BIT["zimo"]
P_HONGHU = BIT["honghu"]
P_YIDIANZHU = BIT["yidianzhu"]
P_QUANHONG = BIT["quanhong"]
P_HEIHU = BIT["heihu"]
P_WANGDIAO = BIT["wangdiao"]
P_WANGDIAOWANG = BIT["wangdiaowang"]
P_WANGCHUANG = BIT["wangchuang"]
P_WANGCHUANGWANG = BIT["wangchuangwang"]
P_WANGZHA = BIT["wangzha"]
P_WANGZHAWANG = BIT["wangzhawang"]
FAN_DEFAULTS = tuple(p.value for p in PATTERNS)
"""The seed's factors, in pattern bit order. They are the defaults of the ``pay_*``
options and, with :data:`TUN_PER_XING_SEED`, the table that chooses a win's reading: the
packed factors ``Z_F`` only price it."""
TUN_PER_XING_SEED = 3
"""囤 per 醒 of the seed (RULEBOOK §4.6 rule 20), used with :data:`FAN_DEFAULTS` to choose
the reading."""

KERNEL_ID = 1
"""This variant's id in ``rules[Z_VARIANT]``: the 字牌 loop calls this module's hook
kernels for it (engine.play.zipai.hooks)."""

# ---- the extra record columns: one declaration each (index = place) -------------------
EXTRAS = (
    Extra("huxi", doc="The winning hand's 胡息."),
    Extra("xing", doc="The 醒 count (doubled under 双醒)."),
    Extra("tun", doc="囤 = huxi + tun_per_xing × xing."),
    Extra("fan", doc="The 番 factor."),
    Extra("red", doc="Red cards of the winner."),
    Extra("win_on_flip", doc="1: won on a card another player flipped (every other "
          "player pays)."),
    Extra("capped", doc="A cap cut a payment."),
    Extra("zuoxing", doc="The seat sitting out (坐醒), -1."),
    Extra("zuoxing_money", doc="The 坐醒 seat's money."),
    Extra("wang_money", 4, "黄庄 王 payments per seat (also in the deltas)."),
    Extra("qing", doc="倾 made in the deal."),
    Extra("xiao", doc="啸 made in the deal."),
    Extra("chouxiao", doc="臭啸 made in the deal."),
    Extra("pao", doc="跑 made in the deal."),
    Extra("mingpao", doc="冲明跑 in the deal."),
    Extra("sishou", doc="死守 turns."),
    Extra("guozhang", doc="Passed claims (过张)."),
    Extra("stock_left", doc="Cards left in the stock."),
    Extra("xing_card", doc="The card the 醒 was counted on: 0..19, 20 王, -1."),
    Extra("wang_held", doc="A re-score's input: on a 黄庄 the 王 each seat held, seat s's "
          "count × 10**s; 0 on a win."),
    Extra("xing_raw", doc="A re-score's input: the 醒 count before 双醒 doubles it (0 on "
          "a 黄庄)."),
)  # fmt: skip
"""The extra record columns, in index order (the ``X_*`` indices below are read from here,
in this order: tests/engine/variants/test_extras.py checks each name against its extra)."""
(X_HUXI, X_XING, X_TUN, X_FAN, X_RED, X_ON_FLIP, X_CAPPED, X_ZUOXING, X_ZUOXING_MONEY,
 X_WANG_MONEY, X_QING, X_XIAO, X_CHOUXIAO, X_PAO, X_MINGPAO, X_SISHOU, X_GUOZHANG,
 X_STOCK_LEFT, X_XING_CARD, X_WANG_HELD, X_XING_RAW) = extra_index(EXTRAS).values()  # fmt: skip

# ---- this variant's rule slots (inside the 字牌 layout's variant block) ---------------
if N_PATTERNS != Z.N_FAN:  # pragma: no cover - a pattern added without growing the block
    raise ImportError(f"engine.zipai.layout.N_FAN is {Z.N_FAN}, luodisao has {N_PATTERNS} patterns")
Z_F = Z.Z_F
"""The 番 factor of each pattern, in pattern bit order (``P_*``): the 字牌 layout's block
(the strong policy's fit records it, engine.zipai.params ``strong.fit_rules``)."""
VAR = Z.RULES.sub("var", "luodisao rules")
Z_HONG_LO = VAR.block("hong_lo")
"""Fewest red cards of 红胡 (7)."""
Z_HONG_HI = VAR.block("hong_hi")
"""Most red cards of 红胡 (9); more are 全红."""

SEED_F = np.array(FAN_DEFAULTS, np.int64)
"""The seed's 番 factors (pattern bit order), the table that chooses a reading."""


@kernel(inline="always")
def _colour(rules, f, off, red):
    """Colour factor and pattern bit of a red count (bit -1: no colour factor), with the
    factors ``f[off + P_*]`` (the packed ``rules`` at ``Z_F``, or :data:`SEED_F` at 0).
    """
    if red == 0:
        return f[off + P_HEIHU], P_HEIHU
    if red == 1:
        return f[off + P_YIDIANZHU], P_YIDIANZHU
    if red > rules[Z_HONG_HI]:
        return f[off + P_QUANHONG], P_QUANHONG
    if red >= rules[Z_HONG_LO]:
        return f[off + P_HONGHU], P_HONGHU
    return 1, -1


@kernel(refcount=False)
def _fan(rules, f, off, add, m_bit, red, tian, di):
    """番 and pattern bits of a reading: win method bit ``m_bit`` (-1: a discard or another
    player's flip, factor 1), colour of ``red``, factors ``f[off + P_*]``, added (``add``)
    or multiplied.

    天胡 (``tian``) uses its single largest factor; 地胡 (``di``) multiplies (or adds).
    """
    c, cbit = _colour(rules, f, off, red)
    bits = 0
    if cbit >= 0:
        bits |= 1 << cbit
    if tian:
        bits |= 1 << P_TIANHU
        t = f[off + P_TIANHU]
        return max(t, c), bits
    m = 1
    if m_bit >= 0:
        bits |= 1 << m_bit
        m = f[off + m_bit]
    t = 1
    if di:
        t = f[off + P_DIHU]
        bits |= 1 << P_DIHU
    if add:
        s = 0
        if m > 1:
            s += m
        if c > 1:
            s += c
        if t > 1:
            s += t
        return max(s, 1), bits
    return m * c * t, bits


@kernel(refcount=False)
def _consider(rules, best2, hbase, red_base, xreal, xmin, m_bit, tian, di, xk, out):
    """Score every (red 王, 醒 王) reading of ``best2``; keep in ``out`` the best under the
    seed's table (:data:`SEED_F` multiplied, 3 囤 per 醒 before 双醒; ties: the most
    胡息, then the first found), paid under the packed table.

    Returns True if ``out`` changed.
    """
    changed = False
    for j in range(best2.shape[0]):
        for x in range(best2.shape[1]):
            b = best2[j, x]
            if b < 0 or x < xmin:
                continue
            h = b + hbase
            if h < rules[Z_MIN_HUXI]:
                continue
            xraw = xreal + x
            red = red_base + j
            sfan, bits = _fan(rules, SEED_F, np.int64(0), np.int64(0), m_bit, red, tian, di)
            seed = (h + TUN_PER_XING_SEED * xraw) * sfan
            if seed > out[O_SEED] or (seed == out[O_SEED] and h > out[O_HUXI]):
                xing = 2 * xraw if rules[Z_SHUANGXING] else xraw
                tun = h + rules[Z_TUN_PER_XING] * xing
                fan, bits = _fan(
                    rules, rules, np.int64(Z_F), rules[Z_FAN_ADD], m_bit, red, tian, di
                )
                out[O_VALUE] = tun * fan
                out[O_SEED] = seed
                out[O_HUXI] = h
                out[O_XING] = xing
                out[O_XRAW] = xraw
                out[O_TUN] = tun
                out[O_FAN] = fan
                out[O_RED] = red
                out[O_BITS] = bits
                out[O_XK] = xk
                changed = True
    return changed


@kernel(refcount=False)
def can_win(rules, values, wvx0, counts, kings, ntab, th, cand, how, up, ws, best2):
    """Whether the cards win with ``cand`` arriving ``how`` (no scoring; 醒 untracked).

    ``up``: the type of the winner's table group of the card's kind (0 none). A 王 holder
    may win only on his own flip; the caller checks that.
    """
    need = 5 - ntab
    if need < 0:
        return False
    floor = rules[Z_MIN_HUXI] - th
    cself = 1 if how == HOW_SELF or how == HOW_TIANHU else 0
    forced_qing = how == HOW_SELF and (up == T_XIAO or up == T_CHOUXIAO)
    if not forced_qing:
        _evaluate_core(
            counts, kings, need, cand, cself, np.int64(1), np.int64(-1), values, wvx0, best2, ws
        )
        for j in range(best2.shape[0]):
            if best2[j, 0] >= 0 and best2[j, 0] >= floor:
                return True
    dh = _upgrade_delta(values, up, how, cand)
    if dh >= 0:
        _evaluate_core(counts, kings, need, np.int64(-1), np.int64(1), np.int64(1), np.int64(-1),
                       values, wvx0, best2, ws)  # fmt: skip
        for j in range(best2.shape[0]):
            if best2[j, 0] >= 0 and best2[j, 0] >= floor - dh:
                return True
    return False


@kernel(refcount=False)
def wait_kinds(rules, values, wvx0, counts, kings, ntab, th, ws, best2):
    """The kinds whose card wins on the player's own flip (:func:`can_win`, ``HOW_SELF``,
    no table group of its kind), as a bit set, with ``WAIT_ANY`` when a 王 does; right for
    the kinds held fewer than three times (the game loop asks :func:`can_win` for the
    others).

    One search with a 王 added answers for every kind (engine.zipai.huxi
    ``wait_search``: a card of a kind wins exactly when a 王 standing for it does). With
    four 王 held, one 王 arriving makes five, which may form two groups of 王 alone: then
    :func:`can_win` answers kind by kind.
    """
    if kings <= 3:
        return wait_search(counts, kings, 5 - ntab, rules[Z_MIN_HUXI] - th, values, wvx0, best2,
                           ws)  # fmt: skip
    out = np.int64(0)
    if can_win(rules, values, wvx0, counts, kings, ntab, th, np.int64(WANG), np.int64(HOW_SELF),
               np.int64(0), ws, best2):  # fmt: skip
        out = WAIT_ANY
        for x in range(20):
            if can_win(rules, values, wvx0, counts, kings, ntab, th, np.int64(x),
                       np.int64(HOW_SELF), np.int64(0), ws, best2):  # fmt: skip
                out |= np.int64(1) << x
    return out


@kernel
def _score_win(
    rules,
    counts,
    kings,
    ntab,
    th,
    tr,
    tcnt,
    cand,
    how,
    up,
    di,
    xk_fixed,
    xk_any,
    xmin,
    ws,
    out,
):
    """Best reading of a win (module docstring); fills ``out``, ``out[O_VALUE]`` -1 if none.

    ``cand``: the winning card (-1 for 天胡); ``how``: ``HOW_*``; ``up``: the winner's
    table group type of the card's kind (0 none); ``di``: 地胡; 醒 kind ``xk_fixed``, or
    any kind the winner chooses (``xk_any``, a 王 醒 card) with at least ``xmin`` 王
    standing for it (1 when the 醒 card is a 王 in his own hand).

    Makes its own work arrays; the game loop calls :func:`score_win_into` with the
    match's (:func:`score_scratch`).
    """
    sq, wvx, gcounts = score_scratch()
    score_win_into(
        rules, _values(rules), counts, kings, ntab, th, tr, tcnt, cand, how, up, di,
        xk_fixed, xk_any, xmin, ws, out, sq, wvx, gcounts,
    )  # fmt: skip


@kernel(refcount=False)
def score_win_into(
    rules,
    values,
    counts,
    kings,
    ntab,
    th,
    tr,
    tcnt,
    cand,
    how,
    up,
    di,
    xk_fixed,
    xk_any,
    xmin,
    ws,
    out,
    sq,
    wvx,
    gcounts,
):
    """:func:`_score_win` with the 胡息 table ``values`` (``packed_values``) and the
    work arrays of ``score_scratch`` (engine.zipai.huxi) given (``gcounts`` all zero, and left so).
    """
    need = 5 - ntab
    for i in range(N_OUT):
        out[i] = -1
    out[O_SHAPE] = 0
    out[O_UPGRADE] = 0
    if need < 0:
        return
    best2 = sq[0]
    rest = sq[1]
    grp = sq[2]
    comb = sq[3]
    real = 0 <= cand < WANG
    red_base = tr
    for k in range(20):
        red_base += RED[k] * counts[k]
    if real:
        red_base += RED[cand]
    tian = how == HOW_TIANHU
    cself = 1 if how == HOW_SELF or tian else 0
    m_bit = P_ZIMO if how == HOW_SELF else -1
    forced_qing = how == HOW_SELF and (up == T_XIAO or up == T_CHOUXIAO)
    dh = _upgrade_delta(values, up, how, cand)
    shapes = (
        how == HOW_SELF
        and kings >= 1
        and need >= 1
        and not forced_qing
        and not (real and counts[cand] == 3)
    )
    lo = 0 if xk_any else xk_fixed
    hi = 20 if xk_any else xk_fixed + 1
    if not xk_any and xk_fixed < 0:
        lo, hi = -1, 0
    for xk in range(lo, hi):
        _wang_values_x_into(values, xk, wvx)
        xreal = 0
        if xk >= 0:
            xreal = counts[xk] + tcnt[xk] + (1 if cand == xk else 0)
        if not forced_qing:
            _evaluate_core(
                counts, kings, need, cand, cself, np.int64(1), xk, values, wvx, best2, ws
            )
            if _consider(rules, best2, th, red_base, xreal, xmin, m_bit, tian, di, xk, out):
                out[O_SHAPE] = 0
                out[O_UPGRADE] = 0
        if dh >= 0:
            _evaluate_core(counts, kings, need, np.int64(-1), np.int64(1), np.int64(1), xk, values,
                           wvx, best2, ws)  # fmt: skip
            if _consider(rules, best2, th + dh, red_base, xreal, xmin, m_bit, tian, di, xk, out):
                out[O_SHAPE] = 0
                out[O_UPGRADE] = 1
        if not shapes:
            continue
        for L in range(1, min(kings, 3) + 1):
            pair_ok = 0 if L == 1 else 1
            _evaluate_core(counts, kings - L, need - 1, np.int64(-1), np.int64(1), pair_ok, xk,
                           values, wvx, rest, ws)  # fmt: skip
            if cand == WANG:
                for r in range(MAX_KINGS + 1):
                    for x in range(MAX_KINGS + 1):
                        grp[r, x] = wvx[L + 1, r, x] if L + 1 <= 4 else -1
            else:
                gcounts[cand] = 1
                _evaluate_core(gcounts, L, np.int64(1), np.int64(-1), np.int64(1), np.int64(1), xk,
                               values, wvx, grp, ws)  # fmt: skip
                gcounts[cand] = 0
            for a in range(MAX_KINGS + 1):
                for b in range(MAX_KINGS + 1):
                    comb[a, b] = -1
            for j1 in range(MAX_KINGS + 1):
                for x1 in range(MAX_KINGS + 1):
                    if rest[j1, x1] < 0:
                        continue
                    for j2 in range(MAX_KINGS + 1 - j1):
                        for x2 in range(MAX_KINGS + 1 - x1):
                            if grp[j2, x2] < 0:
                                continue
                            v = rest[j1, x1] + grp[j2, x2]
                            if v > comb[j1 + j2, x1 + x2]:
                                comb[j1 + j2, x1 + x2] = v
            if L == 1:
                bit = P_WANGDIAOWANG if cand == WANG else P_WANGDIAO
            elif L == 2:
                bit = P_WANGCHUANGWANG if cand == WANG else P_WANGCHUANG
            else:
                bit = P_WANGZHAWANG if cand == WANG else P_WANGZHA
            if _consider(rules, comb, th, red_base, xreal, xmin, bit, tian, di, xk, out):
                out[O_SHAPE] = L
                out[O_UPGRADE] = 0


@kernel
def xing_kind(rules, win_card, flip_card):
    """The 醒 kind (rule 21): ``(xk, any, xmin)``.

    跟醒: the winning card; 翻醒: the card turned up after the win (``flip_card``, the
    winning card when the stock is empty); 上醒 / 下醒: the rank above / below the turned
    card in its size, wrapping (拾 -> 壹). A 王 as the 醒 card stands for the kind that
    suits the winner best (``any``); the winning 王 itself must stand for it (``xmin``).
    """
    mode = rules[Z_XING]
    if mode == 0:
        if win_card == WANG:
            return -1, True, 1
        return win_card, False, 0
    if flip_card == WANG:
        return -1, True, 0
    if mode == 1 or flip_card < 0:
        return flip_card, False, 0
    size = flip_card // 10
    rank = flip_card % 10
    if mode == 2:
        rank = (rank + 1) % 10
    else:
        rank = (rank + 9) % 10
    return size * 10 + rank, False, 0


@kernel(refcount=False)
def pay_win(rules, seats, active, winner, how, feeder, value, xing, fan, zx, delta):
    """Payments of a win into ``delta (4,)``; returns ``(capped, zuoxing_money)``.

    自摸, 天胡 and a win on another player's flipped card: every other active seat pays
    ``value`` (at most the cap). A discard: the discarder pays ``value`` for every other
    active seat (包赔), at most the cap in all. 坐醒: the winner gives the sitting-out
    seat half of the 醒 part of one payment, ``(3 × 醒 × 番) // 2`` (the 祁阳 server's
    DivideXingScore).
    """
    cap = rules[Z_CAP]
    capped = 0
    for s in range(4):
        delta[s] = 0
    if how == HOW_DISCARD:
        payers = 0
        for s in range(seats):
            if active[s] and s != winner:
                payers += 1
        amount = value * payers
        if cap > 0 and amount > cap:
            amount = cap
            capped = 1
        delta[feeder] -= amount
        delta[winner] += amount
    else:
        for s in range(seats):
            if active[s] and s != winner:
                amount = value
                if cap > 0 and amount > cap:
                    amount = cap
                    capped = 1
                delta[s] -= amount
                delta[winner] += amount
    zmoney = 0
    if zx >= 0:
        zmoney = (rules[Z_TUN_PER_XING] * xing * fan) // 2
        delta[winner] -= zmoney
        delta[zx] += zmoney
    return capped, zmoney


@kernel(refcount=False)
def pay_huangzhuang(rules, seats, active, dealer, kings, delta, money):
    """黄庄 王 payments (rule 24) into ``delta`` and ``money`` (both (4,)).

    Pairwise (default): for every pair of active seats, the one with more 王 pays
    ``5 × difference`` to the other. Pooled: every 王 holder pays 5 per 王 and the total
    is split among the active seats holding none; a remainder goes one point each to the
    first of them in turn order from the dealer.
    """
    per = rules[Z_HZ_PER_WANG]
    for s in range(4):
        money[s] = 0
    if rules[Z_HZ_POOL] == 0:
        for a in range(seats):
            for b in range(a + 1, seats):
                if not (active[a] and active[b]):
                    continue
                d = kings[a] - kings[b]
                money[a] -= per * d
                money[b] += per * d
    else:
        total = 0
        zero = 0
        for s in range(seats):
            if active[s]:
                total += per * kings[s]
                if kings[s] == 0:
                    zero += 1
        if zero > 0 and total > 0:
            base = total // zero
            rem = total - base * zero
            for i in range(seats):
                s = (dealer + i) % seats
                if not active[s]:
                    continue
                if kings[s] > 0:
                    money[s] -= per * kings[s]
                else:
                    money[s] += base
                    if rem > 0:
                        money[s] += 1
                        rem -= 1
    for s in range(4):
        delta[s] = money[s]


_METHOD_BITS = np.array(
    [P_ZIMO, P_WANGDIAO, P_WANGDIAOWANG, P_WANGCHUANG, P_WANGCHUANGWANG, P_WANGZHA, P_WANGZHAWANG],
    np.int64,
)
"""The win method's pattern bits (自摸, or the 王 shape that replaces it): at most one."""


@kernel
def settle_row(rules, row):
    """A recorded deal paid again under the packed ``rules`` (re-scoring,
    engine.play.zipai.rescore), in place: the reading (胡息, 醒 before 双醒, red cards,
    win method, 天胡 / 地胡) is the record's, which no payout option moves; the 番 and the
    colour flag by :func:`_fan`, 囤 and the value, and the payments by :func:`pay_win`,
    or on a 黄庄 by :func:`pay_huangzhuang` from the 王 each seat held, as in play.
    """
    seats = rules[Z.Z_SEATS]
    x = row[abi.C_EXTRA :]
    zx = x[X_ZUOXING]
    active = np.zeros(4, np.int64)
    for s in range(seats):
        active[s] = 1 if s != zx else 0
    delta = np.zeros(4, np.int64)
    winner = row[abi.C_WINNER]
    if winner < 0:
        kings = np.zeros(4, np.int64)
        held = x[X_WANG_HELD]
        for s in range(seats):
            kings[s] = (held // 10**s) % 10
        money = np.zeros(4, np.int64)
        pay_huangzhuang(rules, seats, active, row[abi.C_DEALER], kings, delta, money)
        for s in range(4):
            row[abi.C_DELTA + s] = delta[s]
            x[X_WANG_MONEY + s] = delta[s]
        return
    bits = (row[abi.C_PAT_LO] & 0x7FFFFFFF) | ((row[abi.C_PAT_HI] & 0x7FFFFFFF) << 31)
    m_bit = -1
    for b in _METHOD_BITS:
        if (bits >> b) & 1:
            m_bit = b
    tian = (bits >> P_TIANHU) & 1 == 1
    di = (bits >> P_DIHU) & 1 == 1
    fan, bits = _fan(rules, rules, np.int64(Z_F), rules[Z.Z_FAN_ADD], m_bit, x[X_RED], tian, di)
    xraw = x[X_XING_RAW]
    xing = 2 * xraw if rules[Z.Z_SHUANGXING] else xraw
    tun = x[X_HUXI] + rules[Z.Z_TUN_PER_XING] * xing
    value = tun * fan
    wt = row[abi.C_WIN_TYPE]
    if wt == abi.WIN_INSTANT:
        how = HOW_TIANHU
    elif wt != abi.WIN_DISCARD:
        how = HOW_SELF
    elif x[X_ON_FLIP] == 1:
        how = HOW_FLIP
    else:
        how = HOW_DISCARD
    capped, zm = pay_win(rules, seats, active, winner, how, row[abi.C_DISCARDER], value, xing, fan,
                          zx, delta)  # fmt: skip
    row[abi.C_VALUE] = value
    row[abi.C_PAT_LO] = bits & 0x7FFFFFFF
    row[abi.C_PAT_HI] = (bits >> 31) & 0x7FFFFFFF
    for s in range(4):
        row[abi.C_DELTA + s] = delta[s]
    x[X_XING] = xing
    x[X_TUN] = tun
    x[X_FAN] = fan
    x[X_CAPPED] = capped
    x[X_ZUOXING_MONEY] = zm


# ---- the record and the bots' prices: hooks of the 字牌 loop (engine.play.zipai.hooks) ----
@kernel(refcount=False)
def record_win(rules, rec, out, how, capped, zmoney, xing_card):
    """A win's extras into the record row ``rec``: the reading ``out`` (``O_*``) scored,
    whether it came on another player's flip (``how``), the payments' cap and 坐醒 money
    (what :func:`pay_win` returned) and the card the 醒 was counted on.
    """
    x = abi.C_EXTRA
    rec[x + X_HUXI] = out[O_HUXI]
    rec[x + X_XING] = out[O_XING]
    rec[x + X_XING_RAW] = out[O_XRAW]
    rec[x + X_TUN] = out[O_TUN]
    rec[x + X_FAN] = out[O_FAN]
    rec[x + X_RED] = out[O_RED]
    rec[x + X_ON_FLIP] = 1 if how == HOW_FLIP else 0
    rec[x + X_CAPPED] = capped
    rec[x + X_ZUOXING_MONEY] = zmoney
    rec[x + X_XING_CARD] = xing_card


@kernel(refcount=False)
def record_deal(rules, ctx, rec, winner, kings_held):
    """The deal's extras into the record row ``rec`` at its end, from the deal's scalars
    ``ctx`` (``K_*`` of engine.zipai.layout): the 坐醒 seat, the counts of 倾, 啸, 臭啸, 跑,
    冲明跑, 死守 and 过张, the stock left; on a 黄庄 (``winner`` < 0) the 王 payments (the
    deltas the loop wrote) and the 王 each seat held (``kings_held``), and no 醒 card.
    """
    x = abi.C_EXTRA
    rec[x + X_ZUOXING] = ctx[Z.K_ZX]
    if winner < 0:
        held = 0
        for s in range(4):
            rec[x + X_WANG_MONEY + s] = rec[abi.C_DELTA + s]
            held += kings_held[s] * 10**s
        rec[x + X_WANG_HELD] = held
    rec[x + X_QING] = ctx[Z.K_QING]
    rec[x + X_XIAO] = ctx[Z.K_XIAO]
    rec[x + X_CHOUXIAO] = ctx[Z.K_CHOU]
    rec[x + X_PAO] = ctx[Z.K_PAO]
    rec[x + X_MINGPAO] = ctx[Z.K_MINGPAO]
    rec[x + X_SISHOU] = ctx[Z.K_SISHOU]
    rec[x + X_GUOZHANG] = ctx[Z.K_GUO]
    rec[x + X_STOCK_LEFT] = ctx[Z.K_NCARDS] - ctx[Z.K_PTR]
    if winner < 0:
        rec[x + X_XING_CARD] = -1


@kernel(refcount=False)
def colour_aim(rules):
    """The value bot's colour aims under the packed factors (engine.zipai.bots.colour_weight):
    the larger of 黑胡's and 一点朱's (few red cards), and 红胡's (many).
    """
    return max(rules[Z_F + P_HEIHU], rules[Z_F + P_YIDIANZHU]), rules[Z_F + P_HONGHU]


COLOUR_PATTERNS = ("heihu", "yidianzhu", "honghu", "quanhong")
"""The patterns of the strong model's colour classes 1..4 (engine.zipai.params.N_COL; 0:
none), in class order (``Variant.bot_targets["colour"]``, which the fit reads)."""
METHOD_PATTERNS = ("zimo", "wangdiao", "wangdiaowang", "wangchuang", "wangchuangwang", "wangzha",
                   "wangzhawang")  # fmt: skip
"""The patterns of its win methods 1..7 (N_METH; 0: another player's card; ``"method"``)."""
COLOUR_BITS = np.array([-1, *(BIT[n] for n in COLOUR_PATTERNS)], np.int64)
"""The pattern bit of each colour class (-1: none)."""
METHOD_BITS = np.array([-1, *(BIT[n] for n in METHOD_PATTERNS)], np.int64)
"""The pattern bit of each win method (-1: another player's card)."""


@kernel(refcount=False)
def derive_values(rules, row, active):
    """The strong row ``row``'s win values priced under the packed rules
    (engine.zipai.strong.derive_values, with this variant's patterns of the model's
    classes).
    """
    _derive_values(rules, row, active, COLOUR_BITS, METHOD_BITS)
