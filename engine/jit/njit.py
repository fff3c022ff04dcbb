"""The house njit decorator: one place fixes the compile options of every kernel.

Every kernel in mjlab is compiled with ``nogil=True`` (threads may run kernels
concurrently) and ``error_model="numpy"`` (no Python exception checks in arithmetic), and
its machine code is cached on disk between runs. No ``fastmath``: scores and counts are
exact integers.

**A cold start costs what the results need, no more** (issue 21: the first run compiled
for about a minute of CPU). Four house choices cut it, none of which changes a result:

- LLVM optimizes at level 2 (``NUMBA_OPT=2``; numba's default is 3) unless the user set
  ``NUMBA_OPT``: it cut the first mahjong compile by about a tenth, and the game and
  hand kernels ran as fast as at level 3 (within the noise of a shared machine). Without
  ``fastmath`` every level computes the same integers and floats.
- A kernel called from a kernel compiles once for its arguments' plain types, not once
  per constant a call site passes (:func:`_unliteral_calls`).
- A :func:`parallel_kernel` has a serial twin, so that the game loops can be run on
  Python threads without numba's parallel lowering (see :func:`parallel_kernel`).
- Python's cyclic garbage collector is paused while a kernel compiles
  (:class:`_PausedCollector`): compiling makes hundreds of thousands of objects that live
  for the whole compile, and each collection walked them all again (a first 落地扫 run
  about a tenth less CPU; a first 推倒胡 run gains only on a loaded machine).
- Two pieces of numba's compile bookkeeping are made cheap for the same span
  (:class:`_CheapBookkeeping`): compiler flags hash and compare without building a dict
  of their values, and the LLVM lock broadcasts no timing events (a first run 4-10 % less
  CPU). The machine code is the same.

**The compile cache is keyed by the content of all kernel sources.** numba stamps a
cached function with its own file only, so after an edit to a callee in another module (a
variant's scoring kernels, the bots) a caller such as the game loop would load stale
machine code with the old callee inlined. The kernels' cache therefore lives in a folder
named by a hash of :func:`kernel_sources` (every module that defines kernels and,
transitively, every engine module they import from) and the numba version:
``<cache>/numba-<hash>/<subpackage>/`` under the cache folder of :mod:`engine.jit.cache`
(or under ``$NUMBA_CACHE_DIR`` if the user set it). Each cached function is stamped with
that same hash, not with its file's path, modification time or size, so a reinstall that
rewrites identical sources, or the same sources in another place (a copy, another
virtual environment, a Dask worker importing the installed package), loads the compiled
code instead of compiling again. Any change to those sources starts a fresh folder
(older ones are pruned); Python-only modules (CLI, datasets, the variants' Python side)
are not part of the key, so editing them does not recompile.

**Only the owner's files are loaded.** numba's index and data files are pickles: each is
opened through :func:`engine.jit.cache.open_private` (the file and its folders must belong to
the user and not be writable by group or others) and written without group/other write
permission whatever the umask; see :mod:`engine.jit.cache`.

**The first compile says so.** When a kernel is about to be compiled rather than loaded,
:mod:`engine.jit.warmup` prints a one-line notice on stderr (what is compiled, roughly how
long it takes, that later runs skip it) and shows a progress bar while it compiles.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import hashlib
import os
import pickle
import re
import shutil
import types as pytypes
import uuid
from pathlib import Path

import numba
from llvmlite import ir
from llvmlite.binding import ffi as llvm_ffi
from numba.core import event, types
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    IndexDataCacheFile,
    _CacheLocator,
)
from numba.core.dispatcher import Dispatcher
from numba.core.targetconfig import TargetConfig
from numba.extending import intrinsic

__all__ = [
    "compiled_dir",
    "kernel",
    "kernel_sources",
    "bit_count",
    "lowest_bit",
    "parallel_kernel",
    "source_hash",
]

_ROOT = Path(__file__).resolve().parents[1]
"""The engine package: the root of the kernel sources and of the cache's subfolders."""

_KEEP = 3
"""Cache folders of earlier engine versions kept before pruning."""

OPT_LEVEL = 2
"""LLVM optimization level of the kernels unless ``NUMBA_OPT`` is set (module docstring)."""

if "NUMBA_OPT" not in os.environ:
    numba.config.OPT = type(numba.config.OPT)(OPT_LEVEL)


_KERNEL_MARK = re.compile(r"^@(kernel|parallel_kernel)\b|numba\.njit", re.M)


def _module_file(base: Path, dotted: str) -> Path | None:
    """The file of module ``dotted`` under ``base`` (a module or a package's __init__)."""
    target = base.joinpath(*dotted.split(".")) if dotted else base
    if target.with_suffix(".py").is_file():
        return target.with_suffix(".py")
    if (target / "__init__.py").is_file():
        return target / "__init__.py"
    return None


_MACHINERY = {"njit.py"}
"""Modules in the key whose imports are not followed: this one imports the cache and the
compile notice (Python only, never compiled in); its own kernels' helpers (``lowest_bit``)
are in its source, which is in the key. Anything it imports into compiled code must be
defined here."""


_IMPORT = re.compile(r"^[ \t]*((?:from[ \t]+\S+[ \t]+)?import[ \t]+(?:\([^)]*\)|[^\n]*))", re.M)
"""An import statement at any depth (a parenthesized name list may span lines)."""


def _import_nodes(text: str):
    """The import statements of a source, parsed one by one.

    Parsing only these (not the whole module, ~0.2 s for the engine) keeps the cache key
    cheap at every start-up; a line that merely looks like one (in a docstring) and
    parses adds a module to the key, which errs on the safe side.
    """
    for m in _IMPORT.finditer(text):
        try:
            yield from ast.parse(m.group(1)).body
        except SyntaxError:
            continue


def _imports(path: Path, root: Path) -> set[Path]:
    """The engine modules ``path`` imports from (relative or ``engine.`` imports)."""
    out: set[Path] = set()
    for node in _import_nodes(path.read_text(encoding="utf-8")):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = path.parent
                for _ in range(node.level - 1):
                    base = base.parent
                dotted = node.module or ""
            elif (node.module or "").split(".")[0] == root.name:
                base, dotted = root, node.module.partition(".")[2]
            else:
                continue
            for alias in node.names:
                # ``from ..variants import _zhuji`` imports a module, not the package init
                sub = _module_file(base, f"{dotted}.{alias.name}".strip("."))
                found = sub or _module_file(base, dotted)
                if found is not None:
                    out.add(found)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == root.name:
                    found = _module_file(root, alias.name.partition(".")[2])
                    if found is not None:
                        out.add(found)
    return out


def kernel_sources(root: Path | None = None) -> list[Path]:
    """The sources compiled code can depend on: every module that defines kernels and,
    transitively, every engine module they import from (constants, callees, options).

    Modules no kernel reaches (the CLI, datasets, replay text, the variants' Python side)
    are left out, so editing them keeps the compiled cache.
    """
    root = (root or _ROOT).resolve()
    todo = [
        p.resolve()
        for p in root.rglob("*.py")
        if _KERNEL_MARK.search(p.read_text(encoding="utf-8"))
    ]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        if path.name in _MACHINERY:
            continue
        todo.extend(_imports(path, root) - seen)
    return sorted(seen)


def source_hash(root: Path | None = None) -> str:
    """A short hash of :func:`kernel_sources` and the numba version."""
    root = (root or _ROOT).resolve()
    h = hashlib.sha256(numba.__version__.encode())
    for path in kernel_sources(root):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


_COMPILED: Path | None = None


def compiled_dir() -> Path:
    """The folder of this engine version's compiled kernels (created, checked, pruned)."""
    global _COMPILED
    if _COMPILED is None:
        from engine.jit.cache import cache_dir, check_folder, private_makedirs

        user = os.environ.get("NUMBA_CACHE_DIR")
        if user:
            base = private_makedirs(Path(user).expanduser().absolute())
            check_folder(base)
        else:
            base = cache_dir()
        target = private_makedirs(base / f"numba-{_stamp()}", base)
        check_folder(target)
        others = sorted(
            (p for p in base.glob("numba-*") if p != target and p.is_dir()),
            key=lambda p: p.stat().st_mtime,
        )
        for old in others[: max(0, len(others) - _KEEP)]:
            shutil.rmtree(old, ignore_errors=True)
        _COMPILED = target
    return _COMPILED


_STAMP: str | None = None


def _stamp() -> str:
    global _STAMP
    if _STAMP is None:
        _STAMP = source_hash()
    return _STAMP


class _Locator(_CacheLocator):
    """Where a kernel's cache files live: ``numba-<hash>/<its subpackage>`` (no absolute
    path, so the same sources elsewhere find them), stamped with the sources' hash.
    """

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        try:
            self._sub = Path(py_file).resolve().parent.relative_to(_ROOT).as_posix()
        except ValueError:  # a kernel outside the engine package (a test's)
            self._sub = "_outside/" + _CacheLocator.get_suitable_cache_subpath(py_file)

    def get_cache_path(self):
        return str(compiled_dir() / self._sub)

    def ensure_cache_path(self):
        from engine.jit.cache import private_makedirs

        private_makedirs(self.get_cache_path(), compiled_dir())

    def get_source_stamp(self):
        return _stamp()

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        return cls(py_func, py_file)


class _Impl(CompileResultCacheImpl):
    _locator_classes = [_Locator]


class _CheckedFile(IndexDataCacheFile):
    """numba's index/data files, read only through :func:`engine.jit.cache.open_private`."""

    def _load_index(self):
        from engine.jit.cache import open_private

        try:
            f = open_private(self._index_path, compiled_dir())
        except FileNotFoundError:
            return {}
        with f:
            version = pickle.load(f)
            data = f.read()
        if version != self._version:
            return {}
        stamp, overloads = pickle.loads(data)
        return overloads if stamp == self._source_stamp else {}

    def _load_data(self, name):
        from engine.jit.cache import open_private

        with open_private(self._data_path(name), compiled_dir()) as f:
            data = f.read()
        return pickle.loads(data)

    @contextlib.contextmanager
    def _open_for_write(self, filepath):
        tmp = f"{filepath}.tmp.{uuid.uuid4().hex[:16]}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            with os.fdopen(fd, "wb") as f:
                yield f
            os.replace(tmp, filepath)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


class _KernelCache(FunctionCache):
    """numba's per-function cache with the locator and checked files above.

    The folder and stamp are computed on first use, not at import, so importing the
    engine touches no cache; the compile notice hooks in where a load misses.
    """

    _impl_class = _Impl

    def __init__(self, py_func):
        self._name = repr(py_func)
        self._py_func = py_func
        self._impl = self._impl_class(py_func)
        self._file = None
        self.enable()

    @property
    def _cache_path(self):
        return self._impl.locator.get_cache_path()

    @property
    def _cache_file(self):
        if self._file is None:
            self._file = _CheckedFile(
                cache_path=self._cache_path,
                filename_base=self._impl.filename_base,
                source_stamp=_stamp(),
            )
        return self._file

    def load_overload(self, sig, target_context):
        data = super().load_overload(sig, target_context)
        if data is None:
            from engine.jit.warmup import compiling

            compiling(self._py_func)
        return data

    def save_overload(self, sig, data):
        super().save_overload(sig, data)
        from engine.jit.warmup import compiled

        compiled(self._py_func)


_YOUNG_LIMIT = 1_000_000
"""Objects made while the collector is paused before the youngest are collected."""


def _engine_compile(ev) -> bool:
    """Whether a ``numba:compile`` event is the compile of an mjlab kernel."""
    disp = ev.data.get("dispatcher") if ev.data else None
    module = getattr(getattr(disp, "py_func", None), "__module__", "") or ""
    return module.split(".")[0] == __name__.split(".")[0]


class _PausedCollector(event.Listener):
    """Pauses the cyclic garbage collector from the start of an outermost compile of an
    mjlab kernel to its end (numba's ``numba:compile`` events nest: a kernel's callees
    compile inside it), when it was running; a caller's own ``gc.disable()`` is left
    alone.

    Compiling creates objects (numba's IR, types and LLVM wrappers) that stay alive until
    the compile returns; a collection during it finds little garbage but walks them, and
    every object alive before. The garbage made meanwhile is collected by the
    collector's next run after the compile, or, when more than :data:`_YOUNG_LIMIT`
    objects were made since the last collection, at the end of a callee's compile by a
    collection of the youngest generation alone (each object is walked there once;
    without it a first 推倒胡 run peaked 300 MB higher).

    A first ``mjlab simulate --deals 1000`` from an empty cache, in CPU-s: on a quiet
    machine 落地扫 42-44 down to 37-41, 推倒胡 61-62 against 63-65 (no gain resolved);
    beside another job 落地扫 54-60 to 46-55 and 推倒胡 88.5 to 74-78. The peak grows
    from 639 to 783 MB for 推倒胡, 457 to 522 MB for 落地扫.
    """

    def __init__(self):
        self.depth = 0
        self.paused = False

    def on_start(self, ev):
        if self.depth == 0 and _engine_compile(ev) and gc.isenabled():
            gc.disable()
            self.paused = True
        self.depth += 1

    def on_end(self, ev):
        self.depth -= 1
        if self.paused and gc.get_count()[0] > _YOUNG_LIMIT:
            gc.collect(0)  # the youngest only: what was made since, once
        if self.depth == 0 and self.paused:
            self.paused = False
            gc.enable()


event.register("numba:compile", _PausedCollector())


_ORIGINAL_FLAGS = (TargetConfig.__eq__, TargetConfig.__hash__)
_FLAG_HASHES: dict[type, int] = {}


def _flags_eq(self, other):
    """``TargetConfig.__eq__`` (equal values of every option), for two flags of one class
    without building the values of every option: the same object, or the same options set
    to the same values, else the values of the options set in either (an option set in
    neither has its default in both).
    """
    if self is other:
        return True
    if type(self) is not type(other):
        return _ORIGINAL_FLAGS[0](self, other)
    mine, theirs = self._values, other._values
    if mine == theirs:
        return True
    return all(getattr(self, k) == getattr(other, k) for k in mine.keys() | theirs.keys())


def _flags_hash(self):
    """``TargetConfig.__hash__``, the hash of the sorted option names, once per class."""
    cls = type(self)
    h = _FLAG_HASHES.get(cls)
    if h is None:
        h = _FLAG_HASHES[cls] = hash(tuple(sorted(self.options)))
    return h


def _flags_as_assumed() -> bool:
    """Whether this numba's flags hash and compare as :func:`_flags_hash` and
    :func:`_flags_eq` assume (else they are left alone).
    """
    from numba.core.compiler import Flags

    a, b = Flags(), Flags()
    b.nrt = not a.nrt
    return (
        hasattr(a, "_values")
        and _ORIGINAL_FLAGS[1](a) == _flags_hash(a) == _ORIGINAL_FLAGS[1](b)
        and not _ORIGINAL_FLAGS[0](a, b)
    )


def _numba_lock_callbacks() -> list:
    """The callbacks numba puts on llvmlite's LLVM lock (an event per lock taken and released)."""
    lock = getattr(getattr(llvm_ffi, "lib", None), "_lock", None)
    found = []
    for pair in getattr(lock, "_cblist", ()):
        fn = pair[0]
        if getattr(fn, "__module__", "") == "numba.core.base" and "llvm_lock" in getattr(
            fn, "__qualname__", ""
        ):
            found.append(pair)
    return found


class _CheapBookkeeping(event.Listener):
    """Makes two pieces of numba's bookkeeping cheap from the start of an outermost compile
    of an mjlab kernel to its end; the compiled code is the same.

    - **Compiler flags compare and hash without building their values.** Every typing of
      a call tries each ``@overload`` registered for it (an array ``a[i]`` tries seven:
      strings, lists, dicts, ...), and each try looks up a cache keyed by the compile's
      flags. numba's ``Flags.__hash__`` is the same for all flags of a class (the sorted
      option names) and ``__eq__`` builds a dict of every option's value on both sides,
      so each lookup built about 90 values: a tenth of a first 落地扫 compile. Here the
      hash is computed once per class (the same number), and two flags of one class
      compare by the options set in either, an option set in neither having its default
      in both (exact; flags of two classes go to numba's own comparison).
    - **No event per LLVM lock.** numba broadcasts a ``numba:llvm_lock`` start and end
      event each time llvmlite takes its lock (about 140,000 in a first 落地扫 compile),
      only to time it for the compile's metadata (``timers["llvm_lock"]``, which is 0
      for mjlab kernels). Its callbacks are taken off llvmlite's lock for the compile
      and put back after.

    Both are restored when the outermost compile ends, failed or not, so code outside
    mjlab's compiles sees numba unchanged. Compiles hold numba's global compiler lock, so
    no other thread compiles meanwhile. A first ``mjlab simulate --deals 1000`` from an
    empty cache, against the code before beside it: 落地扫 0.90-0.96 of the CPU, 推倒胡
    0.91-0.99 (the compile alone, in-process: 0.83-0.94).
    """

    def __init__(self):
        self.depth = 0
        self.active = False
        self.callbacks: list = []
        self.flags_ok = _flags_as_assumed()

    def on_start(self, ev):
        if self.depth == 0 and _engine_compile(ev):
            self.active = True
            if self.flags_ok and TargetConfig.__eq__ is _ORIGINAL_FLAGS[0]:
                TargetConfig.__eq__ = _flags_eq
                TargetConfig.__hash__ = _flags_hash
            self.callbacks = _numba_lock_callbacks()
            for acquire, release in self.callbacks:
                llvm_ffi.unregister_lock_callback(acquire, release)
        self.depth += 1

    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0 and self.active:
            self.active = False
            if TargetConfig.__eq__ is _flags_eq:
                TargetConfig.__eq__, TargetConfig.__hash__ = _ORIGINAL_FLAGS
            for acquire, release in self.callbacks:
                llvm_ffi.register_lock_callback(acquire, release)
            self.callbacks = []


event.register("numba:compile", _CheapBookkeeping())


def _jit(options, func):
    disp = numba.njit(**options)(func)
    if isinstance(disp, Dispatcher):  # not with NUMBA_DISABLE_JIT
        disp._cache = _KernelCache(disp.py_func)
        disp.get_call_template = _unliteral_calls(disp.get_call_template)
    return disp


def _unliteral_calls(get_call_template):
    """A kernel called from a kernel compiles for the arguments' plain types.

    numba otherwise compiles one version of a callee per constant a call site passes
    (``f(x, 3)`` and ``f(x, 4)`` type the constant as ``Literal[int](3)`` and
    ``Literal[int](4)``: two full compiles, and a third for a variable). With the literal
    types dropped every call site shares one version; the values are the same, so the
    results are too (a callee that needs a constant at compile time, such as an index into
    a heterogeneous tuple, fails to compile, loudly).
    """

    def unliteral(args, kws):
        return get_call_template(
            tuple(types.unliteral(a) for a in args),
            {k: types.unliteral(v) for k, v in kws.items()},
        )

    return unliteral


def kernel(func=None, *, refcount=True, **extra):
    """Compile ``func`` with the house options (``@kernel`` or ``@kernel(inline=...)``).

    ``refcount=False`` compiles without numba's reference counting (``_nrt=False``): for
    the hot kernels that only read and write arrays they are given. Each array argument
    otherwise costs two calls (an atomic increment and decrement) per call, which was a
    fifth of a mahjong deal's time. Such a kernel cannot allocate (``np.empty``,
    ``.copy()``): numba refuses to compile it, so a mistake fails loudly. It may call
    kernels that allocate (every kernel states the option, so none inherits it).
    """
    # explicit either way: numba lets a kernel without the option inherit its caller's
    options = dict(nogil=True, error_model="numpy", _nrt=refcount)
    options.update(extra)
    if func is None:
        return lambda f: _jit(options, f)
    return _jit(options, func)


def parallel_kernel(func):
    """Compile ``func`` with the house options and ``parallel=True`` (for ``prange``).

    Its ``serial`` attribute is the same function compiled without ``parallel``
    (``prange`` is then ``range``), with cache files of its own: for callers that split
    the work across threads themselves. numba's parallel lowering links the kernel's
    whole call tree into three more libraries (the loop body as a gufunc and two
    wrappers), each optimized and turned into machine code again; for the game loops that
    is a fifth of a cold start.
    """
    disp = _jit(dict(nogil=True, error_model="numpy", parallel=True), func)
    if isinstance(disp, Dispatcher):
        disp.serial = _jit(dict(nogil=True, error_model="numpy"), _twin(func, "serial"))
    else:  # NUMBA_DISABLE_JIT: the plain function is its own serial version
        disp.serial = disp
    return disp


def _twin(func, suffix: str):
    """A copy of ``func`` named ``<qualname>.<suffix>`` (so it gets its own cache files)."""
    twin = pytypes.FunctionType(
        func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__
    )
    twin.__qualname__ = f"{func.__qualname__}.{suffix}"
    twin.__module__ = func.__module__
    twin.__doc__ = func.__doc__
    twin.__kwdefaults__ = func.__kwdefaults__
    return twin


@intrinsic
def lowest_bit(typingctx, x):
    """Index of the lowest set bit of a nonzero integer ``x`` (LLVM ``cttz``, one
    instruction): kernels walk a bit set of tile kinds with
    ``j = lowest_bit(m); m &= m - 1``. Undefined for ``x == 0``.
    """
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return x(x), codegen


@intrinsic
def bit_count(typingctx, x):
    """The number of set bits of a non-negative integer ``x`` (LLVM ``ctpop``, one
    instruction): a bit set's size, or with bit planes a sum without a loop.
    """
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


if numba.config.DISABLE_JIT:  # pure Python (the coverage pass): the same value, by arithmetic

    def lowest_bit(x):  # noqa: F811 - the interpreted twin of the intrinsic above
        """Index of the lowest set bit of a nonzero integer ``x`` (interpreted)."""
        x = int(x)
        return type(x)((x & -x).bit_length() - 1)

    def bit_count(x):  # noqa: F811 - the interpreted twin of the intrinsic above
        """The number of set bits of a non-negative integer ``x`` (interpreted)."""
        x = int(x)
        return type(x)(bin(x).count("1"))
