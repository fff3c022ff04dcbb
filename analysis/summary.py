"""Mergeable summaries of record frames: counts, sums and sums of squares.

A :class:`Summary` holds, for one variant and rule set, every aggregate that the
per-deal statistics need (counts per seat, role, pattern and win type; sums and cross
products of the seat and role deltas; fixed-bin histograms of ``value`` and of each
seat's delta). Summaries of disjoint sets of deals merge exactly (integer sums stay
Python ints), so chunks, processes and Dask partitions can be summarised apart and
combined: ``Summary.from_records(a).merge(Summary.from_records(b))`` equals
``Summary.from_records(concat([a, b]))`` field for field.

Every analysis function that can work from these aggregates accepts a ``Summary`` in
place of a record frame (frequencies, payouts by seat/role/win type, fairness tests,
the cross-variant panel except swinginess). Quantiles, match totals, Gini, top-1%
swinginess, skill-vs-luck and sweeps need the rows themselves and take frames only.

>>> from analysis.testing import synthetic_records
>>> df = synthetic_records(20, seed=3)
>>> whole = Summary.from_records(df)
>>> parts = Summary.from_records(df.iloc[:100]).merge(Summary.from_records(df.iloc[100:]))
>>> parts == whole
True
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields

import numpy as np
import pandas as pd

from analysis import schema
from analysis.schema import WIN_TYPES
from engine.errors import UsageError

__all__ = ["Summary", "as_summary", "DEFAULT_VALUE_EDGES", "DEFAULT_DELTA_EDGES"]


def _pseudolog(top: int = 1 << 24) -> list[int]:
    out = list(range(1, 9))
    k = 8
    while k < top:
        out += [k + k // 4 * i for i in range(1, 4)] + [2 * k]
        k *= 2
    return out


_POS = _pseudolog()
DEFAULT_VALUE_EDGES: tuple[float, ...] = (0, *_POS)
"""Histogram edges of ``value``: 0..8, then four bins per doubling up to 2^24.

Bins are half-open ``[e_i, e_{i+1})`` plus an underflow bin below the first edge and an
overflow bin from the last edge up; for integer values each edge is exact."""

DEFAULT_DELTA_EDGES: tuple[float, ...] = (*(-x for x in reversed(_POS)), 0, *_POS)
"""Histogram edges of a seat's delta: the value edges mirrored around 0, so that
``P(delta < -x)`` is exact from the histogram for every edge ``x``."""

_BLOCK = 1 << 20  # rows per block: bounds temporaries and keeps int64 sums from overflowing


def _tolist(a) -> list:
    return [int(v) if isinstance(v, (int, np.integer)) else float(v) for v in np.asarray(a).ravel()]


def _dot(x: np.ndarray, y: np.ndarray):
    """Exact ``sum(x * y)`` for integer arrays (Python int), float sum otherwise."""
    if x.dtype.kind == "f" or y.dtype.kind == "f":
        return float(np.dot(x.astype(np.float64), y.astype(np.float64)))
    if x.size == 0:
        return 0
    mx, my = int(np.abs(x).max()), int(np.abs(y).max())
    if mx == 0 or my == 0:
        return 0
    step = (1 << 62) // (mx * my)
    if step < 1:
        return sum(int(a) * int(b) for a, b in zip(x.tolist(), y.tolist(), strict=True))
    x64, y64 = x.astype(np.int64, copy=False), y.astype(np.int64, copy=False)
    return sum(int(np.dot(x64[i : i + step], y64[i : i + step])) for i in range(0, x.size, step))


def _sum(x: np.ndarray):
    """Exact sum for integer arrays (Python int), float sum otherwise."""
    if x.dtype.kind == "f":
        return float(x.sum(dtype=np.float64))
    if x.size == 0:
        return 0
    if int(np.abs(x).max()) < (1 << 62) // x.size:
        return int(x.sum(dtype=np.int64))
    return sum(int(v) for v in x.tolist())


def _moments(x: np.ndarray) -> list:
    """``[sum, sum of squares]`` (exact ints for integer input)."""
    return [_sum(x), _dot(x, x)]


class _Hist:
    """Counts per fixed bin (under/overflow included); a lookup table for small ints."""

    _L = 4096

    def __init__(self, edges: np.ndarray):
        self.edges = edges
        self.lut = np.searchsorted(edges, np.arange(-self._L, self._L + 1), side="right")

    def __call__(self, x: np.ndarray) -> np.ndarray:
        nb = self.edges.size + 1
        if x.dtype.kind not in "iu" or x.size == 0:
            return np.bincount(np.searchsorted(self.edges, x, side="right"), minlength=nb)
        x = x.astype(np.int64, copy=False)
        inside = (x >= -self._L) & (x <= self._L)
        out = np.bincount(self.lut[x[inside] + self._L], minlength=nb)
        if not inside.all():
            out += np.bincount(np.searchsorted(self.edges, x[~inside], side="right"), minlength=nb)
        return out


_FLOAT_EXACT = 1 << 14


def _exact_in_float(d: np.ndarray, value: np.ndarray, n: int) -> bool:
    """Whether float64 BLAS/bincount sums of this block are exact (or the data are float).

    With ``|x| <= 2^14`` and at most 2^20 rows, every product is below 2^28 (a deal's
    flow below 2^16, its square below 2^32) and every partial sum below 2^53, so
    float64 accumulation is exact in any order.
    """
    if n > _BLOCK:
        return False
    if d.dtype.kind == "f" and value.dtype.kind == "f":
        return True
    if n == 0:
        return True
    ok_d = d.dtype.kind == "f" or max(-int(d.min()), int(d.max())) <= _FLOAT_EXACT
    ok_v = value.dtype.kind == "f" or max(-int(value.min()), int(value.max())) <= _FLOAT_EXACT
    return ok_d and ok_v


def _to_int(a) -> list | int:
    out = np.rint(np.asarray(a)).astype(np.int64).tolist()
    return out


def _to_float(a) -> list | float:
    return np.asarray(a, dtype=np.float64).tolist()


def _cross(d: np.ndarray) -> tuple[list, list]:
    """Exact column sums and cross-product matrix of a block (BLAS when exact)."""
    p = d.shape[1]
    if d.dtype.kind == "f":
        return d.sum(axis=0).tolist(), (d.T @ d).tolist()
    if d.size == 0:
        return [0] * p, [[0] * p for _ in range(p)]
    # float64 sums of integer products are exact while every partial sum stays < 2^53
    if d.shape[0] <= (1 << 20) and int(np.abs(d).max()) <= (1 << 16):
        f = d.astype(np.float64)
        return [int(v) for v in f.sum(axis=0)], [[int(v) for v in r] for r in f.T @ f]
    cols = [np.ascontiguousarray(d[:, s]) for s in range(p)]
    return [_sum(x) for x in cols], [[_dot(x, y) for y in cols] for x in cols]


def _py(v):
    """Plain Python numbers and lists (exact ints) from numpy results, recursively."""
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return [_py(x) for x in v]
    if isinstance(v, dict):
        return {k: _py(x) for k, x in v.items()}
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    return float(v)


def _add(a, b):
    if isinstance(a, list):
        if len(a) < len(b):
            a = a + [0] * (len(b) - len(a))
        elif len(b) < len(a):
            b = b + [0] * (len(a) - len(b))
        return [_add(x, y) for x, y in zip(a, b, strict=True)]
    if isinstance(a, dict):
        return {
            k: _add(a[k], b[k]) if k in a and k in b else a.get(k, b.get(k))
            for k in sorted(set(a) | set(b))
        }
    return a + b


@dataclass(eq=False)
class Summary:
    """Mergeable aggregates of the deals of one variant and rule set.

    Build with :meth:`from_records`; combine with :meth:`merge`; serialise with
    :meth:`to_dict` / :meth:`from_dict` (JSON-able, integer sums exact). Seats are
    absolute seats ``0..players-1``; a *distance* is ``(seat - dealer) mod players`` in
    turn order (0 = the dealer, 1 = the dealer's 下家...).

    Attributes
    ----------
    variant, rules_id : str
        Identity of the records.
    players : int
        Seats.
    patterns, extras : tuple of str
        Pattern names (``pat_`` stripped) and numeric extra columns, sorted.
    meta : dict
        File metadata (package and variant versions, rules) when loaded from Parquet.
    run_seeds : list of int
        Seeds of the runs summarised.
    n_deals : int
        Deals.
    wins_by_seat, deal_ins_by_seat, dealer_by_seat, wins_by_distance : list of int
        Per seat: wins, wins fed (as discarder), deals as dealer; wins per distance.
    win_types : list of int
        Deals per :data:`analysis.schema.WIN_TYPES` (``none`` = drawn).
    pattern_counts : list of int
        Deals with each pattern flag set.
    pattern_combos : dict
        Won deals per combination of pattern flags; key = hex of the bit mask over
        ``patterns`` (bit i = pattern i).
    delta_sum, delta_cross : list
        ``Σ delta_s`` and ``Σ delta_s · delta_t`` over deals (seat by seat).
    role_sum, role_cross : list
        The same for the delta at each distance from the dealer.
    flow, turns, value : list
        ``[Σ x, Σ x²]`` of points changing hands per deal (``Σ max(delta, 0)``), of
        ``turns`` per deal and of ``value`` per won deal.
    wintype_winner, wintype_discarder, wintype_value : list
        Per win type: ``[Σ, Σ²]`` of the winner's delta, ``[n, Σ, Σ²]`` of the
        discarder's delta, ``[Σ, Σ²]`` of value.
    wilds : list of int
        Won deals per ``wilds_in_hand`` (0, 1, 2...).
    value_edges, delta_edges : list
        Fixed histogram edges (see :data:`DEFAULT_VALUE_EDGES`).
    value_hist : list of int
        Won deals per value bin (``len(value_edges) + 1`` bins with under/overflow).
    delta_hist : list of list of int
        Per seat, deals per delta bin.
    extra_moments : dict
        ``name -> [Σ, Σ²]`` over all deals for each extra column.
    match_count, match_cross : int, list
        Matches folded so far and ``Σ_g T_g T_gᵀ`` of their totals
        ``T_g = [deals, seat deltas (P), deltas by distance (P), wins by seat (P)]``:
        what match-clustered standard errors need.
    extra_match, extra_pending : dict
        For match-clustered intervals of the extras: ``name -> [Σ_g n_g X_g, Σ_g X_g²]``
        over the folded matches (``X_g`` the extra's total in match g, ``n_g`` its
        deals), and ``"run_seed:match" -> [X_g per extra]`` of the pending matches
        (keys as ``match_pending``). Empty in summaries stored before they existed:
        the extras' intervals are then per deal (see :func:`analysis.payouts.extra_means`).
    match_pending : dict
        ``"run_seed:match" -> T_g`` of the first and last match of each summarised
        part, kept apart because another part may hold the rest of that match; they
        are added (same key) on merge and folded in when statistics are computed.
        Merging is exact for parts that cover contiguous ranges of matches (chunks,
        row groups, partitions of a dataset in record order); the per-deal fields
        merge exactly for any partition.

    Notes
    -----
    Equality compares the folded form (pending matches folded in), so a merge of parts
    equals the summary of the whole.
    """

    variant: str
    rules_id: str
    players: int
    patterns: tuple[str, ...]
    extras: tuple[str, ...]
    meta: dict = field(default_factory=dict)
    run_seeds: list = field(default_factory=list)
    n_deals: int = 0
    wins_by_seat: list = field(default_factory=list)
    deal_ins_by_seat: list = field(default_factory=list)
    dealer_by_seat: list = field(default_factory=list)
    wins_by_distance: list = field(default_factory=list)
    win_types: list = field(default_factory=list)
    pattern_counts: list = field(default_factory=list)
    pattern_combos: dict = field(default_factory=dict)
    delta_sum: list = field(default_factory=list)
    delta_cross: list = field(default_factory=list)
    role_sum: list = field(default_factory=list)
    role_cross: list = field(default_factory=list)
    flow: list = field(default_factory=list)
    turns: list = field(default_factory=list)
    value: list = field(default_factory=list)
    wintype_winner: list = field(default_factory=list)
    wintype_discarder: list = field(default_factory=list)
    wintype_value: list = field(default_factory=list)
    wilds: list = field(default_factory=list)
    value_edges: list = field(default_factory=lambda: list(DEFAULT_VALUE_EDGES))
    delta_edges: list = field(default_factory=lambda: list(DEFAULT_DELTA_EDGES))
    value_hist: list = field(default_factory=list)
    delta_hist: list = field(default_factory=list)
    extra_moments: dict = field(default_factory=dict)
    match_count: int = 0
    match_cross: list = field(default_factory=list)
    match_pending: dict = field(default_factory=dict)
    extra_match: dict = field(default_factory=dict)
    extra_pending: dict = field(default_factory=dict)

    _IDENT = ("variant", "rules_id", "players", "patterns", "extras", "value_edges", "delta_edges")

    # ------------------------------------------------------------------ building
    @classmethod
    def from_records(
        cls,
        df: pd.DataFrame,
        *,
        value_edges=None,
        delta_edges=None,
        meta: dict | None = None,
    ) -> Summary:
        """Summarise a record frame (one variant and rule set).

        Parameters
        ----------
        df : DataFrame
            Records in the DESIGN schema.
        value_edges, delta_edges : sequence of float, optional
            Histogram edges (defaults :data:`DEFAULT_VALUE_EDGES`,
            :data:`DEFAULT_DELTA_EDGES`); summaries merge only with equal edges.
        meta : dict, optional
            Version metadata to carry (set by :func:`analysis.load`).

        Returns
        -------
        Summary

        Raises
        ------
        UsageError
            Not a record frame, empty, or several variants / rule sets.
        """
        lay = schema.layout(df)
        variant, rules_id = schema.identity(df)
        p = lay.players
        vedges = np.asarray(DEFAULT_VALUE_EDGES if value_edges is None else value_edges, float)
        dedges = np.asarray(DEFAULT_DELTA_EDGES if delta_edges is None else delta_edges, float)
        out = cls(
            variant=variant,
            rules_id=rules_id,
            players=p,
            patterns=lay.patterns,
            extras=lay.extras,
            meta=dict(meta or {}),
            run_seeds=sorted(int(s) for s in pd.unique(df["run_seed"])),
            value_edges=_tolist(vedges),
            delta_edges=_tolist(dedges),
        )
        out._zero()
        vhist, dhist = _Hist(vedges), _Hist(dedges)
        cols = {
            c: df[c].to_numpy()
            for c in ("winner", "dealer", "discarder", "turns", "value", "wilds_in_hand")
        }
        codes = schema.win_type_codes(df["win_type"])
        if (codes < 0).any():
            raise UsageError("records hold an unknown win_type; see analysis.schema.WIN_TYPES")
        dcols = [df[c].to_numpy() for c in lay.delta_columns]
        pcols = [df[c].to_numpy() for c in lay.pattern_columns]
        xcols = [df[c].to_numpy() for c in lay.extras]
        seeds, matches = df["run_seed"].to_numpy(), df["match"].to_numpy()
        n = len(df)
        per_match = []
        for a in range(0, n, _BLOCK):
            b = min(n, a + _BLOCK)
            part = out._block(
                {c: v[a:b] for c, v in cols.items()},
                codes[a:b],
                schema.stack_deltas([c[a:b] for c in dcols]),
                [c[a:b] for c in pcols],
                [c[a:b] for c in xcols],
                vhist,
                dhist,
            )
            per_match.append(_match_totals(seeds[a:b], matches[a:b], part.pop("_match_x")))
            out._accumulate(part)
        out._set_matches(per_match)
        return out

    def _set_matches(self, per_match: list) -> None:
        """Fold all matches but the first and last (kept pending) into the aggregates."""
        keys = pd.concat([k for k, _ in per_match], ignore_index=True)
        tot = np.concatenate([t for _, t in per_match])
        if len(per_match) > 1:  # a match may straddle two blocks
            g = pd.DataFrame(tot).groupby([keys["run_seed"], keys["match"]], sort=True).sum()
            keys = g.index.to_frame(index=False)
            tot = g.to_numpy()
        if len(tot) == 0:
            return
        k0 = 1 + 3 * self.players
        tot, xtot = tot[:, :k0], tot[:, k0:]
        ends = sorted({0, len(tot) - 1})
        inner = np.ones(len(tot), dtype=bool)
        inner[ends] = False
        self.match_count = int(inner.sum())
        self.match_cross = _cross(tot[inner])[1]
        names = [f"{int(keys['run_seed'].iloc[i])}:{int(keys['match'].iloc[i])}" for i in ends]
        self.match_pending = {k: _py(tot[i]) for k, i in zip(names, ends, strict=True)}
        n_g = tot[inner, 0]
        self.extra_match = {
            x: [_py(np.dot(n_g, xtot[inner, j])), _py(np.dot(xtot[inner, j], xtot[inner, j]))]
            for j, x in enumerate(self.extras)
        }
        self.extra_pending = (
            {k: _py(xtot[i]) for k, i in zip(names, ends, strict=True)} if self.extras else {}
        )

    def _zero(self) -> None:
        p, k, t = self.players, len(self.patterns), len(WIN_TYPES)
        self.n_deals = 0
        for name in ("wins_by_seat", "deal_ins_by_seat", "dealer_by_seat", "wins_by_distance"):
            setattr(self, name, [0] * p)
        self.win_types = [0] * t
        self.pattern_counts = [0] * k
        self.pattern_combos = {}
        self.delta_sum, self.role_sum = [0] * p, [0] * p
        self.delta_cross = [[0] * p for _ in range(p)]
        self.role_cross = [[0] * p for _ in range(p)]
        self.flow, self.turns, self.value = [0, 0], [0, 0], [0, 0]
        self.wintype_winner = [[0, 0] for _ in range(t)]
        self.wintype_discarder = [[0, 0, 0] for _ in range(t)]
        self.wintype_value = [[0, 0] for _ in range(t)]
        self.wilds = []
        self.value_hist = [0] * (len(self.value_edges) + 1)
        self.delta_hist = [[0] * (len(self.delta_edges) + 1) for _ in range(p)]
        self.extra_moments = {x: [0, 0] for x in self.extras}
        k = 1 + 3 * p
        self.match_count, self.match_cross, self.match_pending = 0, [[0] * k for _ in range(k)], {}

    def _block(self, c, codes, d, pats, xs, vhist, dhist) -> dict:
        p = self.players
        n = codes.size
        winner = c["winner"].astype(np.int64)
        dealer = c["dealer"].astype(np.int64)
        disc = c["discarder"].astype(np.int64)
        won = winner >= 0
        value = c["value"]
        part: dict = {"n_deals": n}
        part["wins_by_seat"] = np.bincount(winner[won], minlength=p)
        part["deal_ins_by_seat"] = np.bincount(disc[disc >= 0], minlength=p)
        part["dealer_by_seat"] = np.bincount(dealer, minlength=p)
        part["wins_by_distance"] = np.bincount((winner[won] - dealer[won]) % p, minlength=p)
        part["win_types"] = np.bincount(codes, minlength=len(WIN_TYPES))
        part["pattern_counts"] = [int(np.count_nonzero(x)) for x in pats]
        part["pattern_combos"] = _combos([x[won] for x in pats])
        part["turns"] = _moments(c["turns"])
        part["wilds"] = np.bincount(np.maximum(c["wilds_in_hand"][won].astype(np.int64), 0))
        part["value_hist"] = vhist(value[won])
        part["delta_hist"] = [dhist(d[:, s]) for s in range(p)]
        part["extra_moments"] = {x: _moments(v) for x, v in zip(self.extras, xs, strict=True)}
        # the deltas by distance from the dealer: row i, column r = seat (dealer_i + r) % p
        flat_rows = (np.arange(n) * p)[:, None]
        roll = (np.arange(p)[:, None] + np.arange(p)) % p
        roles = d.ravel()[roll[dealer] + flat_rows]
        # per-deal match columns, one row per column (contiguous for reduceat)
        xt = np.zeros((1 + 3 * p + len(xs), n), dtype=np.int64 if d.dtype.kind != "f" else d.dtype)
        xt[0] = 1
        xt[1 : 1 + p] = d.T
        xt[1 + p : 1 + 2 * p] = roles.T
        xt[1 + 2 * p + winner[won], np.flatnonzero(won)] = 1
        for j, x in enumerate(xs):  # the extras' match totals (clustered intervals)
            xt[1 + 3 * p + j] = x
        part["_match_x"] = xt
        if _exact_in_float(d, value, n):
            part.update(self._moments_float(d, roles, value, codes, winner, disc, won, flat_rows))
            return part
        part["delta_sum"], part["delta_cross"] = _cross(d)
        part["role_sum"], part["role_cross"] = _cross(roles)
        part["flow"] = _moments(np.maximum(d, 0).sum(axis=1))
        part["value"] = _moments(value[won])
        wdelta = d.ravel()[flat_rows[:, 0] + np.maximum(winner, 0)]
        ddelta = d.ravel()[flat_rows[:, 0] + np.maximum(disc, 0)]
        ww, wd, wv = [], [], []
        for t in range(len(WIN_TYPES)):
            m = codes == t
            ww.append(_moments(wdelta[m & won]))
            md = m & (disc >= 0)
            wd.append([int(np.count_nonzero(md)), *_moments(ddelta[md])])
            wv.append(_moments(value[m & won]))
        part["wintype_winner"], part["wintype_discarder"], part["wintype_value"] = ww, wd, wv
        return part

    @staticmethod
    def _moments_float(d, roles, value, codes, winner, disc, won, flat_rows) -> dict:
        """Delta and value moments by BLAS and weighted bincounts (see _exact_in_float)."""
        t = len(WIN_TYPES)
        conv = _to_int if d.dtype.kind != "f" else _to_float
        f = d.astype(np.float64, copy=False)
        flat = f.ravel()
        roles = roles.astype(np.float64, copy=False)
        flow = np.maximum(f, 0) @ np.ones(f.shape[1])
        wdelta = flat[flat_rows[:, 0] + np.maximum(winner, 0)]
        ddelta = flat[flat_rows[:, 0] + np.maximum(disc, 0)]
        v = value.astype(np.float64)
        cw = np.where(won, codes, t)  # won deals by win type; bin t collects the rest
        cd = np.where(disc >= 0, codes, t)  # deals with a discarder by win type

        def by_type(keys, w):
            return conv(np.bincount(keys, weights=w, minlength=t + 1)[:t])

        ws, wq = by_type(cw, wdelta), by_type(cw, wdelta * wdelta)
        dn = np.bincount(cd, minlength=t + 1)[:t]
        ds, dq = by_type(cd, ddelta), by_type(cd, ddelta * ddelta)
        vconv = _to_int if value.dtype.kind != "f" else _to_float
        vs, vq = (
            vconv(np.bincount(cw, weights=v, minlength=t + 1)[:t]),
            vconv(np.bincount(cw, weights=v * v, minlength=t + 1)[:t]),
        )
        return {
            "delta_sum": conv(f.sum(axis=0)),
            "delta_cross": conv(f.T @ f),
            "role_sum": conv(roles.sum(axis=0)),
            "role_cross": conv(roles.T @ roles),
            "flow": conv(np.array([flow.sum(), flow @ flow])),
            "value": [sum(vs), sum(vq)],
            "wintype_winner": [[a, b] for a, b in zip(ws, wq, strict=True)],
            "wintype_discarder": [[int(a), b, c] for a, b, c in zip(dn, ds, dq, strict=True)],
            "wintype_value": [[a, b] for a, b in zip(vs, vq, strict=True)],
        }

    def _accumulate(self, part: dict) -> None:
        for name, val in part.items():
            setattr(self, name, _add(getattr(self, name), _py(val)))

    # ------------------------------------------------------------------ merging
    def merge(self, other: Summary) -> Summary:
        """The summary of the union of two disjoint sets of deals (a new object).

        Raises
        ------
        UsageError
            The summaries are of different variants, rule sets, pattern lists,
            histogram edges or versions.
        """
        for name in self._IDENT:
            a, b = getattr(self, name), getattr(other, name)
            if isinstance(a, (list, tuple)):
                a, b = tuple(a), tuple(b)
            if a != b:
                raise UsageError(f"cannot merge summaries with different {name}: {a!r} vs {b!r}")
        for key in sorted(set(self.meta) & set(other.meta)):
            if self.meta[key] != other.meta[key]:
                raise UsageError(
                    f"cannot merge summaries with different {key}: "
                    f"{self.meta[key]!r} vs {other.meta[key]!r}"
                )
        out = Summary(**{f.name: getattr(self, f.name) for f in fields(self)})
        out.meta = {**other.meta, **self.meta}
        out.run_seeds = sorted(set(self.run_seeds) | set(other.run_seeds))
        skip = set(self._IDENT) | {"meta", "run_seeds"}
        for f in fields(self):
            if f.name not in skip:
                setattr(out, f.name, _add(getattr(self, f.name), getattr(other, f.name)))
        if self.extras and (not self.extra_match or not other.extra_match):
            out.extra_match, out.extra_pending = {}, {}  # one side predates them: none
        return out

    @classmethod
    def merge_all(cls, summaries) -> Summary:
        """Merge an iterable of summaries (at least one)."""
        it = iter(summaries)
        try:
            out = next(it)
        except StopIteration:
            raise UsageError("no summaries to merge") from None
        for s in it:
            out = out.merge(s)
        return out

    def _folded(self) -> Summary:
        """A copy with the pending matches folded into ``match_count``/``match_cross``."""
        out = Summary(**{f.name: getattr(self, f.name) for f in fields(self)})
        cross = [list(r) for r in self.match_cross]
        for t in self.match_pending.values():
            for i, a in enumerate(t):
                for j, b in enumerate(t):
                    cross[i][j] += a * b
        out.match_cross = cross
        out.match_count = self.match_count + len(self.match_pending)
        if self.extra_match:
            em = {x: list(v) for x, v in self.extra_match.items()}
            for key, xs in self.extra_pending.items():
                n_g = self.match_pending[key][0]
                for x, v in zip(self.extras, xs, strict=True):
                    em[x][0] += n_g * v
                    em[x][1] += v * v
            out.extra_match = em
        out.match_pending = {}
        out.extra_pending = {}
        return out

    def extra_cluster_se(self, name: str) -> float:
        """Match-clustered SE of the mean per deal of extra ``name`` (NaN if unknown).

        ``sqrt(G / (G - 1) Σ_g (X_g - n_g m)²) / N``, the same sandwich as
        :meth:`cluster_cov`, from the sums kept in :attr:`extra_match`.
        """
        f = self._folded()
        if name not in f.extra_match or f.match_count < 2:
            return math.nan
        g, big_n = f.match_count, float(self.n_deals)
        snx, sxx = (float(v) for v in f.extra_match[name])
        snn = float(f.match_cross[0][0])
        m = float(self.extra_moments[name][0]) / big_n
        resid = max(sxx - 2 * m * snx + m * m * snn, 0.0)
        return math.sqrt(g / (g - 1) * resid) / big_n

    def __eq__(self, other) -> bool:
        if not isinstance(other, Summary):
            return NotImplemented
        a, b = self._folded(), other._folded()
        return all(getattr(a, f.name) == getattr(b, f.name) for f in fields(self))

    __hash__ = None

    # ------------------------------------------------------------------ serialising
    def to_dict(self) -> dict:
        """A JSON-able dict (integer sums as exact ints); inverse of :meth:`from_dict`."""
        d = asdict(self)
        d["patterns"], d["extras"] = list(self.patterns), list(self.extras)
        d["format"] = "mjlab.summary/1"
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Summary:
        """Rebuild a summary from :meth:`to_dict` output (or its JSON).

        Raises
        ------
        UsageError
            The dict is not a mjlab summary.
        """
        if not isinstance(d, dict) or d.get("format") != "mjlab.summary/1":
            raise UsageError("not a mjlab summary (missing format 'mjlab.summary/1')")
        _check_stored(d)
        kw = {f.name: d[f.name] for f in fields(cls) if f.name in d}
        kw["patterns"], kw["extras"] = tuple(d["patterns"]), tuple(d["extras"])
        return cls(**kw)

    def to_json(self) -> str:
        """:meth:`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Summary:
        """Inverse of :meth:`to_json`."""
        return cls.from_dict(json.loads(text))

    # ------------------------------------------------------------------ derived
    @property
    def n_wins(self) -> int:
        """Won deals."""
        return self.n_deals - self.win_types[WIN_TYPES.index("none")]

    def delta_mean_cov(self, by: str = "seat") -> tuple[np.ndarray, np.ndarray]:
        """Mean vector and covariance (``ddof=1``) of the per-deal deltas.

        Parameters
        ----------
        by : {"seat", "distance"}
            Absolute seats or distance from the dealer.

        Returns
        -------
        mean : ndarray, shape (P,)
        cov : ndarray, shape (P, P)
        """
        s, c = (
            (self.delta_sum, self.delta_cross) if by == "seat" else (self.role_sum, self.role_cross)
        )
        n = self.n_deals
        mean = np.array([float(x) / n for x in s])
        cov = np.empty((self.players, self.players))
        for i in range(self.players):
            for j in range(self.players):
                num = c[i][j] * n - s[i] * s[j]  # exact for ints
                cov[i, j] = float(num) / (n * (n - 1)) if n > 1 else math.nan
        return mean, cov

    def cluster_cov(self, block: str) -> tuple[int, np.ndarray, np.ndarray]:
        """Mean vector and its match-clustered covariance.

        Parameters
        ----------
        block : {"seat", "distance", "wins"}
            Per-deal seat deltas, deltas by distance from the dealer, or win shares by
            seat among won deals (a ratio: wins of the seat over won deals).

        Returns
        -------
        matches : int
            Number of matches G (the clusters).
        mean : ndarray, shape (P,)
        cov : ndarray, shape (P, P)
            ``G / (G - 1) / N² Σ_g (X_g - n_g m)(X_g - n_g m)ᵀ`` with ``X_g`` the match
            totals, ``n_g`` its deals (won deals for ``wins``) and ``N = Σ n_g``: the
            sandwich covariance of the mean that treats matches, not deals, as
            independent.
        """
        f = self._folded()
        p = self.players
        g = f.match_count
        s = np.array(f.match_cross, dtype=np.float64)
        lo = {"seat": 1, "distance": 1 + p, "wins": 1 + 2 * p}[block]
        xs = slice(lo, lo + p)
        sxx = s[xs, xs]
        if block == "wins":
            big_n = float(self.n_wins)
            if big_n == 0:  # no won deal: no shares to estimate
                return g, np.full(p, np.nan), np.full((p, p), np.nan)
            mean = np.array(self.wins_by_seat, dtype=np.float64) / big_n
            snx = sxx.sum(axis=1)
            snn = sxx.sum()
        else:
            big_n = float(self.n_deals)
            mean = np.array(self.delta_sum if block == "seat" else self.role_sum, float) / big_n
            snx = s[0, xs]
            snn = s[0, 0]
        resid = sxx - np.outer(mean, snx) - np.outer(snx, mean) + snn * np.outer(mean, mean)
        cov = resid * (g / (g - 1) / big_n**2) if g > 1 else np.full((p, p), np.nan)
        return g, mean, cov

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every aggregate table: frequencies, payouts, fairness tests, histograms.

        Returns
        -------
        dict of str to DataFrame
            Keys ``patterns, win_types, seats, roles, payouts_seat, payouts_role,
            payouts_win_type, extras, wilds, value_hist, fairness``.
        """
        missing = [k for k in TABLE_ORDER if k not in TABLES]
        if missing:
            _import_table_modules()
            missing = [k for k in TABLE_ORDER if k not in TABLES]
        if missing:
            raise ImportError(f"summary tables not registered: {', '.join(missing)}")
        return {k: TABLES[k](self) for k in TABLE_ORDER}

    def __repr__(self) -> str:
        return (
            f"Summary(variant={self.variant!r}, rules_id={self.rules_id!r}, "
            f"players={self.players}, n_deals={self.n_deals}, n_wins={self.n_wins})"
        )

    def _repr_html_(self) -> str:
        from html import escape

        t = self.tables()
        head = escape(repr(self))
        fair = t["fairness"][["test", "verdict"]].style.set_caption(
            "fairness tests, each with its verdict"
        )
        pats = t["patterns"].style.set_caption(
            "pattern frequencies: rate per win and per deal, 95% Wilson intervals"
        )
        return (
            f"<div><p><b>{head}</b></p>"
            + fair.hide(axis="index").to_html()
            + pats.format(precision=4).hide(axis="index").to_html()
            + "</div>"
        )


TABLE_ORDER = (
    "patterns",
    "win_types",
    "seats",
    "roles",
    "payouts_seat",
    "payouts_role",
    "payouts_win_type",
    "extras",
    "wilds",
    "value_hist",
    "fairness",
)
"""The tables of :meth:`Summary.tables`, in order."""

TABLES: dict = {}
"""Name -> function of a :class:`Summary` giving that table. The modules that compute them
(analysis.frequencies, analysis.payouts, analysis.fairness) import this one and register
their functions here (:func:`register_tables`), so that the imports run one way."""


TABLE_MODULES = ("analysis.frequencies", "analysis.payouts", "analysis.fairness")
"""The modules that register :data:`TABLES`."""


def _import_table_modules() -> None:
    """Import :data:`TABLE_MODULES`, which register their tables on import: the package
    imports its modules on first use (analysis/__init__), so a process that has used
    only this module has not imported them yet (by name, so that the imports still
    run one way).
    """
    import importlib

    for name in TABLE_MODULES:
        importlib.import_module(name)


def register_tables(**builders) -> None:
    """Register table builders by name (each a function of a :class:`Summary`)."""
    unknown = sorted(set(builders) - set(TABLE_ORDER))
    if unknown:
        raise ValueError(f"not a summary table: {', '.join(unknown)}")
    TABLES.update(builders)


_MAX_PLAYERS = 8
_MAX_EDGES = 4096
_MAX_NAMES = 256


def _number(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _check_stored(d: dict) -> None:
    """UsageError unless a stored summary's fields have the shapes its own sizes imply.

    Every list is checked against ``players``, the pattern and extra names and the
    histogram edges (themselves bounded) before anything is sized from them, so a
    damaged or crafted summary cannot make a reader allocate without bound.
    """

    def bad(what):
        return UsageError(f"stored summary: {what}")

    def nums(name, n):
        v = d.get(name)
        if not (isinstance(v, list) and len(v) == n and all(_number(x) for x in v)):
            raise bad(f"{name} is not {n} numbers")

    def rows(name, n, m):
        v = d.get(name)
        if not (isinstance(v, list) and len(v) == n):
            raise bad(f"{name} is not {n} rows")
        for r in v:
            if not (isinstance(r, list) and len(r) == m and all(_number(x) for x in r)):
                raise bad(f"{name} rows are not {m} numbers each")

    def count(name, hi=1 << 62):
        v = d.get(name)
        if not (isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= hi):
            raise bad(f"{name} is not a count")
        return v

    for name in ("variant", "rules_id"):
        if not isinstance(d.get(name), str):
            raise bad(f"{name} is not a string")
    p = count("players", _MAX_PLAYERS)
    if p < 1:
        raise bad("players is not 1..8")
    for name in ("patterns", "extras"):
        v = d.get(name)
        if not (
            isinstance(v, list) and len(v) <= _MAX_NAMES and all(isinstance(x, str) for x in v)
        ):
            raise bad(f"{name} is not a list of names")
    for name in ("value_edges", "delta_edges"):
        v = d.get(name)
        if not (isinstance(v, list) and 1 <= len(v) <= _MAX_EDGES and all(_number(x) for x in v)):
            raise bad(f"{name} is not 1..{_MAX_EDGES} numbers")
        if any(b <= a for a, b in zip(v, v[1:], strict=False)):
            raise bad(f"{name} are not increasing")
    n = count("n_deals")
    t = len(WIN_TYPES)
    for name in ("wins_by_seat", "deal_ins_by_seat", "dealer_by_seat", "wins_by_distance"):
        nums(name, p)
    nums("delta_sum", p)
    nums("role_sum", p)
    rows("delta_cross", p, p)
    rows("role_cross", p, p)
    nums("win_types", t)
    if sum(d["win_types"]) != n:
        raise bad(f"win types add up to {sum(d['win_types'])}, not its {n} deals")
    nums("pattern_counts", len(d["patterns"]))
    for name in ("flow", "turns", "value"):
        nums(name, 2)
    rows("wintype_winner", t, 2)
    rows("wintype_discarder", t, 3)
    rows("wintype_value", t, 2)
    w = d.get("wilds")
    if not (isinstance(w, list) and len(w) <= 64 and all(_number(x) for x in w)):
        raise bad("wilds is not a list of at most 64 counts")
    nums("value_hist", len(d["value_edges"]) + 1)
    rows("delta_hist", p, len(d["delta_edges"]) + 1)
    xm = d.get("extra_moments")
    if not (isinstance(xm, dict) and set(xm) == set(d["extras"])):
        raise bad("extra_moments do not match its extras")
    for v in xm.values():
        if not (isinstance(v, list) and len(v) == 2 and all(_number(x) for x in v)):
            raise bad("extra_moments are not [sum, sum of squares]")
    k = 1 + 3 * p
    count("match_count", n)
    rows("match_cross", k, k)
    mp = d.get("match_pending")
    if not (isinstance(mp, dict) and len(mp) <= n + 2):
        raise bad("match_pending is not a table of at most its deals")
    for v in mp.values():
        if not (isinstance(v, list) and len(v) == k and all(_number(x) for x in v)):
            raise bad(f"match_pending totals are not {k} numbers")
    em, ep = d.get("extra_match", {}), d.get("extra_pending", {})
    if not (isinstance(em, dict) and set(em) in (set(), set(d["extras"]))):
        raise bad("extra_match does not match its extras")
    for v in em.values():
        if not (isinstance(v, list) and len(v) == 2 and all(_number(x) for x in v)):
            raise bad("extra_match values are not two sums")
    if not (isinstance(ep, dict) and set(ep) <= set(mp)):
        raise bad("extra_pending is not keyed by pending matches")
    for v in ep.values():
        if not (isinstance(v, list) and len(v) == len(d["extras"]) and all(_number(x) for x in v)):
            raise bad("extra_pending totals are not one number per extra")
    pc = d.get("pattern_combos")
    if not (isinstance(pc, dict) and len(pc) <= n + 1):
        raise bad("pattern_combos is not a table of at most its deals")
    wins = n - d["win_types"][WIN_TYPES.index("none")]
    totals = {
        "wins_by_seat": (sum(d["wins_by_seat"]), wins),
        "wins_by_distance": (sum(d["wins_by_distance"]), wins),
        "dealer_by_seat": (sum(d["dealer_by_seat"]), n),
        "value_hist": (sum(d["value_hist"]), wins),
    }
    if d["patterns"]:
        totals["pattern_combos"] = (sum(x for x in pc.values() if _number(x)), wins)
    bad_rows = [sum(r) for r in d["delta_hist"] if sum(r) != n]
    if bad_rows:
        totals["delta_hist"] = (bad_rows[0], n)
    for name, (got, want) in totals.items():
        if got != want:
            raise bad(f"{name} counts {got} deals, not the {want} it should")
    seeds = d.get("run_seeds", [])
    if not (
        isinstance(seeds, list)
        and len(seeds) <= 1024
        and all(isinstance(x, int) and not isinstance(x, bool) for x in seeds)
    ):
        raise bad("run_seeds is not a short list of seeds")
    meta = d.get("meta", {})
    if not (
        isinstance(meta, dict)
        and len(meta) <= _MAX_NAMES
        and all(isinstance(x, str) for x in meta.values())
    ):
        raise bad("meta is not a table of version strings")


def _match_totals(seeds: np.ndarray, matches: np.ndarray, xt: np.ndarray):
    """Per-match sums of the rows of ``xt`` (columns = deals): keys frame, totals (G, K)."""
    n = seeds.size
    if n == 0:
        return pd.DataFrame({"run_seed": [], "match": []}, dtype=np.int64), xt.T[:0]
    s64, m64 = seeds.astype(np.int64), matches.astype(np.int64)
    ds, dm = np.diff(s64), np.diff(m64)
    if np.all((ds > 0) | ((ds == 0) & (dm >= 0))):  # record order: contiguous matches
        starts = np.concatenate([[0], np.flatnonzero((ds != 0) | (dm != 0)) + 1])
        keys = pd.DataFrame({"run_seed": s64[starts], "match": m64[starts]})
        return keys, np.add.reduceat(xt, starts, axis=1).T
    g = pd.DataFrame(xt.T).groupby([s64, m64], sort=True).sum()
    keys = g.index.to_frame(index=False)
    keys.columns = ["run_seed", "match"]
    return keys, g.to_numpy()


def _combos(pats: list[np.ndarray]) -> dict[str, int]:
    """Counts of each combination of pattern flags (keys: hex bit masks)."""
    if not pats or pats[0].size == 0:
        return {}
    words = []
    for w0 in range(0, len(pats), 64):
        word = np.zeros(pats[0].size, dtype=np.uint64)
        for i, x in enumerate(pats[w0 : w0 + 64]):
            word |= x.astype(np.uint64) << np.uint64(i)
        words.append(word)
    frame = pd.DataFrame({f"w{i}": w for i, w in enumerate(words)})
    counts = frame.value_counts(sort=False)
    out: dict[str, int] = {}
    for key, cnt in counts.items():
        key = key if isinstance(key, tuple) else (key,)
        mask = sum(int(w) << (64 * i) for i, w in enumerate(key))
        out[format(mask, "x")] = out.get(format(mask, "x"), 0) + int(cnt)
    return out


def as_summary(records) -> Summary:
    """``records`` if it is a :class:`Summary`, else ``Summary.from_records(records)``."""
    if isinstance(records, Summary):
        return records
    if isinstance(records, pd.DataFrame):
        return Summary.from_records(records)
    raise UsageError(f"expected a record frame or a Summary, not {type(records).__name__}")


class SummaryReducer:
    """The ``--summary-only`` reducer of a dataset chunk: its mergeable :class:`Summary`
    as a JSON-able dict (:class:`engine.runs.dataset.Reducer`); readers pass it to
    :func:`engine.runs.dataset.check_claims` so a damaged stored summary is refused.
    """

    @staticmethod
    def reduce(frame) -> dict:
        """The summary of one chunk's records."""
        return Summary.from_records(frame).to_dict()

    @staticmethod
    def check(data: dict) -> None:
        """UsageError if a stored summary is damaged (the summary's own shape checks)."""
        Summary.from_dict(data)
