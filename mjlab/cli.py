"""The ``mjlab`` command line.

This module is the parser and a dispatch table (:data:`_COMMANDS`, command name ->
handler function); every handler lives in :mod:`mjlab.commands`. Each command's
arguments are added by its own builder (:data:`_BUILDERS`, command name -> a function
that adds that command's subparser), in the order ``mjlab --help`` lists them.

Every command exits 0 on success; 2 on bad input (a one-line message on stderr naming
what is wrong, no traceback, nothing written), including an output that another run is
writing or that holds another run; 1 on an environment fault (full disk, permission
denied, read-only folder: one line naming the path and the cause, no half-written file)
and on an internal error (with its traceback). ``MJLAB_DEBUG=1`` shows the traceback of
every failure.
"""

from __future__ import annotations

import argparse
import os
import sys

from engine.errors import CacheError, UsageError
from mjlab import commands

__all__ = ["main", "UsageError"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own usage errors: one line, exit 2
        raise UsageError(f"{self.prog}: {message}")


# command name -> handler: each takes the parsed args and returns the exit code
_COMMANDS = {
    "hand": commands.run_hand,
    "exact": commands.run_exact,
    "bench": commands.run_bench,
    "variants": commands.run_variants,
    "rules": commands.run_rules,
    "simulate": commands.run_simulate,
    "summarize": commands.run_summarize,
    "sweep": commands.run_sweep,
    "report": commands.run_report,
    "score": commands.run_score,
    "replay": commands.run_replay,
    "fit": commands.run_fit,
    "tune": commands.run_tune,
    "ladder": commands.run_ladder,
    "rescore": commands.run_rescore,
    "design": commands.run_design,
    "warmup": commands.run_warmup,
    "audit": commands.run_audit,
}


def _build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="mjlab",
        description=__doc__.splitlines()[0].strip(" ."),
        formatter_class=_Formatter,
    )
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    for build in _BUILDERS.values():
        build(sub)
    for q in sub.choices.values():
        q.formatter_class = _Formatter
    return p


class _Formatter(argparse.HelpFormatter):
    """Help that shows every option's default (unless its text already says it)."""

    def _get_help_string(self, action):
        text = action.help or ""
        d = action.default
        if (
            "default" in text
            or d is None
            or d is False
            or d == []
            or d is argparse.SUPPRESS
            or action.required
            or not action.option_strings
        ):
            return text
        return f"{text} (default: %(default)s)"


def count(text: str) -> int:
    """An exact whole number of deals (or matches, settings): ``100000``, ``100_000``,
    ``1e6`` or ``2.5e5``; anything that is not a whole number is refused.

    >>> count("1e6"), count("2.5e5"), count("1_000")
    (1000000, 250000, 1000)
    """
    from decimal import Decimal, InvalidOperation

    raw = str(text).strip()
    if raw.isascii() and raw.lstrip("+-").replace("_", "").isdigit():
        return int(raw)
    try:
        d = Decimal(raw.replace("_", "")) if raw.isascii() else None
    except InvalidOperation:
        d = None
    if d is None or not d.is_finite() or d != d.to_integral_value() or abs(d) > 10**30:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a whole number (write e.g. 100000, 100_000 or 1e6)"
        )
    return int(d)


_VARIANT_HELP = (
    "a variant: fuzhou, lishui, luodisao, tuidaohu or zhuji (or its Chinese name, e.g. 丽水 "
    "or 推倒胡); `mjlab variants` lists them"
)
_POLICY_HELP = (
    "bot policy for every seat, or one per seat: random, efficiency, value, strong "
    "(default: the balance report's, strong where the variant has it, else value)"
)


def _variant_arg(p) -> None:
    p.add_argument("variant", metavar="VARIANT", help=_VARIANT_HELP)


def _seed_arg(p, default: int = 0, what: str = "the run's seed") -> None:
    p.add_argument("--seed", type=int, default=default, metavar="S", help=what)


def _workers_arg(p) -> None:
    p.add_argument(
        "--workers", type=int, default=None, metavar="W", help="threads (default: every core)"
    )


def _quiet_arg(p, what: str = "no progress bar") -> None:
    p.add_argument("--quiet", action="store_true", help=what)


def _add_hand(sub) -> None:
    h = sub.add_parser("hand", help="shanten, waits and best discards of a hand")
    h.add_argument("hand", metavar="HAND", help='tiles in notation, e.g. "123m456p789s1122z"')
    h.add_argument(
        "--wild",
        action="append",
        default=[],
        metavar="TILE",
        help="a wild kind (repeatable): its tiles in HAND count as wilds",
    )
    h.add_argument(
        "--sets",
        type=int,
        default=None,
        help="sets still to form (default: from the tile count, 4 or 5)",
    )
    h.add_argument("--json", action="store_true", help="print JSON")
    h.add_argument(
        "--shape",
        action="append",
        default=None,
        metavar="SHAPE",
        help="shapes to consider (default standard, seven_pairs, thirteen_orphans)",
    )


def _add_exact(sub) -> None:
    e = sub.add_parser("exact", help="exact probabilities of deal events (combinatorics)")
    e.add_argument(
        "variant",
        nargs="?",
        metavar="VARIANT",
        help="a variant name (its 天胡 and deal events), or none with --tiles/--hand",
    )
    e.add_argument(
        "--tiles",
        type=int,
        choices=(136, 108),
        default=None,
        help="tiles in the set (default: the variant's, else 136)",
    )
    e.add_argument(
        "--hand", type=int, default=None, metavar="N", help="tiles in the hand (default: 14)"
    )
    e.add_argument(
        "--wild",
        default=None,
        metavar="TILE[,TILE]",
        help="wild kind(s), e.g. 7z or 5m,5p; 'flip' or 'flip2' for a random indicator "
        "(default: no wilds)",
    )
    e.add_argument(
        "--wild-copies",
        type=int,
        choices=(3, 4),
        default=4,
        help="copies of each wild kind in play (3: an indicator is set aside)",
    )
    e.add_argument(
        "--shanten",
        action="store_true",
        help="print the exact distribution of the dealt hand's shanten",
    )
    e.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="K=V",
        help="set a rule option of VARIANT (repeatable)",
    )
    e.add_argument("--json", action="store_true", help="print JSON")


def _add_bench(sub) -> None:
    b = sub.add_parser("bench", help="measure hand evaluation and simulation speed")
    b.add_argument("--json", action="store_true", help="print JSON")
    b.add_argument("--quick", action="store_true", help="small sizes (for tests)")
    b.add_argument(
        "--only",
        choices=("hand", "simulate"),
        default=None,
        help="measure only this (default: both)",
    )
    b.add_argument(
        "--variants",
        default=None,
        metavar="a,b,...",
        help="the variants whose simulation is measured (default: every variant)",
    )


def _add_warmup(sub) -> None:
    w = sub.add_parser(
        "warmup", help="compile the kernels and build the tables ahead of the first run"
    )
    w.add_argument("variants", nargs="*", metavar="VARIANT", help="default: every variant")
    _quiet_arg(w, "no summary line")


def _add_variants(sub) -> None:
    v = sub.add_parser("variants", help="list the variants and their rule options")
    v.add_argument("--json", action="store_true", help="print JSON")


def _add_rules(sub) -> None:
    ru = sub.add_parser("rules", help="the rules reference: options, patterns and prose")
    ru.add_argument(
        "variants", nargs="*", metavar="VARIANT", help="default with --out: every variant"
    )
    ru.add_argument(
        "--out", default=None, metavar="DIR", help="write the pages and an index to DIR"
    )
    ru.add_argument(
        "--format",
        choices=("html", "md"),
        default=None,
        help="page format (default: md when printed, html with --out)",
    )
    _quiet_arg(ru, "no summary line")


def _add_simulate(sub) -> None:
    sim = sub.add_parser("simulate", help="play deals of a variant and write their records")
    _variant_arg(sim)
    sim.add_argument(
        "--deals", type=count, required=True, metavar="N", help="deals to play (e.g. 1e6)"
    )
    _seed_arg(sim)
    _rule_args(sim)
    sim.add_argument("--policy", default=None, metavar="P|P0,P1,P2,P3", help=_POLICY_HELP)
    sim.add_argument(
        "--seating",
        choices=("seat", "dealer"),
        default="seat",
        help="read --policy by seat, or by place from each deal's dealer "
        "(the first policy always deals: duplicate seating keeps each policy's role)",
    )
    sim.add_argument(
        "--match-length", type=int, default=None, metavar="M", help="deals per match (default 16)"
    )
    _cluster_args(sim)
    _dataset_args(sim)
    _bot_params_arg(sim)


def _cluster_args(sim) -> None:
    """``simulate``'s workers and where they run: here, or on a Dask cluster over TLS."""
    _workers_arg(sim)
    sim.add_argument(
        "--backend",
        choices=("local", "dask"),
        default="local",
        help="play here, or on a Dask cluster (a LocalCluster without --scheduler)",
    )
    sim.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDR",
        help="tls://HOST:PORT or tcp://HOST:PORT (default: a LocalCluster)",
    )
    sim.add_argument(
        "--tls-ca-file",
        default=None,
        metavar="FILE",
        help="the cluster's CA (PEM; default: Dask's configuration)",
    )
    sim.add_argument(
        "--tls-cert",
        default=None,
        metavar="FILE",
        help="client certificate (PEM; default: Dask's configuration)",
    )
    sim.add_argument(
        "--tls-key",
        default=None,
        metavar="FILE",
        help="client private key (PEM; default: Dask's configuration)",
    )


def _dataset_args(sim) -> None:
    """``simulate``'s output: what is stored, in which file or folder, and replacing it."""
    sim.add_argument(
        "--summary-only",
        action="store_true",
        help="store mergeable summaries instead of per-deal rows",
    )
    sim.add_argument(
        "--chunk-matches",
        type=count,
        default=None,
        metavar="K",
        help="matches per chunk file of a dataset folder (default: 4096)",
    )
    sim.add_argument(
        "--out",
        required=True,
        metavar="PATH",
        help="PATH.parquet (one file) or DIR/ (a chunked, resumable dataset)",
    )
    _quiet_arg(sim)
    sim.add_argument(
        "--force",
        action="store_true",
        help="replace an --out that holds another run or a file that is not mjlab output",
    )


def _format_args(p) -> None:
    """``--json``, ``--format`` and ``--export`` (summarize, sweep, design)."""
    p.add_argument("--json", action="store_true", help="print JSON (the same as --format json)")
    p.add_argument(
        "--format",
        choices=("text", "json", "csv", "xlsx"),
        default="text",
        help="text or JSON printed; CSV printed or written to --export; XLSX (one sheet per "
        "table) written to --export",
    )
    p.add_argument(
        "--export",
        default=None,
        metavar="FILE",
        help="write the CSV or XLSX of --format to FILE instead of printing (default: print)",
    )


def _add_summarize(sub) -> None:
    sm = sub.add_parser("summarize", help="tables of a record file or dataset")
    sm.add_argument("path", metavar="PATH", help="a record file (.parquet) or a dataset folder")
    _format_args(sm)
    sm.add_argument(
        "--plot", default=None, metavar="DIR", help="write figures to DIR (default: none)"
    )
    sm.add_argument(
        "--loss",
        default=None,
        metavar="X[,X...]",
        help="amounts whose loss over a match is priced (default: the variant's stated ones)",
    )


def _add_sweep(sub) -> None:
    sw = sub.add_parser("sweep", help="one rule option over several values, paired deals")
    _variant_arg(sw)
    sw.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="K=V[,V...]",
        help="the swept option, K=V1,V2,... (or K=V: V against the default); other "
        "--rule K=V hold options fixed",
    )
    sw.add_argument(
        "--rules",
        default=None,
        metavar="FILE.toml",
        help="fixed rule options from TOML (default: none)",
    )
    sw.add_argument(
        "--deals", type=count, required=True, metavar="N", help="deals per value (e.g. 1e5)"
    )
    _seed_arg(sw, 0, "the seed of every value (common random numbers)")
    sw.add_argument("--policy", default=None, metavar="P|P0,P1,P2,P3", help=_POLICY_HELP)
    _workers_arg(sw)
    sw.add_argument(
        "--out", required=True, metavar="DIR", help="folder of the values' record files"
    )
    _format_args(sw)
    sw.add_argument(
        "--plot", default=None, metavar="DIR", help="write a figure per metric (default: none)"
    )
    sw.add_argument(
        "--baseline",
        default=None,
        metavar="V",
        help="the value differences are taken from (default: the option's default, always played)",
    )
    _quiet_arg(sw)
    sw.add_argument(
        "--force", action="store_true", help="replace a folder that holds another sweep"
    )
    sw.add_argument(
        "--no-bot-check",
        action="store_true",
        help="skip the check that strong still beats value at each value (analysis.guard)",
    )


def _add_report(sub) -> None:
    rp = sub.add_parser("report", help="the balance report (HTML, Markdown, JSON)")
    rp.add_argument(
        "--variants",
        default=None,
        metavar="a,b,...",
        help="the variants to report (names or Chinese names; default: every variant)",
    )
    rp.add_argument(
        "--deals",
        type=count,
        default=None,
        metavar="N",
        help="deals of each main run, half of it per sweep value, skill seating and "
        "sensitivity value (default: each variant's embedded budget)",
    )
    rp.add_argument(
        "--precision",
        type=float,
        default=None,
        metavar="SD",
        help="instead of --deals: size each variant's main run, headline sweeps and skill "
        "runs from pilots so that each headline's 95%% interval has about this half-width "
        "in SDs of a seat's per-deal result (default: each variant's embedded budget)",
    )
    _seed_arg(rp, 2026, "the seed of every run")
    _workers_arg(rp)
    rp.add_argument("--out", default="reports", metavar="DIR", help="the report's folder")
    _quiet_arg(rp, "no progress bars or summary line")


def _add_score(sub) -> None:
    sc = sub.add_parser("score", help="score a winning hand under a variant's rules")
    _variant_arg(sc)
    sc.add_argument("hand", metavar="HAND", help="concealed tiles including the winning tile")
    sc.add_argument(
        "--win",
        default=None,
        metavar="TILE",
        help="the winning tile (for a 字牌 天胡, optional: the dealer's last dealt card)",
    )
    how = sc.add_mutually_exclusive_group()
    how.add_argument(
        "--self-draw", action="store_true", help="a self-draw (the default without --from)"
    )
    how.add_argument(
        "--from",
        dest="from_seat",
        type=int,
        default=None,
        metavar="SEAT",
        help="won on a discard of SEAT (default: a self-draw)",
    )
    sc.add_argument(
        "--melds",
        default="",
        metavar='"pong:5z kong:1p ankong:9s chow:123m"',
        help="exposed groups (default: none)",
    )
    sc.add_argument("--seat", type=int, default=0, help="the winner's seat")
    sc.add_argument("--dealer", type=int, default=0, help="the dealer's seat")
    sc.add_argument("--streak", type=int, default=0, help="the dealer's streak")
    sc.add_argument(
        "--wild",
        action="append",
        default=[],
        metavar="TILE",
        help="a wild kind (repeatable; default: the variant's)",
    )
    sc.add_argument("--flowers", type=int, default=0, metavar="N", help="flower tiles held")
    sc.add_argument(
        "--xing-card",
        default=None,
        metavar="CARD",
        help="字牌: the 醒 card (default: the winning card)",
    )
    sc.add_argument(
        "--flag",
        action="append",
        default=[],
        metavar="NAME",
        help="context patterns: tianhu, dihu, gangkai, qianggang, ...",
    )
    _rule_args(sc)
    sc.add_argument("--json", action="store_true", help="print JSON")


def _add_replay(sub) -> None:
    rl = sub.add_parser("replay", help="print one deal turn by turn")
    _variant_arg(rl)
    rl.add_argument("--seed", type=int, required=True, metavar="S", help="the run's seed")
    rl.add_argument("--match", type=int, required=True, metavar="I", help="the match")
    rl.add_argument("--deal", type=int, default=0, metavar="J", help="the deal of the match")
    _rule_args(rl)
    rl.add_argument("--policy", default=None, metavar="P|P0,P1,P2,P3", help=_POLICY_HELP)
    rl.add_argument(
        "--match-length", type=int, default=None, metavar="M", help="deals per match (default 16)"
    )


def _add_fit(sub) -> None:
    ft = sub.add_parser("fit", help="fit the strong policy's models from simulated positions")
    _variant_arg(ft)
    ft.add_argument("--deals", type=count, default=20_000, metavar="N", help="deals observed")
    _seed_arg(ft, 1)
    ft.add_argument("--policy", default="value", help="the policy whose play is observed")
    _workers_arg(ft)
    ft.add_argument("--dry-run", action="store_true", help="fit and report, write nothing")
    _quiet_arg(ft)
    _rule_args(ft)


def _add_tune(sub) -> None:
    tu = sub.add_parser("tune", help="tune a policy's parameters by self-play (CMA-ES)")
    _variant_arg(tu)
    tu.add_argument(
        "--policy", default="strong", choices=("strong", "value"), help="the policy tuned"
    )
    tu.add_argument(
        "--deals", type=count, default=3000, metavar="N", help="deals per seating and candidate"
    )
    _seed_arg(tu, 1)
    tu.add_argument("--generations", type=int, default=12, help="CMA-ES generations")
    tu.add_argument(
        "--popsize", type=int, default=None, help="candidates per generation (default: CMA-ES's)"
    )
    _workers_arg(tu)
    tu.add_argument(
        "--seating",
        choices=("seat", "dealer"),
        default="seat",
        help="seat the candidate by seat, or by place from each deal's dealer (less noisy)",
    )
    tu.add_argument(
        "--only",
        metavar="NAME[,NAME...]",
        type=lambda s: [n.strip() for n in s.split(",")],
        default=None,
        help="search only these parameters; the others keep their committed values (default: all)",
    )
    tu.add_argument(
        "--over",
        metavar="K=V1,V2,...",
        default=None,
        help="tune for the mean edge over these values of one play option, the others at "
        "their defaults (default: the defaults alone)",
    )
    tu.add_argument("--dry-run", action="store_true", help="tune and report, write nothing")
    _quiet_arg(tu)
    _rule_args(tu)


def _add_ladder(sub) -> None:
    ld = sub.add_parser("ladder", help="each policy against the one below, duplicate seating")
    _variant_arg(ld)
    ld.add_argument("--deals", type=count, default=40_000, metavar="N", help="deals per seating")
    _seed_arg(ld, 1)
    ld.add_argument(
        "--policies",
        default=None,
        metavar="P1,P2,...",
        help="weakest first (default: every policy of the variant)",
    )
    _workers_arg(ld)
    ld.add_argument(
        "--sample",
        type=int,
        default=None,
        metavar="N",
        help="instead of one setting: the ladder at every non-default value of the variant's "
        "headline sweeps and at N settings drawn from its sensitivity plan (0: the headline "
        "values alone)",
    )
    ld.add_argument(
        "--sample-seed",
        type=int,
        default=None,
        metavar="S",
        help="the seed that draws the --sample settings (default: 0; only with --sample)",
    )
    ld.add_argument("--json", action="store_true", help="print JSON")
    _quiet_arg(ld)
    _rule_args(ld)
    _bot_params_arg(ld)


def _add_audit(sub) -> None:
    au = sub.add_parser(
        "audit", help="what a policy chose wherever it had a choice (claims, kongs, passes)"
    )
    _variant_arg(au)
    au.add_argument("--policy", default="strong", help="the policy at every seat")
    au.add_argument("--deals", type=count, default=400, metavar="N", help="deals replayed")
    _seed_arg(au, 7)
    au.add_argument("--json", action="store_true", help="print JSON")
    _rule_args(au)


def _add_rescore(sub) -> None:
    rs = sub.add_parser("rescore", help="pay recorded deals again under other payout options")
    rs.add_argument("path", metavar="PATH", help="a record file or dataset folder")
    _rule_args(rs)
    rs.add_argument("--out", required=True, metavar="FILE.parquet", help="the re-scored records")
    rs.add_argument("--force", action="store_true", help="replace --out if it exists")
    rs.add_argument(
        "--gap",
        action="store_true",
        help="measure the bias against re-simulation (value-aware play) and cache it",
    )
    rs.add_argument(
        "--gap-deals", type=count, default=20_000, metavar="N", help="deals of the --gap runs"
    )
    rs.add_argument("--json", action="store_true", help="print JSON")
    _quiet_arg(rs)


def _add_design(sub) -> None:
    dg = sub.add_parser("design", help="search rule settings for a fairness target")
    _variant_arg(dg)
    dg.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="K=V1,V2,...",
        help="an option and the values to combine (repeatable; default: none, so one setting)",
    )
    dg.add_argument(
        "--target",
        required=True,
        metavar="C",
        help='e.g. "|dealer_edge_sd|<=0.02" (SD units, which do not move with the stakes)',
    )
    dg.add_argument(
        "--keep",
        action="append",
        default=[],
        metavar="C",
        help='further constraints, e.g. "flow>=5" (repeatable; default: none)',
    )
    dg.add_argument(
        "--deals", type=count, default=100_000, metavar="N", help="deals per simulated setting"
    )
    _seed_arg(dg, 0, "the seed of every setting (common random numbers)")
    dg.add_argument("--policy", default=None, metavar="P[,P...]", help=_POLICY_HELP)
    dg.add_argument(
        "--simulate-all", action="store_true", help="simulate every setting (no re-scoring)"
    )
    dg.add_argument(
        "--max-settings",
        type=count,
        default=64,
        metavar="N",
        help="most settings played (a larger space is sampled)",
    )
    dg.add_argument(
        "--skill-deals",
        type=count,
        default=4_000,
        metavar="N",
        help="deals per seating of the skill edge (when a constraint names it)",
    )
    dg.add_argument(
        "--plot", default=None, metavar="FILE.png", help="draw the trade-off (default: none)"
    )
    dg.add_argument(
        "--no-bot-check",
        action="store_true",
        help="skip the check that strong still beats value at each passing or Pareto "
        "setting (analysis.guard; a flagged setting is a possible bot artifact)",
    )
    _workers_arg(dg)
    _format_args(dg)
    _quiet_arg(dg)
    _rule_args(dg)


# command name -> the builder that adds its subparser, in the order `mjlab --help` lists them
_BUILDERS = {
    "hand": _add_hand,
    "exact": _add_exact,
    "bench": _add_bench,
    "warmup": _add_warmup,
    "variants": _add_variants,
    "rules": _add_rules,
    "simulate": _add_simulate,
    "summarize": _add_summarize,
    "sweep": _add_sweep,
    "report": _add_report,
    "score": _add_score,
    "replay": _add_replay,
    "fit": _add_fit,
    "tune": _add_tune,
    "ladder": _add_ladder,
    "rescore": _add_rescore,
    "design": _add_design,
    "audit": _add_audit,
}


def _bot_params_arg(p) -> None:
    p.add_argument(
        "--bot-params",
        default=None,
        metavar="FILE.json",
        help="parameters for the seats of the file's policy (made by mjlab fit / tune)",
    )


def _rule_args(p) -> None:
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="K=V",
        help="set a rule option (repeatable, each option once; default: the variant's "
        "defaults); see `mjlab variants`",
    )
    p.add_argument(
        "--rules",
        default=None,
        metavar="FILE.toml",
        help="rule options from TOML (default: none)",
    )


def main(argv=None) -> int:
    """Entry point of the ``mjlab`` console script; returns the exit code."""
    _encodable_output()
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        if args.version:
            from engine import __version__

            print(f"mjlab {__version__}")
            return 0
        if not args.command:
            parser.print_help()
            return 2
        _settle(args)
        return int(_COMMANDS[args.command](args) or 0)
    except UsageError as exc:
        _debug_traceback()
        print(_one_line(f"mjlab: {exc}".replace("mjlab: mjlab", "mjlab")), file=sys.stderr)
        return 2
    except CacheError as exc:  # before OSError (it is a PermissionError): its own line
        _debug_traceback()
        print(_one_line(f"mjlab: {exc}"), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mjlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except MemoryError:
        _debug_traceback()
        print("mjlab: out of memory (give fewer --deals, or --out DIR/)", file=sys.stderr)
        return 1
    except OSError as exc:  # the environment: full disk, permission, read-only folder
        from engine.fileio import os_error_text

        _debug_traceback()
        print(_one_line(f"mjlab: {os_error_text(exc)}"), file=sys.stderr)
        return 1
    except Exception:  # an internal error: show it, exit 1
        import traceback

        traceback.print_exc()
        print("mjlab: internal error (the traceback above); please report it", file=sys.stderr)
        return 1


_PLAYS = ("simulate", "sweep", "design", "replay")
"""Commands whose ``--policy`` defaults to the balance report's policy."""


def _settle(args) -> None:
    """Checks and defaults every command shares, once parsed: variant names (a Chinese
    name is accepted), a rule option given twice (refused), the default policy.
    """
    if getattr(args, "variant", None):
        args.variant = variant_name(args.variant)
    names = getattr(args, "variants", None)
    if isinstance(names, list):
        args.variants = [variant_name(n) for n in names]
    elif isinstance(names, str):
        args.variants = ",".join(variant_name(n) if n.strip() else n for n in names.split(","))
    rules = getattr(args, "rule", None) or []
    seen: set[str] = set()
    for r in rules:
        key = r.split("=", 1)[0].strip()
        if "=" in r and key in seen:
            raise UsageError(f"--rule {key} is given twice; give each option once")
        seen.add(key)
    if args.command in _PLAYS and getattr(args, "policy", "") is None:
        try:
            args.policy = default_policy(args.variant)
        except UsageError:  # an unknown variant: the command names the known ones
            pass


def variant_name(name: str) -> str:
    """A registered variant's name from its name or its Chinese name (丽水, 丽水麻将, 推倒胡):
    the one variant whose Chinese name contains ``name``; anything else is returned as is
    (the command then names the known variants).
    """
    text = str(name).strip()
    if not text or text.isascii():
        return text
    from engine import variants

    hits = [n for n in variants.names() if len(text) >= 2 and text in _hanzi_name(n)]
    return hits[0] if len(hits) == 1 else text


def _hanzi_name(name: str) -> str:
    from engine import variants

    return variants.get(name).long_name.split()[0]


def default_policy(variant: str) -> str:
    """The policy a command plays by default: the balance report's (``strong`` where the
    variant has it, else ``value``: :func:`analysis.report.report_policy`).
    """
    from analysis.report._config import report_policy
    from engine import variants

    return report_policy(variants.get(variant))


def _encodable_output() -> None:
    """Let stdout and stderr write any text: a stream whose encoding cannot hold 汉字
    (``PYTHONIOENCODING=ascii``, an ASCII-only terminal) writes them as backslash
    escapes instead of failing.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            "麻".encode(stream.encoding or "ascii")
        except (LookupError, UnicodeEncodeError):
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                reconfigure(errors="backslashreplace")
        except (AttributeError, TypeError):
            continue


def _debug_traceback() -> None:
    if os.environ.get("MJLAB_DEBUG"):
        import traceback

        traceback.print_exc()


def _one_line(text: str) -> str:
    return " ".join(text.split("\n"))


if __name__ == "__main__":
    sys.exit(main())
