"""Settings of the balance report: budgets, the headline sweeps, the skill pairs, the bots
and checks of its inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.errors import UsageError

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


@dataclass(frozen=True)
class Budget:
    """Deals per run in each stage of one variant's part of the report.

    Attributes
    ----------
    main : int
        The main run: default rules, the report's bots in every seat (and the same deals
        with ``value`` bots, for the bot-sensitivity table and as the sensitivity
        table's base).
    sweep : int
        Each value of a headline sweep (the default value reuses the first ``sweep``
        deals of the main run: same seed, same rules, so the same records).
    skill : int
        Each seating of a skill comparison (strong policy in one seat, one run per
        seat).
    sensitivity : int
        Each value of every rule option in the sensitivity table (the defaults reuse the
        first ``sensitivity`` deals of the main run; a value a headline sweep played
        with at least as many deals reuses that run's first deals).
    sensitivity_skill : int
        Each place of the sensitivity table's skill runs (value over efficiency, one run
        per place from the dealer for every option value; the defaults reuse the skill
        section's value-over-efficiency runs). 0 leaves the skill edge out of the table.
    whatif_check : int
        The what-if section's one re-simulation: the payout change that moves the
        dealer edge most, played on this many deals (the main run's first deals,
        re-scored, are its pair). 0 leaves the check out.
    confirm : int
        The confirmation of the recommendations (:mod:`analysis.recommend`): the defaults
        and each change whose dealer edge in SD units is resolved (the
        :data:`CONFIRM_TOP` largest each way) played again by the report's bots on a
        fresh seed, this many deals each; the bot guard (:mod:`analysis.guard`) checks
        those settings on the same deals. 0 confirms nothing, and recommends nothing.
    audit : int
        Deals of the decision audit of the report's bots (``mjlab audit``) in the
        methods section. 0 leaves it out.
    """

    main: int
    sweep: int
    skill: int
    sensitivity: int = 0
    sensitivity_skill: int = 0
    whatif_check: int = 0
    confirm: int = 0
    audit: int = 0


CONFIRM_TOP = 3
"""Changes confirmed per variant and direction (fairer, less fair): the largest moves of
the dealer edge in SD units. Each costs a run of the report's bots, one of value bots and
a rung of the guard at ``Budget.confirm`` deals."""


DEFAULT_BUDGETS: dict[str, Budget] = {
    "fuzhou": Budget(
        main=96_000,
        sweep=48_000,
        skill=19_200,
        sensitivity=16_000,
        sensitivity_skill=4_000,
        whatif_check=16_000,
        confirm=8_000,
        audit=200,
    ),
    "lishui": Budget(
        main=80_000,
        sweep=32_000,
        skill=12_800,
        sensitivity=16_000,
        sensitivity_skill=4_000,
        whatif_check=16_000,
        confirm=8_000,
        audit=200,
    ),
    "luodisao": Budget(
        main=80_000,
        sweep=32_000,
        skill=16_000,
        sensitivity=16_000,
        sensitivity_skill=4_000,
        whatif_check=16_000,
        confirm=8_000,
        audit=200,
    ),
    "tuidaohu": Budget(
        main=48_000,
        sweep=12_800,
        skill=9_600,
        sensitivity=16_000,
        sensitivity_skill=4_000,
        whatif_check=16_000,
        confirm=8_000,
        audit=200,
    ),
    "zhuji": Budget(
        main=48_000,
        sweep=19_200,
        skill=6_400,
        sensitivity=16_000,
        sensitivity_skill=3_200,
        whatif_check=16_000,
        confirm=8_000,
        audit=200,
    ),
}
"""Embedded defaults of ``mjlab report`` (no ``--deals``), set from the CPU time each stage
measured (1 Dec 2026, 2 cores, numba's cache warm; the main runs and the headline sweeps
play ``strong`` bots, the sensitivity table ``value`` bots). At the budgets before these
(half the main, sweep and skill deals and two thirds of the sensitivity deals) the report
took 223 s of CPU: main runs 58, sweeps 27, skill runs 17, sensitivity table 119 (of which
the skill edge, value over efficiency by place from the dealer at 3,200-4,000 deals per
place, about half), analysis 1.4. These budgets double the main, sweep and skill deals
and raise the sensitivity deals by half, about 390 s of CPU, so that with the first run's
compilation the whole report stays under 10 minutes on 2 cores from an empty cache.
Measured at these budgets (1 Dec 2026, `mjlab report` with an empty MJLAB_CACHE_DIR, 2
cores, otherwise idle): 4 min 42 s of wall time and 434 s of CPU, compilation included;
the stages took 422 s of CPU (main 166, sweeps 59, skill 37, sensitivity 158, analysis
2.5).

Issue 22's payout options (ranges up to 0..240) made the sensitivity plan 3,752 runs and
the report about an hour; a wide range is now swept at its low end and twice the default
(:func:`analysis.sensitivity.swept_values`, 240 runs) at 16,000 deals a value. Measured (2
Dec 2026, `mjlab report`, 2 cores shared with a CI run): 13 min 39 s of wall time, 941 s of
CPU: main 196, sweeps 60, skill 78, sensitivity 574, what-if 19, analysis 2.

The issue's "about 5x the deals" predates the strong bots, which play at a quarter to a
third of value's speed: at 5x, the main runs alone would take about 5 minutes of CPU."""


AUDIT_DEALS = 200
"""Deals of the decision audit per variant (it replays deals with the event log on)."""


FALLBACK_BUDGET = Budget(
    main=24_000, sweep=8_000, skill=4_800, sensitivity=8_000, sensitivity_skill=2_400,
    whatif_check=8_000, confirm=4_000, audit=200,
)  # fmt: skip
"""Defaults of a registered variant that :data:`DEFAULT_BUDGETS` does not list."""


def budget_for(variant: str, deals: int | None = None) -> Budget:
    """Deals per run of each stage for ``variant``.

    Parameters
    ----------
    variant : str
    deals : int, optional
        ``--deals N``: the main run plays ``N`` deals, each sweep value, each skill
        seating and each value of the sensitivity table ``N // 2``, the sensitivity's
        skill runs, the what-if check and the confirmations ``N // 4`` (never fewer than
        :data:`MIN_DEALS`), the audit ``min(N // 4, AUDIT_DEALS)``. Default: the
        variant's entry of :data:`DEFAULT_BUDGETS` (else :data:`FALLBACK_BUDGET`).

    Returns
    -------
    Budget
    """
    if deals is None:
        return DEFAULT_BUDGETS.get(variant, FALLBACK_BUDGET)
    half = min(deals, max(MIN_DEALS, deals // 2))
    quarter = min(deals, max(MIN_DEALS, deals // 4))
    return Budget(
        main=deals, sweep=half, skill=half, sensitivity=half, sensitivity_skill=quarter,
        whatif_check=quarter, confirm=quarter, audit=min(quarter, AUDIT_DEALS),
    )  # fmt: skip


@dataclass(frozen=True)
class SweepSpec:
    """A headline sweep, declared as data.

    Attributes
    ----------
    variant : str
        Variant name.
    keys : tuple of str
        Candidate option keys, the first one the variant has is swept.
    title : str
        What is swept, for the reader.
    values : tuple of str, optional
        Values to play (parsed by the option; values it does not allow are left out);
        default every allowed value. The option's default is always included: it is the
        baseline of the paired differences.
    """

    variant: str
    keys: tuple[str, ...]
    title: str
    values: tuple[str, ...] | None = None


HEADLINE_SWEEPS: tuple[SweepSpec, ...] = (
    SweepSpec("lishui", ("caishen",), "财神 (wildcard) count"),
    SweepSpec("zhuji", ("caishen",), "财神 (wildcard) count"),
    SweepSpec("fuzhou", ("jin", "golds"), "金 (gold wildcard) count"),
    SweepSpec("tuidaohu", ("ghost",), "鬼 (ghost wildcard) option"),
    SweepSpec("tuidaohu", ("horses",), "买马 horse count", ("0", "1", "2", "3", "4")),
    SweepSpec("luodisao", ("kings", "wang", "jokers"), "王 (joker) count"),
)
"""The sweeps of the report (RULEBOOK §0 rule 2: every wildcard count is sweepable)."""


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
def _resolve_variants(variants) -> list[str]:
    from engine import variants as registry

    if variants is None:
        names = registry.listed()
    else:
        if isinstance(variants, str):
            variants = variants.split(",")
        names = []
        for raw in variants:
            name = str(raw).strip()
            if not name:
                continue
            registry.get(name)  # UsageError naming the known variants
            if name not in names:
                names.append(name)
    if not names:
        raise UsageError("--variants: name at least one variant (see `mjlab variants`)")
    return names


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
def _plan_sweeps(names: Sequence[str], all_variants: bool) -> tuple[list[dict], list[dict]]:
    """Sweeps to run and sweeps skipped (with the reason), from :data:`HEADLINE_SWEEPS`."""
    from engine import variants as registry

    registered = set(registry.names())
    plans, skipped = [], []
    for spec in HEADLINE_SWEEPS:
        if spec.variant not in names:
            if all_variants and spec.variant not in registered:
                skipped.append(
                    {
                        "variant": spec.variant,
                        "what": f"{spec.title} sweep",
                        "reason": f"variant {spec.variant} is not registered in this build",
                    }
                )
            continue
        v = registry.get(spec.variant)
        key = next((k for k in spec.keys if k in v.option_map), None)
        if key is None:
            skipped.append(
                {
                    "variant": spec.variant,
                    "what": f"{spec.title} sweep",
                    "reason": f"{spec.variant} has no option {' / '.join(spec.keys)}",
                }
            )
            continue
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
            skipped.append(
                {
                    "variant": spec.variant,
                    "what": f"{spec.title} sweep",
                    "reason": f"option {key} allows fewer than two of the values to sweep",
                }
            )
            continue
        plans.append(
            {"variant": spec.variant, "option": key, "title": spec.title, "values": values}
        )
    return plans, skipped


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
