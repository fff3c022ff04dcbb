"""A tiny variant for the tests and the README walkthrough (``tiny``; not listed).

A 136-tile game of four players with no wild tiles and no chows: a hand wins when it is
four sets (pongs or kongs, or runs held in hand) and a pair, on the winner's own draw or,
by default, on a discard. It pays ``pay_base`` (1) points times the factor of each pattern it holds
(碰碰胡 ×2, 清一色 ×4, 自摸 ×2): a discard win is paid by the discarder alone, a self-draw
by every other seat. The dealer passes on a draw and keeps the deal on a win.

It is a real variant (the same registry, kernels, conformance check and record hashes as
the others) that is declared ``listed=False``: ``mjlab variants``, the report and the
rules reference leave it out, and ``mjlab simulate tiny`` runs it by name. It is one
folder (this declaration and ``_kernels.py``) plus its name in ``_registry.MODULES``.
"""

from __future__ import annotations

import numpy as np

from engine.mahjong import layout as L
from engine.mahjong import params as bot_layout

from .._base import RuleOption, Variant
from .._mahjong import engine_rules
from .._registry import register
from .._scoring import melds8, pattern_names, settle_hand, win_context
from . import _kernels as K

OPTIONS = (
    RuleOption(
        "dianpao",
        True,
        (False, True),
        "Allow winning on a discard (the discarder alone pays); false: self-draw only.",
    ),
    RuleOption(
        "pay_base",
        1,
        tuple(range(1, 9)),
        "Points of a win before the pattern factors multiply it.",
        payout=True,
    ),
)

PATTERNS = K.PATTERNS
"""The scoring patterns, in bit order (declared with their detectors in the kernel module)."""


def pack(rules) -> np.ndarray:
    """Packed int64 rules for the kernel."""
    r = engine_rules(
        kernel_id=K.KERNEL_ID,
        chow=False,
        discard_win=rules["dianpao"],
        rob_kong=False,
        shapes=("standard",),
        rot_win_next=False,
        rot_draw_next=True,
    )
    r[K.T_BASE] = rules["pay_base"]
    return r


def bot_params(policy, rules) -> dict:
    """The value bot's target bonuses in quarter tiles (清一色, 碰碰胡)."""
    return dict(flush=3, triplets=2) if policy == "value" else {}


def score_hand(rules, counts, wilds, melds, win_kind, win_type, seat, dealer, streak, flags,
               discarder=None, **_):  # fmt: skip
    """Score one winning hand (the ``mjlab score`` calculator; engine.variants._scoring)."""
    from ...errors import UsageError
    from ...hand import is_complete
    from ...hand._tables import kernel_tables

    if wilds:
        raise UsageError("tiny has no wild tiles (--wild)")
    if win_type == L.WIN_DISCARD and not rules["dianpao"]:
        raise UsageError("tiny wins by self-draw only under dianpao=false")
    if win_type not in (L.WIN_SELF_DRAW, L.WIN_DISCARD, L.WIN_KONG_DRAW):
        raise UsageError("tiny has no robbing of kongs")
    r = pack(rules)
    sets = 4 - len(melds)
    complete = bool(is_complete(counts.astype(np.uint8), 0, sets, ("standard",)))
    out = {"complete": complete, "patterns": [], "value": 0, "deltas": [0, 0, 0, 0]}
    if not complete:
        return out
    ctx = win_context(seat, dealer, win_type, melds, feeder=discarder, flags=flags)
    bits = int(
        K.patterns(
            r, ctx, counts.astype(np.int64), 0, sets, melds8(melds), len(melds), kernel_tables()
        )
    )
    value, out["deltas"], _ = settle_hand(K.settle, r, ctx, bits)
    out["patterns"] = pattern_names(PATTERNS, bits)
    out["value"] = value
    return out


VARIANT = register(
    Variant(
        name="tiny",
        long_name="Tiny test variant (136 tiles, no wilds, no chows)",
        version=1,
        family="mahjong",
        listed=False,
        policies=("random", "efficiency", "value"),
        value_blind=("random", "efficiency", "value"),
        bot_layout=bot_layout,
        options=OPTIONS,
        patterns=PATTERNS,
        extras=(),
        pack=pack,
        value_unit="点",
        doc=__doc__,
        bench_deals=50_000,
        hooks=K,
        score_hand=score_hand,
        bot_params=bot_params,
        bot_targets=dict(flush=("qingyise",), triplets=("pengpeng",)),
    )
)
