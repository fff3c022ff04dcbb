"""The balance report: ``mjlab report`` writes HTML, Markdown and JSON.

:func:`build_report` plays every requested variant with its default rules and the
report's bots (:data:`REPORT_POLICY`, ``strong`` where the variant has it), runs the
headline rule sweeps, the skill-vs-luck comparisons and the rule
sensitivity table (:mod:`analysis.sensitivity`), prices the match risk
(:mod:`analysis.risk`), and returns the
*context*: a JSON-able dict holding every number the report shows (and the data of
every figure). :func:`render` turns a context into three files, each written to a
temporary name and renamed when complete:

- ``balance-report.html``: self-contained (inline CSS, figures inline as base64 PNG, no
  script, nothing fetched from the network);
- ``balance-report.md`` with its figures as PNG files in ``balance-report-figures/``;
- ``balance-report.json``: the context itself.

Everything is generic over :func:`engine.variants.names`: the headline sweeps are
declared as data (:data:`HEADLINE_SWEEPS`, the option keys looked up on each variant),
and a sweep whose variant or option is not registered is skipped with a note in the
report. All runs of a report share one seed, so the walls of deal ``(match, deal)``
are the same in the main run, in every sweep value (common random numbers) and in every
seating of the skill comparisons (duplicate format).

The package keeps its settings (:mod:`analysis.report._config`: budgets, headline sweeps,
bots), its numbers (:mod:`analysis.report.data`: the runs and the context), its words
(:mod:`analysis.report.text`: rankings, methods, caveats) and its rendering
(:mod:`analysis.report.render`: figures, templates, files) apart; this module is the
command and the public names.

Examples
--------
>>> from analysis import report
>>> report.budget_for("tuidaohu", 64)
Budget(main=64, sweep=32, skill=32, sensitivity=32, sensitivity_skill=32, whatif_check=32)
"""

from __future__ import annotations

import time

from analysis.report._config import (
    ALPHA,
    BOT_METRICS,
    DEFAULT_BUDGETS,
    DEFAULT_SEED,
    FALLBACK_BUDGET,
    FIGURES_DIR,
    FILES,
    HEADLINE_SWEEPS,
    LEVEL,
    MATCH_LENGTH,
    MIN_DEALS,
    POLICY_DOCS,
    REPORT_POLICY,
    SENSES,
    SKILL_PAIRS,
    SWEEP_METRICS,
    Budget,
    SweepSpec,
    _check_deals,
    _plan_sweeps,
    _resolve_variants,
    budget_for,
    check_out_dir,
    report_policy,
)
from analysis.report.data import build_report
from analysis.report.render import (
    _FIGURE_MAGIC,
    FIGURE_CACHE,
    _FigureCache,
    _n_figures,
    render,
)
from analysis.report.text import _rank
from engine.errors import UsageError

__all__ = [
    "Budget",
    "SweepSpec",
    "DEFAULT_SEED",
    "DEFAULT_BUDGETS",
    "FALLBACK_BUDGET",
    "HEADLINE_SWEEPS",
    "SKILL_PAIRS",
    "SWEEP_METRICS",
    "MIN_DEALS",
    "LEVEL",
    "FILES",
    "budget_for",
    "build_report",
    "render",
    "check_out_dir",
    "run_cli",
]

# names the tests and notebooks reach through the package (settings and internals)
_REEXPORTED = (
    ALPHA, BOT_METRICS, FIGURE_CACHE, FIGURES_DIR, MATCH_LENGTH, POLICY_DOCS, REPORT_POLICY,
    SENSES, _FIGURE_MAGIC, _FigureCache, _n_figures, _plan_sweeps, _rank, report_policy,
)  # fmt: skip


def run_cli(args) -> int:
    """Handle ``mjlab report [--variants a,b] [--deals N] [--seed S] [--out DIR]``.

    Every input is checked before anything is simulated or written: an unknown
    variant, too few deals or an unwritable folder exit 2 with one line.
    """
    names = _resolve_variants(args.variants)
    _check_deals(args.deals)
    from engine.run import MAX_SEED, MAX_WORKERS, check_memory

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
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        with fileio.OutputLock(out, f"report --seed {args.seed}"):
            ctx = build_report(
                variants=None if args.variants is None else names,
                deals=args.deals,
                seed=args.seed,
                workers=args.workers,
                progress=not args.quiet,
            )
            paths = render(ctx, out, progress=not args.quiet)
    except BaseException:
        if created:
            try:
                out.rmdir()
            except OSError:
                pass
        raise
    if not args.quiet:
        took = time.perf_counter() - t0
        print(
            f"wrote {paths['html']}, {paths['md']} ({len(paths['figures'])} figures in "
            f"{out / FIGURES_DIR}) and {paths['json']} in {took:.0f} s"
        )
    return 0
