"""``mjlab report``: the balance report (:mod:`analysis.report` builds and renders it)."""

from __future__ import annotations

import time

from engine.errors import UsageError

__all__ = ["run_report"]


def run_report(args) -> int:
    """Handle ``mjlab report [--variants a,b] [--deals N | --precision SD] [--seed S]
    [--out DIR]``.

    Every input is checked before anything is simulated or written: an unknown
    variant, too few deals or an unwritable folder exit 2 with one line.
    """
    from analysis.report import FIGURES_DIR, build_report, check_out_dir, render
    from analysis.report._config import _check_deals, _check_precision
    from engine import variants as registry

    names = registry.chosen(args.variants)
    _check_deals(args.deals)
    _check_precision(args.precision, args.deals)
    from engine.runs.run import MAX_SEED, MAX_WORKERS, check_memory

    if not 0 <= args.seed <= MAX_SEED:
        raise UsageError(f"--seed must be 0..{MAX_SEED}, got {args.seed}")
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise UsageError(f"--workers must be 1..{MAX_WORKERS}, got {args.workers}")
    if args.deals is not None:
        check_memory(
            args.deals, "give fewer --deals (the report holds each run in memory)", copies=2
        )
    out = check_out_dir(args.out)
    from engine import fileio

    t0 = time.perf_counter()
    with fileio.new_folder(out), fileio.OutputLock(out, f"report --seed {args.seed}"):
        ctx = build_report(
            variants=None if args.variants is None else names,
            deals=args.deals,
            seed=args.seed,
            workers=args.workers,
            progress=not args.quiet,
            precision=args.precision,
        )
        with fileio.staged_folder(out) as stage:  # a full disk leaves no partial report
            staged = render(ctx, stage, progress=not args.quiet)
        paths = _moved(staged, stage, out)
        keep = {p.name for p in paths["figures"]}
        for old in (out / FIGURES_DIR).glob("*.png"):  # figures of an earlier report
            if old.name not in keep:
                old.unlink()
    if not args.quiet:
        took = time.perf_counter() - t0
        print(
            f"wrote {paths['html']}, {paths['md']} ({len(paths['figures'])} figures in "
            f"{out / FIGURES_DIR}) and {paths['json']} in {took:.0f} s"
        )
    return 0


def _moved(paths: dict, stage, out) -> dict:
    """``render``'s paths, written in ``stage``, as they are once moved into ``out``."""

    def move(p):
        return out / p.relative_to(stage)

    return {k: [move(p) for p in v] if isinstance(v, list) else move(v) for k, v in paths.items()}
