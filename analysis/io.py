"""Reading mjlab record files: one Parquet file or a folder of chunk files.

A mjlab record file is a Parquet file whose key-value metadata holds the keys in
:data:`METADATA_KEYS` (written by ``engine.records``); a chunk written with
``--summary-only`` holds no rows and carries its :class:`~analysis.summary.Summary`
as JSON under ``mjlab.summary``. :func:`load` returns the rows as one frame,
:func:`summarize` merges summaries chunk by chunk in bounded memory.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from analysis import schema
from analysis.summary import Summary
from engine.errors import UsageError

__all__ = ["METADATA_KEYS", "load", "summarize", "read_metadata", "record_files"]

METADATA_KEYS = {
    "variant": "mjlab.variant",
    "rules_id": "mjlab.rules_id",
    "rules": "mjlab.rules",
    "version": "mjlab.version",
    "variant_version": "mjlab.variant_version",
    "seed": "mjlab.seed",
    "summary": "mjlab.summary",
}
"""Parquet key-value metadata of a record file: field -> key (values are UTF-8 text;
``rules`` and ``summary`` are JSON). ``variant``, ``rules_id``, ``version`` and
``variant_version`` are required; ``summary`` marks a summary-only chunk."""

_REQUIRED_META = ("variant", "rules_id", "version", "variant_version")
_MUST_AGREE = ("variant", "rules_id", "rules", "version", "variant_version")


def record_files(path: str | Path) -> list[Path]:
    """The Parquet files of a record file or dataset folder, sorted by name.

    Hidden and temporary files (names starting with ``.`` or ``_``, or ending in
    ``.tmp``) are incomplete chunks and are skipped.

    Raises
    ------
    UsageError
        The path does not exist or the folder holds no Parquet file.
    """
    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path}: no such file or folder")
    if path.is_file():
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


def read_metadata(file: str | Path) -> dict:
    """The mjlab metadata of one Parquet file as a dict of fields.

    Returns
    -------
    dict
        Fields of :data:`METADATA_KEYS` present in the file (``rules`` parsed from JSON,
        ``summary`` left as text), plus ``rows`` (row count).

    Raises
    ------
    UsageError
        Not a Parquet file, or not a mjlab record file.
    """
    file = Path(file)
    try:
        meta = pq.read_metadata(file)
    except Exception as exc:  # pyarrow raises several types for a non-Parquet file
        raise UsageError(f"{file}: not a Parquet file ({type(exc).__name__})") from None
    kv = {k.decode(): v.decode() for k, v in (meta.metadata or {}).items()}
    out: dict = {"rows": meta.num_rows}
    for name, key in METADATA_KEYS.items():
        if key in kv:
            out[name] = kv[key]
    missing = [k for k in _REQUIRED_META if k not in out]
    if missing:
        raise UsageError(
            f"{file}: not a mjlab record file (metadata lacks "
            f"{', '.join(METADATA_KEYS[k] for k in missing)})"
        )
    if "rules" in out:
        try:
            out["rules"] = json.loads(out["rules"])
        except json.JSONDecodeError:
            raise UsageError(f"{file}: metadata {METADATA_KEYS['rules']} is not JSON") from None
    return out


def _check_same(metas: list[tuple[Path, dict]]) -> dict:
    first_file, first = metas[0]
    for f, m in metas[1:]:
        for key in _MUST_AGREE:
            if first.get(key) != m.get(key):
                what = {
                    "variant": "variants",
                    "rules_id": "rule sets",
                    "rules": "rule options",
                    "version": "package versions",
                    "variant_version": "variant versions",
                }[key]
                raise UsageError(
                    f"{f.parent}: files mix {what} ({first_file.name}: {first.get(key)!r}, "
                    f"{f.name}: {m.get(key)!r}); analyse them apart"
                )
    return first


def _meta_for_summary(m: dict) -> dict:
    out = {k: str(m[k]) for k in ("version", "variant_version") if k in m}
    if "rules" in m:
        out["rules"] = json.dumps(m["rules"], sort_keys=True)
    return out


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
    summaries = [f.name for f, m in metas if "summary" in m]
    if summaries:
        raise UsageError(
            f"{path}: {summaries[0]} holds a summary, not rows; use analysis.summarize"
        )
    tables = []
    for f, _ in metas:
        try:
            tables.append(pq.read_table(f, columns=list(columns) if columns else None))
        except Exception as exc:
            raise UsageError(f"{f}: cannot read ({type(exc).__name__}: {exc})") from None
    names = [t.schema.names for t in tables]
    if any(n != names[0] for n in names[1:]):
        bad = next(f for f, n in zip(files, names, strict=True) if n != names[0])
        raise UsageError(f"{bad}: columns differ from {files[0].name}")
    import pyarrow as pa

    table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    df = table.to_pandas()
    if columns is None or set(schema.REQUIRED) <= set(columns):
        schema.validate_records(df, source=str(path))
        variant, rules_id = schema.identity(df)
        if (variant, rules_id) != (first["variant"], first["rules_id"]):
            raise UsageError(
                f"{path}: rows are {variant}/{rules_id} but the metadata says "
                f"{first['variant']}/{first['rules_id']}"
            )
    seeds = sorted({m.get("seed") for _, m in metas if m.get("seed") is not None})
    df.attrs["mjlab"] = {
        **{k: v for k, v in first.items() if k not in ("rows", "summary")},
        "seeds": seeds,
    }
    return df


def summarize(path: str | Path) -> Summary:
    """Merge the summaries of every chunk of a record file or dataset folder.

    Row chunks are read and summarised one Parquet row group at a time (so memory is
    bounded by one row group, not the dataset); summary-only chunks contribute their
    stored summary. Both kinds may be mixed in one folder.

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
        if "summary" in m:
            try:
                part = Summary.from_json(m["summary"])
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise UsageError(f"{f}: unreadable stored summary ({exc})") from None
            part.meta = {**meta, **part.meta}
            out = part if out is None else out.merge(part)
            continue
        pf = pq.ParquetFile(f)
        for i in range(pf.num_row_groups):
            df = pf.read_row_group(i).to_pandas()
            if len(df) == 0:
                continue
            schema.validate_records(df, source=f"{f} (row group {i})")
            if (df["variant"].iloc[0], df["rules_id"].iloc[0]) != (
                first["variant"],
                first["rules_id"],
            ):
                raise UsageError(f"{f}: rows do not match the file's metadata")
            part = Summary.from_records(df, meta=meta)
            out = part if out is None else out.merge(part)
    if out is None:
        raise UsageError(f"{path}: no records")
    return out
