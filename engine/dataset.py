"""Chunked, resumable runs: a folder of Parquet chunk files, local or on Dask.

``mjlab simulate VARIANT ... --out DIR/`` writes one file per chunk of matches, named
``chunk-<first match>-<end match>.parquet``. Each is written to a hidden temporary name
and renamed when complete, and carries the run's identity (variant, full rule options,
seed, deals, match length, policies, package and variant versions, chunk size) plus its
match range in the Parquet metadata. Rerunning the same command resumes: complete
chunks are verified and skipped; a folder holding another run's files is refused (exit
2) and left untouched; a damaged chunk is named.

With ``summary_only`` a chunk stores its mergeable :class:`analysis.Summary` (no rows),
so 100M+ deals are summarised in bounded memory (``mjlab summarize DIR/`` merges either
kind). This is the one place the engine reaches into :mod:`analysis` (lazily), because a
summary-only chunk is the analysis layer's aggregate.

With ``backend="dask"`` the chunks become tasks on a Dask distributed cluster (an
existing scheduler address, or a LocalCluster of ``workers`` processes). Record chunks
are written by the workers (the folder must be shared by all machines); summary chunks
are returned to the client, which writes them. Records are identical to a local run.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from .errors import UsageError
from .records import META_KEY
from .run import RunSpec, chunk_frame, play_chunk

__all__ = ["run_dataset", "chunk_name", "DEFAULT_CHUNK_MATCHES"]

DEFAULT_CHUNK_MATCHES = 4096
"""Matches per chunk file (65,536 deals at the default match length)."""

_NAME = re.compile(r"^chunk-(\d{9})-(\d{9})\.parquet$")


def chunk_name(lo: int, hi: int) -> str:
    """File name of the chunk of matches ``[lo, hi)``."""
    return f"chunk-{lo:09d}-{hi:09d}.parquet"


def _identity(spec: RunSpec, chunk_matches: int, summary_only: bool) -> dict:
    ident = spec.identity()
    ident["chunk_matches"] = chunk_matches
    if summary_only:
        ident["format"] = "mjlab-summary"
    return ident


def _write_atomic(path: Path, table, meta: dict) -> None:
    import pyarrow.parquet as pq

    existing = table.schema.metadata or {}
    table = table.replace_schema_metadata({**existing, META_KEY: json.dumps(meta).encode()})
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _chunk_task(spec_dict: dict, lo: int, hi: int, folder: str | None, ident: dict):
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
    if ident["format"] == "mjlab-summary":
        from analysis.summary import Summary

        summary = Summary.from_records(frame)
        return {"meta": meta, "summary": summary.to_dict()}
    table = pa.Table.from_pandas(frame, preserve_index=False)
    _write_atomic(Path(folder) / chunk_name(lo, hi), table, meta)
    return {"meta": meta, "rows": len(frame)}


def _dask_chunk_task(spec_dict: dict, lo: int, hi: int, folder: str | None, ident: dict):
    """:func:`_chunk_task` on one numba thread: a Dask worker thread is one core.

    Dask runs as many tasks at once as the worker has threads (``dask worker --nthreads``,
    the LocalCluster's one per process), so each task keeps to one thread rather than
    every task starting one per core. numba's thread count is per calling thread.
    """
    import numba

    numba.set_num_threads(1)
    return _chunk_task(spec_dict, lo, hi, folder, ident)


def _write_summary(folder: Path, lo: int, hi: int, result: dict) -> None:
    import pyarrow as pa

    meta = {**result["meta"], "summary": result["summary"]}
    table = pa.table({"run_seed": pa.array([], pa.int64())})
    _write_atomic(folder / chunk_name(lo, hi), table, meta)


def _scan(folder: Path, ident: dict, spec: RunSpec) -> set[tuple[int, int]]:
    """Complete chunks already in ``folder``; UsageError if a file is foreign or damaged."""
    import pyarrow.parquet as pq

    done = set()
    for f in sorted(folder.iterdir()):
        if f.name.startswith(".") and f.name.endswith(".tmp"):
            continue  # an interrupted write; it is redone
        if f.suffix != ".parquet":
            continue
        try:
            md = pq.read_metadata(f)
            meta = json.loads((md.metadata or {})[META_KEY])
        except KeyError:
            raise UsageError(
                f"{f}: not a mjlab chunk (no 'mjlab' metadata); this folder "
                "holds other files, use another --out"
            ) from None
        except Exception as exc:
            raise UsageError(
                f"{f}: damaged chunk file ({type(exc).__name__}); delete it and "
                "rerun to play it again"
            ) from None
        theirs = {k: v for k, v in meta.items() if k not in ("chunk", "chunk_rows", "summary")}
        if theirs != ident:
            diff = sorted(k for k in set(theirs) | set(ident) if theirs.get(k) != ident.get(k))
            raise UsageError(
                f"{folder}: holds a different run ({f.name} differs in "
                f"{', '.join(diff)}); use another --out folder"
            )
        m = _NAME.match(f.name)
        lo, hi = meta.get("chunk", [None, None])
        if not m or (int(m.group(1)), int(m.group(2))) != (lo, hi):
            raise UsageError(f"{f}: chunk name does not match its metadata")
        rows_ok = md.num_rows == spec.rows(lo, hi) or (
            ident["format"] == "mjlab-summary" and meta.get("chunk_rows") == spec.rows(lo, hi)
        )
        if not rows_ok:
            raise UsageError(
                f"{f}: damaged chunk ({md.num_rows} rows, expected "
                f"{spec.rows(lo, hi)}); delete it and rerun"
            )
        done.add((lo, hi))
    return done


def run_dataset(
    spec: RunSpec,
    folder,
    *,
    chunk_matches: int = DEFAULT_CHUNK_MATCHES,
    summary_only: bool = False,
    backend: str = "local",
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> dict:
    """Play (or resume) a run into a folder of chunk files; returns counts of chunks.

    Returns ``{"chunks": n, "skipped": k, "played": n - k, "deals": spec.deals}``.
    """
    folder = Path(folder)
    if chunk_matches < 1:
        raise UsageError(f"--chunk-matches must be >= 1, got {chunk_matches}")
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder} exists and is not a folder")
    parent = folder.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise UsageError(f"cannot create {folder}: {parent} is missing or not writable")
    ident = _identity(spec, chunk_matches, summary_only)
    done = _scan(folder, ident, spec) if folder.exists() else set()
    if folder.exists() and not os.access(folder, os.W_OK):
        raise UsageError(f"{folder} is not writable")
    n = spec.n_matches
    chunks = [(lo, min(n, lo + chunk_matches)) for lo in range(0, n, chunk_matches)]
    todo = [c for c in chunks if c not in done]
    folder.mkdir(exist_ok=True)
    for stale in folder.glob(".chunk-*.tmp"):
        stale.unlink(missing_ok=True)
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
                    res = _chunk_task(spec_dict, lo, hi, str(folder), ident)
                    if summary_only:
                        _write_summary(folder, lo, hi, res)
                    if bar is not None:
                        bar.update(spec.rows(lo, hi))
            finally:
                numba.set_num_threads(threads)
        elif backend == "dask":
            _run_dask(spec, spec_dict, todo, folder, ident, summary_only, scheduler, workers, bar)
        else:
            raise UsageError(f"unknown backend {backend!r}; backends: local, dask")
    finally:
        if bar is not None:
            bar.close()
    return {"chunks": len(chunks), "skipped": len(done), "played": len(todo), "deals": spec.deals}


def _run_dask(spec, spec_dict, todo, folder, ident, summary_only, scheduler, workers, bar):
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise UsageError(
            "--backend dask needs dask[distributed]: pip install 'dask[distributed]'"
        ) from None
    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as exc:
            raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    else:
        cluster = LocalCluster(
            n_workers=workers or 2, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    try:
        futures = {
            client.submit(
                _dask_chunk_task, spec_dict, lo, hi, str(folder.resolve()), ident, pure=False
            ): (lo, hi)
            for lo, hi in todo
        }
        for fut in as_completed(futures):
            lo, hi = futures[fut]
            res = fut.result()
            if summary_only:
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
