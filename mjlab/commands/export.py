"""``--format csv|xlsx``: the tables of ``summarize``, ``sweep`` and ``design`` as files a
spreadsheet opens.

CSV is one table: a command with several tables (``summarize``) stacks them with a
first column ``table`` naming each row's table (columns a table lacks are empty). It is
printed, or written to ``--export FILE``. XLSX (openpyxl) is a workbook with a sheet per
table and an ``about`` sheet first (the command's header: variant, rules_id, policies,
deals, seed, what the intervals are); it needs ``--export FILE.xlsx``. Files are written
whole or not at all (:mod:`engine.fileio`).
"""

from __future__ import annotations

import io
import sys

from engine.errors import UsageError

__all__ = ["FORMATS", "check_export", "export"]

FORMATS = ("text", "json", "csv", "xlsx")
"""The output formats of ``summarize``, ``sweep`` and ``design``."""


def output_format(args) -> str:
    """The format asked for: ``--format``, or ``json`` for the older ``--json``."""
    fmt = getattr(args, "format", None) or "text"
    if getattr(args, "json", False):
        if fmt not in ("text", "json"):
            raise UsageError(f"--json and --format {fmt} ask for two formats; give one")
        fmt = "json"
    return fmt


def check_export(args) -> str:
    """Check ``--format`` and ``--export`` before anything is played or read; the format."""
    from engine import paths

    fmt = output_format(args)
    path = getattr(args, "export", None)
    if path is not None and fmt not in ("csv", "xlsx"):
        raise UsageError(f"--export goes with --format csv or xlsx, not {fmt}")
    if fmt == "xlsx":
        if path is None:
            raise UsageError("--format xlsx writes a workbook: give --export FILE.xlsx")
        if not str(path).endswith(".xlsx"):
            raise UsageError(f"--export {path}: give a .xlsx file name")
        try:
            import openpyxl  # noqa: F401
        except ImportError:
            raise UsageError(
                "--format xlsx needs openpyxl (pip install openpyxl, or reinstall mjlab)"
            ) from None
    if path is not None:
        paths.check_output(path, "--export")
    return fmt


def _clean(frame):
    """A copy whose cells a spreadsheet takes: lists and dicts as text, NaN as empty."""
    import pandas as pd

    out = frame.copy()
    for c in out.columns:
        if out[c].dtype == object:
            out[c] = [", ".join(map(str, v)) if isinstance(v, list | tuple) else v for v in out[c]]
    return out.astype(object).where(pd.notna(out), None)


def export(tables: dict, fmt: str, path, about: dict) -> None:
    """Write ``tables`` (``name -> DataFrame``) as CSV (printed, or to ``path``) or XLSX."""
    import pandas as pd

    from engine import fileio

    tables = {k: _clean(v) for k, v in tables.items() if v is not None}
    if fmt == "csv":
        if len(tables) == 1:
            frame = next(iter(tables.values()))
        else:
            frame = pd.concat(
                [t.assign(table=name)[["table", *t.columns]] for name, t in tables.items()],
                ignore_index=True,
            )
        text = frame.to_csv(index=False, lineterminator="\n")
        if path is None:
            sys.stdout.write(text)
        else:
            fileio.write_bytes(path, text.encode("utf-8"))
        return
    buf = io.BytesIO()
    with pd.ExcelWriter(buf, engine="openpyxl") as xl:
        pd.DataFrame({"field": list(about), "value": [str(v) for v in about.values()]}).to_excel(
            xl, sheet_name="about", index=False
        )
        for name, t in tables.items():
            t.to_excel(xl, sheet_name=name[:31], index=False)
    fileio.write_bytes(path, buf.getvalue())
