"""The house njit decorator: one place fixes the compile options of every kernel.

Every kernel in mjlab is compiled with ``cache=True`` (compiled code is kept on disk
between runs), ``nogil=True`` (threads may run kernels concurrently) and
``error_model="numpy"`` (no Python exception checks in arithmetic). No ``fastmath``:
scores and counts are exact integers.

**The compile cache is keyed by all kernel sources.** numba stamps a cached function
with its own file only, so after an edit to a callee in another module (a variant's
scoring kernels, the bots) a caller such as the game loop would load stale machine code
with the old callee inlined. Importing this module therefore points numba's cache at a
folder named by a hash of every ``engine`` source file and the numba version
(``<cache>/numba-<hash>``, the cache folder of :mod:`engine._cache`), unless the user set
``NUMBA_CACHE_DIR`` themselves. Any change to the engine starts a fresh cache; older
folders are pruned.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numba

__all__ = ["kernel", "parallel_kernel", "source_hash"]

_KEEP = 3
"""Cache folders of earlier engine versions kept before pruning."""


def source_hash() -> str:
    """A short hash of every ``engine/**/*.py`` source and the numba version."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256(numba.__version__.encode())
    for path in sorted(root.rglob("*.py")):
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
