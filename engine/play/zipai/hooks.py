"""Variant hooks of the 字牌 game kernel: an indirect call to the running variant's kernel.

As the mahjong loop's (:mod:`engine.play.mahjong.hooks`): each 字牌 variant declares its
kernel module (``Variant.hooks``), which holds ``KERNEL_ID`` and its hook kernels under
the hooks' names (:data:`HOOKS`); the loop calls them through one
:class:`engine.jit.hooks.HookTable`, by the id the variant packs into
``rules[Z_VARIANT]``, so that the loop imports no variant and a second 字牌 game is one
more folder under ``engine/variants/``. Only the running variant's hooks are compiled.

What the loop knows of a variant is the 字牌 layout (engine.zipai.layout): the family's
rule slots (its patterns' 番 factors in ``Z_F``), a win's scoring output ``O_*`` and the
deal's scalars ``K_*``. The variant's own pattern bits and extra record columns stay in
its kernel module: it writes its extras (``record_win``, ``record_deal``) and gives the
bots the prices they read from its patterns (``colour_aim``, ``derive_values``).
pyproject.toml's contract "The play layer imports no variant's package" holds the loop to
that.

>>> from engine import variants
>>> from engine.zipai import params
>>> sorted(KERNELS) == sorted(variants.get(n).kernel_id for n in variants.names()
...                            if variants.get(n).bot_layout is params)
True
"""

from __future__ import annotations

from numba.core import types

from engine.jit import late as _late
from engine.jit.hooks import HookTable
from engine.jit.njit import kernel
from engine.variants._registry import kernel_modules
from engine.zipai.layout import Z_VARIANT

IDS = 16
"""Variant ids the table has rows for (``0 <= KERNEL_ID < IDS``)."""

KERNELS = kernel_modules("zipai", IDS)
"""The 字牌 variants' kernel modules by ``KERNEL_ID``."""


@kernel(refcount=False)
def _no_settle_row(rules, row):
    if row.shape[0] >= 0:
        raise ValueError("mjlab: this variant has no settle_row hook, so it cannot be re-scored")


@kernel(refcount=False)
def _no_hook(rules, *args):
    if rules.shape[0] >= 0:
        raise ValueError("mjlab: a 字牌 variant must define every hook of its loop")


_A = types.Array(types.int64, 1, "C")
_A2 = types.Array(types.int64, 2, "C")
_A3 = types.Array(types.int64, 3, "C")
_F = types.Array(types.float64, 1, "C")
_I = types.int64
_B = types.boolean

HOOKS = {
    # hook: (the variants' attribute, default, return type, argument types)
    "can_win": (
        "can_win", _no_hook, _B, (_A, _A2, _A3, _A, _I, _I, _I, _I, _I, _I, _A2, _A2)
    ),
    "wait_kinds": ("wait_kinds", _no_hook, _I, (_A, _A2, _A3, _A, _I, _I, _I, _A2, _A2)),
    "score_win_into": (
        "score_win_into", _no_hook, types.none,
        (_A, _A2, _A, _I, _I, _I, _I, _A, _I, _I, _I, _B, _I, _B, _I, _A2, _A, _A3, _A3, _A),
    ),
    "xing_kind": ("xing_kind", _no_hook, types.Tuple((_I, _B, _I)), (_A, _I, _I)),
    "pay_win": (
        "pay_win", _no_hook, types.UniTuple(_I, 2), (_A, _I, _A, _I, _I, _I, _I, _I, _I, _I, _A)
    ),
    "pay_huangzhuang": ("pay_huangzhuang", _no_hook, types.none, (_A, _I, _A, _I, _A, _A, _A)),
    "record_win": ("record_win", _no_hook, types.none, (_A, _A, _A, _I, _I, _I, _I)),
    "record_deal": ("record_deal", _no_hook, types.none, (_A, _A, _A, _I, _A)),
    "colour_aim": ("colour_aim", _no_hook, types.UniTuple(_I, 2), (_A,)),
    "derive_values": ("derive_values", _no_hook, types.none, (_A, _F, _I)),
    "settle_row": ("settle_row", _no_settle_row, types.none, (_A, _A)),
}  # fmt: skip
"""Every hook: the variants' kernel name, its default, its return and argument types."""

HOOK_TABLE = HookTable("mjlab_zipai_hooks", HOOKS, lambda: KERNELS, Z_VARIANT, ids=IDS)
"""The hook table of the 字牌 loop (engine.jit.hooks)."""

LATE = _late.LateTable("mjlab_zipai_late", 16)
"""The 字牌 loop's late kernels (engine.jit.late): the deal, its once-a-deal phases, the
claims, the strong policy and the observations; :func:`binding` binds them."""

late = LATE.late


def binding(disp, needs=lambda args: (), hooks: tuple[str, ...] | None = None):
    """``disp`` (an entry kernel: Python calls it) binding its variant's ``hooks`` (those
    the loop calls by default) first, and the :func:`late` kernels ``needs(args)`` names
    for a call's arguments (by name); ``rules`` is its first argument.
    """
    return HOOK_TABLE.binding(disp, LATE, needs, PLAY if hooks is None else hooks)


PLAY = tuple(h for h in HOOKS if h != "settle_row")
"""The hooks the game loop calls; re-scoring binds ``settle_row``."""

_can_win = HOOK_TABLE.call("can_win")
_wait_kinds = HOOK_TABLE.call("wait_kinds")
_score_win_into = HOOK_TABLE.call("score_win_into")
_xing_kind = HOOK_TABLE.call("xing_kind")
_pay_win = HOOK_TABLE.call("pay_win")
_pay_huangzhuang = HOOK_TABLE.call("pay_huangzhuang")
_record_win = HOOK_TABLE.call("record_win")
_record_deal = HOOK_TABLE.call("record_deal")
_colour_aim = HOOK_TABLE.call("colour_aim")
_derive_values = HOOK_TABLE.call("derive_values")
_settle_row = HOOK_TABLE.call("settle_row")


# ---- the hooks the loop calls ---------------------------------------------------------
@kernel(refcount=False)
def can_win(rules, values, wvx0, counts, kings, ntab, th, cand, how, up, ws, best2):
    """Whether the cards win with ``cand`` arriving ``how`` (no scoring)."""
    return _can_win(rules[Z_VARIANT], rules, values, wvx0, counts, kings, ntab, th, cand, how,
                    up, ws, best2)  # fmt: skip


@kernel(refcount=False)
def wait_kinds(rules, values, wvx0, counts, kings, ntab, th, ws, best2):
    """The kinds whose card wins on the player's own flip, as :func:`can_win` says with no
    table group of its kind, as a bit set (bit 20, engine.zipai.huxi ``WAIT_ANY``: a 王
    wins); right for the kinds held fewer than three times.
    """
    return _wait_kinds(rules[Z_VARIANT], rules, values, wvx0, counts, kings, ntab, th, ws,
                       best2)  # fmt: skip


@kernel(refcount=False)
def score_win_into(rules, values, counts, kings, ntab, th, tr, tcnt, cand, how, up, di,
                   xk_fixed, xk_any, xmin, ws, out, sq, wvx, gcounts):  # fmt: skip
    """A win's best reading and its score into ``out`` (``N_OUT`` fields, engine.zipai.layout)."""
    _score_win_into(rules[Z_VARIANT], rules, values, counts, kings, ntab, th, tr, tcnt, cand,
                    how, up, di, xk_fixed, xk_any, xmin, ws, out, sq, wvx, gcounts)  # fmt: skip


@kernel(refcount=False)
def xing_kind(rules, win_card, flip_card):
    """The 醒 kind of a win: ``(kind, any, xmin)``."""
    return _xing_kind(rules[Z_VARIANT], rules, win_card, flip_card)


@kernel(refcount=False)
def pay_win(rules, seats, active, winner, how, feeder, value, xing, fan, zx, delta):
    """The payments of a win into ``delta``; ``(capped, zuoxing_money)``."""
    return _pay_win(rules[Z_VARIANT], rules, seats, active, winner, how, feeder, value, xing,
                    fan, zx, delta)  # fmt: skip


@kernel(refcount=False)
def pay_huangzhuang(rules, seats, active, dealer, kings, delta, money):
    """The payments of a drawn deal (黄庄) into ``delta`` and ``money``."""
    _pay_huangzhuang(rules[Z_VARIANT], rules, seats, active, dealer, kings, delta, money)


@kernel(refcount=False)
def record_win(rules, rec, out, how, capped, zmoney, xing_card):
    """A win's extras into the record row ``rec``: from its scoring ``out``, ``how`` it
    came, what :func:`pay_win` returned and the card the 醒 was counted on.
    """
    _record_win(rules[Z_VARIANT], rules, rec, out, how, capped, zmoney, xing_card)


@kernel(refcount=False)
def record_deal(rules, ctx, rec, winner, kings_held):
    """The deal's extras into the record row ``rec`` at its end, from the deal's scalars
    ``ctx`` (``K_*``, engine.zipai.layout), the winner (-1 黄庄) and the 王 each seat held.
    """
    _record_deal(rules[Z_VARIANT], rules, ctx, rec, winner, kings_held)


@kernel(refcount=False)
def colour_aim(rules):
    """The value bot's colour aims: ``(low_f, high_f)`` of engine.zipai.bots.colour_weight,
    the 番 factors it chases with few red cards and with many.
    """
    return _colour_aim(rules[Z_VARIANT], rules)


@kernel(refcount=False)
def derive_values(rules, row, active):
    """Price the strong parameter row ``row``'s fitted win values under the packed rules
    with ``active`` seats playing (engine.zipai.strong.derive_values).
    """
    _derive_values(rules[Z_VARIANT], rules, row, active)


@kernel(refcount=False)
def settle_row(rules, row):
    """A recorded deal's row paid again under the packed ``rules``, in place (re-scoring)."""
    _settle_row(rules[Z_VARIANT], rules, row)
