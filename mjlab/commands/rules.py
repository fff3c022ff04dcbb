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
    from engine import fileio, paths
    from engine.runs import rulesdoc
    from engine.variants import get

    names = [get(n).name for n in args.variants]  # UsageError naming an unknown variant
    fmt = args.format
    if args.out is None:
        if len(names) != 1:
            raise UsageError("rules: name one VARIANT to print, or give --out DIR for several")
        print(rulesdoc.page(names[0], fmt or "md"), end="")
        return 0
    out = paths.check_output(args.out, "--out", folder=True)
    with fileio.staged_folder(out) as stage:  # a full disk leaves no partial reference
        staged = rulesdoc.write(stage, names or None, fmt or "html")
    paths = [out / p.relative_to(stage) for p in staged]
    if not args.quiet:
        print(f"wrote {len(paths) - 1} rules pages and {paths[-1]}")
    return 0
