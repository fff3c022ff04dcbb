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
declared on each variant (``Variant.headline_sweeps``, the option keys looked up on it;
:func:`plan_sweeps`), as are its budget (``Variant.report_budget``) and the amounts its
match risk prices (``Variant.stated_amounts``), and a sweep whose option the variant does
not have is skipped with a note in the report. All runs of a report share one seed, so
the walls of deal ``(match, deal)`` are the same in the main run, in every sweep value
(common random numbers) and in every seating of the skill comparisons (duplicate format).

The package keeps its settings (:mod:`analysis.report._config`: the fallback budget, the
plans, bots), its numbers (:mod:`analysis.report.data`: the runs and the context), its words
(:mod:`analysis.report.text`: rankings, methods, caveats) and its rendering
(:mod:`analysis.report.render`: figures, templates, files) apart; this module holds
the public names (the command, ``mjlab report``, is :mod:`mjlab.commands.report`).

Examples
--------
>>> from analysis import report
>>> report.budget_for("tuidaohu", 64)  # doctest: +NORMALIZE_WHITESPACE
ReportBudget(main=64, sweep=32, skill=32, sensitivity=32, sensitivity_skill=32, whatif_check=32,
       confirm=32, audit=32)
"""

from __future__ import annotations

from analysis.report._config import (
    ALPHA,
    BOT_METRICS,
    DEFAULT_SEED,
    FALLBACK_BUDGET,
    FIGURES_DIR,
    FILES,
    LEVEL,
    MATCH_LENGTH,
    MIN_DEALS,
    PILOT_DEALS,
    POLICY_DOCS,
    PRECISION_CAP,
    REPORT_POLICY,
    RULES_DIR,
    SENSES,
    SKILL_PAIRS,
    SWEEP_METRICS,
    ReportBudget,
    budget_for,
    check_out_dir,
    deals_for_precision,
    default_budgets,
    plan_sweeps,
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

__all__ = [
    "ReportBudget",
    "DEFAULT_SEED",
    "default_budgets",
    "FALLBACK_BUDGET",
    "plan_sweeps",
    "SKILL_PAIRS",
    "SWEEP_METRICS",
    "MIN_DEALS",
    "LEVEL",
    "FILES",
    "RULES_DIR",
    "budget_for",
    "deals_for_precision",
    "PILOT_DEALS",
    "PRECISION_CAP",
    "build_report",
    "render",
    "check_out_dir",
]

# names the tests and notebooks reach through the package (settings and internals)
_REEXPORTED = (
    ALPHA, BOT_METRICS, FIGURE_CACHE, FIGURES_DIR, MATCH_LENGTH, POLICY_DOCS, REPORT_POLICY,
    SENSES, _FIGURE_MAGIC, _FigureCache, _n_figures, _rank, report_policy,
)  # fmt: skip
