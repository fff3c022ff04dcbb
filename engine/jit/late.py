"""Late calls: a kernel calls another that is compiled only when a run needs it.

numba compiles a kernel's callees with it and links their code into its own, where LLVM
optimises it again; every kernel above re-optimises it once more. A game loop's deepest
kernels were thus optimised three or four times, and a run compiled the strong policy's
decisions even when no seat played it (issue 21: a first run took a minute of CPU).

A :func:`LateTable.late` call site instead jumps through a table of machine-code
addresses, an external symbol of the compiled code: the caller's machine code holds no
copy of the callee, so it is the same (and cached the same) whether or not the callee is
compiled, and the callee is compiled once, in its own library, when
:meth:`LateTable.bind` fills its slot. An entry kernel wrapped by :func:`binding` binds the
late kernels its call can reach before each call. A call through an empty slot raises
RuntimeError instead of jumping to address 0.

Each family's loop has its own table (its own symbol): the slots are numbered in the
order its module declares them, which the cached machine code bakes in.

>>> t = LateTable("mjlab_doctest_late", 2)
>>> t.slots
2
"""

from __future__ import annotations

import ctypes
import inspect
import os
import pickle
import threading

import numba
from llvmlite import binding as llvm_binding
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

__all__ = ["LateTable", "binding"]


class LateTable:
    """``slots`` late kernels, called through the machine-code addresses at ``symbol``."""

    def __init__(self, symbol: str, slots: int):
        self.symbol = symbol
        self.slots = slots
        self.addresses = (ctypes.c_int64 * slots)()
        """Machine-code address of each late kernel (0: not bound yet)."""
        llvm_binding.add_symbol(symbol, ctypes.addressof(self.addresses))
        self.kernels: list = []  # (kernel, return type) by slot
        self._sigs: dict[int, object] = {}  # slot -> the argument types its call site passes
        self._lock = threading.Lock()

    # ---- the argument types of each call site, kept beside the compiled code ----------
    def _sig_file(self, slot: int):
        from engine.jit.njit import compiled_dir

        disp = self.kernels[slot][0]
        return compiled_dir() / "late" / f"{disp.py_func.__module__}.{disp.__name__}.sig"

    def _record_sig(self, slot: int, args) -> None:
        """The argument types of late kernel ``slot``'s call site, kept beside the compiled
        code (the caller may be loaded from the cache in a later process, which never
        types it).
        """
        from engine.jit.cache import private_makedirs
        from engine.jit.njit import compiled_dir

        old = self._sigs.setdefault(slot, args)
        if old != args:
            raise numba.core.errors.TypingError(
                f"{self.kernels[slot][0].__name__} is called late with {old} and with "
                f"{args}; late kernels have one signature"
            )
        path = self._sig_file(slot)
        private_makedirs(path.parent, compiled_dir())
        tmp = path.with_name(f"{path.name}.tmp.{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        with os.fdopen(fd, "wb") as f:
            pickle.dump(args, f)
        os.replace(tmp, path)

    def _sig(self, slot: int):
        """The recorded argument types of late kernel ``slot`` (None: its caller is not
        compiled in this cache yet).
        """
        if slot in self._sigs:
            return self._sigs[slot]
        from engine.jit.cache import open_private
        from engine.jit.njit import compiled_dir

        try:
            f = open_private(self._sig_file(slot), compiled_dir())
        except FileNotFoundError:
            return None
        with f:
            args = pickle.load(f)
        self._sigs[slot] = args
        return args

    # ---- binding and calling ----------------------------------------------------------
    def bind(self, kernels) -> bool:
        """Fill the slots of ``kernels`` (compiling or loading each for its call site's
        types), callers before the late kernels they call; False if a call site was never
        compiled in this cache (the caller must be compiled first).
        """
        with self._lock:
            for disp in kernels:
                slot = next(i for i, (d, _) in enumerate(self.kernels) if d is disp)
                if self.addresses[slot]:
                    continue
                args = self._sig(slot)
                if args is None:
                    return False
                ret = self.kernels[slot][1]
                if tuple(args) not in disp.overloads:
                    # by the argument types alone, as a direct call from another kernel
                    # compiles it: numba keys its disk cache by the signature it is
                    # given, and a full signature would miss what an earlier run cached
                    disp.compile(tuple(args))
                cres = disp.overloads[tuple(args)]
                if cres.signature.return_type != ret:
                    raise TypeError(
                        f"{disp.py_func.__module__}.{disp.__name__} returns "
                        f"{cres.signature.return_type}, declared late as {ret}"
                    )
                fn = cres.fndesc.llvm_func_name
                self.addresses[slot] = cres.library.get_pointer_to_function(fn)
        return True

    def late(self, disp, ret):
        """An intrinsic calling kernel ``disp`` (returning ``ret``) through this table.

        The caller's compiled code holds no copy of ``disp``: ``disp`` is compiled (or
        loaded) only when :meth:`bind` fills its slot, which an entry kernel's
        :func:`binding` does when its run can reach it. A call through an empty slot
        raises RuntimeError.
        """
        if numba.config.DISABLE_JIT:
            return disp
        slot = len(self.kernels)
        if slot >= self.slots:
            raise ValueError(f"more than {self.slots} late kernels in {self.symbol}")
        self.kernels.append((disp, ret))
        name = disp.__name__
        symbol = self.symbol
        n_slots = self.slots
        table = self

        def typer(typingctx, *given):
            args = tuple(types.unliteral(a) for a in given)
            table._record_sig(slot, args)

            def codegen(context, builder, signature, llargs):
                i64 = ir.IntType(64)
                mod = builder.module
                gv = mod.globals.get(symbol)
                if gv is None:
                    gv = ir.GlobalVariable(mod, ir.ArrayType(i64, n_slots), symbol)
                at = builder.gep(gv, [ir.Constant(i64, 0), ir.Constant(i64, slot)])
                addr = builder.load(at)
                with builder.if_then(builder.icmp_unsigned("==", addr, ir.Constant(i64, 0)),
                                     likely=False):  # fmt: skip
                    context.call_conv.return_user_exc(
                        builder,
                        RuntimeError,
                        (f"mjlab: {name} called before it was bound (engine.jit.late)",),
                    )
                vals = [
                    context.cast(builder, v, g, a)
                    for v, g, a in zip(llargs, given, args, strict=True)
                ]
                fnty = context.call_conv.get_function_type(ret, args)
                fnptr = builder.inttoptr(addr, fnty.as_pointer())
                status, res = context.call_conv.call_function(builder, fnptr, ret, args, vals)
                with cgutils.if_unlikely(builder, status.is_error):
                    context.call_conv.return_status_propagate(builder, status)
                return res if ret != types.none else context.get_dummy_value()

            return ret(*given), codegen

        # numba's intrinsics take named arguments, not *args: the kernel's own names
        names = ", ".join(inspect.signature(disp.py_func).parameters)
        scope = {"typer": typer}
        exec(f"def call(typingctx, {names}):\n    return typer(typingctx, {names})", scope)
        return intrinsic(scope["call"])


class Bound:
    """An entry kernel (Python calls it) that binds the late kernels its call can reach.

    ``needs(args)`` (the call's arguments by name) names them, callers first;
    ``before(args)`` (a tuple, optional) runs first (the mahjong loop binds its variant's
    hooks there). Everything else (``py_func``, ``signatures``, ``serial`` ...) is the
    kernel's.
    """

    def __init__(self, disp, table: LateTable, needs, before=None):
        self._disp = disp
        self._table = table
        self._needs = needs
        self._before = before
        self._params = tuple(inspect.signature(disp.py_func).parameters)

    def __call__(self, *args):
        if self._before is not None:
            self._before(args)
        kernels = self._needs(dict(zip(self._params, args, strict=False)))
        table = self._table
        if kernels and not table.bind(kernels):
            # their call sites are not compiled yet: compile the entry (not run it) first;
            # binding a late kernel compiles it, which types the late calls it makes
            self._disp.compile(tuple(numba.typeof(a) for a in args))
            if not table.bind(kernels):
                raise RuntimeError(f"{self._disp}: late kernels {kernels} did not bind")
        return self._disp(*args)

    def __getattr__(self, name):
        value = getattr(self._disp, name)
        if name == "serial":
            return Bound(value, self._table, self._needs, self._before)
        return value

    def __repr__(self):
        return f"bound({self._disp!r})"


def binding(disp, table: LateTable, needs, before=None):
    """``disp`` (an entry kernel) binding the late kernels ``needs(args)`` names, after
    ``before(args)`` (see :class:`Bound`); the kernel itself without the JIT.
    """
    if numba.config.DISABLE_JIT:
        return disp
    return Bound(disp, table, needs, before)
