"""The house njit decorator: one place fixes the compile options of every kernel.

Every kernel in mjlab is compiled with ``cache=True`` (compiled code is kept on disk
between runs), ``nogil=True`` (threads may run kernels concurrently) and
``error_model="numpy"`` (no Python exception checks in arithmetic). No ``fastmath``:
scores and counts are exact integers.
"""

from __future__ import annotations

import numba

__all__ = ["kernel", "parallel_kernel"]


def kernel(func=None, **extra):
    """Compile ``func`` with the house options (``@kernel`` or ``@kernel(inline=...)``)."""
    options = dict(cache=True, nogil=True, error_model="numpy")
    options.update(extra)
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)


def parallel_kernel(func):
    """Compile ``func`` with the house options and ``parallel=True`` (for ``prange``)."""
    return numba.njit(cache=True, nogil=True, error_model="numpy", parallel=True)(func)
