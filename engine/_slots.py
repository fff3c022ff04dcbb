"""Slot blocks of packed kernel arrays, handed out by code instead of by comments.

Kernels read flat numeric arrays (packed rules, bot parameters, per-deal context) by
slot number. A :class:`Slots` layout gives each named block its own range when the
module that declares it is imported, so two blocks can never overlap and a block that
grows moves the ones after it. The numbers are plain module-level ints, which numba
freezes into the compiled kernels.

>>> lay = Slots("example")
>>> a = lay.block("a", 3)
>>> b = lay.block("b")
>>> (a, b, lay.size)
(0, 3, 4)
"""

from __future__ import annotations

__all__ = ["Slots", "LAYOUTS"]

LAYOUTS: list[Slots] = []
"""Every layout made so far, in the order the modules declaring them were imported (the
tests check each for overlaps and limits)."""


class Slots:
    """A named layout of consecutive slot blocks in one packed array.

    Parameters
    ----------
    name : str
        What the array is (used in error messages).
    start : int
        The first slot the layout may hand out.
    limit : int, optional
        One past the last slot the array has; a block past it raises ValueError.
    """

    def __init__(self, name: str, start: int = 0, limit: int | None = None):
        self.name = name
        self.start = start
        self.limit = limit
        self.size = start
        self.blocks: dict[str, tuple[int, int]] = {}
        self.parent: tuple[Slots, str] | None = None
        LAYOUTS.append(self)

    def sub(self, key: str, name: str) -> Slots:
        """A layout for the inside of block ``key`` (e.g. one variant's own rule slots in
        the block the engine leaves to variants): its blocks start at the block's first
        slot and may not pass its end.
        """
        first, n = self.blocks[key]
        inner = Slots(name, start=first, limit=first + n)
        inner.parent = (self, key)
        return inner

    def block(self, key: str, n: int = 1, at: int | None = None) -> int:
        """Reserve ``n`` consecutive slots named ``key``; returns the first.

        ``at`` places the block at a fixed slot (leaving the slots before it free); it
        must not reach back into a block already handed out, so a block that grows is
        refused at import time instead of overlapping the next one silently.
        """
        if key in self.blocks:
            raise ValueError(f"{self.name}: block {key!r} declared twice")
        if n < 1:
            raise ValueError(f"{self.name}: block {key!r} needs at least one slot")
        first = self.size
        if at is not None:
            if at < first:
                last = max(self.blocks, key=lambda k: self.blocks[k][0]) if self.blocks else None
                raise ValueError(
                    f"{self.name}: block {key!r} at slot {at} overlaps block {last!r}, "
                    f"which ends at {first - 1}"
                )
            first = at
        if self.limit is not None and first + n > self.limit:
            raise ValueError(
                f"{self.name}: block {key!r} ({n} slots at {first}) passes the limit {self.limit}"
            )
        self.blocks[key] = (first, n)
        self.size = first + n
        return first

    def group(self, prefix: str) -> dict[str, tuple[int, int]]:
        """The blocks named ``prefix.<name>``, as ``name -> (first, n)``."""
        head = prefix + "."
        return {k[len(head) :]: v for k, v in self.blocks.items() if k.startswith(head)}

    def end(self, key: str) -> int:
        """One past the last slot of block ``key``."""
        first, n = self.blocks[key]
        return first + n

    def overlaps(self) -> list[tuple[str, str]]:
        """Pairs of blocks sharing a slot (always empty unless edited by hand)."""
        items = sorted(self.blocks.items(), key=lambda kv: kv[1][0])
        out = []
        for (ka, (a, na)), (kb, (b, _)) in zip(items, items[1:], strict=False):
            if b < a + na:
                out.append((ka, kb))
        return out

    def __repr__(self) -> str:
        return f"Slots({self.name!r}, {len(self.blocks)} blocks, size {self.size})"
