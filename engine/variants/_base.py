"""Variant records: rule options, patterns, and the packing of options for kernels.

A variant is declared once, as data (STYLE §2): its name, long name with hanzi, version,
rule options (typed, with defaults, allowed values, documentation and the RULEBOOK
entry), its scoring patterns and extra record columns (:class:`Pattern`, :class:`Extra`:
the kernels' bit numbers and column indices are read from these declarations), and a
``pack`` function that turns the resolved options into the int64 array the kernel reads.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..abi import MAX_EXTRA
from ..errors import UsageError

__all__ = [
    "RuleOption",
    "Pattern",
    "Extra",
    "Variant",
    "ReportBudget",
    "HeadlineSweep",
    "parse_rule_args",
    "pattern_bits",
    "big_mask",
    "extra_index",
    "extra_columns",
]


@dataclass(frozen=True)
class RuleOption:
    """One rule option of a variant.

    Parameters
    ----------
    key : str
        The name used in ``--rule key=value`` and TOML files.
    default : bool | int | str
        The value the simulator uses when the option is not given.
    allowed : tuple
        Every allowed value (the type of the default is the option's type).
    doc : str
        What the option means, in one or two sentences.
    rulebook : str
        The RULEBOOK entry that sets the default (e.g. ``"§5.2 rule 4"``).
    changes_deal : bool
        Whether its values deal different cards from the same seed (the deck's size or
        the hands dealt change), so that a sweep over it cannot pair deals: its
        comparisons are unpaired.
    payout : bool
        Whether it changes only what a deal pays, never how it is played by a policy
        blind to values (``efficiency``, ``random``): the deals recorded under one value
        can then be re-scored under another (:mod:`engine.runs.rescore`), and for those
        policies the re-scored records equal a fresh simulation's. An option that
        changes legality, claims, wilds or the wall is not a payout option.
    """

    key: str
    default: Any
    allowed: tuple
    doc: str
    rulebook: str = ""
    changes_deal: bool = False
    payout: bool = False

    def parse(self, value: Any) -> Any:
        """Convert a value (string from the command line, or TOML value) and validate it."""
        kind = type(self.default)
        if isinstance(value, str):
            text = value.strip()
            if kind is bool:
                low = text.lower()
                if low in ("true", "1", "yes", "on"):
                    value = True
                elif low in ("false", "0", "no", "off"):
                    value = False
                else:
                    raise self._bad(value)
            elif kind is int:
                try:
                    value = int(text)
                except ValueError:
                    raise self._bad(value) from None
            else:
                value = text
        if kind is int and isinstance(value, bool):
            raise self._bad(value)
        if not isinstance(value, kind) or value not in self.allowed:
            raise self._bad(value)
        return value

    def _bad(self, value) -> UsageError:
        allowed = ", ".join(_show(v) for v in self.allowed)
        return UsageError(
            f"rule option {self.key}={_show(value)} is not allowed; allowed values: {allowed}"
        )


def _show(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


@dataclass(frozen=True)
class Pattern:
    """A scoring pattern: record column ``pat_<name>``.

    Parameters
    ----------
    name : str
        Pinyin identifier (``qingyise``).
    hanzi : str
        The name players use (清一色).
    doc : str
        What it is and what it is worth.
    big : bool
        Counted among the variant's big hands (cross-variant "share of big hands").
    value : int
        What the pattern is worth in the variant's own unit where that is one number
        (落地扫 its 番 factor, 丽水 its 非自摸 倍, 诸暨 its 台; the default of its
        ``pay_<name>`` option where it has one), which the kernels' value tables and the
        options' defaults are built from at import; 0 where the worth is set by the
        variant's payout options instead.
    values : tuple of (str, int)
        Its worth under each payout formula that prices it, where a variant's option
        chooses among several formulas (福州's ``scoring``: the default of its
        ``pay_<name>_<formula>`` option); empty otherwise.
    """

    name: str
    hanzi: str
    doc: str
    big: bool = False
    value: int = 0
    values: tuple[tuple[str, int], ...] = ()


MAX_PATTERNS = 62
"""Pattern bits a record holds (31 in ``pat_lo``, 31 in ``pat_hi``)."""


def pattern_bits(patterns) -> dict[str, int]:
    """Each pattern's bit number by name: its place in the variant's declaration.

    The kernels' ``P_*`` constants are read from this at import (numba freezes them), so
    a pattern is declared once and its bit can never drift from its record column.
    """
    bits: dict[str, int] = {}
    for i, p in enumerate(patterns):
        if p.name in bits:
            raise ValueError(f"pattern {p.name!r} declared twice")
        bits[p.name] = i
    if len(bits) > MAX_PATTERNS:
        raise ValueError(f"{len(bits)} patterns; a record holds {MAX_PATTERNS}")
    return bits


def big_mask(patterns) -> int:
    """The bit mask of the patterns declared ``big``."""
    return sum(1 << i for i, p in enumerate(patterns) if p.big)


@dataclass(frozen=True)
class Extra:
    """An extra record column of a variant, or a block of one column per seat.

    Parameters
    ----------
    name : str
        The column's name; a block of ``width`` > 1 has the columns ``<name>_0`` ..
        ``<name>_<width-1>`` (one per seat).
    width : int
        Columns it takes (1, or 4 for a column per seat).
    doc : str
        What the column holds.
    """

    name: str
    width: int = 1
    doc: str = ""

    @property
    def columns(self) -> tuple[str, ...]:
        """Its record column names, in index order."""
        if self.width == 1:
            return (self.name,)
        return tuple(f"{self.name}_{i}" for i in range(self.width))


def extra_index(extras) -> dict[str, int]:
    """Each extra's first index (``rec[C_EXTRA + index]``) by name: its place in the
    variant's declaration, the widths before it added up.

    The kernels' ``E_*`` constants are read from this at import (numba freezes them), so
    an extra is declared once and its index can never drift from its record column.
    """
    out: dict[str, int] = {}
    at = 0
    for x in extras:
        if x.name in out:
            raise ValueError(f"extra {x.name!r} declared twice")
        if x.width < 1:
            raise ValueError(f"extra {x.name!r}: width {x.width}")
        out[x.name] = at
        at += x.width
    if at > MAX_EXTRA:
        raise ValueError(f"{at} extra columns; a record holds {MAX_EXTRA}")
    return out


def extra_columns(extras) -> tuple[str, ...]:
    """The record column names of declared extras, in index order."""
    cols = tuple(c for x in extras for c in x.columns)
    if len(set(cols)) != len(cols):
        raise ValueError(f"extra columns named twice: {cols}")
    return cols


@dataclass(frozen=True)
class ReportBudget:
    """Deals per run in each stage of a variant's part of the balance report
    (:mod:`analysis.report`, which plays it when no ``--deals`` is given).

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
        The confirmation of the recommendations: the defaults and each change whose
        dealer edge in SD units is resolved played again by the report's bots on a
        fresh seed, this many deals each; the bot guard checks those settings on the
        same deals. 0 confirms nothing, and recommends nothing.
    audit : int
        Deals of the decision audit of the report's bots (``mjlab audit``) in the
        methods section. 0 leaves it out.

    Each is a multiple of the report's match length (16 deals), at least two matches.
    The budgets are sized by the CPU time each stage takes for the variant's bots: a
    variant whose bots play slowly, or whose results are noisier, gets fewer or more
    deals per stage. The sizes the variants share are the defaults (``sensitivity``,
    ``whatif_check``, ``confirm``, ``audit``); a variant declares the others.
    """

    main: int
    sweep: int
    skill: int
    sensitivity: int = 8_000
    sensitivity_skill: int = 0
    whatif_check: int = 16_000
    confirm: int = 8_000
    audit: int = 200


@dataclass(frozen=True)
class HeadlineSweep:
    """A headline sweep of the balance report, declared on its variant.

    Attributes
    ----------
    keys : tuple of str
        Candidate option keys, the first one the variant has is swept.
    title : str
        What is swept, for the reader.
    values : tuple of str, optional
        Values to play (parsed by the option; values it does not allow are left out);
        default every allowed value. The option's default is always included: it is the
        baseline of the paired differences.
    """

    keys: tuple[str, ...]
    title: str
    values: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Variant:
    """A registered variant (see the module docstring)."""

    name: str
    long_name: str
    version: int
    family: str
    options: tuple[RuleOption, ...]
    patterns: tuple[Pattern, ...]
    extras: tuple[Extra, ...]
    """Its extra record columns, declared (:class:`Extra`); their names:
    :attr:`extra_columns`."""
    pack: Callable[[Mapping[str, Any]], np.ndarray]
    value_unit: str
    doc: str = ""
    players: int = 4
    policies: tuple[str, ...] = ("random", "efficiency", "value", "strong")
    bench_deals: int = 200_000
    rulebook_section: str = ""
    kernel_id: int = 0
    """Its id in the packed rules (``R_VARIANT``), by default its kernel module's
    ``KERNEL_ID`` (``hooks`` below)."""
    hooks: Any = field(default=None, compare=False)
    """The variant's kernel module: it owns ``KERNEL_ID`` (the ``kernel_id`` above) and the
    hook kernels its family's loop calls for it through the family's hook table
    (:mod:`engine.play.mahjong.hooks`: ``patterns``, ``settle``, ``restore`` ...;
    :mod:`engine.play.zipai.hooks`)."""
    players_of: Callable[[Mapping[str, Any]], int] | None = None
    exact: Callable[..., dict] | None = field(default=None, compare=False)
    score_hand: Callable[..., dict] | None = field(default=None, compare=False)
    score_flags: tuple[str, ...] = ()
    """The ``mjlab score --flag`` names ``score_hand`` understands (others are refused)."""
    flower_tiles: int = 0
    """Flower tiles in the set (``mjlab score --flowers`` is 0..this; 0: no flowers)."""
    bot_layout: Any = field(default=None, compare=False)
    """Its family's bot parameter layout module (``N_BOT``, the blocks' keys and
    ``STRONG_VERSION``): :mod:`engine.mahjong.params` or :mod:`engine.zipai.params`."""
    bot_params: Callable[[str, Mapping[str, Any]], dict] | None = field(default=None, compare=False)
    """The default parameters of a policy under resolved options (engine.play.bots)."""
    value_blind: tuple[str, ...] = ("random", "efficiency")
    """The policies whose play reads no payout option: re-scoring their records under a
    payout change is exact (engine.runs.rescore; tests/engine/runs/test_rescore.py proves
    it for each)."""
    bot_targets: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    """The patterns that make each hand target of the strong policy (``flush``, ``half``,
    ``triplets``, ``pairs``, ``wild_pair``), for fitting what each is worth; for a 字牌
    variant the patterns of the strong model's win classes, in class order (``colour``,
    ``method``: engine.play.zipai.fit)."""
    target_tables: str = "race"
    """How the strong fit reads each target's chance to win with its pattern (mahjong,
    engine.play.mahjong.fit): ``"race"``, the plain race at the target's distance times
    one fitted factor; ``"observed"``, the positions' own rate by distance and live
    bucket, shrunk toward that race and kept monotone (where a minimum makes a target
    the usual way to a legal win, committed play wins far more often from a target's
    distance than the plain race there says)."""
    refit_self_play: bool = False
    """Whether a refit of the strong models under other wilds, some tiles still wild
    (mahjong, engine.play.mahjong.fit.refit_mahjong), fits the win tables and values a
    second time on the strong bot's own play with the first pass's model (where value's
    hands are far from the ones strong builds, and the tables fitted on them misprice
    strong's)."""
    payout_pattern: Mapping[str, str] = field(default_factory=dict, compare=False)
    """The pattern each pattern-value payout option pays for (``pay_qingyise`` ->
    ``qingyise``): such an option can move no payment in a sample without its pattern,
    so the re-score tests let it stay idle only where that pattern is absent."""
    rescore_context: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, compare=False)
    """The rules under which each payout option that is idle under the defaults pays
    (another formula's values, 游金, 鬼 in play ...): a re-score test of it plays there."""
    folder: Path | None = field(default=None, compare=False)
    """The variant's folder, ``engine/variants/<name>/`` (by default the folder of the
    module that defines ``pack``), which holds everything of it
    besides its declaration and kernels: its rules prose (``rules.md``, the rules pages'
    text, :mod:`engine.runs.rulesdoc`) and its bots' data (``<policy>.json``, made by
    ``mjlab fit`` / ``mjlab tune``, and the refits under other rules, ``refits/``:
    :data:`engine.play.bots.BOTDATA`)."""
    report_budget: ReportBudget | None = field(default=None, compare=False)
    """Deals per stage of its part of the balance report (:class:`ReportBudget`); None:
    the report's fallback budget."""
    headline_sweeps: tuple[HeadlineSweep, ...] = field(default=(), compare=False)
    """The sweeps the balance report headlines for it (RULEBOOK §0 rule 2: every
    wildcard count is sweepable), in the order the report shows them."""
    stated_amounts: tuple[float, ...] = field(default=(), compare=False)
    """Amounts (points in its value unit) whose loss over a 16-deal match the report and
    ``mjlab summarize`` price: round numbers near 1, 2 and 4 SDs of a seat's match result
    under the default rules. Empty: amounts derived from the records
    (:func:`analysis.risk.risk_amounts`)."""
    listed: bool = True
    """Whether ``mjlab variants``, the report and the docs list it. A variant declared
    ``listed=False`` (a variant for the tests) is registered and runs by name like any other
    (``mjlab simulate NAME``), and the registry-wide tests cover it."""

    def __post_init__(self):
        if not self.kernel_id and self.hooks is not None:
            object.__setattr__(self, "kernel_id", self.hooks.KERNEL_ID)
        if self.folder is None:
            object.__setattr__(self, "folder", Path(inspect.getfile(self.pack)).parent)
        if self.folder.name != self.name:
            raise ValueError(f"variant {self.name}: its folder is {self.folder}")
        extra_index(self.extras)  # declared once each, within the record's extra columns
        self.extra_columns  # noqa: B018 - and no column named twice
        options = self.option_map
        names = {p.name for p in self.patterns}
        for key, pattern in self.payout_pattern.items():
            if key not in options or not options[key].payout:
                raise ValueError(f"variant {self.name}: payout_pattern names {key!r}, "
                                 "not a payout option")  # fmt: skip
            if pattern not in names:
                raise ValueError(f"variant {self.name}: payout_pattern {key!r} pays for "
                                 f"{pattern!r}, not a declared pattern")  # fmt: skip
        for key, rules in self.rescore_context.items():
            if key not in options or not options[key].payout:
                raise ValueError(f"variant {self.name}: rescore_context names {key!r}, "
                                 "not a payout option")  # fmt: skip
            self.resolve(rules)  # its rules are valid options (UsageError if not)

    @property
    def option_map(self) -> dict[str, RuleOption]:
        """Options by key."""
        return {o.key: o for o in self.options}

    def defaults(self) -> dict[str, Any]:
        """Every option at its default."""
        return {o.key: o.default for o in self.options}

    def resolve(self, rules: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """All options, with the given ones parsed and validated (UsageError if bad)."""
        out = self.defaults()
        options = self.option_map
        for key, value in (rules or {}).items():
            if key not in options:
                known = ", ".join(sorted(options))
                raise UsageError(f"unknown rule option {key!r} for {self.name}; options: {known}")
            out[key] = options[key].parse(value)
        return out

    def n_players(self, resolved: Mapping[str, Any]) -> int:
        """Seats at the table under these options."""
        return self.players_of(resolved) if self.players_of else self.players

    def rules_id(self, resolved: Mapping[str, Any]) -> str:
        """A short hash of the full resolved options, the variant name and version."""
        blob = json.dumps(
            {
                "variant": self.name,
                "version": self.version,
                "rules": dict(sorted(resolved.items())),
            },
            sort_keys=True,
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:10]

    @property
    def extra_columns(self) -> tuple[str, ...]:
        """Record column names of the extras, in index order."""
        return extra_columns(self.extras)

    def pattern_columns(self) -> list[str]:
        """Record column names of the patterns, in bit order."""
        return [f"pat_{p.name}" for p in self.patterns]


RULES_FILE_BYTES = 1 << 20
"""The largest ``--rules`` file read (a rules file is a few lines)."""


def parse_rule_args(rule_args, rules_file=None) -> dict[str, str]:
    """``["k=v", ...]`` and an optional TOML file -> a dict of raw option values.

    The file must be a regular file of at most :data:`RULES_FILE_BYTES`, checked before it
    is opened (a FIFO or a device is refused, never read), and hold ``key = value`` pairs,
    at the top or under ``[rules]``, whose values are strings, integers, numbers or
    booleans. Later ``--rule`` values override the file. UsageError on malformed input.
    """
    rules: dict[str, Any] = {}
    if rules_file is not None:
        from engine import paths

        raw = paths.read_input(rules_file, "--rules", RULES_FILE_BYTES)
        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise UsageError(f"--rules {rules_file}: not valid TOML ({exc})") from None
        except RecursionError:
            raise UsageError(f"--rules {rules_file}: not valid TOML (nested too deeply)") from None
        table = data.get("rules", data)
        if not isinstance(table, dict):
            raise UsageError(f"--rules {rules_file}: expected key = value pairs")
        for key, value in table.items():
            if isinstance(value, dict | list) or not isinstance(value, str | int | float | bool):
                what = {dict: "a table", list: "an array"}.get(type(value), "a date or time")
                raise UsageError(
                    f"--rules {rules_file}: option {key[:40]!r} is {what}; a rule option's value "
                    "is a string, a number or true/false"
                )
        rules.update(table)
    for item in rule_args or ():
        if "=" not in item:
            raise UsageError(f"--rule expects KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        rules[key.strip()] = value.strip()
    return rules
