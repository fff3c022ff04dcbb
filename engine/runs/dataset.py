"""Chunked, resumable runs: a folder of Parquet chunk files, local or on Dask.

``mjlab simulate VARIANT ... --out DIR/`` writes one file per chunk of matches, named
``chunk-<first match>-<end match>.parquet``. Each is written to a hidden temporary name
and renamed when complete, and carries the run's identity (variant, full rule options,
seed, deals, match length, policies, package and variant versions, chunk size) plus its
match range in the Parquet metadata. Rerunning the same command resumes: every complete
chunk is verified against its whole-file checksum and skipped, a damaged one is named and
played again; a folder holding another run's files is refused (exit 2) and left
untouched. A resume touches only chunk names: the user's copies of a chunk under any
other name are never changed or removed.

Given a ``reducer`` (:class:`Reducer`) a chunk stores its records reduced to a JSON-able
dict instead of its rows, so 100M+ deals are summarised in bounded memory. The caller
chooses the reduction: ``mjlab simulate --summary-only`` gives the analysis layer's
mergeable summary (:class:`analysis.summary.SummaryReducer`; ``mjlab summarize
DIR/`` merges either kind), so the engine never imports the analysis layer.

With ``backend="dask"`` the chunks become tasks on a Dask distributed cluster (an
existing scheduler address, with TLS for ``tls://``, or a LocalCluster of ``workers``
processes secured by a temporary certificate; see :mod:`engine.runs.cluster`). Record chunks
are written by the workers (the folder must be shared by all machines); summary chunks
are returned to the client, which writes them. Records are identical to a local run.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Protocol

import pandas as pd

from engine import fileio, paths
from engine.errors import UsageError
from engine.runs.run import (
    MAX_MATCH_LENGTH,
    MAX_MATCHES,
    MAX_SEED,
    RunSpec,
    chunk_frame,
    match_rows,
    play_chunk,
)

__all__ = [
    "run_dataset",
    "chunk_name",
    "check_claims",
    "run_identity",
    "differs",
    "DEFAULT_CHUNK_MATCHES",
    "FORMATS",
    "PER_FILE_KEYS",
]


class Reducer(Protocol):
    """What a dataset chunk of reduced records is made of (``reducer=`` of
    :func:`run_dataset`). It must pickle by reference (a module-level class or object),
    since Dask ships it to the workers.
    """

    def reduce(self, frame: pd.DataFrame) -> dict:
        """The chunk's records (one frame of whole matches) as a JSON-able dict holding
        ``n_deals``, ``variant``, ``rules_id``, ``match_count`` and ``match_pending``.
        """

    def check(self, data: dict) -> None:
        """Raise UsageError if a stored reduction is damaged."""


DEFAULT_CHUNK_MATCHES = 4096
"""Matches per chunk file (65,536 deals at the default match length)."""

FORMATS = ("mjlab-records", "mjlab-summary")
"""The ``format`` values of mjlab output files."""

PER_FILE_KEYS = ("chunk", "chunk_rows", "summary")
"""Metadata keys that differ between the files of one run (the rest is its identity)."""

_NAME = re.compile(r"^chunk-(\d{9,})-(\d{9,})\.parquet$")


def chunk_name(lo: int, hi: int) -> str:
    """File name of the chunk of matches ``[lo, hi)``."""
    return f"chunk-{lo:09d}-{hi:09d}.parquet"


def run_identity(meta: dict) -> dict:
    """The run identity in a file's metadata (the per-file keys left out)."""
    return {k: v for k, v in meta.items() if k not in PER_FILE_KEYS}


def _canon(v) -> str:
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def differs(theirs, ours) -> list[str]:
    """Keys whose values differ between two metadata dicts, compared as JSON (so ``true``
    is not ``1``); empty when they are the same.
    """
    if not isinstance(theirs, dict) or not isinstance(ours, dict):
        return [] if _canon(theirs) == _canon(ours) else ["everything"]
    keys = set(theirs) | set(ours)
    return sorted(
        k for k in keys if k not in theirs or k not in ours or _canon(theirs[k]) != _canon(ours[k])
    )


def _identity(spec: RunSpec, chunk_matches: int, reduced: bool) -> dict:
    ident = spec.identity()
    ident["chunk_matches"] = chunk_matches
    if reduced:
        ident["format"] = "mjlab-summary"
    return ident


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_claims(
    pm: fileio.ParquetMeta, *, check_name: bool = True, reducer: Reducer | None = None
) -> tuple[int, int] | None:
    """Check what a mjlab file's metadata claims against bounds and what the file holds.

    Every number a reader sizes anything from is checked before use: the planned deals,
    match length and seed lie in the records' ranges, a chunk's match range lies in the
    run and on its chunk grid, its row counts agree with the range and with the rows in
    the file, a summary chunk's deals agree too, and a chunk's file name is its range.

    Parameters
    ----------
    pm : fileio.ParquetMeta
        From :func:`engine.fileio.read_meta`.
    check_name : bool
        Whether a chunk must be named :func:`chunk_name` of its range.

    Returns
    -------
    tuple of int or None
        The chunk's match range ``(lo, hi)``; None for a file that is not a chunk.

    Raises
    ------
    UsageError
        One line naming the file and the claim that does not hold.
    """
    m, f = pm.meta, pm.path

    def bad(what: str) -> UsageError:
        return UsageError(f"{f}: its metadata claims {what}; refused (damaged or not mjlab's)")

    fmt = m.get("format")
    if fmt not in FORMATS:
        raise UsageError(f"{f}: unknown mjlab format {str(fmt)[:40]!r}")
    for key in ("variant", "rules_id"):
        if key in m and not isinstance(m[key], str):
            raise bad(f"a {key} that is not a string")
    if "rules" in m and not isinstance(m["rules"], dict):
        raise bad("rules that are not a table")
    if "policies" in m and not (
        isinstance(m["policies"], list)
        and 1 <= len(m["policies"]) <= 8
        and all(isinstance(p, str) for p in m["policies"])
    ):
        raise bad("policies that are not 1..8 names")
    limits = {
        "seed": (0, MAX_SEED),
        "match_length": (1, MAX_MATCH_LENGTH),
        "deals": (1, MAX_MATCHES * MAX_MATCH_LENGTH),
        "chunk_matches": (1, MAX_MATCHES),
        "chunk_rows": (0, MAX_MATCHES * MAX_MATCH_LENGTH),
    }
    for key, (lo, hi) in limits.items():
        if key in m and not (_is_int(m[key]) and lo <= m[key] <= hi):
            raise bad(f"{key}={str(m[key])[:40]} (allowed {lo}..{hi})")
    deals, length = m.get("deals"), m.get("match_length")
    n_matches = None
    if deals is not None and length is not None:
        n_matches = -(-deals // length)
        if n_matches > MAX_MATCHES:
            raise bad(f"{n_matches} matches (at most {MAX_MATCHES})")
    chunk = m.get("chunk")
    if chunk is None:
        if "chunk_rows" in m:
            raise bad("chunk rows without a chunk range")
        if fmt == "mjlab-summary":
            raise bad("a summary outside a dataset chunk")
        if deals is not None and pm.rows != deals:
            raise bad(f"{deals} deals, but the file holds {pm.rows} rows")
        return None
    if not (isinstance(chunk, list) and len(chunk) == 2 and all(_is_int(x) for x in chunk)):
        raise bad("a chunk range that is not two integers")
    lo, hi = chunk
    if not 0 <= lo < hi <= MAX_MATCHES:
        raise bad(f"the match range [{lo}, {hi})")
    if n_matches is None or "chunk_matches" not in m:
        raise bad("a chunk without the run's deals, match length and chunk size")
    cm = m["chunk_matches"]
    if hi > n_matches or lo % cm or hi != min(n_matches, lo + cm):
        raise bad(
            f"the match range [{lo}, {hi}), not a chunk of a run of {n_matches} matches "
            f"in chunks of {cm}"
        )
    rows = match_rows(deals, length, lo, hi)
    if m.get("chunk_rows") != rows:
        raise bad(f"{m.get('chunk_rows')} rows for matches [{lo}, {hi}), which hold {rows}")
    if fmt == "mjlab-records" and pm.rows != rows:
        raise bad(f"{rows} rows, but the file holds {pm.rows}")
    if fmt == "mjlab-summary":
        summary = m.get("summary")
        if pm.rows != 0 or not isinstance(summary, dict) or summary.get("n_deals") != rows:
            raise bad(f"a summary of {rows} deals that the file does not hold")
        for key in ("variant", "rules_id"):
            if summary.get(key) != m.get(key):
                raise bad(f"a summary of another {key} than the file's")
        count, pending = summary.get("match_count"), summary.get("match_pending")
        if not (_is_int(count) and isinstance(pending, dict) and count + len(pending) == hi - lo):
            raise bad(f"a summary that does not hold the {hi - lo} matches [{lo}, {hi})")
        if reducer is not None:  # the stored summary's own shape checks
            try:
                reducer.check(summary)
            except UsageError as exc:
                raise bad(f"a damaged summary ({exc})") from None
    if check_name and f.name != chunk_name(lo, hi):
        raise UsageError(
            f"{f}: holds chunk [{lo}, {hi}) but is not named {chunk_name(lo, hi)} "
            "(a copied or renamed chunk?); refused"
        )
    return lo, hi


def _describe(spec: RunSpec) -> str:
    return f"simulate {spec.variant} --deals {spec.deals} --seed {spec.seed}"


def _chunk_task(spec_dict: dict, lo: int, hi: int, folder: str | None, ident: dict, reducer=None):
    """Play one chunk; write its record file (returns rows) or return its summary dict."""
    import pyarrow as pa

    spec = RunSpec(
        **{
            **spec_dict,
            "policies": tuple(spec_dict["policies"]),
            "bot_params": tuple(tuple(x) for x in spec_dict.get("bot_params", ())),
        }
    )
    frame = chunk_frame(spec, lo, hi, play_chunk(spec, lo, hi))
    meta = {**ident, "chunk": [lo, hi], "chunk_rows": len(frame)}
    if reducer is not None:
        return {"meta": meta, "summary": reducer.reduce(frame)}
    table = pa.Table.from_pandas(frame, preserve_index=False)
    fileio.write_parquet(Path(folder) / chunk_name(lo, hi), table, meta)
    return {"meta": meta, "rows": len(frame)}


def _dask_chunk_task(
    spec_dict: dict, lo: int, hi: int, folder: str | None, ident: dict, reducer=None
):
    """:func:`_chunk_task` on one numba thread: a Dask worker thread is one core.

    Dask runs as many tasks at once as the worker has threads (``dask worker --nthreads``,
    the LocalCluster's one per process), so each task keeps to one thread rather than
    every task starting one per core. numba's thread count is per calling thread.
    """
    import numba

    numba.set_num_threads(1)
    return _chunk_task(spec_dict, lo, hi, folder, ident, reducer)


def _write_summary(folder: Path, lo: int, hi: int, result: dict) -> None:
    import pyarrow as pa

    meta = {**result["meta"], "summary": result["summary"]}
    table = pa.table({"run_seed": pa.array([], pa.int64())})
    fileio.write_parquet(folder / chunk_name(lo, hi), table, meta)


def _scan(folder: Path, ident: dict, force: bool, reducer=None) -> set[tuple[int, int]]:
    """Complete, verified chunks of this run in ``folder`` (the caller holds its lock).

    Resume touches only chunk names (``chunk-<lo>-<hi>.parquet``, :func:`chunk_name`).
    A file of such a name that is this run's but damaged (its whole-file checksum, its
    claims, or a footer too damaged to read that still shows mjlab's marks) is removed,
    with a message, to be played again; another run's chunk is refused, or removed with
    ``force``; a file of that name that is not mjlab output at all is refused. Hidden
    names (``.`` or ``_`` first, as ``summarize`` skips them) and files that are not
    ``.parquet`` are never read. Any other ``.parquet`` file is never touched, not even
    with ``force``: the folder is refused naming it (a copy of a chunk under another
    name, or someone else's file), since ``summarize`` would refuse it too.
    """
    done, damaged, others = set(), [], []
    for f in sorted(folder.iterdir()):
        if f.name.startswith((".", "_")) or f.suffix != ".parquet" or not f.is_file():
            continue
        own = _NAME.match(f.name) is not None
        try:
            pm = fileio.read_meta(f)
        except UsageError as exc:
            if own and fileio.damaged_output(f, exc):
                damaged.append((f, _reason(exc, f)))
                continue
            raise UsageError(
                f"{f}: not a mjlab chunk ({_reason(exc, f)}); this folder holds other "
                "files, use another --out"
            ) from None
        try:
            fileio.verify(pm)
        except UsageError as exc:
            if own:
                damaged.append((f, _reason(exc, f)))
                continue
            raise _not_ours(f, f"damaged mjlab output ({_reason(exc, f)})") from None
        diff = differs(run_identity(pm.meta), ident)
        if diff:
            if not own:
                raise _not_ours(f, f"another run's file (it differs in {', '.join(diff)})")
            others.append((f, diff))
            continue
        try:
            rng = check_claims(pm, reducer=reducer, check_name=own)
        except UsageError as exc:
            if own:
                damaged.append((f, _reason(exc, f)))
                continue
            why = f"a file of this run that is not a chunk ({_reason(exc, f)})"
            raise _not_ours(f, why) from None
        if not own:
            lo, hi = rng if rng is not None else ("?", "?")
            raise _not_ours(f, f"a copy of this run's chunk [{lo}, {hi}) under another name")
        done.add(rng)
    if others and not force:
        f, diff = others[0]
        raise UsageError(
            f"{folder}: holds a different run ({f.name} differs in {', '.join(diff)}); "
            "use another --out folder, or --force to replace it"
        )
    if others:
        print(
            f"mjlab: {folder}: --force: removing {len(others)} chunk(s) of another run",
            file=sys.stderr,
        )
    for f, why in damaged:
        print(f"mjlab: {f}: {why}; playing it again", file=sys.stderr)
    for f, _ in [*others, *damaged]:
        f.unlink(missing_ok=True)
    return done


def _not_ours(f: Path, what: str) -> UsageError:
    return UsageError(
        f"{f}: {what}; a resume touches only its own chunk names, so move it out of the "
        "folder (summarize would refuse the folder with it)"
    )


def _reason(exc: UsageError, f: Path) -> str:
    text = str(exc)
    return text[len(f"{f}: ") :] if text.startswith(f"{f}: ") else text


def run_dataset(
    spec: RunSpec,
    folder,
    *,
    chunk_matches: int = DEFAULT_CHUNK_MATCHES,
    reducer: Reducer | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool = True,
    force: bool = False,
    security=None,
) -> dict:
    """Play (or resume) a run into a folder of chunk files; returns counts of chunks.

    The folder is locked for the run (:class:`engine.fileio.OutputLock`): a second
    writer is refused naming the first. Complete chunks are verified against their
    checksums and skipped; damaged ones are played again. A folder holding another
    run's chunks is refused unless ``force``; files that are not mjlab chunks always are.
    ``security`` (a :class:`distributed.Security`, see :func:`engine.runs.cluster.client_security`)
    is how the Dask client authenticates to ``scheduler``. With a ``reducer`` each chunk
    file holds ``reducer.reduce(records)`` and no rows (format ``mjlab-summary``), and
    resumed chunks are checked with ``reducer.check``.

    Returns ``{"chunks": n, "skipped": k, "played": n - k, "deals": spec.deals}``.
    """
    folder = Path(folder)
    if isinstance(chunk_matches, bool) or not isinstance(chunk_matches, int):
        raise UsageError(f"--chunk-matches must be an integer, got {chunk_matches!r}")
    if not 1 <= chunk_matches <= MAX_MATCHES:
        raise UsageError(f"--chunk-matches must be 1..{MAX_MATCHES}, got {chunk_matches}")
    if backend not in ("local", "dask"):
        raise UsageError(f"unknown backend {backend!r}; backends: local, dask")
    paths.check_output(folder, "--out", folder=True)
    ident = _identity(spec, chunk_matches, reducer is not None)
    created = not folder.exists()
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise fileio.os_fault(exc, folder) from exc
    try:
        lock = fileio.OutputLock(folder, _describe(spec)).acquire()
    except BaseException:
        _remove_if_empty(folder, created)
        raise
    try:
        done = _scan(folder, ident, force, reducer)
        fileio.remove_dead_temps(folder)
        res = _play(
            spec,
            folder,
            ident,
            done,
            chunk_matches,
            reducer,
            backend,
            scheduler,
            workers,
            progress,
            security,
        )
    except BaseException:
        lock.release()
        _remove_if_empty(folder, created)
        raise
    lock.release()
    return res


def _remove_if_empty(folder: Path, created: bool) -> None:
    """Remove a folder this run created if nothing is left in it."""
    if created:
        try:
            folder.rmdir()
        except OSError:
            pass


def _play(
    spec,
    folder,
    ident,
    done,
    chunk_matches,
    reducer,
    backend,
    scheduler,
    workers,
    progress,
    security=None,
) -> dict:
    n = spec.n_matches
    chunks = [(lo, min(n, lo + chunk_matches)) for lo in range(0, n, chunk_matches)]
    todo = [c for c in chunks if c not in done]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(
            total=spec.deals,
            initial=sum(spec.rows(*c) for c in done),
            unit="deal",
            unit_scale=True,
            desc=spec.variant,
        )
    spec_dict = asdict(spec)
    try:
        if backend == "local":
            import numba

            threads = numba.get_num_threads()
            if workers is not None:
                numba.set_num_threads(min(max(1, workers), numba.config.NUMBA_NUM_THREADS))
            try:
                for lo, hi in todo:
                    res = _chunk_task(spec_dict, lo, hi, str(folder), ident, reducer)
                    if reducer is not None:
                        _write_summary(folder, lo, hi, res)
                    if bar is not None:
                        bar.update(spec.rows(lo, hi))
            finally:
                numba.set_num_threads(threads)
        else:
            dask_args = (reducer, scheduler, workers, bar, security)
            _run_dask(spec, spec_dict, todo, folder, ident, *dask_args)
    finally:
        if bar is not None:
            bar.close()
    return {"chunks": len(chunks), "skipped": len(done), "played": len(todo), "deals": spec.deals}


def _run_dask(
    spec, spec_dict, todo, folder, ident, reducer, scheduler, workers, bar, security=None
):
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise UsageError(
            "--backend dask needs dask[distributed]: pip install 'dask[distributed]'"
        ) from None
    from engine.runs.cluster import connect, local_cluster

    cluster = None
    if scheduler:
        client = connect(scheduler, security)
    else:
        cluster = local_cluster(workers or 2)
        client = Client(cluster)
    try:
        futures = {
            client.submit(
                _dask_chunk_task,
                spec_dict,
                lo,
                hi,
                str(folder.resolve()),
                ident,
                reducer,
                pure=False,
            ): (lo, hi)
            for lo, hi in todo
        }
        for fut in as_completed(futures):
            lo, hi = futures[fut]
            res = fut.result()
            if reducer is not None:
                _write_summary(folder, lo, hi, res)
            if bar is not None:
                bar.update(spec.rows(lo, hi))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def load_chunks(folder) -> pd.DataFrame:
    """All record chunks of a folder, in match order (for tests and small runs)."""
    import pyarrow.parquet as pq

    files = sorted(f for f in Path(folder).glob("chunk-*.parquet"))
    return pd.concat([pq.read_table(f).to_pandas() for f in files], ignore_index=True)
