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

__all__ = ["Slots"]


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

    def block(self, key: str, n: int = 1) -> int:
        """Reserve ``n`` consecutive slots named ``key``; returns the first."""
        if key in self.blocks:
            raise ValueError(f"{self.name}: block {key!r} declared twice")
        if n < 1:
            raise ValueError(f"{self.name}: block {key!r} needs at least one slot")
        first = self.size
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
