"""A cold start that talks (``mjlab warmup`` is :mod:`mjlab.commands.warmup`).

The kernels are compiled on first use and cached on disk (engine.jit.njit), so the first
command after an install or an engine upgrade spends up to a minute or two compiling.
When a kernel is about to be compiled rather than loaded, :func:`compiling` prints one
line on stderr naming what is being compiled, roughly how long it takes and that later
runs skip it, and starts a progress bar (tqdm, on a terminal only) that counts the
functions numba compiles (numba's ``numba:compile`` event) against the count measured
for that part of the engine. The bar closes when the outermost compile returns; a warm
start prints nothing.

This module is a floor of the engine (engine.jit.njit calls it when a house kernel's
outermost compile starts, and as each function compiles and the compile ends): it imports
nothing above it; ``mjlab warmup`` lives in :mod:`mjlab.commands.warmup`.
"""

from __future__ import annotations

import contextlib
import sys

__all__ = ["compiling", "expect", "outermost_done", "tick", "PARTS"]

PARTS = {
    # module prefix: (what, numba compiles, CPU seconds) of a first `mjlab simulate` of
    # each family from an empty cache (README gives the measured figures); rough on
    # purpose: the notice says "about"
    "engine.play.mahjong": ("the mahjong game kernels", 100, 50),
    "engine.mahjong": ("the mahjong game kernels", 100, 50),
    "engine.play.zipai": ("the 字牌 (luodisao) game kernels", 75, 35),
    "engine.zipai": ("the 字牌 (luodisao) game kernels", 75, 35),
    "engine.hand._tables": ("the hand-table builder", 20, 4),
    "engine.hand": ("the hand-evaluation kernels", 60, 6),
    "engine.variants": ("the scoring kernels", 60, 10),
    "engine._exact_kernels": ("the exact-probability kernels", 40, 5),
}
"""What the first compile of each part of the engine is, and roughly what it costs."""

_DEFAULT = ("the engine's kernels", 20, 5)


def _part(py_func):
    module = getattr(py_func, "__module__", "") or ""
    for prefix in sorted(PARTS, key=len, reverse=True):  # the longest matching prefix
        if module.startswith(prefix):
            return PARTS[prefix]
    return _DEFAULT


class _Progress:
    """The bar of one announced compile: counts the functions numba compiles in it."""

    def __init__(self, what, total, seconds):
        from tqdm.auto import tqdm

        self.count = 0
        self.what = what
        self.bar = tqdm(
            total=total,
            desc=f"compiling {what}",
            unit=" functions",
            file=sys.stderr,
            disable=None,  # a terminal only: logs and pipes get the one line above
            leave=False,
        )

    def tick(self):
        self.count += 1
        bar = self.bar
        if bar.total is not None and bar.n + 1 > bar.total:
            bar.total = bar.n + 1
        bar.update(1)


_ACTIVE: _Progress | None = None
_EXPECT: list[str] = []
_ANNOUNCED: set[str] = set()


@contextlib.contextmanager
def expect(part: str):
    """Within this block, any compile is announced as ``part`` (a key of :data:`PARTS`)
    and counted in one bar, closed when the block ends (e.g. the hand tables and the
    game kernels of a first ``simulate``).
    """
    _EXPECT.append(part)
    try:
        yield
    finally:
        _EXPECT.pop()
        if not _EXPECT:
            _finish()


LAST: dict[str, int] = {}
"""Functions compiled by the last announced compile of each part (for tests and tuning)."""


def _finish() -> None:
    global _ACTIVE
    if _ACTIVE is not None:
        _ACTIVE.bar.close()
        LAST[_ACTIVE.what] = _ACTIVE.count
        _ACTIVE = None


def compiling(py_func) -> None:
    """A kernel is about to be compiled (not loaded from the cache): say so once.

    Called by engine.jit.njit at the start of every outermost compile of a house kernel;
    only a compile that is not already announced prints the notice (once per part and
    process) and starts the bar.
    """
    global _ACTIVE
    if _ACTIVE is not None:
        return
    what, total, seconds = PARTS[_EXPECT[0]] if _EXPECT else _part(py_func)
    if what not in _ANNOUNCED:  # once per part and process; later compiles just count
        _ANNOUNCED.add(what)
        print(
            f"mjlab: compiling {what} (first run only, about {_rough(seconds)} of CPU; "
            "later runs load them from the cache; `mjlab warmup` does this ahead of time)",
            file=sys.stderr,
            flush=True,
        )
    _ACTIVE = _Progress(what, total, seconds)


def tick() -> None:
    """A function finished compiling inside an announced compile: count it."""
    if _ACTIVE is not None:
        _ACTIVE.tick()


def outermost_done() -> None:
    """The outermost compile of a house kernel returned: close the bar, unless an
    :func:`expect` block goes on (its later compiles count in the same bar).
    """
    if not _EXPECT:
        _finish()


def _rough(seconds: float) -> str:
    if seconds < 90:
        return f"{max(5, 5 * round(seconds / 5))} s"
    return f"{round(seconds / 60)} min"
