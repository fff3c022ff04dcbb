"""Variant hooks of the game kernel: one dispatch on the variant id in ``rules[R_VARIANT]``.

The variants own their kernels and their ids: each mahjong variant declares its kernel
module (``Variant.hooks``), which holds ``KERNEL_ID`` and whichever hook kernels the
variant needs, under the hook's name (``patterns``, ``settle``, ``win_legal``,
``win_priority``, ``on_kong``, ``on_discard``, ``deal_setup``, ``four_wild_win``). This
module reads the registry once, at import, and lays the hooks out in :data:`SLOTS`
numbered slots per hook: slot ``i`` holds one variant's id and kernel, or ``-1`` and
the hook's default. numba freezes the slots as constants when it compiles a hook, so
the dispatch is a static switch, as fast as a hand-written one, and adding a variant
never edits the engine.

>>> from engine import variants
>>> sorted(KERNELS) == sorted(variants.get(n).kernel_id for n in variants.names()
...                            if variants.get(n).hooks is not None)
True
"""

from __future__ import annotations

from .._numba import kernel
from ..variants._registry import loaded
from ._layout import R_VARIANT

SLOTS = 8
"""Variants each hook can dispatch to (raise it, and add a branch per hook, for a ninth)."""


def _kernel_modules() -> dict[int, object]:
    """Kernel modules of the registered variants by id (refusing an id claimed twice)."""
    out: dict[int, object] = {}
    for v in loaded():
        name, mod = v.name, v.hooks
        if mod is None:  # a family with its own loop (字牌)
            continue
        if mod.KERNEL_ID != v.kernel_id or mod.KERNEL_ID < 1:
            raise ValueError(f"variant {name}: kernel id {v.kernel_id} but {mod.__name__} "
                             f"owns {mod.KERNEL_ID}")  # fmt: skip
        other = out.setdefault(mod.KERNEL_ID, mod)
        if other is not mod:
            raise ValueError(
                f"kernel id {mod.KERNEL_ID} is claimed by {other.__name__} and {mod.__name__}"
            )
    if len(out) > SLOTS:
        raise ValueError(f"{len(out)} variant kernel modules; the hooks have {SLOTS} slots")
    return dict(sorted(out.items()))


KERNELS = _kernel_modules()
"""The variants' kernel modules by ``KERNEL_ID``."""


def _slots(name: str, default) -> tuple[tuple[int, ...], tuple]:
    """``(ids, kernels)`` of hook ``name``: the modules defining it, then ``(-1, default)``."""
    found = [(i, getattr(m, name)) for i, m in KERNELS.items() if hasattr(m, name)]
    found += [(-1, default)] * (SLOTS - len(found))
    return tuple(i for i, _ in found), tuple(f for _, f in found)


# ---- defaults (a variant without the hook) -------------------------------------------------
@kernel(refcount=False)
def _no_setup(rules, ctx):
    return 0


@kernel(refcount=False)
def _no_hand_value(rules, ctx, h, w, sets, melds, nmeld, tab):
    return 0


@kernel(refcount=False)
def _any_hand_legal(rules, ctx, h, w, sets, melds, nmeld, tab):
    return True


@kernel(refcount=False)
def _no_kong_money(rules, ctx, pay, seat, mtype, from_seat, players):
    return


@kernel(refcount=False)
def _no_discard_money(rules, ctx, pay, seat, phys, players):
    return


@kernel(refcount=False)
def _no_settlement(rules, ctx, pay, bits, players, delta, extra):
    return 0


@kernel(refcount=False)
def _no_four_wild_win(rules):
    return False


# ---- the slots, frozen into the hooks below ---------------------------------------------
(DS0, DS1, DS2, DS3, DS4, DS5, DS6, DS7), (ds0, ds1, ds2, ds3, ds4, ds5, ds6, ds7) = _slots(
    "deal_setup", _no_setup
)
(PT0, PT1, PT2, PT3, PT4, PT5, PT6, PT7), (pt0, pt1, pt2, pt3, pt4, pt5, pt6, pt7) = _slots(
    "patterns", _no_hand_value
)
(PR0, PR1, PR2, PR3, PR4, PR5, PR6, PR7), (pr0, pr1, pr2, pr3, pr4, pr5, pr6, pr7) = _slots(
    "win_priority", _no_hand_value
)
(WL0, WL1, WL2, WL3, WL4, WL5, WL6, WL7), (wl0, wl1, wl2, wl3, wl4, wl5, wl6, wl7) = _slots(
    "win_legal", _any_hand_legal
)
(OK0, OK1, OK2, OK3, OK4, OK5, OK6, OK7), (ok0, ok1, ok2, ok3, ok4, ok5, ok6, ok7) = _slots(
    "on_kong", _no_kong_money
)
(OD0, OD1, OD2, OD3, OD4, OD5, OD6, OD7), (od0, od1, od2, od3, od4, od5, od6, od7) = _slots(
    "on_discard", _no_discard_money
)
(ST0, ST1, ST2, ST3, ST4, ST5, ST6, ST7), (st0, st1, st2, st3, st4, st5, st6, st7) = _slots(
    "settle", _no_settlement
)
(FW0, FW1, FW2, FW3, FW4, FW5, FW6, FW7), (fw0, fw1, fw2, fw3, fw4, fw5, fw6, fw7) = _slots(
    "four_wild_win", _no_four_wild_win
)


# ---- the hooks the loop calls (one branch per slot) ---------------------------------------
@kernel(refcount=False)
def deal_setup(rules, ctx):
    """Tiles to set aside from the tail after dealing (horses)."""
    v = rules[R_VARIANT]
    if v == DS0:
        return ds0(rules, ctx)
    if v == DS1:
        return ds1(rules, ctx)
    if v == DS2:
        return ds2(rules, ctx)
    if v == DS3:
        return ds3(rules, ctx)
    if v == DS4:
        return ds4(rules, ctx)
    if v == DS5:
        return ds5(rules, ctx)
    if v == DS6:
        return ds6(rules, ctx)
    if v == DS7:
        return ds7(rules, ctx)
    return 0


@kernel(refcount=False)
def win_patterns(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Pattern bits of the winner's complete hand."""
    v = rules[R_VARIANT]
    if v == PT0:
        return pt0(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PT1:
        return pt1(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PT2:
        return pt2(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PT3:
        return pt3(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PT4:
        return pt4(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PT5:
        return pt5(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PT6:
        return pt6(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PT7:
        return pt7(rules, ctx, h, w, sets, melds, nmeld, tab)
    return 0


@kernel(refcount=False)
def win_priority(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Priority of a discard win under R_WIN_PRIORITY (higher beats nearer seats; 0 plain)."""
    v = rules[R_VARIANT]
    if v == PR0:
        return pr0(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PR1:
        return pr1(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PR2:
        return pr2(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PR3:
        return pr3(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PR4:
        return pr4(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PR5:
        return pr5(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PR6:
        return pr6(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == PR7:
        return pr7(rules, ctx, h, w, sets, melds, nmeld, tab)
    return 0


@kernel(refcount=False)
def win_legal(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Whether a complete hand may be declared (e.g. 诸暨's 3-台 minimum)."""
    v = rules[R_VARIANT]
    if v == WL0:
        return wl0(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == WL1:
        return wl1(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == WL2:
        return wl2(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == WL3:
        return wl3(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == WL4:
        return wl4(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == WL5:
        return wl5(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == WL6:
        return wl6(rules, ctx, h, w, sets, melds, nmeld, tab)
    if v == WL7:
        return wl7(rules, ctx, h, w, sets, melds, nmeld, tab)
    return True


@kernel(refcount=False)
def on_kong(rules, ctx, pay, seat, mtype, from_seat, players):
    """Money that changes hands when a kong is made (settled at the end)."""
    v = rules[R_VARIANT]
    if v == OK0:
        ok0(rules, ctx, pay, seat, mtype, from_seat, players)
    elif v == OK1:
        ok1(rules, ctx, pay, seat, mtype, from_seat, players)
    elif v == OK2:
        ok2(rules, ctx, pay, seat, mtype, from_seat, players)
    elif v == OK3:
        ok3(rules, ctx, pay, seat, mtype, from_seat, players)
    elif v == OK4:
        ok4(rules, ctx, pay, seat, mtype, from_seat, players)
    elif v == OK5:
        ok5(rules, ctx, pay, seat, mtype, from_seat, players)
    elif v == OK6:
        ok6(rules, ctx, pay, seat, mtype, from_seat, players)
    elif v == OK7:
        ok7(rules, ctx, pay, seat, mtype, from_seat, players)


@kernel(refcount=False)
def on_discard(rules, ctx, pay, seat, phys, players):
    """After every discard (before claims): e.g. 丽水 被跟 when ctx[X_RUN_LEN] reaches 4."""
    v = rules[R_VARIANT]
    if v == OD0:
        od0(rules, ctx, pay, seat, phys, players)
    elif v == OD1:
        od1(rules, ctx, pay, seat, phys, players)
    elif v == OD2:
        od2(rules, ctx, pay, seat, phys, players)
    elif v == OD3:
        od3(rules, ctx, pay, seat, phys, players)
    elif v == OD4:
        od4(rules, ctx, pay, seat, phys, players)
    elif v == OD5:
        od5(rules, ctx, pay, seat, phys, players)
    elif v == OD6:
        od6(rules, ctx, pay, seat, phys, players)
    elif v == OD7:
        od7(rules, ctx, pay, seat, phys, players)


@kernel(refcount=False)
def settle(rules, ctx, pay, bits, players, delta, extra):
    """Fill ``delta`` and the extra columns; returns the hand's value."""
    v = rules[R_VARIANT]
    if v == ST0:
        return st0(rules, ctx, pay, bits, players, delta, extra)
    if v == ST1:
        return st1(rules, ctx, pay, bits, players, delta, extra)
    if v == ST2:
        return st2(rules, ctx, pay, bits, players, delta, extra)
    if v == ST3:
        return st3(rules, ctx, pay, bits, players, delta, extra)
    if v == ST4:
        return st4(rules, ctx, pay, bits, players, delta, extra)
    if v == ST5:
        return st5(rules, ctx, pay, bits, players, delta, extra)
    if v == ST6:
        return st6(rules, ctx, pay, bits, players, delta, extra)
    if v == ST7:
        return st7(rules, ctx, pay, bits, players, delta, extra)
    return 0


@kernel(refcount=False)
def four_wild_win(rules):
    """Whether holding four wilds wins at once (推倒胡 四鬼胡牌)."""
    v = rules[R_VARIANT]
    if v == FW0:
        return fw0(rules)
    if v == FW1:
        return fw1(rules)
    if v == FW2:
        return fw2(rules)
    if v == FW3:
        return fw3(rules)
    if v == FW4:
        return fw4(rules)
    if v == FW5:
        return fw5(rules)
    if v == FW6:
        return fw6(rules)
    if v == FW7:
        return fw7(rules)
    return False
