"""Variant hooks of the 字牌 game kernel: an indirect call to the running variant's kernel.

As the mahjong loop's (:mod:`engine.play.mahjong.hooks`): each 字牌 variant declares its
kernel module (``Variant.hooks``), which holds ``KERNEL_ID`` and its hook kernels under
the hooks' names (:data:`HOOKS`); the loop calls them through one
:class:`engine.jit.hooks.HookTable`, by the id the variant packs into
``rules[Z_VARIANT]``, so that the loop imports no variant and a second 字牌 game is one
more folder under ``engine/variants/``. Only the running variant's hooks are compiled.

>>> from engine import variants
>>> sorted(KERNELS) == sorted(variants.get(n).kernel_id for n in variants.names()
...                            if variants.get(n).family == "zipai")
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


_A = types.Array(types.int64, 1, "C")

HOOKS = {
    # hook: (the variants' attribute, default, return type, argument types)
    "settle_row": ("settle_row", _no_settle_row, types.none, (_A, _A)),
}
"""Every hook: the variants' kernel name, its default, its return and argument types."""

HOOK_TABLE = HookTable("mjlab_zipai_hooks", HOOKS, lambda: KERNELS, Z_VARIANT, ids=IDS)
"""The hook table of the 字牌 loop (engine.jit.hooks)."""

LATE = _late.LateTable("mjlab_zipai_late", 16)
"""The 字牌 loop's late kernels (engine.jit.late): the deal, its once-a-deal phases, the
claims, the strong policy and the observations; :func:`binding` binds them."""

late = LATE.late


def binding(disp, needs=lambda args: (), hooks: tuple[str, ...] | None = None):
    """``disp`` (an entry kernel: Python calls it) binding its variant's ``hooks`` (all by
    default) first, and the :func:`late` kernels ``needs(args)`` names for a call's
    arguments (by name); ``rules`` is its first argument.
    """
    return HOOK_TABLE.binding(disp, LATE, needs, hooks)


_settle_row = HOOK_TABLE.call("settle_row")


@kernel(refcount=False)
def settle_row(rules, row):
    """A recorded deal's row paid again under the packed ``rules``, in place (re-scoring)."""
    _settle_row(rules[Z_VARIANT], rules, row)
