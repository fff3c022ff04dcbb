"""Bots per seat: policy codes and parameter rows for the kernels.

A seat's bot is a policy (``random``, ``efficiency``, ``value``, ``strong``) and a row of
float64 parameters laid out by its family (:mod:`engine.game._params` for the mahjong
family, :mod:`engine.zipai._params` for 字牌). :func:`seat_bots` builds both arrays for a
run from the variant's defaults (:attr:`engine.variants.Variant.bot_params`) and any
overrides, so the same policy can play with different parameters in different seats
(tuning plays a candidate against the field this way).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .errors import UsageError
from .game import _layout as L

__all__ = ["POLICY_NAMES", "layout_of", "seat_bots", "policy_codes"]

POLICY_NAMES = L.POLICY_NAMES
"""Every policy name, in code order (the kernels' ``P_*`` codes)."""


def layout_of(variant):
    """The parameter layout module of ``variant``'s family (``N_BOT`` and the keys)."""
    if variant.family == "zipai":
        from .zipai import _params
    else:
        from .game import _params
    return _params


def policy_codes(policies: Sequence[str]) -> np.ndarray:
    """int64 policy codes of a sequence of policy names (already validated)."""
    return np.array([POLICY_NAMES.index(p) for p in policies], np.int64)


def _row(layout, policy: str, params: Mapping[str, Any]) -> np.ndarray:
    row = np.zeros(layout.N_BOT, np.float64)
    slots = layout.slots(policy)
    for key, value in params.items():
        if key not in slots:
            known = ", ".join(sorted(slots)) or "none"
            raise UsageError(f"policy {policy} has no parameter {key!r}; parameters: {known}")
        first, n = slots[key]
        arr = np.asarray(value, np.float64).reshape(-1)
        if arr.size != n:
            raise UsageError(f"parameter {policy}.{key} takes {n} values, got {arr.size}")
        if not np.isfinite(arr).all():
            raise UsageError(f"parameter {policy}.{key} must be finite")
        row[first : first + n] = arr
    return row


def seat_bots(
    variant,
    resolved: Mapping[str, Any],
    policies: Sequence[str],
    overrides: Mapping[int, Mapping[str, Any]] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(codes int64 (seats,), rows float64 (4, N_BOT))`` for a run's seats.

    Row ``s`` holds the defaults of seat ``s``'s policy under ``resolved`` options,
    updated by ``overrides[s]`` (a mapping of parameter name to value) when given.
    """
    layout = layout_of(variant)
    rows = np.zeros((4, layout.N_BOT), np.float64)
    for s, policy in enumerate(policies):
        params = dict(variant.bot_params(policy, resolved) if variant.bot_params else {})
        params.update((overrides or {}).get(s, {}))
        rows[s] = _row(layout, policy, params)
    return policy_codes(policies), rows
