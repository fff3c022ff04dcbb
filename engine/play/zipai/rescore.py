"""Re-scoring recorded 字牌 deals with the variant's own settlement (engine.runs.rescore).

:func:`rescore_rows` runs the variant's ``settle_row`` kernel, the payment the game loop
pays a deal with, over every record row: so a variant's payment is written once; its
numpy twin lives in the tests (``tests/oracles/settlement.py``), which check the one
against the other.
"""

from __future__ import annotations

import numpy as np

from engine.abi import N_COLS
from engine.jit.njit import kernel
from engine.play.zipai import hooks as _hooks

__all__ = ["rescore_rows"]


@kernel
def _settle_rows(rules, rec):
    for i in range(rec.shape[0]):
        _hooks.settle_row(rules, rec[i])


settle_rows = _hooks.binding(_settle_rows, hooks=("settle_row",))
"""``settle_rows(rules, rec)``: every row of ``rec`` (int64 (n, N_COLS)) paid again under
the packed ``rules`` by the variant's settlement, in place."""


def rescore_rows(variant, packed: np.ndarray, rec: np.ndarray) -> None:
    """Pay the rows ``rec`` (int64 (n, N_COLS)) again under the packed rules, in place."""
    assert rec.dtype == np.int64 and rec.shape[1] == N_COLS
    settle_rows(packed, rec)
