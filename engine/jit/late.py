"""Late calls: a kernel calls another that is compiled only when a run needs it.

numba compiles a kernel's callees with it and links their code into its own, where LLVM
optimises it again; every kernel above re-optimises it once more. A game loop's deepest
kernels were thus optimised three or four times, and a run compiled the strong policy's
decisions even when no seat played it.

A late call site instead jumps through a table of machine-code addresses, an external
symbol of the compiled code (:class:`LateTable`, registered with llvmlite's
``add_symbol``): the caller's machine code holds no copy of the callee, so it is the same
(and cached the same) whether or not the callee is compiled, and the callee is compiled
once, in its own library, when the table's entry is filled. A call through an empty entry
raises RuntimeError instead of jumping to address 0. This is the one pointer table of
the engine; it has two kinds of call site:

- :meth:`LateTable.late`: one kernel per slot, its signature that of its call site. An
  entry kernel wrapped by :func:`binding` binds the late kernels its call can reach
  before each call (:meth:`LateTable.bind`).
- :meth:`LateTable.indexed`: a slot with a row per id, the row chosen at run time by
  the call's first argument, its signature declared (the mahjong loop's variant hooks:
  :mod:`engine.play.mahjong.hooks` fills a variant's row with :meth:`LateTable.fill`).

Each table's symbol is its own; the slots are numbered in the order its module declares
them, which the cached machine code bakes in.

>>> t = LateTable("mjlab_doctest_late", 2)
>>> t.slots, t.rows
(2, 1)
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
    """``slots`` late call sites, each with ``rows`` entries, calling the machine-code
    addresses at ``symbol`` (entry ``slot * rows + row``).
    """

    def __init__(self, symbol: str, slots: int, rows: int = 1):
        self.symbol = symbol
        self.slots = slots
        self.rows = rows
        self.addresses = (ctypes.c_int64 * (slots * rows))()
        """Machine-code address of each entry (0: not bound yet)."""
        llvm_binding.add_symbol(symbol, ctypes.addressof(self.addresses))
        self.kernels: list = []  # (kernel, return type) by slot of a late() call site
        self._sigs: dict[int, object] = {}  # slot -> the argument types its call site passes
        self._lock = threading.Lock()

    # ---- entries ----------------------------------------------------------------------
    def address(self, slot: int, row: int = 0) -> int:
        """The machine-code address in entry (``slot``, ``row``) (0: empty)."""
        return self.addresses[slot * self.rows + row]

    def set_address(self, slot: int, row: int, address: int) -> None:
        """Put ``address`` in entry (``slot``, ``row``) (a marker such as an
        :meth:`indexed` call site's ``skip``, or a kernel's code: :meth:`fill`).
        """
        self.addresses[slot * self.rows + row] = address

    def fill(self, slot: int, row: int, disp, args, ret, declared: bool = False) -> None:
        """Put the machine code of kernel ``disp`` for argument types ``args`` in entry
        (``slot``, ``row``), compiling or loading it; TypeError unless it returns ``ret``.

        It is compiled for the argument types alone, as a direct call from another kernel
        compiles it (numba keys its disk cache by the signature it is given, and a full
        signature would miss what an earlier run cached), or, ``declared``, for the
        signature ``ret(*args)`` (its result cast to ``ret``: a hook whose default
        returns a constant).
        """
        args = tuple(args)
        if args not in disp.overloads:
            disp.compile(ret(*args) if declared else args)
        cres = disp.overloads[args]
        if cres.signature.return_type != ret:
            raise TypeError(
                f"{disp.py_func.__module__}.{disp.__name__} returns "
                f"{cres.signature.return_type}, declared late as {ret}"
            )
        fn = cres.fndesc.llvm_func_name
        self.set_address(slot, row, cres.library.get_pointer_to_function(fn))

    # ---- the argument types of each late() call site, kept beside the compiled code ----
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

        known = slot in self._sigs
        old = self._sigs.setdefault(slot, args)
        if old != args:
            raise numba.core.errors.TypingError(
                f"{self.kernels[slot][0].__name__} is called late with {old} and with "
                f"{args}; late kernels have one signature"
            )
        # numba types a call site more than once, and every process compiling the caller
        # types it: the file is written only when it does not hold these types already
        # (each rewrite is a new file under the cache's checksums, engine.jit.cache)
        if known:
            return
        try:
            if self._read_sig(slot) == args:
                return
        except OSError:  # unreadable, or not the user's alone: written over below
            pass
        path = self._sig_file(slot)
        private_makedirs(path.parent, compiled_dir())
        tmp = path.with_name(f"{path.name}.tmp.{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        with os.fdopen(fd, "wb") as f:
            pickle.dump(args, f)
        os.replace(tmp, path)

    def _sig(self, slot: int):
        """The recorded argument types of late kernel ``slot`` (None: its caller is not
        compiled in this cache yet, or the record cannot be read).
        """
        if slot not in self._sigs:
            args = self._read_sig(slot)
            if args is None:
                return None
            self._sigs[slot] = args
        return self._sigs[slot]

    def _read_sig(self, slot: int):
        """The argument types in late kernel ``slot``'s file (None: none or unreadable)."""
        from engine.jit.cache import open_private
        from engine.jit.njit import compiled_dir

        try:
            f = open_private(self._sig_file(slot), compiled_dir())
        except FileNotFoundError:
            return None
        with f:
            try:
                args = pickle.load(f)
            except Exception:  # unreadable: its caller is compiled again, which rewrites it
                return None
        if not isinstance(args, tuple) or not all(isinstance(a, types.Type) for a in args):
            return None
        return args

    # ---- late() call sites: binding and calling ----------------------------------------
    def bind(self, kernels) -> bool:
        """Fill the slots of ``kernels`` (compiling or loading each for its call site's
        types), callers before the late kernels they call; False if a call site was never
        compiled in this cache (the caller must be compiled first).
        """
        with self._lock:
            for disp in kernels:
                slot = next(i for i, (d, _) in enumerate(self.kernels) if d is disp)
                if self.address(slot):
                    continue
                args = self._sig(slot)
                if args is None:
                    return False
                self.fill(slot, 0, disp, args, self.kernels[slot][1])
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
        slot = self._new_slot()
        if self.rows != 1:
            raise ValueError(f"{self.symbol} has rows: its call sites are indexed()")
        self.kernels.append((disp, ret))
        table = self
        message = f"mjlab: {disp.__name__} called before it was bound (engine.jit.late)"

        def typer(typingctx, *given):
            args = tuple(types.unliteral(a) for a in given)
            table._record_sig(slot, args)

            def codegen(context, builder, signature, llargs):
                vals = [
                    context.cast(builder, v, g, a)
                    for v, g, a in zip(llargs, given, args, strict=True)
                ]
                return table._call(context, builder, slot, None, ret, args, vals, message)

            return ret(*given), codegen

        # numba's intrinsics take named arguments, not *args: the kernel's own names
        return _intrinsic(typer, tuple(inspect.signature(disp.py_func).parameters))

    def indexed(self, name: str, n_args: int, declared, message: str, skip: int = 0):
        """An intrinsic ``call(row, *args)`` (``n_args`` arguments): the kernel in entry
        (slot, ``row``) of a new slot, ``row`` an integer chosen at run time.

        ``declared(args)`` gives the call's signature (return and argument types) from the
        argument types the call site passes, or raises TypingError; the call site must
        pass exactly those. A row outside the table or an empty entry raises
        RuntimeError(``message``). ``skip`` (nonzero, for a kernel returning nothing) is a
        marker address: an entry holding it is not called (a no-op the table need not
        jump to).
        """
        slot = self._new_slot()
        self.kernels.append((None, name))
        table = self

        def typer(typingctx, row, *given):
            args = tuple(types.unliteral(a) for a in given)
            sig = declared(args)
            if args != sig.args:
                raise numba.core.errors.TypingError(
                    f"{name} is declared for {sig.args}, called with {args}"
                )

            def codegen(context, builder, signature, llargs):
                return table._call(
                    context, builder, slot, llargs[0], sig.return_type, sig.args,
                    llargs[1:], message, skip,
                )  # fmt: skip

            return sig.return_type(row, *args), codegen

        return _intrinsic(typer, ("row", *(f"a{i}" for i in range(n_args))))

    def _new_slot(self) -> int:
        slot = len(self.kernels)
        if slot >= self.slots:
            raise ValueError(f"more than {self.slots} late kernels in {self.symbol}")
        return slot

    # ---- the machine code of a call site -----------------------------------------------
    def _call(self, context, builder, slot, row, ret, argtypes, vals, message, skip=0):
        """Emit a call through entry (``slot``, ``row``): ``row`` an IR integer (None: row
        0), checked against the table; an empty entry (or one outside it) raises
        RuntimeError(``message``); an entry holding ``skip`` (if nonzero) is not called.
        """
        i64 = ir.IntType(64)
        mod = builder.module
        gv = mod.globals.get(self.symbol)
        if gv is None:
            gv = ir.GlobalVariable(mod, ir.ArrayType(i64, self.slots * self.rows), self.symbol)
        first = ir.Constant(i64, slot * self.rows)
        if row is None:
            inside = ir.Constant(ir.IntType(1), 1)
            at = first
        else:
            v = builder.sext(row, i64) if row.type.width < 64 else row
            inside = builder.and_(
                builder.icmp_signed(">=", v, ir.Constant(i64, 0)),
                builder.icmp_signed("<", v, ir.Constant(i64, self.rows)),
            )
            at = builder.add(builder.select(inside, v, ir.Constant(i64, 0)), first)
        addr = builder.load(builder.gep(gv, [ir.Constant(i64, 0), at]))
        bound = builder.and_(inside, builder.icmp_unsigned("!=", addr, ir.Constant(i64, 0)))
        with builder.if_then(builder.not_(bound), likely=False):
            context.call_conv.return_user_exc(builder, RuntimeError, (message,))
        fnty = context.call_conv.get_function_type(ret, argtypes)

        def emit():
            fnptr = builder.inttoptr(addr, fnty.as_pointer())
            status, res = context.call_conv.call_function(builder, fnptr, ret, argtypes, vals)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return res

        if skip:  # returns nothing: an entry holding ``skip`` is a no-op
            with builder.if_then(builder.icmp_unsigned("!=", addr, ir.Constant(i64, skip))):
                emit()
            return context.get_dummy_value()
        res = emit()
        return res if ret != types.none else context.get_dummy_value()


def _intrinsic(typer, names):
    """The intrinsic of ``typer(typingctx, *args)``, with named arguments ``names``
    (numba's intrinsics take named arguments, not ``*args``).
    """
    params = ", ".join(names)
    scope = {"typer": typer}
    exec(f"def call(typingctx, {params}):\n    return typer(typingctx, {params})", scope)
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
            sig = tuple(numba.typeof(a) for a in args)
            self._disp.compile(sig)
            if not table.bind(kernels):
                # the entry came from the cache but the record of its late call sites did
                # not (removed since, e.g. by another process): type a fresh copy of it,
                # which records them (slow, once)
                numba.njit(cache=False)(self._disp.py_func).compile(sig)
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
