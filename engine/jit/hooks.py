"""Variant hooks: a game loop calls the running variant's kernel through one late table.

A family's loop calls each variant hook (a variant's scoring or settlement kernel) through
:class:`HookTable`: an indexed slot of a :class:`engine.jit.late.LateTable` per hook, a row
per variant id, the row chosen at run time from the packed rules. So the loop's machine
code is the same whichever variants exist, and only the running variant's hook kernels
are compiled, when :meth:`HookTable.bind` fills its row (which the loop's entry kernels,
wrapped by :meth:`HookTable.binding`, do before every call). Each hook has one declared
signature; every variant's kernel is compiled for it, and a call site that passes other
types fails to compile, naming the hook. The mahjong and the 字牌 loops each have one
(:mod:`engine.play.mahjong.hooks`, :mod:`engine.play.zipai.hooks`).
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Mapping

import numba
from numba.core import types

from engine.jit import late as _late

__all__ = ["HookTable"]


class HookTable:
    """The hooks of one family's loop.

    Parameters
    ----------
    symbol : str
        The late table's symbol (an external symbol of the compiled code).
    hooks : mapping
        ``hook -> (attribute, default, return type, argument types)``: the name of the
        variants' kernel, the kernel a variant without it gets, and the declared signature
        (an argument type ``"tab"`` is the type of the call's hand tables).
    kernels : callable
        ``kernels() -> {variant id: kernel module}`` (read at the first bind, once the
        variants are registered).
    id_slot : int
        The packed rules' slot holding the running variant's id.
    ids : int
        Variant ids the table has rows for.
    skipped : set of str
        Hooks returning nothing whose default does nothing: a variant without one gets a
        marker (:data:`SKIP`) and the call site skips the call.
    """

    SKIP = 1
    """The address marking a skipped hook."""

    def __init__(self, symbol: str, hooks: Mapping, kernels: Callable[[], Mapping],
                 id_slot: int, ids: int = 64, skipped=frozenset()):  # fmt: skip
        self.hooks = dict(hooks)
        self.order = tuple(self.hooks)
        self.id_slot = id_slot
        self.ids = ids
        self.skipped = frozenset(skipped)
        assert all(self.hooks[h][2] == types.none for h in self.skipped)
        self.table = _late.LateTable(symbol, len(self.order), rows=ids)
        self._kernels = kernels
        self._modules: dict | None = None
        self._bound: set = set()
        self._lock = threading.Lock()
        self._no_late: _late.LateTable | None = None

    @property
    def modules(self) -> dict:
        """The variants' kernel modules by id."""
        if self._modules is None:
            self._modules = dict(self._kernels())
        return self._modules

    def signature(self, hook: str, tab_type=None):
        """The declared signature of ``hook`` (hand tables of type ``tab_type``)."""
        _, _, ret, args = self.hooks[hook]
        return ret(*(tab_type if a == "tab" else a for a in args))

    def variant_kernel(self, hook: str, vid: int):
        """The kernel ``hook`` calls for variant id ``vid`` (its default if it has none)."""
        attr, default, _, _ = self.hooks[hook]
        mod = self.modules.get(int(vid))
        return getattr(mod, attr, default) if mod is not None else default

    def bind(self, vid: int, tab=None, hooks: tuple[str, ...] | None = None) -> None:
        """Fill variant ``vid``'s row for hand tables ``tab``: compile (or load from the
        cache) its kernels of ``hooks`` (all by default) for the declared signatures.
        Cheap once bound.
        """
        vid = int(vid)
        if not 0 <= vid < self.ids:
            raise ValueError(f"variant id {vid} is outside the hook table (0..{self.ids - 1})")
        hooks = self.order if hooks is None else hooks
        tab_type = None if tab is None else numba.typeof(tab)
        if (vid, tab_type, hooks) in self._bound:
            return
        with self._lock:
            for hook in hooks:
                h = self.order.index(hook)
                sig = self.signature(hook, tab_type)
                fn = self.variant_kernel(hook, vid)
                if hook in self.skipped and fn is self.hooks[hook][1]:
                    self.table.set_address(h, vid, self.SKIP)
                    continue
                self.table.fill(h, vid, fn, sig.args, sig.return_type, declared=True)
            self._bound.add((vid, tab_type, hooks))

    def binding(self, disp, late: _late.LateTable | None = None, needs=lambda args: (),
                hooks: tuple[str, ...] | None = None):  # fmt: skip
        """``disp`` (an entry kernel: Python calls it) binding its variant's ``hooks``
        first, and the kernels of ``late`` that ``needs(args)`` names; the packed rules
        are its first argument, the hand tables (if any) its argument ``tab``.
        """
        if numba.config.DISABLE_JIT:  # the hooks call the variants' Python functions
            return disp
        params = tuple(inspect.signature(disp.py_func).parameters)
        at = params.index("tab") if "tab" in params else None

        def bind_hooks(args):
            self.bind(args[0][self.id_slot], None if at is None else args[at], hooks)

        if late is None:
            if self._no_late is None:
                self._no_late = _late.LateTable(f"{self.table.symbol}_none", 1)
            late = self._no_late
        return _late.binding(disp, late, needs, bind_hooks)

    def call(self, hook: str):
        """An intrinsic ``call(vid, *args)``: hook ``hook`` of variant ``vid``."""
        decl = self.hooks[hook][3]
        if numba.config.DISABLE_JIT:  # pure Python (the coverage pass)

            def py_call(vid, *args):
                return self.variant_kernel(hook, vid)(*args)

            return py_call

        def declared(args):
            if len(args) != len(decl):
                raise numba.core.errors.TypingError(f"hook {hook} takes {len(decl)} arguments")
            return self.signature(hook, args[decl.index("tab")] if "tab" in decl else None)

        message = f"mjlab: hook {hook} called for a variant that is not bound ({self.table.symbol})"
        skip = self.SKIP if hook in self.skipped else 0
        return self.table.indexed(f"hook {hook}", len(decl), declared, message, skip)
