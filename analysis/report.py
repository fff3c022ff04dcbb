"""The balance report: ``mjlab report`` writes HTML, Markdown and JSON.

:func:`build_report` plays every requested variant with its default rules and ``value``
bots, runs the headline rule sweeps and the skill-vs-luck comparisons, and returns the
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

Examples
--------
>>> from analysis import report
>>> report.budget_for("tuidaohu", 64)
Budget(main=64, sweep=32, skill=32)
"""

from __future__ import annotations

import base64
import functools
import io
import json
import math
import os
import platform
import re
import subprocess
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from analysis._util import ROLE_PROSE, jsonable
from analysis.compare import METRICS, compare_variants
from analysis.fairness import fairness_tests
from analysis.frequencies import (
    pattern_frequencies,
    seat_frequencies,
    win_type_frequencies,
)
from analysis.payouts import (
    delta_histogram,
    payouts_by_role,
    payouts_by_seat,
    payouts_by_win_type,
    swinginess,
)
from analysis.skill import skill_edge
from analysis.stats import format_pm
from analysis.summary import Summary
from analysis.sweep import sweep_table
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

REPO_ROOT = Path(__file__).resolve().parents[1]
"""The repository (or installed tree) root: where the git SHA is read from."""

RULEBOOK_PATH = "../shared/rules/RULEBOOK.md"
"""The RULEBOOK, relative to :data:`REPO_ROOT` (the README's ``Rules:`` line)."""

DEFAULT_SEED = 2026
"""Seed of every run of a report unless told otherwise."""

LEVEL = 0.95
"""Confidence level of every interval in the report."""

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
        The main run: default rules, ``value`` bots in every seat.
    sweep : int
        Each value of a headline sweep (the default value reuses the first ``sweep``
        deals of the main run: same seed, same rules, so the same records).
    skill : int
        Each seating of a skill comparison (strong policy in one seat, one run per
        seat).
    """

    main: int
    sweep: int
    skill: int


DEFAULT_BUDGETS: dict[str, Budget] = {
    "fuzhou": Budget(main=48_000, sweep=24_000, skill=9_600),
    "lishui": Budget(main=40_000, sweep=16_000, skill=6_400),
    "luodisao": Budget(main=40_000, sweep=16_000, skill=8_000),
    "tuidaohu": Budget(main=24_000, sweep=6_400, skill=4_800),
    "zhuji": Budget(main=24_000, sweep=9_600, skill=3_200),
}
"""Embedded defaults of ``mjlab report`` (no ``--deals``), from each variant's measured
speed with two threads (value bots: zhuji ~0.8-3k deals/s, tuidaohu ~1-1.6k, lishui
~2.5k, fuzhou ~2.5k, luodisao ~3k on this 2-core machine, shared), so that the report of
all five variants (630,400 deals) finishes within 10 minutes: 4 min 54 s measured with
the machine loaded by other jobs (load average ~6) and numba's cache warm; after the bots'
speed-up, 5 min 3 s from an empty cache, compilation included (30 Nov 2026)."""

FALLBACK_BUDGET = Budget(main=24_000, sweep=8_000, skill=4_800)
"""Defaults of a registered variant that :data:`DEFAULT_BUDGETS` does not list."""


def budget_for(variant: str, deals: int | None = None) -> Budget:
    """Deals per run of each stage for ``variant``.

    Parameters
    ----------
    variant : str
    deals : int, optional
        ``--deals N``: the main run plays ``N`` deals, each sweep value ``N // 2`` and
        each skill seating ``N // 2`` (never fewer than :data:`MIN_DEALS`). Default: the
        variant's entry of :data:`DEFAULT_BUDGETS` (else :data:`FALLBACK_BUDGET`).

    Returns
    -------
    Budget
    """
    if deals is None:
        return DEFAULT_BUDGETS.get(variant, FALLBACK_BUDGET)
    half = max(MIN_DEALS, deals // 2)
    return Budget(main=deals, sweep=min(deals, half), skill=min(deals, half))


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

SKILL_PAIRS: tuple[tuple[str, str], ...] = (("value", "efficiency"), ("efficiency", "random"))
"""(strong, weak) policy pairs of the skill-vs-luck comparisons; the first is the one the
cross-variant panel quotes."""

SWEEP_METRICS: tuple[str, ...] = (
    "draw_rate",
    "turns",
    "value_per_win",
    "flow",
    "dealer_delta",
    "big_hand_per_win",
)
"""Metrics of :func:`analysis.sweep_metrics` that the report tabulates per sweep."""

SWEEP_FIGURE_METRICS: tuple[str, ...] = ("draw_rate", "value_per_win", "dealer_delta", "flow")
"""The four panels of each sweep figure."""

POLICY_DOCS = {
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
    ("seat_spread_sd", "between the absolute seats", "low", "SD"),
    ("skill_snr", "in rewarding skill", "high", ""),
    ("swinginess", "in how evenly the points move", "low", "share"),
)
"""Senses of "fair" the summary ranks the variants by: metric of
:func:`analysis.compare_variants`, the sense in words, which end is fairer (``abs``:
closest to 0, ``low``, ``high``) and the unit of a gap (per-deal SDs, none, a share)."""


# ----------------------------------------------------------------------------- inputs
def _resolve_variants(variants) -> list[str]:
    from engine import variants as registry

    if variants is None:
        names = registry.names()
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

    Nothing is created (engine.fileio.check_writable probes with a file it removes).
    Raises :class:`~engine.errors.UsageError` naming the problem.

    Returns
    -------
    Path
    """
    from engine import fileio

    fileio.check_writable(out_dir, "--out")
    return Path(out_dir)


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


# ----------------------------------------------------------------------------- build
def build_report(
    variants: Sequence[str] | str | None = None,
    deals: int | None = None,
    seed: int = DEFAULT_SEED,
    workers: int | None = None,
    progress: bool = True,
) -> dict:
    """Simulate, analyse and collect every number of the balance report.

    Parameters
    ----------
    variants : sequence of str or str, optional
        Variant names (or ``"a,b"``); default every registered variant.
    deals : int, optional
        Deals of each main run (see :func:`budget_for`); default the per-variant
        :data:`DEFAULT_BUDGETS`. At least :data:`MIN_DEALS`.
    seed : int
        The seed of every run.
    workers : int, optional
        Threads per run (default: all cores).
    progress : bool
        Show a tqdm progress bar per stage (on stderr).

    Returns
    -------
    dict
        The context: JSON-able (plain dicts, lists, numbers and strings, NaN as None);
        its tables are the analysis layer's tidy frames as lists of row dicts. Keys
        ``title, generated, settings, summary, panel, variants, skipped, methods,
        caveats, rulebook``.

    Raises
    ------
    UsageError
        Unknown variant, ``deals`` below :data:`MIN_DEALS`, negative seed, ``workers <
        1``.
    """
    from engine import __version__
    from engine import variants as registry
    from engine.run import simulate

    t_start = time.perf_counter()
    all_variants = variants is None
    names = _resolve_variants(variants)
    _check_deals(deals)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise UsageError(f"--seed must be an integer >= 0, got {seed!r}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be >= 1, got {workers}")
    seed = int(seed)
    budgets = {n: budget_for(n, deals) for n in names}
    plans, skipped = _plan_sweeps(names, all_variants)
    if all_variants:
        for missing in sorted(set(_EXPECTED) - set(registry.names())):
            skipped.insert(
                0,
                {
                    "variant": missing,
                    "what": "every section",
                    "reason": f"variant {missing} is not registered in this build",
                },
            )
    vobj = {n: registry.get(n) for n in names}
    timing: dict[str, float] = {}

    def run(name, n, rules=None, policies="value"):
        r = simulate(
            name,
            n,
            seed=seed,
            rules=rules,
            policies=policies,
            match_length=MATCH_LENGTH,
            workers=workers,
            progress=False,
        )
        return r

    # 1. main runs
    t0 = time.perf_counter()
    bar = _Bar(progress, sum(b.main for b in budgets.values()), "1/4 main runs")
    main: dict[str, pd.DataFrame] = {}
    runs_meta: dict[str, dict] = {}
    try:
        for n in names:
            bar.set_postfix_str(n)
            r = run(n, budgets[n].main)
            main[n] = r.to_pandas()
            runs_meta[n] = {"rules": r.rules, "rules_id": r.rules_id, "policies": r.policies}
            bar.update(budgets[n].main)
    finally:
        bar.close()
    timing["main"] = time.perf_counter() - t0

    # 2. sweeps (common random numbers: the same seed under every value)
    t0 = time.perf_counter()
    total = sum(budgets[p["variant"]].sweep * (len(p["values"]) - 1) for p in plans)
    bar = _Bar(progress, total, "2/4 sweeps")
    sweeps: dict[str, list[dict]] = {n: [] for n in names}
    try:
        for p in plans:
            name, key = p["variant"], p["option"]
            v = vobj[name]
            b = budgets[name]
            default = v.option_map[key].default
            frames = {}
            rules_ids = {}
            for val in p["values"]:
                bar.set_postfix_str(f"{name} {key}={val}")
                if val == default:
                    frames[val] = main[name].iloc[: b.sweep].reset_index(drop=True)
                    rules_ids[val] = runs_meta[name]["rules_id"]
                    continue
                r = run(name, b.sweep, rules={key: val})
                frames[val] = r.to_pandas()
                rules_ids[val] = r.rules_id
                bar.update(b.sweep)
            big = [pp.name for pp in v.patterns if pp.big]
            metrics = [m for m in SWEEP_METRICS if m != "big_hand_per_win" or big]
            table = sweep_table(
                frames, option=key, default=default, metrics=metrics, big=big or None, level=LEVEL
            )
            sweeps[name].append(
                {
                    "option": key,
                    "title": p["title"],
                    "values": p["values"],
                    "default": default,
                    "deals": b.sweep,
                    "rules_ids": [{"value": k, "rules_id": i} for k, i in rules_ids.items()],
                    "doc": v.option_map[key].doc,
                    "rulebook": v.option_map[key].rulebook,
                    "table": jsonable(table),
                }
            )
    finally:
        bar.close()
    timing["sweeps"] = time.perf_counter() - t0

    # 3. skill vs luck, duplicate seating: the strong policy in each seat in turn
    t0 = time.perf_counter()
    total = 0
    for n in names:
        seats = vobj[n].n_players(runs_meta[n]["rules"])
        total += budgets[n].skill * seats * len(_skill_pairs(vobj[n]))
    bar = _Bar(progress, total, "3/4 skill vs luck")
    skill: dict[str, list[dict]] = {n: [] for n in names}
    try:
        for n in names:
            v = vobj[n]
            seats = v.n_players(runs_meta[n]["rules"])
            for strong, weak in _skill_pairs(v):
                frames = {}
                for s in range(seats):
                    bar.set_postfix_str(f"{n} {strong} vs {weak}, seat {s}")
                    pol = [weak] * seats
                    pol[s] = strong
                    frames[s] = run(n, budgets[n].skill, policies=pol).to_pandas()
                    bar.update(budgets[n].skill)
                table = skill_edge(frames, level=LEVEL).set_index("format", drop=False)
                gain = None
                if "duplicate" in table.index:
                    se1, se2 = table.loc["single", "se"], table.loc["duplicate", "se"]
                    gain = float(se1 / se2) if se2 > 0 else None
                skill[n].append(
                    {
                        "strong": strong,
                        "weak": weak,
                        "seatings": seats,
                        "deals_per_seating": budgets[n].skill,
                        "duplicate_gain": gain,
                        "table": jsonable(table.reset_index(drop=True)),
                    }
                )
    finally:
        bar.close()
    timing["skill"] = time.perf_counter() - t0

    # 4. analysis of the main runs and the cross-variant panel
    t0 = time.perf_counter()
    bar = _Bar(progress, len(names), "4/4 analysis", unit="variant")
    sections = {}
    try:
        for n in names:
            bar.set_postfix_str(n)
            sections[n] = _variant_section(
                vobj[n], main[n], runs_meta[n], budgets[n], sweeps[n], skill[n]
            )
            bar.update(1)
        panel = compare_variants(
            {n: main[n] for n in names},
            big={n: [p.name for p in vobj[n].patterns if p.big] for n in names},
            skill={n: pd.DataFrame(skill[n][0]["table"]) for n in names if skill[n]},
            level=LEVEL,
        )
    finally:
        bar.close()
    timing["analysis"] = time.perf_counter() - t0
    panel_rows = jsonable(panel)
    summary = _summary(panel_rows, {n: vobj[n].long_name for n in names})
    timing["total"] = time.perf_counter() - t_start

    rulebook = _rulebook_info()
    ctx = {
        "title": "mjlab balance report",
        "generated": {
            "utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "package_version": __version__,
            "git_sha": _git_sha(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "pandas": pd.__version__,
            "numba": _numba_version(),
            "platform": platform.platform(terse=True),
            "cpus": os.cpu_count(),
            "seconds": {k: round(v, 1) for k, v in timing.items()},
        },
        "settings": {
            "variants": names,
            "seed": seed,
            "deals_option": deals,
            "budgets": {n: asdict(budgets[n]) for n in names},
            "default_budgets": {n: asdict(b) for n, b in DEFAULT_BUDGETS.items()},
            "fallback_budget": asdict(FALLBACK_BUDGET),
            "match_length": MATCH_LENGTH,
            "min_deals": MIN_DEALS,
            "workers": workers,
            "level": LEVEL,
            "policy": "value",
            "skill_pairs": [list(p) for p in SKILL_PAIRS],
        },
        "summary": summary,
        "panel": panel_rows,
        "panel_metrics": [{"metric": k, "unit": u} for k, u in METRICS.items()],
        "variants": sections,
        "skipped": skipped,
        "methods": _methods(),
        "caveats": _caveats(rulebook),
        "rulebook": rulebook,
    }
    return jsonable(ctx)


_EXPECTED = ("fuzhou", "lishui", "luodisao", "tuidaohu", "zhuji")
"""The five variants of DESIGN.md; the report notes the ones not registered yet."""


def _variant_section(v, df, meta, budget, sweeps, skill) -> dict:
    s = Summary.from_records(df)
    hist = delta_histogram(s, drop_empty=False)
    hist = _trim_histogram(hist)
    rules = []
    resolved = meta["rules"]
    for o in v.options:
        rules.append(
            {
                "key": o.key,
                "value": resolved[o.key],
                "default": o.default,
                "is_default": resolved[o.key] == o.default,
                "allowed": list(o.allowed),
                "doc": o.doc,
                "rulebook": o.rulebook,
                "anchor": _anchor(o.rulebook),
            }
        )
    return {
        "name": v.name,
        "long_name": v.long_name,
        "version": v.version,
        "family": v.family,
        "players": s.players,
        "value_unit": v.value_unit,
        "rulebook_section": v.rulebook_section,
        "rulebook_anchor": _anchor(v.rulebook_section),
        "rules_id": meta["rules_id"],
        "policies": list(meta["policies"]),
        "deals": s.n_deals,
        "wins": s.n_wins,
        "matches": s.match_count,
        "budget": asdict(budget),
        "simplifications": _simplifications(v.doc),
        "rules": rules,
        "pattern_info": [
            {"pattern": p.name, "hanzi": p.hanzi, "big": p.big, "doc": p.doc} for p in v.patterns
        ],
        "patterns": pattern_frequencies(s, level=LEVEL),
        "win_types": win_type_frequencies(s, level=LEVEL),
        "win_type_payouts": payouts_by_win_type(s, level=LEVEL),
        "seats": seat_frequencies(s, level=LEVEL),
        "roles": seat_frequencies(s, by="distance", level=LEVEL),
        "payouts_seat": payouts_by_seat(s, level=LEVEL),
        "payouts_role": payouts_by_role(s, level=LEVEL),
        "fairness": fairness_tests(s, level=LEVEL),
        "swinginess": swinginess(df, level=LEVEL),
        "delta_histogram": hist,
        "sweeps": sweeps,
        "skill": skill,
    }


def _trim_histogram(hist: pd.DataFrame) -> pd.DataFrame:
    """Per seat, the bins from the first to the last non-empty finite one."""
    parts = []
    for _, g in hist.groupby("seat", sort=True):
        finite = np.isfinite(g["lo"].to_numpy(float)) & np.isfinite(g["hi"].to_numpy(float))
        g = g[finite]
        nz = np.flatnonzero(g["count"].to_numpy() > 0)
        if nz.size:
            parts.append(g.iloc[nz[0] : nz[-1] + 1])
    if not parts:
        return hist.iloc[:0]
    return pd.concat(parts, ignore_index=True)


# ----------------------------------------------------------------------------- summary
def _half(row: dict) -> float:
    lo, hi = row.get("lo"), row.get("hi")
    if lo is None or hi is None:
        return math.nan
    return (hi - lo) / 2


def _fmt(x: float, half: float, *, percent: bool = False) -> str:
    if math.isfinite(half):
        return format_pm(x, half, percent=percent)
    return f"{100 * x:.3g}%" if percent else f"{x:.3g}"


def _short(name: str, long_names: dict[str, str]) -> str:
    """``"广东推倒胡 (tuidaohu)"`` from the long name's first word and the registry name."""
    first = long_names.get(name, name).split(" ")[0]
    return name if first in ("", name) else f"{first} ({name})"


def _value(e: dict, *, sign: float = 1.0, percent: bool = False) -> str:
    """``estimate ± half`` when the interval is symmetric, else ``estimate [lo, hi]``."""
    x, lo, hi = e["estimate"], e.get("lo"), e.get("hi")
    if lo is None or hi is None:
        return _fmt(sign * x, math.nan, percent=percent)
    if abs((hi - x) - (x - lo)) <= 0.1 * (hi - lo):
        return _fmt(sign * x, (hi - lo) / 2, percent=percent)
    lo, hi = sorted((sign * lo, sign * hi))
    text = _fmt(sign * x, (hi - lo) / 2, percent=percent).split(" ± ")[0]
    scale, unit = (100.0, "%") if percent else (1.0, "")
    digits = len(text.rstrip("%").split(".")[1]) if "." in text else 0
    return f"{text} [{scale * lo:.{digits}f}{unit}, {scale * hi:.{digits}f}{unit}]"


def _phrase(metric: str, e: dict) -> str:
    """The plain-words reading of one variant's value of a :data:`SENSES` metric."""
    x = e["estimate"]
    sign = 1.0 if x >= 0 else -1.0
    verb = "gains" if x >= 0 else "loses"
    if metric == "dealer_edge_sd":
        return f"the dealer {verb} {_value(e, sign=sign)} SD per deal against an average non-dealer"
    if metric == "seat_spread_sd":
        return f"the best and the worst seat differ by {_value(e)} SD per deal"
    if metric == "skill_snr":
        from scipy.stats import norm

        strong, weak = SKILL_PAIRS[0]
        text = (
            f"a {strong} bot among {weak} bots {verb} {_value(e, sign=sign)} SD of a match "
            "total per match"
        )
        if x > 0:
            k = math.ceil((float(norm.ppf(0.95)) / x) ** 2)
            text += f", enough to be ahead after about {k:,} matches 95% of the time"
        return text
    if metric == "swinginess":
        return (
            f"the biggest 1% of deals carry {_value(e, percent=True)} of the points that "
            "change hands"
        )
    return f"{metric} = {_value(e)}"


def _summary(panel: list[dict], long_names: dict[str, str]) -> dict:
    """Rank the variants in each sense of :data:`SENSES`; word the headline."""
    senses = []
    for metric, sense, better, gap_unit in SENSES:
        rows = [r for r in panel if r["metric"] == metric and r["estimate"] is not None]
        if not rows:
            continue

        def score(r, better=better):
            e = r["estimate"]
            return abs(e) if better == "abs" else (-e if better == "high" else e)

        ranked = sorted(rows, key=score)
        entries = [
            {
                "variant": r["label"],
                "estimate": r["estimate"],
                "lo": r["lo"],
                "hi": r["hi"],
                "phrase": _phrase(metric, r),
            }
            for r in ranked
        ]
        item = {
            "metric": metric,
            "sense": sense,
            "better": better,
            "unit": METRICS[metric],
            "gap_unit": gap_unit,
            "ranking": entries,
            "best": entries[0]["variant"],
            "worst": entries[-1]["variant"],
        }
        for key, other in (("gap", 1), ("span", len(entries) - 1)):
            if len(entries) < 2:
                break
            a, b = ranked[0], ranked[other]
            d = score(b) - score(a)
            h = math.hypot(_half(a), _half(b))
            item[key] = d
            item[f"{key}_lo"] = d - h if math.isfinite(h) else None
            item[f"{key}_hi"] = d + h if math.isfinite(h) else None
            item[f"{key}_resolved"] = bool(math.isfinite(h) and d - h > 0)
        item["sentence"] = _sense_sentence(item, long_names)
        senses.append(item)
    return {
        "senses": senses,
        "headline": senses[0]["sentence"] if senses else "No variant was analysed.",
        "fairest": senses[0]["best"] if senses else None,
        "intro": (
            "Fair here first means that no seat expects to gain from where it sits; the "
            "dealer is the one position the rules treat differently, so the dealer's edge "
            "is the headline. Effects on payouts are in units of each variant's own per-deal "
            "standard deviation (SD) of a seat's result, so variants that score in different "
            "units (倍, 台, 番, 分, 囤) compare. Every number has its 95% interval; a gap "
            "between two variants is resolved when its interval excludes 0."
        ),
    }


def _gap_text(item: dict, key: str) -> str:
    d, lo, hi = item[key], item[f"{key}_lo"], item[f"{key}_hi"]
    h = (hi - lo) / 2 if lo is not None and hi is not None else math.nan
    pct = item["gap_unit"] == "share"
    unit = {"SD": " SD", "": "", "share": ""}[item["gap_unit"]]
    verdict = "a resolved difference" if item[f"{key}_resolved"] else "within the noise at this N"
    return f"{_fmt(d, h, percent=pct)}{unit}, {verdict}"


def _sense_sentence(item: dict, long_names: dict[str, str]) -> str:
    e = item["ranking"]
    best = _short(e[0]["variant"], long_names)
    head = (
        f"Rewarding skill most: {best}"
        if item["metric"] == "skill_snr"
        else f"Fairest {item['sense']}: {best}"
    )
    text = f"{head}, where {e[0]['phrase']}."
    if len(e) == 1:
        return text + " (The only variant in this report.)"
    text += (
        f" Next is {_short(e[1]['variant'], long_names)}, where {e[1]['phrase']}; the gap "
        f"is {_gap_text(item, 'gap')}."
    )
    if len(e) > 2:
        text += (
            f" Last is {_short(e[-1]['variant'], long_names)}, where {e[-1]['phrase']}; it "
            f"trails the first by {_gap_text(item, 'span')}."
        )
    return text


# ----------------------------------------------------------------------------- methods
def _methods() -> dict:
    return {
        "policies": [{"policy": k, "doc": d} for k, d in POLICY_DOCS.items()],
        "intervals": [
            "Rates (patterns, win types, wins by seat): Wilson score intervals, deals as units.",
            "Mean results by seat and role: t intervals with match-clustered standard "
            "errors (the deals of a match share a dealer and its streak, so the match is "
            "the independent unit).",
            "Fairness tests: Rao-Scott corrected chi-square of the winners' seats, "
            "cluster-robust Hotelling-type T² of the mean results by seat and by role, a t "
            "test of the dealer's edge; p-values Holm-adjusted over the four tests of a "
            "variant.",
            "Sweeps: every value plays the same seeds (common random numbers: the same "
            "shuffles), so differences from the default are paired deal by deal; normal "
            "intervals with matches as units; the unpaired interval of two independent "
            "runs is shown beside the paired one.",
            "Skill vs luck: the strong policy in one seat against the weak one in the "
            "others; duplicate seating replays the same walls with the strong policy in "
            "each seat in turn and averages a match over its seatings, so the luck of the "
            "tiles cancels; single seating treats each seating's matches as independent. "
            "Ratio estimator with a t interval over matches; signal-to-noise = mean gain "
            "per match / SD of a match total in ordinary play.",
            "Cross-variant panel: payout effects divided by the variant's pooled per-deal "
            "SD of a seat's result; the seat spread's interval is a parametric bootstrap "
            "(it is biased upward by noise); swinginess is the top-1% share of points "
            "changing hands with batch-means intervals over 20 batches of whole matches.",
            "Summary gaps between two variants are differences of independent estimates, "
            "with half-widths combined in quadrature (normal approximation).",
        ],
        "seeds": (
            "Every run of the report uses the same seed; deal (match m, deal d) draws all "
            "its randomness from a stream keyed by (seed, m, d), so the main run, every "
            "sweep value and every skill seating see the same walls, and the records do "
            "not depend on the number of threads."
        ),
    }


def _caveats(rulebook: dict) -> list[str]:
    out = [
        "Bots are not people. The value bot plays a strong but fixed strategy: it never "
        "reads opponents, defends or bluffs, and every seat plays the same way, so seat "
        "and dealer effects are those of equal, mechanical players; real tables add "
        "skill differences and habits the engine does not model.",
        "Only the default rules are analysed in full; the sweeps move one option at a "
        "time with the others at their defaults.",
        "The seat spread (best minus worst seat) is biased upward: the range of four noisy "
        "means is positive even when seats are equal. Read it against its interval.",
        "Wins are declared whenever legal, and matches are 16 deals with a random first "
        "dealer; other match formats can change dealer-streak effects.",
    ]
    if rulebook.get("open_questions"):
        out.append(
            "Where the sources disagree (RULEBOOK §6), the defaults are our decisions and "
            "each alternative is a rule option: " + " ".join(rulebook["open_questions"])
        )
    else:
        out.append(
            "Where the sources disagree (RULEBOOK §6), the defaults are our decisions and "
            "each alternative is a rule option."
        )
    return out


def _simplifications(doc: str) -> list[str]:
    """The bullet items of the "Engine simplifications" section of a variant docstring."""
    m = re.search(r"Engine simplifications\n-+\n(.*?)(?:\n\S[^\n]*\n-+\n|\Z)", doc or "", re.S)
    if not m:
        return []
    items, cur = [], []
    for line in m.group(1).splitlines():
        if line.startswith("- "):
            if cur:
                items.append(" ".join(cur))
            cur = [line[2:].strip().replace("``", "")]
        elif line.strip() and cur:
            cur.append(line.strip().replace("``", ""))
    if cur:
        items.append(" ".join(cur))
    return items


def _rulebook_file() -> Path:
    return (REPO_ROOT / RULEBOOK_PATH).resolve()


def _rulebook_info() -> dict:
    path = _rulebook_file()
    info = {"path": RULEBOOK_PATH, "found": path.is_file(), "open_questions": []}
    if not info["found"]:
        return info
    text = path.read_text(encoding="utf-8")
    m = re.search(r"^## 6\..*?\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if m:
        items, cur = [], []
        for line in m.group(1).splitlines():
            if re.match(r"^\d+\.\s", line):
                if cur:
                    items.append(" ".join(cur))
                cur = [line.strip()]
            elif line.strip() and cur:
                cur.append(line.strip())
        if cur:
            items.append(" ".join(cur))
        info["open_questions"] = items
    return info


@functools.lru_cache(maxsize=1)
def _rulebook_slugs() -> dict[str, str]:
    """Section number (``"1.2"``, ``"5"``) -> GitHub anchor of its RULEBOOK heading."""
    slugs: dict[str, str] = {}
    path = _rulebook_file()
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            h = re.match(r"^#{2,4}\s+((\d+(?:\.\d+)?)\.?\s.*)$", line)
            if h:
                text = re.sub(r"[^\w\- ]", "", h.group(1).strip().lower())
                slugs.setdefault(h.group(2), text.replace(" ", "-"))
    return slugs


def _anchor(cite: str) -> str | None:
    """GitHub anchor of the RULEBOOK heading that ``cite`` (``"§1.2 rule 5"``) names."""
    m = re.search(r"§\s*(\d+(?:\.\d+)?)", cite or "")
    return _rulebook_slugs().get(m.group(1)) if m else None


def _git_sha() -> str | None:
    if not (REPO_ROOT / ".git").exists():
        return None
    try:
        sha = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{sha}+dirty" if dirty else sha


def _numba_version() -> str:
    import numba

    return numba.__version__


# ----------------------------------------------------------------------------- figures
def _reaching(frame: pd.DataFrame, est: str) -> pd.DataFrame:
    """A copy whose ``[lo, hi]`` reaches ``est``, for error bars (drawing only).

    Matplotlib's error bars take distances and refuse negative ones, but an interval may
    miss its point estimate: a parametric-bootstrap interval of the (upward-biased) seat
    spread, or a Wilson bound a rounding error above a rate of exactly 0.
    """
    out = frame.astype({est: float, "lo": float, "hi": float})
    out["lo"] = np.fmin(out["lo"], out[est])
    out["hi"] = np.fmax(out["hi"], out[est])
    return out


def _n_figures(ctx: dict) -> int:
    """How many figures :func:`_figures` draws for this context."""
    return 1 + sum(2 + len(v["sweeps"]) for v in ctx["variants"].values())


def _figures(ctx: dict, bar: _Bar | None = None) -> list[dict]:
    """Every figure of the report as ``{"id", "caption", "png"}`` (bytes), from the context."""
    from matplotlib.figure import Figure

    from analysis import plots

    out = []

    def save(fig, fid, caption):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=96)
        out.append({"id": fid, "caption": caption, "png": buf.getvalue()})
        if bar is not None:
            bar.update(1)

    panel = pd.DataFrame(ctx["panel"])
    if len(panel):
        metrics = [m for m in METRICS if (panel["metric"] == m).any()]
        ncol = 2
        nrow = -(-len(metrics) // ncol)
        with plots.style():
            height = 1.0 + 0.35 * panel["label"].nunique()
            fig = Figure(figsize=(9, max(2.2, height) * nrow), layout="constrained")
            axes = np.atleast_1d(fig.subplots(nrow, ncol)).ravel()
            drawn = _reaching(panel, "estimate")
            for ax, m in zip(axes, metrics, strict=False):
                plots.draw_variant_panel(drawn, metric=m, ax=ax)
            for ax in axes[len(metrics) :]:
                ax.set_visible(False)
            save(fig, "panel", "The cross-variant panel: each metric with its 95% interval.")
    for name, v in ctx["variants"].items():
        pats = pd.DataFrame(v["patterns"])
        if len(pats):
            frame = (
                _reaching(pats[pats["per"] == "win"], "rate")
                .sort_values("rate", ascending=False, kind="stable")
                .reset_index(drop=True)
            )
            with plots.style():
                fig = Figure(figsize=(7, 1.2 + 0.28 * len(frame)), layout="constrained")
                plots.draw_pattern_frequencies(frame, ax=fig.subplots())
                save(
                    fig,
                    f"{name}-patterns",
                    f"{name}: share of won deals with each pattern (95% Wilson intervals).",
                )
        hist = pd.DataFrame(v["delta_histogram"])
        if len(hist):
            with plots.style():
                fig = Figure(figsize=(7, 3.6), layout="constrained")
                plots.draw_delta_distribution(
                    hist.astype({"lo": float, "hi": float}), ax=fig.subplots()
                )
                save(fig, f"{name}-deltas", f"{name}: distribution of each seat's result per deal.")
        for sw in v["sweeps"]:
            table = pd.DataFrame(sw["table"])
            metrics = [m for m in SWEEP_FIGURE_METRICS if (table["metric"] == m).any()]
            if not metrics:
                continue
            table = table.astype(
                {c: float for c in table.columns if c.startswith(("diff", "unpaired"))}
            )
            with plots.style():
                fig = Figure(figsize=(9, 6), layout="constrained")
                axes = fig.subplots(2, 2).ravel()
                for i, (ax, m) in enumerate(zip(axes, metrics, strict=False)):
                    plots.draw_sweep(table, metric=m, ax=ax)
                    ax.set_ylabel(f"{m}: diff. from default", fontsize=8)
                    if i and ax.get_legend() is not None:
                        ax.get_legend().remove()
                for ax in axes[len(metrics) :]:
                    ax.set_visible(False)
                save(
                    fig,
                    f"{name}-sweep-{sw['option']}",
                    f"{name}: {sw['option']} sweep, difference from the default "
                    f"({sw['default']}) with paired (band) and unpaired (dashed) 95% intervals.",
                )
    return out


# ----------------------------------------------------------------------------- render
def _environment(kind: str):
    import jinja2

    loader = jinja2.PackageLoader("analysis", "templates")
    if kind == "html":
        env = jinja2.Environment(
            loader=loader,
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
    else:
        env = jinja2.Environment(
            loader=loader,
            autoescape=False,
            finalize=_md_finalize,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
    env.filters.update(
        num=_num,
        matches=_matches,
        pct=_pct,
        ci=_ci,
        pci=_pci,
        pm=_pm,
        p=_p,
        signed=_signed,
        show=_show,
    )
    env.globals["md_raw"] = _MdRaw
    return env


class _MdRaw(str):
    """A string the Markdown renderer must not escape (links and image paths we build)."""


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#!])")


def _md_escape(text: str) -> str:
    """Text that Markdown shows as is: HTML made inert, Markdown punctuation escaped."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))


def _md_finalize(value):
    if isinstance(value, _MdRaw):
        return str(value)
    if value is None:
        return "n/a"
    return _md_escape(str(value))


def _isnum(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _num(x, digits: int = 3) -> str:
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if not _isnum(x):
        return "n/a"
    if digits > 0 and x != 0 and abs(x) < 10**-digits:
        return f"{x:.{digits - 1}e}"
    return f"{x:,.{digits}f}"


def _matches(x) -> str:
    """A number of matches, rounded up; ``never`` when infinite (JSON null)."""
    if not _isnum(x):
        return "never"
    return f"{math.ceil(x):,}"


def _signed(x, digits: int = 3) -> str:
    if not _isnum(x):
        return "n/a"
    return f"{x:+.{digits}f}"


def _pct(x, digits: int = 2) -> str:
    if not _isnum(x):
        return "n/a"
    return f"{100 * x:.{digits}f}%"


def _ci(est, lo, hi, digits: int = 3, signed: bool = True) -> str:
    f = _signed if signed else _num
    if not _isnum(est):
        return "n/a"
    if not (_isnum(lo) and _isnum(hi)):
        return f(est, digits)
    return f"{f(est, digits)} [{f(lo, digits)}, {f(hi, digits)}]"


def _pci(rate, lo, hi, digits: int = 2) -> str:
    if not _isnum(rate):
        return "n/a"
    if not (_isnum(lo) and _isnum(hi)):
        return _pct(rate, digits)
    return f"{_pct(rate, digits)} [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def _pm(est, lo, hi) -> str:
    if not _isnum(est):
        return "n/a"
    if not (_isnum(lo) and _isnum(hi)):
        return f"{est:.3g}"
    return format_pm(est, (hi - lo) / 2)


def _p(p) -> str:
    from analysis.stats import format_p

    if not _isnum(p):
        return "n/a"
    return format_p(p)


def _show(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


def _views(ctx: dict) -> dict:
    """Presentation-only regroupings of the context's tidy tables (no new numbers)."""
    out = {}
    for name, v in ctx["variants"].items():
        info = {p["pattern"]: p for p in v["pattern_info"]}
        pats = {}
        for r in v["patterns"]:
            row = pats.setdefault(
                r["pattern"], {"pattern": r["pattern"], **info.get(r["pattern"], {})}
            )
            row[r["per"]] = r
        ordered = sorted(pats.values(), key=lambda r: -(r.get("win", {}).get("rate") or 0))
        seats = []
        for r in v["payouts_seat"]:
            wins = next(
                (
                    w
                    for w in v["seats"]
                    if w["seat"] == r["seat"] and w["event"] == "win" and w["per"] == "deal"
                ),
                None,
            )
            dealt = next(
                (
                    w
                    for w in v["seats"]
                    if w["seat"] == r["seat"] and w["event"] == "deal_in" and w["per"] == "deal"
                ),
                None,
            )
            seats.append({"pay": r, "win": wins, "deal_in": dealt})
        roles = []
        for r in v["payouts_role"]:
            wins = next(
                (w for w in v["roles"] if w["distance"] == r["distance"] and w["per"] == "deal"),
                None,
            )
            roles.append({"pay": r, "win": wins, "prose": ROLE_PROSE.get(r["role"], r["role"])})
        wt = []
        for r in v["win_types"]:
            if r["per"] != "deal":
                continue
            pay = {
                p["quantity"]: p for p in v["win_type_payouts"] if p["win_type"] == r["win_type"]
            }
            wt.append({"freq": r, "pay": pay})
        sweeps = []
        for sw in v["sweeps"]:
            rows = {}
            for r in sw["table"]:
                rows.setdefault(r["metric"], []).append(r)
            sweeps.append({"sweep": sw, "by_metric": rows})
        skill = [{"skill": sk, "rows": sk["table"]} for sk in v["skill"]]
        out[name] = {
            "patterns": ordered,
            "seats": seats,
            "roles": roles,
            "win_types": wt,
            "sweeps": sweeps,
            "skill": skill,
        }
    panel = {}
    for r in ctx["panel"]:
        panel.setdefault(r["label"], {})[r["metric"]] = r
    return {"variants": out, "panel": panel}


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically with the user's umask (engine.fileio)."""
    from engine import fileio

    fileio.write_bytes(path, data)


def render(context: dict, out_dir, *, progress: bool = False) -> dict[str, Path]:
    """Write the HTML, Markdown (with PNG figures) and JSON files of a report context.

    Parameters
    ----------
    context : dict
        :func:`build_report` output (or the JSON file read back).
    out_dir : str or Path
        Output folder (created if missing; its parent must exist and be writable).
    progress : bool
        Show a progress bar over the figures.

    Returns
    -------
    dict of str to Path
        ``{"html": ..., "md": ..., "json": ..., "figures": [...]}``.

    Notes
    -----
    Every file is written to a temporary name in the same folder and renamed when
    complete, the figures first and the JSON last, so a reader never sees a partial
    file. Every string of the context is escaped (Jinja2 autoescape for HTML; Markdown
    punctuation and ``<``/``&`` for Markdown).
    """
    out = check_out_dir(out_dir)
    ctx = jsonable(context)
    bar = _Bar(progress, _n_figures(ctx), "figures", unit="figure")
    try:
        figs = _figures(ctx, bar)
    finally:
        bar.close()
    views = _views(ctx)
    rb = _rulebook_file()
    rb_href = os.path.relpath(rb, out.resolve()) if ctx["rulebook"].get("found") else None
    if rb_href is not None:
        rb_href = rb_href.replace(os.sep, "/")
    html_env = _environment("html")
    md_env = _environment("md")
    fig_by_id = {f["id"]: f for f in figs}
    html_figs = {
        f["id"]: {
            "src": "data:image/png;base64," + base64.b64encode(f["png"]).decode("ascii"),
            "caption": f["caption"],
        }
        for f in figs
    }
    md_figs = {
        f["id"]: {"src": _MdRaw(f"{FIGURES_DIR}/{f['id']}.png"), "caption": f["caption"]}
        for f in figs
    }
    css = (Path(__file__).with_name("templates") / "report.css").read_text(encoding="utf-8")
    common = {"ctx": ctx, "views": views, "rulebook_href": rb_href}
    html = html_env.get_template("report.html.j2").render(**common, figs=html_figs, css=css)
    md = md_env.get_template("report.md.j2").render(
        **common,
        figs=md_figs,
        rulebook_link=_MdRaw(rb_href) if rb_href else None,
    )
    data = json.dumps(ctx, ensure_ascii=False, indent=1, allow_nan=False)

    out.mkdir(parents=True, exist_ok=True)
    fig_dir = out / FIGURES_DIR
    fig_dir.mkdir(exist_ok=True)
    written = []
    for fid, f in fig_by_id.items():
        path = fig_dir / f"{fid}.png"
        _write_atomic(path, f["png"])
        written.append(path)
    keep = {p.name for p in written}
    for old in fig_dir.glob("*.png"):
        if old.name not in keep:
            old.unlink()
    paths = {
        "html": out / FILES[0],
        "md": out / FILES[1],
        "json": out / FILES[2],
    }
    _write_atomic(paths["html"], html.encode("utf-8"))
    _write_atomic(paths["md"], md.encode("utf-8"))
    _write_atomic(paths["json"], (data + "\n").encode("utf-8"))
    return {**paths, "figures": written}


# ----------------------------------------------------------------------------- CLI
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
