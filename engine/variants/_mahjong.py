"""Packing helpers shared by the mahjong-family variants."""

from __future__ import annotations

import numpy as np

from engine.mahjong import layout as L
from engine.mahjong.params import N_LEGAL, N_TARGET

from ..hand import shape_mask

__all__ = ["engine_rules", "strong_defaults"]


def engine_rules(
    *,
    kernel_id: int,
    tileset: int = 136,
    sets: int = 4,
    chow: bool,
    discard_win: bool,
    rob_kong: bool = True,
    wild_mode: int = 0,
    wild_kinds: int = 0,
    wild_fixed: tuple[int, int] = (-1, -1),
    indicator: int = 0,
    indicator_live: bool = False,
    standin: bool = False,
    wild_discard: int = 0,
    wild_discard_fine: int = 0,
    wild_discard_selfdraw: bool = False,
    reserve: int = 0,
    rot_win_next: bool = False,
    rot_draw_next: bool = False,
    shapes=("standard",),
    pass_lock: bool = False,
) -> np.ndarray:
    """The engine part of a packed rules array (variant slots from ``R_VAR`` are zero)."""
    r = np.zeros(L.N_RULES, np.int64)
    r[L.R_VARIANT] = kernel_id
    r[L.R_TILESET] = tileset
    r[L.R_SETS] = sets
    r[L.R_CHOW] = int(chow)
    r[L.R_DISCARD_WIN] = int(discard_win)
    r[L.R_ROB_KONG] = int(rob_kong)
    r[L.R_WILD_MODE] = wild_mode
    r[L.R_WILD_KINDS] = wild_kinds
    r[L.R_WILD_FIXED0], r[L.R_WILD_FIXED1] = wild_fixed
    r[L.R_INDICATOR] = indicator
    r[L.R_INDICATOR_LIVE] = int(indicator_live)
    r[L.R_STANDIN] = int(standin)
    r[L.R_WILD_DISCARD] = wild_discard
    r[L.R_WILD_DISCARD_FINE] = wild_discard_fine
    r[L.R_WILD_DISCARD_SELFDRAW] = int(wild_discard_selfdraw)
    r[L.R_RESERVE] = reserve
    r[L.R_ROT_WIN] = int(rot_win_next)
    r[L.R_ROT_DRAW] = int(rot_draw_next)
    r[L.R_SHAPES] = shape_mask(shapes)
    r[L.R_PASS_LOCK] = int(pass_lock)
    r[L.R_KONG_DRAW_FROM_TAIL] = 1
    r[L.R_PLAYERS] = 4
    return r


def strong_defaults(**kw) -> dict:
    """The strong policy's scalar parameters before tuning (engine.mahjong.params)."""
    out = dict(
        alpha=1.0, alpha_kong=1.0, claim_bias=0.0, chow_bias=0.0, kong_bias=0.0, kong_an=0.0,
        kong_add=0.0, kong_ming=0.0, feed_kong=0.0, rob=1.0, chase_min_live=0.0,
        mult=[1.0] * N_TARGET, legal=[1.0] * N_LEGAL, kong_tempo=0.0,
    )  # fmt: skip
    out.update(kw)
    return out
