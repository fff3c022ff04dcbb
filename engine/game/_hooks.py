"""Variant hooks of the game kernel: dispatch on the variant id in ``rules[R_VARIANT]``.

Numba needs the call graph at compile time, so the variants' kernels are called through
one switch here; each branch calls functions of that variant's ``_<name>.py`` kernel
module. Adding a variant adds one id and one branch per hook.
"""

from __future__ import annotations

from .._numba import kernel
from ..variants import _fuzhou, _lishui, _tuidaohu, _zhuji
from ._layout import R_VARIANT

V_TUIDAOHU = 1
V_LISHUI = 2
V_ZHUJI = 3
V_FUZHOU = 4


@kernel(refcount=False)
def deal_setup(rules, ctx):
    """Tiles to set aside from the tail after dealing (horses)."""
    v = rules[R_VARIANT]
    if v == V_TUIDAOHU:
        return _tuidaohu.horses_for_deal(rules, ctx)
    return 0


@kernel(refcount=False)
def win_patterns(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Pattern bits of the winner's complete hand."""
    v = rules[R_VARIANT]
    if v == V_TUIDAOHU:
        return _tuidaohu.patterns(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == V_FUZHOU:
        return _fuzhou.patterns(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == V_LISHUI:
        return _lishui.patterns(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == V_ZHUJI:
        return _zhuji.patterns(rules, ctx, h, w, sets, melds, nmeld, tab)
    return 0


@kernel(refcount=False)
def win_priority(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Priority of a discard win under R_WIN_PRIORITY (higher beats nearer seats; 0 plain)."""
    v = rules[R_VARIANT]
    if v == V_FUZHOU:
        return _fuzhou.win_priority(rules, ctx, h, w, sets, melds, nmeld, tab)
    return 0


@kernel(refcount=False)
def win_legal(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Whether a complete hand may be declared (e.g. 诸暨's 3-台 minimum)."""
    if rules[R_VARIANT] == V_ZHUJI:
        return _zhuji.win_legal(rules, ctx, h, w, sets, melds, nmeld, tab)
    return True


@kernel(refcount=False)
def on_kong(rules, ctx, pay, seat, mtype, from_seat, players):
    """Money that changes hands when a kong is made (settled at the end)."""
    v = rules[R_VARIANT]
    if v == V_TUIDAOHU:
        _tuidaohu.on_kong(rules, ctx, pay, seat, mtype, from_seat, players)
    elif v == V_LISHUI:
        _lishui.on_kong(rules, ctx, pay, seat, mtype, from_seat, players)


@kernel(refcount=False)
def on_discard(rules, ctx, pay, seat, phys, players):
    """After every discard (before claims): e.g. 丽水 被跟 when ctx[X_RUN_LEN] reaches 4."""
    if rules[R_VARIANT] == V_LISHUI:
        _lishui.on_discard(rules, ctx, pay, seat, phys, players)


@kernel(refcount=False)
def settle(rules, ctx, pay, bits, players, delta, extra):
    """Fill ``delta`` and the extra columns; returns the hand's value."""
    v = rules[R_VARIANT]
    if v == V_TUIDAOHU:
        return _tuidaohu.settle(rules, ctx, pay, bits, players, delta, extra)
    if v == V_FUZHOU:
        return _fuzhou.settle(rules, ctx, pay, bits, players, delta, extra)
    if v == V_LISHUI:
        return _lishui.settle(rules, ctx, pay, bits, players, delta, extra)
    if v == V_ZHUJI:
        return _zhuji.settle(rules, ctx, pay, bits, players, delta, extra)
    return 0


@kernel(refcount=False)
def four_wild_win(rules):
    """Whether holding four wilds wins at once (推倒胡 四鬼胡牌)."""
    v = rules[R_VARIANT]
    if v == V_TUIDAOHU:
        return rules[_tuidaohu.T_FOUR_GHOST] == 1
    return False
