"""The house njit decorator: one place fixes the compile options of every kernel.

Every kernel in mjlab is compiled with ``cache=True`` (compiled code is kept on disk
between runs), ``nogil=True`` (threads may run kernels concurrently) and
``error_model="numpy"`` (no Python exception checks in arithmetic). No ``fastmath``:
scores and counts are exact integers.

**The compile cache is keyed by all kernel sources.** numba stamps a cached function
with its own file only, so after an edit to a callee in another module (a variant's
scoring kernels, the bots) a caller such as the game loop would load stale machine code
with the old callee inlined. Importing this module therefore points numba's cache at a
folder named by a hash of :func:`kernel_sources` (every module that defines kernels and,
transitively, every engine module they import from) and the numba version
(``<cache>/numba-<hash>``, the cache folder of :mod:`engine._cache`), unless the user set
``NUMBA_CACHE_DIR`` themselves. Any change to those starts a fresh cache (older folders
are pruned); Python-only modules (CLI, datasets, the variants' Python side) are not
part of the key, so editing them does not recompile.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import shutil
from pathlib import Path

import numba
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

__all__ = ["kernel", "kernel_sources", "lowest_bit", "parallel_kernel", "source_hash"]

_KEEP = 3
"""Cache folders of earlier engine versions kept before pruning."""


_KERNEL_MARK = re.compile(r"^@(kernel|parallel_kernel)\b|numba\.njit", re.M)


def _module_file(base: Path, dotted: str) -> Path | None:
    """The file of module ``dotted`` under ``base`` (a module or a package's __init__)."""
    target = base.joinpath(*dotted.split(".")) if dotted else base
    if target.with_suffix(".py").is_file():
        return target.with_suffix(".py")
    if (target / "__init__.py").is_file():
        return target / "__init__.py"
    return None


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
    root = (root or Path(__file__).resolve().parent).resolve()
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
        todo.extend(_imports(path, root) - seen)
    return sorted(seen)


def source_hash(root: Path | None = None) -> str:
    """A short hash of :func:`kernel_sources` and the numba version."""
    root = (root or Path(__file__).resolve().parent).resolve()
    h = hashlib.sha256(numba.__version__.encode())
    for path in kernel_sources(root):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _point_cache() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    from ._cache import cache_dir

    base = cache_dir()
    target = base / f"numba-{source_hash()}"
    target.mkdir(parents=True, exist_ok=True)
    numba.config.CACHE_DIR = str(target)
    others = sorted(
        (p for p in base.glob("numba-*") if p != target and p.is_dir()),
        key=lambda p: p.stat().st_mtime,
    )
    for old in others[: max(0, len(others) - _KEEP)]:
        shutil.rmtree(old, ignore_errors=True)


_point_cache()


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
    options = dict(cache=True, nogil=True, error_model="numpy", _nrt=refcount)
    options.update(extra)
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)


def parallel_kernel(func):
    """Compile ``func`` with the house options and ``parallel=True`` (for ``prange``)."""
    return numba.njit(cache=True, nogil=True, error_model="numpy", parallel=True)(func)


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
