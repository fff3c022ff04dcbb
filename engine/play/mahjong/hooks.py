"""Variant hooks of the game kernel: an indirect call to the running variant's kernel.

The variants own their kernels and their ids: each mahjong variant declares its kernel
module (``Variant.hooks``), which holds ``KERNEL_ID`` and whichever hook kernels the
variant needs, under the hook's name (``patterns``, ``settle``, ``win_legal``,
``win_priority``, ``on_kong``, ``on_discard``, ``deal_setup``, ``four_wild_win``, and
``restore``, which re-scoring calls: engine.play.mahjong.rescore). This
module reads the registry once, at import; a variant without a hook gets the hook's
default (``_no_setup`` ...). Adding a variant never edits the engine.

**Only the running variant's hooks are compiled**, not every variant's scoring kernels
linked and optimised again into every kernel of the game loop that calls a hook. The
game loop calls a hook through a table
of machine-code addresses, :data:`TABLE`, indexed by hook and variant id
(``rules[R_VARIANT]``): the family's :class:`engine.jit.hooks.HookTable`, a table of the
engine's late calls (:mod:`engine.jit.late`), an
external symbol of the compiled code (``mjlab_game_hooks``), so the loop's cached machine
code stays the same whichever variants exist, and a hook kernel is compiled (or loaded
from the cache) only when :func:`bind` fills its variant's row, which the loop's entry
kernels (:func:`binding`) do before every call. Each hook has one declared signature
(:data:`HOOKS`): the loop's call sites must pass exactly those types (a mismatch fails
to compile, naming the hook), and every variant's kernel is compiled for them. A call
through an empty row raises RuntimeError instead of jumping to address 0.

>>> from engine import variants
>>> from engine.mahjong import params
>>> sorted(KERNELS) == sorted(variants.get(n).kernel_id for n in variants.names()
...                            if variants.get(n).bot_layout is params)
True
"""

from __future__ import annotations

from numba.core import types

from engine.jit import late as _late
from engine.jit.hooks import HookTable
from engine.jit.njit import kernel
from engine.mahjong.layout import R_VARIANT
from engine.variants._registry import kernel_modules, loaded

IDS = 64
"""Variant ids the table has rows for (``0 <= KERNEL_ID < IDS``)."""


def _kernel_modules() -> dict[int, object]:
    """Kernel modules of the registered mahjong variants by id (refusing an id claimed
    twice).
    """
    return kernel_modules("mahjong", IDS, loaded())


KERNELS = _kernel_modules()
"""The variants' kernel modules by ``KERNEL_ID``."""


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


@kernel(refcount=False)
def _no_restore(rules, ctx, pay, row):
    if row.shape[0] >= 0:
        raise ValueError("mjlab: this variant has no restore hook, so it cannot be re-scored")
    return 0


# ---- the hooks: declared signatures, the address table, the calls ---------------------
_A = types.Array(types.int64, 1, "C")
_A2 = types.Array(types.int64, 2, "C")
_I = types.int64

HOOKS = {
    # the loop's hook kernel: (the variants' attribute, default, return type, argument
    # types; "tab" is the type of the hand tables the entry kernel was given)
    "deal_setup": ("deal_setup", _no_setup, _I, (_A, _A)),
    "win_patterns": ("patterns", _no_hand_value, _I, (_A, _A, _A, _I, _I, _A2, _I, "tab")),
    "win_priority": ("win_priority", _no_hand_value, _I, (_A, _A, _A, _I, _I, _A2, _I, "tab")),
    "win_legal": (
        "win_legal",
        _any_hand_legal,
        types.boolean,
        (_A, _A, _A, _I, _I, _A2, _I, "tab"),
    ),  # fmt: skip
    "on_kong": ("on_kong", _no_kong_money, types.none, (_A, _A, _A2, _I, _I, _I, _I)),
    "on_discard": ("on_discard", _no_discard_money, types.none, (_A, _A, _A2, _I, _I, _I)),
    "settle": ("settle", _no_settlement, _I, (_A, _A, _A2, _I, _I, _A, _A)),
    "four_wild_win": ("four_wild_win", _no_four_wild_win, types.boolean, (_A,)),
    "restore": ("restore", _no_restore, _I, (_A, _A, _A2, _A)),
}
"""Every hook: the variants' kernel name, its default, its return and argument types."""

PLAY = tuple(h for h in HOOKS if h != "restore")
"""The hooks the game loop calls (:func:`bind`'s default); re-scoring binds ``restore``
and ``settle`` (engine.play.mahjong.rescore)."""

HOOK_TABLE = HookTable(
    "mjlab_game_hooks", HOOKS, lambda: KERNELS, R_VARIANT, ids=IDS,
    skipped=frozenset({"on_kong", "on_discard"}),
)  # fmt: skip
"""The hook table of the mahjong loop (engine.jit.hooks)."""

TABLE = HOOK_TABLE.table
"""The machine code of hook ``h`` (its index in :data:`_ORDER`) for variant ``v`` in entry
(``h``, ``v``) (engine.jit.late; 0: not bound)."""
_ORDER = HOOK_TABLE.order
SKIP = HOOK_TABLE.SKIP
"""The table's address for a hook a variant does not define whose default does nothing:
the call site skips the call instead of jumping to the no-op (the loop calls
``on_discard`` after every discard; for most variants it is the default)."""
variant_kernel = HOOK_TABLE.variant_kernel


def bind(vid: int, tab, hooks: tuple[str, ...] = PLAY) -> None:
    """Fill variant ``vid``'s row of :data:`TABLE` for hand tables ``tab``: compile (or load
    from the cache) its kernels of ``hooks`` for the declared signatures. Cheap once bound.
    """
    HOOK_TABLE.bind(vid, tab, hooks)


def binding(disp, needs=lambda args: (), hooks: tuple[str, ...] = PLAY):
    """``disp`` (an entry kernel: Python calls it) binding its variant's ``hooks`` first,
    and the :func:`late` kernels ``needs(args)`` names for a call's arguments (by name);
    ``rules`` is its first argument and the hand tables its argument ``tab``.
    """
    return HOOK_TABLE.binding(disp, LATE, needs, hooks)


_hook_call = HOOK_TABLE.call
_deal_setup = _hook_call("deal_setup")
_win_patterns = _hook_call("win_patterns")
_win_priority = _hook_call("win_priority")
_win_legal = _hook_call("win_legal")
_on_kong = _hook_call("on_kong")
_on_discard = _hook_call("on_discard")
_settle = _hook_call("settle")
_four_wild_win = _hook_call("four_wild_win")
_restore = _hook_call("restore")


# ---- late calls: kernels the loop compiles only when a run needs them ----------------
LATE = _late.LateTable("mjlab_game_late", 24)
"""The mahjong loop's late kernels (engine.jit.late): the deal, the rules' rarer phases,
each policy's decisions and the observations; :func:`binding` binds them."""

late = LATE.late


# ---- the hooks the loop calls ---------------------------------------------------------
@kernel(refcount=False)
def deal_setup(rules, ctx):
    """Tiles to set aside from the tail after dealing (horses)."""
    return _deal_setup(rules[R_VARIANT], rules, ctx)


@kernel(refcount=False)
def win_patterns(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Pattern bits of the winner's complete hand."""
    return _win_patterns(rules[R_VARIANT], rules, ctx, h, w, sets, melds, nmeld, tab)


@kernel(refcount=False)
def win_priority(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Priority of a discard win under R_WIN_PRIORITY (higher beats nearer seats; 0 plain)."""
    return _win_priority(rules[R_VARIANT], rules, ctx, h, w, sets, melds, nmeld, tab)


@kernel(refcount=False)
def win_legal(rules, ctx, h, w, sets, melds, nmeld, tab):
    """Whether a complete hand may be declared (e.g. 诸暨's 3-台 minimum)."""
    return _win_legal(rules[R_VARIANT], rules, ctx, h, w, sets, melds, nmeld, tab)


@kernel(refcount=False)
def on_kong(rules, ctx, pay, seat, mtype, from_seat, players):
    """Money that changes hands when a kong is made (settled at the end)."""
    _on_kong(rules[R_VARIANT], rules, ctx, pay, seat, mtype, from_seat, players)


@kernel(refcount=False)
def on_discard(rules, ctx, pay, seat, phys, players):
    """After every discard (before claims): e.g. 丽水 被跟 when ctx[X_RUN_LEN] reaches 4."""
    _on_discard(rules[R_VARIANT], rules, ctx, pay, seat, phys, players)


@kernel(refcount=False)
def settle(rules, ctx, pay, bits, players, delta, extra):
    """Fill ``delta`` and the extra columns; returns the hand's value."""
    return _settle(rules[R_VARIANT], rules, ctx, pay, bits, players, delta, extra)


@kernel(refcount=False)
def four_wild_win(rules):
    """Whether holding four wilds wins at once (推倒胡 四鬼胡牌)."""
    return _four_wild_win(rules[R_VARIANT], rules)


@kernel(refcount=False)
def restore(rules, ctx, pay, row):
    """Rebuild what ``settle`` reads (context slots, money owed) from a record row under
    the packed ``rules``; returns the pattern bits to settle (re-scoring).
    """
    return _restore(rules[R_VARIANT], rules, ctx, pay, row)
