"""Compiled kernel of :mod:`engine.exact` (numba). Only numpy, numba and kernels here.

Encodings: a *half* is a list of groups of count vectors over a set of kinds (the m and
p suits, or the s suit and the honors); group ``g`` holds ``t[g]`` tiles, has the
min-plus distance row ``v[g]`` (int64 ``(n_groups, n_levels, 2*(sets+1))``: fewest tiles
to add for ``k`` sets without / with a pair at ``2*k`` / ``2*k + 1``, using at most ``e``
copies beyond the fourth of a kind at level ``e``), ``pairs[g]`` pairs
(``sum(c // 2)``), ``distinct[g]`` distinct terminal/honor kinds held, ``opair[g]`` 1
if one of them is held twice, and weight ``w[g]`` (int64, the number of physical tile
sets it stands for). ``mask`` is the shape bit mask (1 standard, 2 seven pairs, 4
thirteen orphans), as in :mod:`engine.hand._kernels`.
"""

from __future__ import annotations

from engine.jit.njit import kernel

STANDARD = 1
SEVEN_PAIRS = 2
THIRTEEN_ORPHANS = 4


@kernel
def _join_halves(
    a_t, a_v, a_pairs, a_distinct, a_opair, b_t, b_v, b_pairs, b_distinct, b_opair, b_w,
    hand, n_wild, sets, mask, out,
):  # fmt: skip
    """Sum second-half weights by (first-half group, wild tiles, distance) (compiled).

    For every pair of groups ``(a, b)`` whose tiles ``m = a_t[a] + b_t[b]`` leave room for
    ``w = hand - m`` wild tiles (``0 <= w <= n_wild``), the distance ``d`` of the union
    (minimum over the shapes of ``mask``; the standard shape at excess level ``w``, the
    budgets of the halves adding up to it) is computed and ``b_w[b]`` added to
    ``out[a, w, d]`` (int64 ``(n_a, n_wild + 1, n_d)``, zeroed by the caller). Returns
    the largest distance met (the caller checks it is below ``n_d``).
    """
    n_d = out.shape[2]
    top = a_v.shape[1] - 1
    worst = 0
    for a in range(a_t.shape[0]):
        for b in range(b_t.shape[0]):
            m = a_t[a] + b_t[b]
            w = hand - m
            if w < 0 or w > n_wild:
                continue
            best = 99
            if mask & STANDARD:
                e = w if w < top else top
                for e1 in range(e + 1):
                    e2 = e - e1
                    for k1 in range(sets + 1):
                        k2 = sets - k1
                        x = a_v[a, e1, 2 * k1] + b_v[b, e2, 2 * k2 + 1]
                        if x < best:
                            best = x
                        x = a_v[a, e1, 2 * k1 + 1] + b_v[b, e2, 2 * k2]
                        if x < best:
                            best = x
            if mask & SEVEN_PAIRS:
                p = a_pairs[a] + b_pairs[b]
                if p >= 7:
                    x = 0
                else:
                    x = 7 - p
                    if 7 + p - m > 0:
                        x += 7 + p - m
                if x < best:
                    best = x
            if mask & THIRTEEN_ORPHANS:
                x = 14 - a_distinct[a] - b_distinct[b] - (a_opair[a] | b_opair[b])
                if x < best:
                    best = x
            if best > worst:
                worst = best
            if best < n_d:
                out[a, w, best] += b_w[b]
    return worst
