"""Re-scoring recorded mahjong deals with the variant's own settlement (engine.runs.rescore).

:func:`settle_rows` runs, for every record row, the variant's ``restore`` hook (the
context slots, the money owed and the pattern bits, rebuilt from the row under the new
payout table) and then its ``settle`` hook, the kernel the game loop pays a deal with, and
writes the value, the payments, the pattern bits and the extras back into the row. So a
variant's payment is written once; its numpy twin lives in the tests
(``tests/oracles/settlement.py``), which check the one against the other.
"""

from __future__ import annotations

import numpy as np

from engine.hand._tables import kernel_tables
from engine.jit.njit import kernel
from engine.mahjong.layout import (
    C_DELTA,
    C_EXTRA,
    C_PAT_HI,
    C_PAT_LO,
    C_VALUE,
    MAX_EXTRA,
    N_COLS,
    N_CTX,
    R_PLAYERS,
)
from engine.play.mahjong import hooks as _hooks

__all__ = ["settle_rows", "rescore_rows"]


@kernel
def _settle_rows(rules, rec, tab):
    players = rules[R_PLAYERS]
    ctx = np.zeros(N_CTX, np.int64)
    pay = np.zeros((4, 4), np.int64)
    delta = np.zeros(4, np.int64)
    extra = np.zeros(MAX_EXTRA, np.int64)
    for i in range(rec.shape[0]):
        row = rec[i]
        ctx[:] = 0
        pay[:, :] = 0
        delta[:] = 0
        for j in range(MAX_EXTRA):
            extra[j] = row[C_EXTRA + j]
        bits = _hooks.restore(rules, ctx, pay, row)
        row[C_VALUE] = _hooks.settle(rules, ctx, pay, bits, players, delta, extra)
        for s in range(4):
            row[C_DELTA + s] = delta[s] if s < players else 0
        row[C_PAT_LO] = bits & 0x7FFFFFFF
        row[C_PAT_HI] = (bits >> 31) & 0x7FFFFFFF
        for j in range(MAX_EXTRA):
            row[C_EXTRA + j] = extra[j]


settle_rows = _hooks.binding(_settle_rows, hooks=("restore", "settle"))
"""``settle_rows(rules, rec, tab)``: every row of ``rec`` (int64 (n, N_COLS)) paid again
under the packed ``rules`` by the variant's settlement, in place."""


def rescore_rows(variant, packed: np.ndarray, rec: np.ndarray) -> None:
    """Pay the rows ``rec`` (int64 (n, N_COLS)) again under the packed rules, in place."""
    if not hasattr(variant.hooks, "restore"):
        raise ValueError(f"{variant.name}: no restore hook, so its records cannot be re-scored")
    assert rec.dtype == np.int64 and rec.shape[1] == N_COLS
    settle_rows(packed, rec, kernel_tables())
