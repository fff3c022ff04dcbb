"""Simulation runs: ``simulate(...)`` -> :class:`Run` (``mjlab simulate``: mjlab.commands).

A run plays ``deals`` deals as matches of ``match_length`` consecutive deals (the last
match may be shorter). Match ``m`` deal ``d`` draws all its randomness from streams
keyed by ``(seed, m, d)`` (engine.rng), so the records do not depend on the number of
workers or on how the matches are chunked.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numba
import numpy as np
import pandas as pd

from engine import __version__, abi
from engine.abi import MAX_MATCH_LENGTH, MAX_MATCHES, MAX_SEED
from engine.errors import UsageError
from engine.play import records
from engine.play.bots import resolve_policies, seat_bots
from engine.play.family import family_of
from engine.runs.adapt import seat_overrides
from engine.variants import get as get_variant

__all__ = [
    "simulate",
    "Run",
    "RunSpec",
    "make_spec",
    "play_chunk",
    "chunk_frame",
    "resolve_policies",
    "DEFAULT_MATCH_LENGTH",
    "SEATINGS",
    "MAX_SEED",
    "MAX_MATCHES",
    "MAX_MATCH_LENGTH",
    "MAX_WORKERS",
    "match_rows",
    "check_memory",
    "place_seats",
]

DEFAULT_MATCH_LENGTH = 16
"""Deals per match unless told otherwise."""

SEATINGS = ("seat", "dealer")
"""How a run's policies are read: by seat, or by place from each deal's dealer."""

CHUNK_MATCHES = 1024
"""Matches per kernel call (the progress bar advances per chunk)."""


MAX_WORKERS = 1024
"""Most ``--workers`` accepted."""

BYTES_PER_DEAL = 640
"""Peak memory per deal of a run held in memory: kernel rows (4 x N_COLS bytes), the
record frame and its Arrow table while it is written (about 430 measured for tuidaohu;
variants with more pattern and extra columns need more)."""


def place_seats(dealer, place: int, players: int, seating: str = "seat") -> np.ndarray:
    """The seat that place ``place`` of a run's policies held in each row (int64).

    ``seating="seat"``: ``place`` is that seat in every row. ``seating="dealer"`` (the
    policies read by place from each deal's dealer): the seat
    :func:`engine.abi.seat_of_place` ``(dealer, place, players)`` of each row, the same
    rotation the loops seat by. ``dealer`` is the rows' dealer column.
    """
    if seating not in SEATINGS:
        raise UsageError(f"unknown seating {seating!r}; seatings: {', '.join(SEATINGS)}")
    dealer = np.asarray(dealer).astype(np.int64)
    if seating == "seat":
        return np.full(dealer.shape[0], int(place), np.int64)
    return abi.seat_of_place.py_func(dealer, int(place), int(players))


def _available_memory() -> int | None:
    """Bytes of memory available to a new allocation, None if unknown: the machine's
    (``MemAvailable``), or what the process's cgroup limit leaves, whichever is less.
    """
    machine = _machine_memory()
    group = _cgroup_memory()
    if machine is None or group is None:
        return machine if group is None else group
    return min(machine, group)


def _machine_memory() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return None


_CGROUP_ROOT = "/sys/fs/cgroup"
"""Where the cgroup file systems are mounted (v2 unified here, v1's under ``memory/``)."""

_PROC_CGROUP = "/proc/self/cgroup"
"""The process's cgroups, one ``ID:CONTROLLERS:PATH`` line each."""

_NO_LIMIT = 1 << 60
"""A cgroup v1 limit this large is no limit (the kernel writes about 2**63)."""

_CGROUP_FILES = {
    "v2": ("memory.max", "memory.current", "inactive_file"),
    "v1": ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"),
}


def _cgroup_memory() -> int | None:
    """Bytes the process's memory cgroup still lets it use, None where no limit applies.

    The tightest of its cgroup's and every enclosing cgroup's limit (cgroup v2
    ``memory.max``, v1 ``memory.limit_in_bytes``) minus what that cgroup uses, page
    cache that can be dropped (``inactive_file``) not counted as used.
    """
    try:
        with open(_PROC_CGROUP) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    best = None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[1] == "" and parts[0] == "0":
            base, files = _CGROUP_ROOT, _CGROUP_FILES["v2"]
        elif "memory" in parts[1].split(","):
            base, files = os.path.join(_CGROUP_ROOT, "memory"), _CGROUP_FILES["v1"]
        else:
            continue
        for folder in _cgroup_folders(base, parts[2]):
            left = _cgroup_left(folder, *files)
            if left is not None:
                best = left if best is None else min(best, left)
    return best


def _cgroup_folders(base: str, path: str) -> list[str]:
    """The folders of cgroup ``path`` and of each cgroup above it, under ``base`` (just
    ``base`` when the path is not there: a container sees its own cgroup as the root).
    """
    parts = [p for p in path.split("/") if p]
    folders = [os.path.join(base, *parts[:i]) for i in range(len(parts), -1, -1)]
    found = [f for f in folders if os.path.isdir(f)]
    return found or [base]


def _cgroup_left(folder: str, limit_file: str, usage_file: str, inactive_key: str) -> int | None:
    try:
        with open(os.path.join(folder, limit_file)) as f:
            raw = f.read().strip()
    except OSError:
        return None
    if not raw.isdigit() or int(raw) >= _NO_LIMIT:  # "max", or v1's no-limit value
        return None
    used = 0
    try:
        with open(os.path.join(folder, usage_file)) as f:
            used = int(f.read().strip())
        with open(os.path.join(folder, "memory.stat")) as f:
            for line in f:
                key, _, value = line.partition(" ")
                if key == inactive_key:
                    used -= min(used, int(value))
                    break
    except (OSError, ValueError):
        pass
    return max(0, int(raw) - used)


def check_memory(deals: int, way_out: str, copies: int = 1) -> None:
    """UsageError if ``copies`` runs of ``deals`` deals held in memory would not fit.

    Parameters
    ----------
    deals : int
    way_out : str
        What the user can do instead (ends the message).
    copies : int
        Runs held at once (a sweep holds one per value).
    """
    need = deals * copies * BYTES_PER_DEAL
    avail = _available_memory()
    if avail is not None and need > avail:
        group = _cgroup_memory()
        under = " under this process's cgroup memory limit" if group == avail else ""
        raise UsageError(
            f"--deals {deals:,}{f' x {copies} values' if copies > 1 else ''} needs about "
            f"{need / 2**30:,.1f} GiB of memory, {avail / 2**30:,.1f} GiB available{under}; "
            f"{way_out}"
        )


def _check_int(name: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise UsageError(f"{name} must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise UsageError(f"{name} must be {lo}..{hi}, got {value}")
    return int(value)


@dataclass
class Run:
    """The records of one simulation run (one row per deal) and its identity."""

    variant: str
    rules: dict
    rules_id: str
    seed: int
    deals: int
    match_length: int
    policies: tuple[str, ...]
    rec: np.ndarray = field(repr=False)
    match: np.ndarray = field(repr=False)
    deal: np.ndarray = field(repr=False)
    bot_params: tuple = ()
    seating: str = "seat"

    def to_pandas(self) -> pd.DataFrame:
        """The per-deal record frame (DESIGN schema)."""
        v = get_variant(self.variant)
        return records.to_frame(
            self.rec,
            self.match,
            self.deal,
            seed=self.seed,
            variant=v,
            rules_id=self.rules_id,
            players=v.n_players(self.rules),
        )

    def metadata(self) -> dict:
        """The run identity stored with the records (as every chunk of a dataset)."""
        spec = RunSpec(
            self.variant,
            self.rules,
            self.seed,
            self.deals,
            self.match_length,
            self.policies,
            self.bot_params,
            self.seating,
        )
        return spec.identity()

    def to_parquet(self, path) -> None:
        """Write the records to one Parquet file (atomically, with metadata)."""
        records.write_parquet(self.to_pandas(), path, self.metadata())

    def _repr_html_(self) -> str:
        return (
            f"<b>mjlab run</b> {self.variant} rules_id={self.rules_id} seed={self.seed} "
            f"deals={self.deals:,} policies={','.join(self.policies)}"
        )


def _match_layout(deals: int, match_length: int):
    n_matches = -(-deals // match_length)
    n_last = deals - (n_matches - 1) * match_length
    return n_matches, n_last


def match_rows(deals: int, match_length: int, match_lo: int, match_hi: int) -> int:
    """Deals in matches ``[match_lo, match_hi)`` of a run (the last match may be shorter)."""
    n_matches, n_last = _match_layout(deals, match_length)
    last = n_last if match_hi == n_matches else match_length
    return (match_hi - match_lo - 1) * match_length + last


@dataclass(frozen=True)
class RunSpec:
    """Everything that identifies a run (and so its records), validated."""

    variant: str
    rules: dict
    seed: int
    deals: int
    match_length: int
    policies: tuple[str, ...]
    bot_params: tuple = ()
    """Per-seat parameter overrides: ``((seat, JSON text of a name -> value mapping), ...)``."""
    seating: str = "seat"
    """How ``policies`` (and ``bot_params``' seat numbers) are read: ``"seat"``, by seat;
    ``"dealer"``, by place from each deal's dealer (0 the dealer, 1 his 下家, ...), so a
    policy keeps its role through the match's dealer changes (duplicate seating)."""

    def overrides(self) -> dict[int, dict]:
        """The bot parameter overrides by seat."""
        return {int(s): json.loads(t) for s, t in self.bot_params}

    def bots(self):
        """``(policy codes, parameter rows)`` of the seats (engine.play.bots.seat_bots):
        the committed bot data adapted to the run's rules (engine.runs.adapt), then the
        run's own overrides.
        """
        v = get_variant(self.variant)
        over = seat_overrides(v, self.rules, self.policies, self.overrides())
        return seat_bots(v, self.rules, self.policies, over)

    @property
    def n_matches(self) -> int:
        """Matches in the run (the last may be shorter)."""
        return _match_layout(self.deals, self.match_length)[0]

    def rows(self, match_lo: int, match_hi: int) -> int:
        """Deals in matches ``[match_lo, match_hi)``."""
        return match_rows(self.deals, self.match_length, match_lo, match_hi)

    def identity(self) -> dict:
        """The metadata every record file of this run carries (chunk range apart)."""
        v = get_variant(self.variant)
        return {
            "format": "mjlab-records",
            "format_version": 1,
            "package_version": __version__,
            "variant": self.variant,
            "variant_version": v.version,
            "rules": self.rules,
            "rules_id": v.rules_id(self.rules),
            "seed": self.seed,
            "deals": self.deals,
            "match_length": self.match_length,
            "policies": list(self.policies),
            "bots_id": hashlib.sha256(self.bots()[1].tobytes()).hexdigest()[:10],
            # only a non-default seating is named, so seat-seated runs keep their identity
            **({"seating": self.seating} if self.seating != "seat" else {}),
        }


def make_spec(
    variant: str,
    deals: int,
    seed: int = 0,
    rules: Mapping | None = None,
    policies: str | Sequence[str] = "value",
    match_length: int = DEFAULT_MATCH_LENGTH,
    bot_params: Mapping | None = None,
    seating: str = "seat",
) -> RunSpec:
    """Validate a run's parameters (UsageError naming the bad one) into a :class:`RunSpec`."""
    v = get_variant(variant)
    if seating not in SEATINGS:
        raise UsageError(f"unknown seating {seating!r}; seatings: {', '.join(SEATINGS)}")
    if isinstance(deals, bool) or not isinstance(deals, int | np.integer) or deals < 1:
        raise UsageError(f"--deals must be a positive integer, got {deals}")
    seed = _check_int("--seed", seed, 0, MAX_SEED)
    match_length = _check_int("--match-length", match_length, 1, MAX_MATCH_LENGTH)
    n_matches = _match_layout(int(deals), match_length)[0]
    if n_matches > MAX_MATCHES:
        raise UsageError(
            f"--deals {deals:,} makes {n_matches:,} matches of {match_length} deals; at most "
            f"{MAX_MATCHES:,} (the records' match number is int32)"
        )
    resolved = v.resolve(rules)
    v.pack(resolved)  # options that are valid alone but not together are refused here
    pols = resolve_policies(v, policies, v.n_players(resolved))
    extra = tuple(
        (int(s), json.dumps(dict(p), sort_keys=True)) for s, p in sorted((bot_params or {}).items())
    )
    for s, _ in extra:
        if not 0 <= s < len(pols):
            raise UsageError(f"bot parameters for seat {s}: seats are 0..{len(pols) - 1}")
    spec = RunSpec(v.name, resolved, int(seed), int(deals), int(match_length), pols, extra, seating)
    spec.bots()  # validates the parameters (UsageError naming a bad one)
    return spec


def play_chunk(spec: RunSpec, match_lo: int, match_hi: int) -> np.ndarray:
    """Kernel rows (int32 (rows, N_COLS)) of matches ``[match_lo, match_hi)`` of a run.

    Pure function of its arguments: any split of the matches gives the same rows.
    """
    v = get_variant(spec.variant)
    family = family_of(v)
    packed = v.pack(spec.rules)
    if spec.seating == "dealer":
        packed[family.by_dealer_slot] = 1
    pol_codes, bots = spec.bots()
    n_matches, n_last = _match_layout(spec.deals, spec.match_length)
    last = n_last if match_hi == n_matches else spec.match_length
    rows = spec.rows(match_lo, match_hi)
    rec = np.zeros((rows, abi.N_COLS), np.int32)
    from engine.jit.warmup import expect

    args = (packed, pol_codes, bots, spec.seed, family.tables())
    with expect(family.package):  # a cold start says so
        _play_threaded(family.play_matches.serial, args, match_lo, match_hi - match_lo, spec,
                       last, rec)  # fmt: skip
    return rec


def _play_threaded(play, args, match_lo, n, spec, last, rec) -> None:
    """Play ``n`` matches from ``match_lo`` into ``rec`` on numba's thread count of threads.

    ``play`` is a family's ``play_matches`` compiled serially: each thread plays one
    contiguous share of the matches into its rows (the kernels release the GIL). Every
    match is a pure function of the seed and its number, so the rows are the same for
    any split; this does the parallel kernel's work without compiling numba's parallel
    version of the game loop (see :func:`engine.jit.njit.parallel_kernel`).
    """
    if n <= 0:
        return
    packed, pol_codes, bots, seed, tab = args
    length = spec.match_length
    threads = max(1, min(numba.get_num_threads(), n))
    cuts = [n * i // threads for i in range(threads + 1)]

    def share(i: int) -> None:
        a, b = cuts[i], cuts[i + 1]  # matches [a, b) of the chunk; only the chunk's last is short
        tail = last if b == n else length
        rows = rec[a * length : (b - 1) * length + tail]
        play(packed, pol_codes, bots, seed, match_lo + a, b - a, length, tail, tab, rows)

    if threads == 1:
        share(0)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(share, range(threads)))


def chunk_frame(spec: RunSpec, match_lo: int, match_hi: int, rec: np.ndarray) -> pd.DataFrame:
    """The record frame of a chunk's kernel rows."""
    v = get_variant(spec.variant)
    idx = np.arange(rec.shape[0]) + match_lo * spec.match_length
    return records.to_frame(
        rec,
        idx // spec.match_length,
        idx % spec.match_length,
        seed=spec.seed,
        variant=v,
        rules_id=v.rules_id(spec.rules),
        players=v.n_players(spec.rules),
    )


def _set_threads(workers):
    if workers is not None:
        workers = _check_int("--workers", workers, 1, MAX_WORKERS)
        numba.set_num_threads(min(workers, numba.config.NUMBA_NUM_THREADS))


def simulate(
    variant: str,
    deals: int,
    seed: int = 0,
    rules: Mapping | None = None,
    policies: str | Sequence[str] = "value",
    match_length: int = DEFAULT_MATCH_LENGTH,
    workers: int | None = None,
    progress: bool = True,
    chunk_matches: int = CHUNK_MATCHES,
    bot_params: Mapping | None = None,
    on_chunk=None,
    seating: str = "seat",
) -> Run:
    """Play ``deals`` deals of ``variant`` and return their records.

    Parameters
    ----------
    variant : str
        A registered variant name (``engine.variants.names()``).
    deals : int
        Number of deals (>= 1).
    seed : int
        Run seed (>= 0); the same seed gives identical records.
    rules : mapping, optional
        Rule options (``mjlab variants`` lists them); unknown keys or values raise
        UsageError.
    policies : str or sequence
        One policy for every seat or one per seat: ``random``, ``efficiency``, ``value``.
    match_length : int
        Deals per match (dealer rotation and streaks run across a match).
    workers : int, optional
        Threads (default: all cores).
    progress : bool
        Show a progress bar for runs of more than one chunk.
    chunk_matches : int
        Matches per kernel call (does not change the records).
    bot_params : mapping, optional
        Per-seat overrides of the bots' parameters, ``{seat: {name: value}}``
        (engine.play.bots; ``mjlab variants --json`` lists each policy's parameters).
    on_chunk : callable, optional
        Called with the number of deals of each chunk once it is played (an outer
        progress bar, e.g. ``mjlab sweep``'s).
    seating : {"seat", "dealer"}
        How ``policies`` and ``bot_params`` are read: by seat (default), or by place
        from each deal's dealer (``policies[0]`` always deals, ``policies[1]`` sits at
        his 下家, ...), so that in duplicate seating each policy holds each role's cards
        on every wall however the dealer moves (:func:`analysis.skill_edge`).
    """
    spec = make_spec(variant, deals, seed, rules, policies, match_length, bot_params, seating)
    chunk_matches = _check_int("chunk_matches", chunk_matches, 1, MAX_MATCHES)
    if workers is not None:
        _check_int("--workers", workers, 1, MAX_WORKERS)
    check_memory(
        spec.deals,
        "write a chunked dataset instead (mjlab simulate --out DIR/, "
        "or engine.runs.dataset.run_dataset), which holds one chunk at a time",
    )
    n_matches = spec.n_matches
    rec = np.zeros((spec.deals, abi.N_COLS), np.int32)
    threads = numba.get_num_threads()
    _set_threads(workers)
    bar = None
    if progress and n_matches > chunk_matches:
        from tqdm.auto import tqdm

        bar = tqdm(total=spec.deals, unit="deal", unit_scale=True, desc=spec.variant)
    try:
        for lo in range(0, n_matches, chunk_matches):
            hi = min(n_matches, lo + chunk_matches)
            row0 = lo * spec.match_length
            part = play_chunk(spec, lo, hi)
            rec[row0 : row0 + part.shape[0]] = part
            if bar is not None:
                bar.update(part.shape[0])
            if on_chunk is not None:
                on_chunk(part.shape[0])
    finally:
        if bar is not None:
            bar.close()
        numba.set_num_threads(threads)
    idx = np.arange(spec.deals)
    v = get_variant(variant)
    return Run(
        variant=v.name,
        rules=spec.rules,
        rules_id=v.rules_id(spec.rules),
        seed=spec.seed,
        deals=spec.deals,
        match_length=spec.match_length,
        policies=spec.policies,
        rec=rec,
        bot_params=spec.bot_params,
        seating=spec.seating,
        match=idx // spec.match_length,
        deal=idx % spec.match_length,
    )
