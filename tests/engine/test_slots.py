"""Slot blocks of the packed kernel arrays are handed out by code and never overlap.

Every layout (:class:`engine._slots.Slots`: the record row, the mahjong rules and deal
context, each variant's own rule and scratch blocks inside them, the 字牌 rules, the bot
parameter rows) is checked here with its own interval arithmetic, so a block that grows
into the next one fails even if the allocator's guard were edited away.
"""

import pytest

import engine.variants  # noqa: F401  (imports every variant's kernel module, so its layouts)
from engine import abi
from engine._slots import LAYOUTS, Slots
from engine.mahjong import layout as L
from engine.mahjong import params as GP
from engine.mahjong import strong as GS
from engine.play.mahjong import loop as GL
from engine.play.zipai import loop as ZL
from engine.variants import get
from engine.variants.fuzhou import _kernels as _fuzhou
from engine.variants.luodisao import _kernels as _luodisao
from engine.zipai import layout as Z
from engine.zipai import params as ZP


def _intervals(layout):
    return sorted((first, first + n, key) for key, (first, n) in layout.blocks.items())


def test_every_kernel_array_has_a_layout():
    names = {lay.name for lay in LAYOUTS}
    for want in (
        "record row",
        "mahjong rules",
        "mahjong deal context",
        "zipai rules",
        "mahjong bot parameters",
        "zipai bot parameters",
        "fuzhou rules",
        "fuzhou scratch",
        "lishui rules",
        "zhuji rules",
        "tuidaohu rules",
        "mahjong loop scratch",
        "mahjong loop random streams",
        "strong policy scratch",
        "strong policy float scratch",
        "zipai strong policy scratch",
    ):
        assert want in names, f"no layout {want!r}: {sorted(names)}"
    assert {abi.ROW, L.RULES, L.CTX, Z.RULES, GP.LAYOUT, ZP.LAYOUT} <= set(LAYOUTS)


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda lay: lay.name)
def test_no_two_blocks_of_a_layout_share_a_slot(layout):
    spans = _intervals(layout)
    assert spans, f"{layout.name} has no blocks"
    for (a0, a1, ka), (b0, _, kb) in zip(spans, spans[1:], strict=False):
        assert a1 <= b0, f"{layout.name}: {ka} [{a0}, {a1}) overlaps {kb} at {b0}"
    assert spans[0][0] >= layout.start
    if layout.limit is not None:
        assert spans[-1][1] <= layout.limit, f"{layout.name} passes its limit {layout.limit}"
    if layout.parent is not None:
        parent, key = layout.parent
        first, n = parent.blocks[key]
        assert first <= spans[0][0] and spans[-1][1] <= first + n, (
            f"{layout.name} leaves block {key!r} of {parent.name}"
        )


def test_the_record_row_is_the_fixed_columns_then_the_extras():
    assert (abi.N_FIXED, abi.C_EXTRA, abi.N_COLS) == (14, 14, 14 + abi.MAX_EXTRA)
    assert abi.C_PAT_HI + 1 == abi.C_EXTRA
    assert L.N_COLS == abi.N_COLS and L.C_DELTA == abi.C_DELTA  # the family re-exports them


def test_the_per_pattern_blocks_follow_the_declared_patterns():
    """The 落地扫 番 factors and the 福州 special values hold one slot per declared
    pattern, and the block after each starts right after its last slot (the 番 block is
    the 字牌 layout's, the variant's own slots follow it)."""
    assert Z.RULES.blocks["fan"][1] == Z.N_FAN == len(get("luodisao").patterns)
    assert _luodisao.Z_F == Z.Z_F and _luodisao.N_PATTERNS == Z.N_FAN
    assert _luodisao.Z_HONG_LO == _luodisao.Z_F + _luodisao.N_PATTERNS == Z.Z_VAR
    assert _fuzhou.VAR.blocks["special"][1] == _fuzhou.N_PATTERNS == len(get("fuzhou").patterns)
    assert _fuzhou.F_YOU_MULT == _fuzhou.F_SPECIAL + _fuzhou.N_PATTERNS


def test_a_block_placed_inside_an_earlier_one_is_refused():
    """A 14th 落地扫 pattern would have run its factor into the 红胡 bound: now a block
    at a fixed slot that an earlier block reaches is an import-time error."""
    lay = Slots("test rules", limit=64)
    lay.block("fan", 14, at=40)
    with pytest.raises(ValueError, match="overlaps block 'fan'"):
        lay.block("hong_lo", at=53)
    with pytest.raises(ValueError, match="passes the limit"):
        lay.block("wide", 20)
    with pytest.raises(ValueError, match="declared twice"):
        lay.block("fan")
    inner = lay.sub("fan", "test inner")
    inner.block("a", 14)
    with pytest.raises(ValueError, match="passes the limit 54"):
        inner.block("b")


def test_the_loop_work_arrays_are_as_long_as_their_layouts():
    """The mahjong loop's scratch, random streams and the strong policy's float scratch
    are allocated at their layouts' sizes, and the strong blocks inside them at theirs, so
    no phase slices past its array into a neighbour."""
    ws = GL.workspace.py_func(136)
    scratch, states, fsc = ws[14], ws[15], ws[16]
    assert scratch.shape == (GL.SCR.size,) and scratch.dtype.kind == "i"
    assert states.shape == (GL.STATES.size,) and states.dtype.kind == "u"
    assert fsc.shape == (GS.N_FSC,) and fsc.dtype.kind == "f"
    assert GL.SCR.blocks["strong"][1] == GS.SSCR == GS.SS.size
    assert GL.SCR.blocks["score"][1] == GL.SCRATCH
    assert GL.SCR.limit == GL.SCR.size and GS.SS.limit == GS.SSCR
    # the 字牌 strong scratch's score block holds every field a score writes
    assert ZL.SS.blocks["score"][1] == ZL.N_OUT
    assert ZL.SS.blocks["feeds"][1] == ZL.MAX_FI and ZL.SSCR == ZL.SS.size
