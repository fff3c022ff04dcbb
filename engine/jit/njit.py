"""The house njit decorator: one place fixes the compile options of every kernel.

Every kernel in mjlab is compiled with ``nogil=True`` (threads may run kernels
concurrently) and ``error_model="numpy"`` (no Python exception checks in arithmetic), and
its machine code is cached on disk between runs by numba's own cache (``cache=True``).
No ``fastmath``: scores and counts are exact integers. Only numba's public means are
used: its documented environment variables, its ``numba:compile`` and
``numba:compiler_lock`` events (:mod:`numba.core.event`) and the dispatcher's documented
attributes; nothing of numba, llvmlite or matplotlib is replaced or patched
(tests/test_public_api.py checks the source).

**A cold start costs what the results need, no more.** The house choices that cut it,
none of which changes a result:

- LLVM optimizes at level 2 (``NUMBA_OPT=2``; numba's default is 3) unless the user set
  ``NUMBA_OPT``: the game and hand kernels ran as fast as at level 3. Without
  ``fastmath`` every level computes the same integers and floats.
- numba compiles a kernel called from a kernel once per constant a call site passes
  (``f(x, 3)`` and ``f(x, 4)`` type the constant as ``Literal[int](3)`` and
  ``Literal[int](4)``: two compiles). The engine's call sites pass variables
  (tests/engine/jit/test_compile_cuts.py checks that no kernel compiles for a constant).
- Late calls (:mod:`engine.jit.late`) compile a callee once, in its own library, and only
  when a run needs it.
- A :func:`parallel_kernel` has a serial twin, so that the game loops can be run on
  Python threads without numba's parallel lowering (see :func:`parallel_kernel`).
- Python's cyclic garbage collector is paused while a kernel compiles
  (:class:`_Compiles`): compiling makes hundreds of thousands of objects that live for
  the whole compile, and each collection walked them all again.

**The compile cache is keyed by the content of all kernel sources.** numba stamps a
cached function with its own file only, so after an edit to a callee in another module (a
variant's scoring kernels, the bots) a caller such as the game loop would load stale
machine code with the old callee inlined. numba's cache folder (``NUMBA_CACHE_DIR``,
set when this module is imported) is therefore ``<cache>/numba-<hash>``: named by a hash
of :func:`kernel_sources` (every module that defines kernels and, transitively, every
engine module they import from) and the numba version, under the cache folder of
:mod:`engine.jit.cache` (or under the user's own ``$NUMBA_CACHE_DIR``). Any change to
those sources starts a fresh folder (older ones are pruned); Python-only modules (CLI,
datasets, the variants' Python side) are not part of the key, so editing them does not
recompile. Inside it numba files each kernel by its source folder's path, so the same
sources installed at another path compile again.

**Only the owner's files are loaded, and a damaged one is compiled again.** numba's
index and data files are pickles: before numba reads anything in a process, the whole
folder is checked (:func:`engine.jit.cache.check_tree`: it and everything in it must
belong to the user and not be writable by group or others) and each file is checked
against the checksum mjlab recorded after numba wrote it
(:func:`engine.jit.cache.verify_sums`: a damaged one is removed, with a notice, and
compiled again). While numba holds its compiler lock (when it writes its files) and while
a kernel is declared (when numba makes its folders), the process umask withholds group
and other write, whatever the user's umask.

**The first compile says so.** When a kernel is about to be compiled rather than loaded,
:mod:`engine.jit.warmup` prints a one-line notice on stderr (what is compiled, roughly how
long it takes, that later runs skip it) and shows a progress bar while it compiles.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import hashlib
import importlib.metadata
import os
import re
import shutil
import threading
import types as pytypes
import weakref
from pathlib import Path

import numba
from llvmlite import ir
from numba.core import config as numba_config
from numba.core import event, types
from numba.core.dispatcher import Dispatcher
from numba.extending import intrinsic

__all__ = [
    "compiled_dir",
    "kernel",
    "kernel_sources",
    "bit_count",
    "lowest_bit",
    "parallel_kernel",
    "prepare_cache",
    "source_hash",
]

_ROOT = Path(__file__).resolve().parents[1]
"""The engine package: the root of the kernel sources."""

_KEEP = 3
"""Cache folders of earlier engine versions kept before pruning."""

OPT_LEVEL = 2
"""LLVM optimization level of the kernels unless ``NUMBA_OPT`` is set (module docstring)."""


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
    h = hashlib.sha256(importlib.metadata.version("numba").encode())
    for path in kernel_sources(root):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


# ---- where numba caches the kernels --------------------------------------------------
_SET_BY_MJLAB = "MJLAB_NUMBA_CACHE_DIR"
"""The ``NUMBA_CACHE_DIR`` this module set (inherited by child processes, which recompute
their own from ``MJLAB_CACHE_DIR``)."""

_USERS_OWN = "MJLAB_USER_NUMBA_CACHE_DIR"
"""The user's own ``NUMBA_CACHE_DIR`` when this module replaced it (the folder's base)."""


def _base() -> Path:
    """The folder the ``numba-<hash>`` folders live in (not created here)."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given and given == os.environ.get(_SET_BY_MJLAB):  # a parent mjlab set it
        given = os.environ.get(_USERS_OWN)
    if given:
        return Path(given).expanduser().absolute()
    from engine.jit.cache import cache_path

    return cache_path()


def _point_numba_here() -> Path:
    """Point numba's cache at this engine version's folder (numba's documented
    ``NUMBA_CACHE_DIR``, read again by numba's :func:`reload_config`); the folder.
    """
    base = _base()
    target = base / f"numba-{source_hash()}"
    users = os.environ.get("NUMBA_CACHE_DIR")
    if users and users != os.environ.get(_SET_BY_MJLAB):
        os.environ[_USERS_OWN] = users
    os.environ["NUMBA_CACHE_DIR"] = os.environ[_SET_BY_MJLAB] = str(target)
    os.environ.setdefault("NUMBA_OPT", str(OPT_LEVEL))
    numba_config.reload_config()  # numba was imported before this module set them
    return target


_FOLDER = _point_numba_here()
_BASE = _FOLDER.parent

_READY = threading.Lock()
_CHECKED = [False]


def compiled_dir() -> Path:
    """The folder of this engine version's compiled kernels (``NUMBA_CACHE_DIR``), checked
    whole and its files' checksums verified (:func:`prepare_cache`).
    """
    prepare_cache()
    return _FOLDER


def prepare_cache() -> None:
    """Once per process, before numba reads from its cache: create the folder (``0700``),
    refuse it unless only the user can change it and all in it
    (:func:`engine.jit.cache.check_tree`), remove damaged files
    (:func:`engine.jit.cache.verify_sums`) and prune older engine versions' folders.
    """
    if _CHECKED[0]:
        return
    with _READY:
        if _CHECKED[0]:
            return
        from engine.jit.cache import (
            cache_dir,
            check_folder,
            check_tree,
            private_makedirs,
            verify_sums,
        )

        if os.environ.get(_USERS_OWN):
            private_makedirs(_BASE)
            check_folder(_BASE)
        else:
            cache_dir()  # created and checked
        private_makedirs(_FOLDER, _BASE)
        check_tree(_FOLDER, _BASE)
        verify_sums(_FOLDER)
        others = sorted(
            (p for p in _BASE.glob("numba-*") if p != _FOLDER and p.is_dir()),
            key=lambda p: p.stat().st_mtime,
        )
        for old in others[: max(0, len(others) - _KEEP)]:
            shutil.rmtree(old, ignore_errors=True)
        _CHECKED[0] = True


_UMASK = threading.Lock()
_UMASK_STATE = {"depth": 0, "saved": 0}


def _tighten() -> None:
    """Files and folders are made without group or other write permission until the
    matching :func:`_loosen` (nested, any thread): the process umask gains ``022``.
    """
    with _UMASK:
        if _UMASK_STATE["depth"] == 0:
            saved = os.umask(0o022)
            os.umask(saved | 0o022)
            _UMASK_STATE["saved"] = saved
        _UMASK_STATE["depth"] += 1


def _loosen() -> None:
    """The end of a :func:`_tighten`: the last one gives the umask back."""
    with _UMASK:
        _UMASK_STATE["depth"] -= 1
        if _UMASK_STATE["depth"] == 0:
            os.umask(_UMASK_STATE["saved"])


@contextlib.contextmanager
def _private_files():
    """:func:`_tighten` for the block."""
    _tighten()
    try:
        yield
    finally:
        _loosen()


class _CompilerLock(event.Listener):
    """numba's compiler lock (``numba:compiler_lock``), under which numba loads and saves
    its cache: the cache is checked before the first load of a process
    (:func:`prepare_cache`), files are made private while it is held or waited for, and
    the checksums of the files written meanwhile are recorded when the outermost hold
    ends after a compile. (numba sends the start before taking the lock and the end
    after releasing it, so several threads may be between the two.)
    """

    def __init__(self):
        self.depth = 0
        self.wrote = False
        self.mutex = threading.Lock()

    def wrote_files(self):
        """A compile ended: numba writes its cache files before it lets the lock go."""
        self.wrote = True

    def on_start(self, ev):
        prepare_cache()  # CacheError here stops the load before numba reads anything
        _tighten()
        with self.mutex:
            self.depth += 1

    def on_end(self, ev):
        with self.mutex:
            self.depth -= 1
            record = self.depth == 0 and self.wrote
            if record:
                self.wrote = False
        try:
            if record:
                from engine.jit.cache import record_sums

                record_sums(_FOLDER)
        finally:
            _loosen()


_LOCK_WATCH = _CompilerLock()
event.register("numba:compiler_lock", _LOCK_WATCH)


# ---- compiles of house kernels: the notice, the collector ------------------------------
_HOUSE: weakref.WeakSet = weakref.WeakSet()
"""The dispatchers this module made (the kernels whose compiles are announced)."""

_YOUNG_LIMIT = 1_000_000
"""Objects made while the collector is paused before the youngest are collected."""


class _Compiles(event.Listener):
    """numba's compiles (``numba:compile`` events; they nest: a kernel's callees compile
    inside it). For the outermost compile of a house kernel:

    - :mod:`engine.jit.warmup` announces it (once per part) and counts every function
      compiled until it ends;
    - the cyclic garbage collector is paused from its start to its end, when it was
      running (a caller's own ``gc.disable()`` is left alone). Compiling creates objects
      (numba's IR, types and LLVM wrappers) that stay alive until the compile returns; a
      collection during it finds little garbage but walks them, and every object alive
      before. The garbage made meanwhile is collected by the collector's next run after
      the compile, or, when more than :data:`_YOUNG_LIMIT` objects were made since the
      last collection, at the end of a callee's compile by a collection of the youngest
      generation alone (each object is walked there once).

    Compiles hold numba's compiler lock, so they come from one thread at a time.
    """

    def __init__(self):
        self.depth = 0
        self.house = False
        self.paused = False

    def on_start(self, ev):
        if self.depth == 0:
            disp = ev.data.get("dispatcher") if ev.data else None
            self.house = disp is not None and disp in _HOUSE
            if self.house:
                from engine.jit.warmup import compiling

                compiling(disp.py_func)
                if gc.isenabled():
                    gc.disable()
                    self.paused = True
        self.depth += 1

    def on_end(self, ev):
        self.depth -= 1
        _LOCK_WATCH.wrote_files()
        if self.house:
            from engine.jit import warmup

            warmup.tick()
            if self.depth == 0:
                warmup.outermost_done()
        if self.paused and gc.get_count()[0] > _YOUNG_LIMIT:
            gc.collect(0)  # the youngest only: what was made since, once
        if self.depth == 0:
            self.house = False
            if self.paused:
                self.paused = False
                gc.enable()


event.register("numba:compile", _Compiles())


# ---- the decorators ----------------------------------------------------------------------
def _jit(options, func):
    options = {"cache": True, **options}
    with _private_files():  # numba makes the kernel's cache folder here
        disp = numba.njit(**options)(func)
    if isinstance(disp, Dispatcher):  # not with NUMBA_DISABLE_JIT
        _HOUSE.add(disp)
    return disp


def kernel(func=None, *, refcount=True, **extra):
    """Compile ``func`` with the house options (``@kernel`` or ``@kernel(inline=...)``).

    ``refcount=False`` compiles without numba's reference counting (``_nrt=False``): for
    the hot kernels that only read and write arrays they are given. Each array argument
    otherwise costs two calls (an atomic increment and decrement) per call, which was a
    fifth of a mahjong deal's time. Such a kernel cannot allocate (``np.empty``,
    ``.copy()``): numba refuses to compile it, so a mistake fails loudly. It may call
    kernels that allocate (every kernel states the option, so none inherits it).
    ``cache=False`` (for tests) compiles in every process.
    """
    # explicit either way: numba lets a kernel without the option inherit its caller's
    options = dict(nogil=True, error_model="numpy", _nrt=refcount)
    options.update(extra)
    if func is None:
        return lambda f: _jit(options, f)
    return _jit(options, func)


class ParallelKernel:
    """A kernel compiled with ``parallel=True`` and its serial twin, :attr:`serial`.

    Calls go to the parallel kernel; every other attribute (``py_func``, ``signatures``,
    ``targetoptions``, ``compile`` ...) is the parallel kernel's. Called from Python only
    (a kernel cannot call it).
    """

    def __init__(self, disp, serial):
        self._disp = disp
        self.serial = serial
        """The same function compiled without ``parallel`` (``prange`` is ``range``)."""

    def __call__(self, *args):
        return self._disp(*args)

    def __getattr__(self, name):
        return getattr(self._disp, name)

    def __repr__(self):
        return f"parallel({self._disp!r})"


def parallel_kernel(func, **extra):
    """Compile ``func`` with the house options and ``parallel=True`` (for ``prange``).

    Its ``serial`` attribute is the same function compiled without ``parallel``
    (``prange`` is then ``range``), with cache files of its own: for callers that split
    the work across threads themselves. numba's parallel lowering links the kernel's
    whole call tree into three more libraries (the loop body as a gufunc and two
    wrappers), each optimized and turned into machine code again; for the game loops that
    is a fifth of a cold start.
    """
    options = dict(nogil=True, error_model="numpy", **extra)
    disp = _jit(dict(options, parallel=True), func)
    if not isinstance(disp, Dispatcher):  # NUMBA_DISABLE_JIT: the plain function, twice
        return ParallelKernel(disp, disp)
    return ParallelKernel(disp, _jit(options, _twin(func, "serial")))


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
