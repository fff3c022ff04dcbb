"""Reading mjlab record files: one Parquet file or a folder of chunk files.

A mjlab record file is a Parquet file whose key-value metadata has the key ``mjlab``
holding the run identity as JSON (written by ``engine.play.records.write_parquet``):
``format`` (``"mjlab-records"``), ``format_version``, ``package_version``, ``variant``,
``variant_version``, ``rules`` (the full options), ``rules_id``, ``seed``, and more.
A chunk written with ``--summary-only`` has ``format = "mjlab-summary"``, no rows, and
its :class:`~analysis.summary.Summary` (``to_dict()``) under ``summary``.
:func:`load` returns the rows as one frame; :func:`summarize` merges summaries chunk by
chunk in bounded memory.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from analysis import schema
from analysis.summary import Summary
from engine.errors import UsageError

__all__ = [
    "META_KEY",
    "FORMATS",
    "BATCH_ROWS",
    "load",
    "summarize",
    "read_metadata",
    "record_files",
    "row_batches",
]

META_KEY = b"mjlab"
"""Parquet key-value metadata key of the run identity (JSON), as ``engine.play.records``."""

FORMATS = ("mjlab-records", "mjlab-summary")
"""Accepted values of the metadata's ``format``."""

_REQUIRED_META = ("format", "variant", "rules_id", "package_version", "variant_version")
_MUST_AGREE = {
    "variant": "variants",
    "rules_id": "rule sets",
    "rules": "rule options",
    "package_version": "package versions",
    "variant_version": "variant versions",
    "format_version": "record format versions",
    "policies": "policies",
}
_SUMMARY_META = ("package_version", "variant_version", "format_version", "rules", "policies")


def record_files(path: str | Path) -> list[Path]:
    """The Parquet files of a record file or dataset folder, sorted by name.

    Hidden and temporary files (names starting with ``.`` or ``_``, or ending in
    ``.tmp``) are incomplete chunks and are skipped.

    Raises
    ------
    UsageError
        The path is empty, does not exist, is neither a regular file nor a folder (a
        FIFO, a device), or the folder holds no Parquet file.
    """
    from engine import paths

    st = paths.check_input(path, "PATH", folder_ok=True)  # a FIFO or device is never opened
    path = Path(path)
    if stat.S_ISREG(st.st_mode):
        return [path]
    files = sorted(
        f
        for f in path.iterdir()
        if f.is_file()
        and f.suffix == ".parquet"
        and not f.name.startswith((".", "_"))
        and not f.name.endswith(".tmp")
    )
    if not files:
        raise UsageError(f"{path}: no .parquet files in this folder")
    return files


def read_metadata(file: str | Path, *, verify: bool = True) -> dict:
    """The mjlab metadata of one Parquet file, its claims and checksums checked.

    Parameters
    ----------
    file : str or Path
    verify : bool
        Check the file's content against its stored checksums (files written before
        mjlab kept checksums have none and are accepted unchecked).

    Returns
    -------
    dict
        The run identity (see the module docstring) plus ``rows`` (row count).

    Raises
    ------
    UsageError
        Not a Parquet file, not a mjlab record file, damaged (checksum), or metadata
        whose claims do not hold (:func:`engine.runs.dataset.check_claims`): one line naming
        the file.
    """
    from analysis.summary import SummaryReducer
    from engine import fileio
    from engine.runs.dataset import check_claims

    file = Path(file)
    pm = fileio.read_meta(file)
    out = dict(pm.meta)
    missing = [k for k in _REQUIRED_META if k not in out]
    if missing:
        raise UsageError(f"{file}: not a mjlab record file (metadata lacks {', '.join(missing)})")
    if out["format"] not in FORMATS:
        raise UsageError(f"{file}: unknown mjlab format {str(out['format'])[:40]!r}")
    out["_range"] = check_claims(pm, check_name=_in_dataset(file), reducer=SummaryReducer)
    if verify:
        fileio.verify(pm, required=False)
    out["rows"] = pm.rows
    return out


def _in_dataset(file: Path) -> bool:
    """Whether a file's name must be its chunk range (a chunk file in a folder)."""
    return file.name.startswith("chunk-")


def _check_same(metas: list[tuple[Path, dict]]) -> dict:
    """The first file's metadata; UsageError naming two files that are not of one run."""
    from engine.runs.dataset import differs, run_identity

    first_file, first = metas[0]
    for f, m in metas[1:]:
        for key, what in _MUST_AGREE.items():
            if differs({key: first.get(key)}, {key: m.get(key)}):
                raise UsageError(
                    f"{f.parent}: files mix {what} ({first_file.name}: {first.get(key)!r}, "
                    f"{f.name}: {m.get(key)!r}); analyse them apart"
                )
    ident = _run_keys(run_identity(first))
    for f, m in metas[1:]:
        theirs = _run_keys(run_identity(m))
        diff = differs(theirs, ident)
        if diff:
            raise UsageError(
                f"{f.parent}: files of different runs ({first_file.name} and {f.name} differ "
                f"in {', '.join(diff)}); analyse them apart"
            )
    ranges = sorted(
        (m["_range"] if m["_range"] is not None else (0, _MATCHES_ALL), f.name)
        for f, m in metas
        if m["_range"] is not None or (len(metas) > 1 and "deals" in m)
    )
    for (a, fa), (b, fb) in zip(ranges, ranges[1:], strict=False):
        if b[0] < a[1]:
            raise UsageError(
                f"{metas[0][0].parent}: {fa} and {fb} hold the same matches "
                f"[{b[0]}, {min(a[1], b[1])}) (a copied chunk, or two runs?); "
                "remove the duplicate"
            )
    return first


_MATCHES_ALL = 2**62
_RUN_EXEMPT = ("format", "rows", "_range")


def _run_keys(ident: dict) -> dict:
    """The keys two files of one run must share (a folder may mix rows and summaries)."""
    return {k: v for k, v in ident.items() if k not in _RUN_EXEMPT}


def _check_rows(f: Path, df: pd.DataFrame, m: dict, where: str) -> None:
    """UsageError unless the rows' seed and match numbers are what the metadata says."""
    if "seed" in m and len(df) and "run_seed" in df.columns:
        seeds = df["run_seed"].to_numpy()
        if (seeds != m["seed"]).any():
            raise UsageError(f"{f}: rows of seed {int(seeds[0])} in a file of seed {m['seed']}")
    rng = m.get("_range")
    if rng is not None and len(df) and "match" in df.columns:
        match = df["match"].to_numpy()
        if int(match.min()) < rng[0] or int(match.max()) >= rng[1]:
            raise UsageError(f"{f}{where}: rows outside its match range [{rng[0]}, {rng[1]})")


def _short(exc: Exception) -> str:
    text = str(exc).splitlines()[0][:120] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _meta_for_summary(m: dict) -> dict:
    return {k: json.dumps(m[k], sort_keys=True) for k in _SUMMARY_META if k in m}


def load(path: str | Path, *, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Read a mjlab record file or a folder of chunk files into one record frame.

    The files' metadata must agree on variant, rules_id, rule options, package version
    and variant version; the rows are checked once against the DESIGN schema
    (:func:`analysis.schema.validate_records`). The mjlab metadata of the first file
    (with the run seeds of all) is kept in ``df.attrs["mjlab"]``.

    Parameters
    ----------
    path : str or Path
        ``PATH.parquet`` or a dataset folder of ``*.parquet`` chunks.
    columns : sequence of str, optional
        Read only these columns (the schema check then covers only what was read and
        is skipped when required columns are left out).

    Returns
    -------
    DataFrame
        One row per deal.

    Raises
    ------
    UsageError
        Missing path, not a mjlab record file, files that mix variants, rule sets or
        versions, summary-only chunks (use :func:`summarize`), or rows that break
        the schema. The message is one line and names the file.
    """
    files = record_files(path)
    metas = [(f, read_metadata(f)) for f in files]
    first = _check_same(metas)
    summaries = [f.name for f, m in metas if m["format"] == "mjlab-summary"]
    if summaries:
        raise UsageError(
            f"{path}: {summaries[0]} holds a summary, not rows; use analysis.summarize"
        )
    tables = []
    for f, m in metas:
        try:
            t = pq.read_table(f, columns=list(columns) if columns else None)
        except Exception as exc:
            raise UsageError(f"{f}: damaged, cannot decode ({_short(exc)})") from None
        if t.num_rows != m["rows"]:
            raise UsageError(f"{f}: damaged ({t.num_rows} rows decoded, {m['rows']} claimed)")
        tables.append(t)
    names = [t.schema.names for t in tables]
    if any(n != names[0] for n in names[1:]):
        bad = next(f for f, n in zip(files, names, strict=True) if n != names[0])
        raise UsageError(f"{bad}: columns differ from {files[0].name}")
    import pyarrow as pa

    table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    del tables  # let to_pandas free each column as it converts it (halves peak memory)
    df = table.to_pandas(split_blocks=True, self_destruct=True)
    del table
    if columns is None or set(schema.REQUIRED) <= set(columns):
        schema.validate_records(df, source=str(path))
        variant, rules_id = schema.identity(df)
        if (variant, rules_id) != (first["variant"], first["rules_id"]):
            raise UsageError(
                f"{path}: rows are {variant}/{rules_id} but the metadata says "
                f"{first['variant']}/{first['rules_id']}"
            )
        if first.get("seed") is not None and (df["run_seed"].to_numpy() != first["seed"]).any():
            raise UsageError(f"{path}: rows of another seed than the metadata's {first['seed']}")
    seeds = sorted({m.get("seed") for _, m in metas if m.get("seed") is not None})
    df.attrs["mjlab"] = {
        **{k: v for k, v in first.items() if k not in ("rows", "summary", "_range")},
        "seeds": seeds,
    }
    return df


def planned_deals(path: str | Path) -> int | None:
    """The deals the run that wrote ``path`` was asked for (its chunks' ``deals``).

    A dataset folder whose run was stopped holds fewer; compare with the summary's
    ``n_deals``. ``None`` when the metadata does not say.
    """
    value = read_metadata(record_files(path)[0]).get("deals")
    return int(value) if isinstance(value, int) else None


BATCH_ROWS = 1 << 16
"""Rows a reader decodes at once (:func:`row_batches`): a row group of a single-file run
holds up to about a million rows, which as a frame took about 0.9 GB."""


def row_batches(pf, f: Path, columns: Sequence[str] | None = None, rows: int | None = None):
    """``(row group, frame)`` of the rows of the open Parquet file ``pf`` (of path ``f``),
    in record order, at most ``rows`` (default :data:`BATCH_ROWS`) at a time: a reader
    that reduces frame by frame holds one batch, not the file or a row group. Empty
    batches are skipped.

    Raises
    ------
    UsageError
        A row group that cannot be decoded, naming the file and the row group.
    """
    import pyarrow as pa

    rows = BATCH_ROWS if rows is None else rows
    cols = list(columns) if columns is not None else None
    for i in range(pf.num_row_groups):
        try:
            for batch in pf.iter_batches(batch_size=rows, row_groups=[i], columns=cols,
                                         use_threads=False):  # fmt: skip
                if batch.num_rows == 0:
                    continue
                df = pa.Table.from_batches([batch]).to_pandas()
                del batch
                yield i, df
        except UsageError:
            raise
        except Exception as exc:
            raise UsageError(f"{f}: damaged, cannot decode row group {i} ({_short(exc)})") from None


def summarize(path: str | Path) -> Summary:
    """Merge the summaries of every chunk of a record file or dataset folder.

    Row chunks are read and summarised at most :data:`BATCH_ROWS` rows at a time
    (:func:`row_batches`: memory is bounded by one batch, not the dataset or a row
    group); summary-only chunks contribute their stored summary. Both kinds may be mixed
    in one folder.

    Parameters
    ----------
    path : str or Path
        ``PATH.parquet`` or a dataset folder.

    Returns
    -------
    Summary

    Raises
    ------
    UsageError
        As :func:`load`.
    """
    files = record_files(path)
    metas = [(f, read_metadata(f)) for f in files]
    first = _check_same(metas)
    meta = _meta_for_summary(first)
    out: Summary | None = None
    for f, m in metas:
        if m["format"] == "mjlab-summary":
            try:
                part = Summary.from_dict(m.get("summary"))
            except UsageError as exc:
                raise UsageError(f"{f}: its stored summary is refused ({exc})") from None
            except (KeyError, TypeError, ValueError) as exc:
                raise UsageError(f"{f}: unreadable stored summary ({_short(exc)})") from None
            part.meta = {**meta, **part.meta}
            out = part if out is None else out.merge(part)
            continue
        try:
            pf = pq.ParquetFile(f)
        except Exception as exc:
            raise UsageError(f"{f}: damaged, cannot open ({_short(exc)})") from None
        for i, df in row_batches(pf, f):
            schema.validate_records(df, source=f"{f} (row group {i})")
            _check_rows(f, df, m, f" (row group {i})")
            if (df["variant"].iloc[0], df["rules_id"].iloc[0]) != (
                first["variant"],
                first["rules_id"],
            ):
                raise UsageError(f"{f}: rows do not match the file's metadata")
            part = Summary.from_records(df, meta=meta)
            del df
            out = part if out is None else out.merge(part)
    if out is None:
        raise UsageError(f"{path}: no records")
    return out
