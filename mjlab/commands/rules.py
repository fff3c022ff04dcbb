"""``mjlab rules [VARIANT...] [--out DIR] [--format html|md]``: the rules reference.

Without ``--out`` one variant's page is printed (Markdown by default); with ``--out`` the
pages of the named variants (default: every listed variant) and their index are written
to DIR (:func:`engine.runs.rulesdoc.write`).
"""

from __future__ import annotations

from engine.errors import UsageError

__all__ = ["run_rules"]


def run_rules(args) -> int:
    """Handle ``mjlab rules``."""
    from engine import fileio
    from engine.runs import rulesdoc
    from engine.variants import get

    names = [get(n).name for n in args.variants]  # UsageError naming an unknown variant
    fmt = args.format
    if args.out is None:
        if len(names) != 1:
            raise UsageError("rules: name one VARIANT to print, or give --out DIR for several")
        print(rulesdoc.page(names[0], fmt or "md"), end="")
        return 0
    from pathlib import Path

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a folder")
    fileio.check_writable(out, "--out")
    paths = rulesdoc.write(out, names or None, fmt or "html")
    if not args.quiet:
        print(f"wrote {len(paths) - 1} rules pages and {paths[-1]}")
    return 0
