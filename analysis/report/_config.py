"""Settings of the balance report: the budgets' fallback, the skill pairs, the bots and
checks of its inputs; its plans from what each variant declares (its budget and headline
sweeps, :class:`engine.variants.Variant`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine.errors import UsageError
from engine.variants import ReportBudget

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The repository (or installed tree) root: where the git SHA is read from."""


RULES_DIR = "rules"
"""The folder, beside the report's files, that holds the rules reference it links to
(:mod:`engine.runs.rulesdoc`, shipped with the package; one page per variant and format)."""


DEFAULT_SEED = 2026
"""Seed of every run of a report unless told otherwise."""


LEVEL = 0.95
"""Confidence level of every interval in the report."""


ALPHA = 0.05
"""Family-wise error rate of the report: every p-value of the report (fairness tests,
sweep differences, ranking gaps) is Holm-adjusted together, and a finding needs an
adjusted p below it."""


MATCH_LENGTH = 16
"""Deals per match (the engine's default; dealer streaks run across a match)."""


MIN_DEALS = 2 * MATCH_LENGTH
"""Fewest deals a run of the report may have: two matches, the fewest from which a
match-clustered interval (``G - 1`` degrees of freedom) can be computed."""


FILES = ("balance-report.html", "balance-report.md", "balance-report.json")
"""The files :func:`render` writes (plus the figures folder :data:`FIGURES_DIR`)."""


FIGURES_DIR = "balance-report-figures"
"""Folder (beside the Markdown file) of the PNG figures the Markdown links to."""


CONFIRM_TOP = 3
"""Changes confirmed per variant and direction (fairer, less fair): the largest moves of
the dealer edge in SD units. Each costs a run of the report's bots, one of value bots and
a rung of the guard at ``ReportBudget.confirm`` deals."""


AUDIT_DEALS = ReportBudget.audit
"""Deals of the decision audit per variant (it replays deals with the event log on): the
budgets' default (``ReportBudget.audit``)."""


FALLBACK_BUDGET = ReportBudget(
    main=24_000, sweep=8_000, skill=4_800, sensitivity_skill=2_400, whatif_check=8_000,
    confirm=4_000,
)  # fmt: skip
"""The budget of a registered variant that declares none (``Variant.report_budget``)."""


PILOT_DEALS = 3_200
"""Deals of each pilot run that sizes a stage under ``--precision`` (200 matches): the
main run, each headline sweep value and each skill seating, under the report's rules,
bots and seed (:func:`deals_for_precision`)."""

PRECISION_CAP = 20
"""Under ``--precision`` a stage plays at most this many times its declared deals (the
report says where the cap was reached)."""


def deals_for_precision(pilot: int, half: float, target: float) -> int:
    """Deals for an interval of half-width ``target`` where ``pilot`` deals gave ``half``.

    A half-width shrinks as one over the square root of the deals (fixed-precision
    sizing: the pilot's variance, never its estimate, sets the size), rounded up to whole
    matches, never fewer than :data:`MIN_DEALS`.

    >>> deals_for_precision(3200, 0.02, 0.01)
    12800
    >>> deals_for_precision(3200, 0.0005, 0.01)
    32
    """
    need = pilot * (half / target) ** 2 if half > 0 else 0.0
    matches = max(2, -(-int(np.ceil(need)) // MATCH_LENGTH))
    return matches * MATCH_LENGTH


def _check_precision(precision, deals) -> None:
    if precision is None:
        return
    if isinstance(precision, bool) or not isinstance(precision, int | float | np.number):
        raise UsageError(f"--precision must be a number, got {precision!r}")
    if not 0 < precision <= 1:
        raise UsageError(
            f"--precision {precision} must be above 0 and at most 1 (the half-width of each "
            "headline's 95% interval, in SDs of a seat's per-deal result)"
        )
    if deals is not None:
        raise UsageError("give --precision or --deals, not both (--deals fixes N)")


def budget_for(variant: str, deals: int | None = None) -> ReportBudget:
    """Deals per run of each stage for ``variant``.

    Parameters
    ----------
    variant : str
    deals : int, optional
        ``--deals N``: the main run plays ``N`` deals, each sweep value, each skill
        seating and each value of the sensitivity table ``N // 2``, the sensitivity's
        skill runs, the what-if check and the confirmations ``N // 4`` (never fewer than
        :data:`MIN_DEALS`), the audit ``min(N // 4, AUDIT_DEALS)``. Default: the
        budget the variant declares (``Variant.report_budget``; else
        :data:`FALLBACK_BUDGET`).

    Returns
    -------
    ReportBudget
    """
    if deals is None:
        from engine import variants as registry

        declared = registry.get(variant).report_budget if variant in registry.names() else None
        return declared or FALLBACK_BUDGET
    half = min(deals, max(MIN_DEALS, deals // 2))
    quarter = min(deals, max(MIN_DEALS, deals // 4))
    return ReportBudget(
        main=deals, sweep=half, skill=half, sensitivity=half, sensitivity_skill=quarter,
        whatif_check=quarter, confirm=quarter, audit=min(quarter, AUDIT_DEALS),
    )  # fmt: skip


SKILL_PAIRS: tuple[tuple[str, str], ...] = (
    ("value", "efficiency"),
    ("efficiency", "random"),
    ("strong", "value"),
)
"""(strong, weak) policy pairs of the skill-vs-luck comparisons, the ladder's rungs (a
variant plays those whose policies it has); the first is the one the cross-variant panel
quotes (value over efficiency: the rung every variant has and the earlier reports used)."""


SWEEP_METRICS: tuple[str, ...] = (
    "draw_rate",
    "turns",
    "value_per_win",
    "flow",
    "dealer_edge",
    "big_hand_per_win",
)
"""Metrics of :func:`analysis.sweep_metrics` that the report tabulates per sweep
(:data:`analysis.sweep.METRIC_DOCS` defines each in words)."""


SWEEP_FIGURE_METRICS: tuple[str, ...] = SWEEP_METRICS
"""The panels of each sweep figure: every metric tabulated."""


REPORT_POLICY = "strong"
"""The policy of the report's main runs and headline sweeps, where a variant has it
(else ``value``). Every headline is also played with ``value`` bots on the same deals:
the bot-sensitivity table says how much each one depends on the bot."""


def report_policy(variant) -> str:
    """The policy a variant's main runs and headline sweeps play in the report."""
    return REPORT_POLICY if REPORT_POLICY in variant.policies else "value"


BOT_METRICS: tuple[str, ...] = ("dealer_edge", "draw_rate", "flow", "value_per_win")
"""Headlines of the bot-sensitivity table (main run under each bot, paired by deal)."""


POLICY_DOCS = {
    "strong": (
        "plays each discard for expected points: the chance to win from each target's and "
        "the plain hand's distance, ukeire and the live tiles (tables fitted from the "
        "engine's own play) times what each win brings under the variant's scoring, "
        "against a fitted per-opponent danger of feeding a win times what feeding costs; "
        "claims and kongs by the value after them; weights tuned by self-play against "
        "value (each variant's docstring says what it does and does not do)"
    ),
    "value": (
        "discards to minimise the tiles still needed, then to maximise winning draws "
        "(ukeire), weighing the hand's value under the variant's scoring; keeps wild "
        "tiles; claims when a claim brings it closer; declares every legal win"
    ),
    "efficiency": ("the same without the value term: fewest tiles needed, then most winning draws"),
    "random": "a uniformly random legal action (declares every legal win)",
}
"""What each bot policy does (DESIGN: bots good enough to trust)."""


SENSES = (
    ("dealer_edge_sd", "between the dealer and the other seats", "abs", "SD"),
    ("skill_snr", "in rewarding skill", "high", ""),
)
"""Senses of "fair" the summary ranks the variants by: metric of
:func:`analysis.compare_variants`, the sense in words, which end is fairer (``abs``:
closest to 0, ``low``, ``high``) and the unit of a gap (per-deal SDs, none, a share).
The spread between absolute seats is not ranked: seats are interchangeable by
construction, so it is an engine sanity check (the seat tests of each variant).
Swinginess (the top-1% share) stays in the panel but is not ranked: over repeated seeds
its interval covers the truth only 84-87% of the time at 1,600-8,000 deals (rare big
deals make the share converge slowly), below the 95% a ranking needs."""


# ----------------------------------------------------------------------------- inputs
def _check_deals(deals) -> None:
    if deals is None:
        return
    if isinstance(deals, bool) or not isinstance(deals, int | np.integer):
        raise UsageError(f"--deals must be an integer, got {deals!r}")
    if deals < MIN_DEALS:
        raise UsageError(
            f"--deals {deals} is too few: intervals need at least two matches of "
            f"{MATCH_LENGTH} deals (--deals >= {MIN_DEALS})"
        )


def check_out_dir(out_dir) -> Path:
    """Check that ``out_dir`` is (or can be created as) a writable folder.

    Nothing is created (:func:`engine.paths.check_output` probes with a file it
    removes). Raises :class:`~engine.errors.UsageError` naming a bad path (empty, the
    root folder, too long, a missing parent, not a folder), ``OSError`` naming a folder
    that cannot be written.

    Returns
    -------
    Path
    """
    from engine import paths

    return paths.check_output(out_dir, "--out", folder=True)


# ----------------------------------------------------------------------------- plans
def default_budgets() -> dict[str, ReportBudget]:
    """The budget each listed variant declares (``Variant.report_budget``), by name."""
    from engine import variants as registry

    out = {}
    for n in registry.listed():
        b = registry.get(n).report_budget
        if b is not None:
            out[n] = b
    return out


def plan_sweeps(names: Sequence[str], sweeps=None) -> tuple[list[dict], list[dict]]:
    """The headline sweeps to run and those skipped (with the reason).

    Parameters
    ----------
    names : sequence of str
        Variants of the report, in order.
    sweeps : mapping, optional
        ``name -> tuple of HeadlineSweep``; default each variant's declaration
        (``Variant.headline_sweeps``).

    Returns
    -------
    plans, skipped : list of dict
        ``{"variant", "option", "title", "values"}`` per sweep (the option's default
        first unless the declared values hold it), ``{"variant", "what", "reason"}`` per
        sweep skipped.
    """
    from engine import variants as registry

    plans, skipped = [], []
    for name in names:
        v = registry.get(name)
        for spec in v.headline_sweeps if sweeps is None else sweeps.get(name, ()):
            plan, why = _plan_sweep(v, spec)
            if plan is None:
                skipped.append({"variant": name, "what": f"{spec.title} sweep", "reason": why})
            else:
                plans.append(plan)
    return plans, skipped


def _plan_sweep(v, spec) -> tuple[dict | None, str]:
    """One declared sweep's plan, or None and why it cannot be played."""
    key = next((k for k in spec.keys if k in v.option_map), None)
    if key is None:
        return None, f"{v.name} has no option {' / '.join(spec.keys)}"
    opt = v.option_map[key]
    values = []
    for raw in opt.allowed if spec.values is None else spec.values:
        try:
            val = opt.parse(raw)
        except UsageError:
            continue
        if val not in values:
            values.append(val)
    if opt.default not in values:
        values.insert(0, opt.default)
    if len(values) < 2:
        return None, f"option {key} allows fewer than two of the values to sweep"
    return {"variant": v.name, "option": key, "title": spec.title, "values": values}, ""


def _skill_pairs(variant) -> list[tuple[str, str]]:
    return [p for p in SKILL_PAIRS if p[0] in variant.policies and p[1] in variant.policies]


class _Bar:
    """A tqdm bar per stage, or nothing."""

    def __init__(self, enabled: bool, total: int, desc: str, unit: str = "deal"):
        self.bar = None
        if enabled and total > 0:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit=unit, unit_scale=True)

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def set_postfix_str(self, s: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(s, refresh=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


_EXPECTED = ("fuzhou", "lishui", "luodisao", "tuidaohu", "zhuji")
"""The five variants of DESIGN.md; the report notes the ones not registered yet."""
