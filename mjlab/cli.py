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
}


def _build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="mjlab", description=__doc__.splitlines()[0].strip(" ."))
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    for build in _BUILDERS.values():
        build(sub)
    return p


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
    e.add_argument("--tiles", type=int, choices=(136, 108), default=None)
    e.add_argument("--hand", type=int, default=None, metavar="N", help="tiles in the hand")
    e.add_argument(
        "--wild",
        default=None,
        metavar="TILE[,TILE]",
        help="wild kind(s), e.g. 7z or 5m,5p; 'flip' or 'flip2' for a random indicator",
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
    e.add_argument("--rule", action="append", default=[], metavar="K=V")
    e.add_argument("--json", action="store_true")


def _add_bench(sub) -> None:
    b = sub.add_parser("bench", help="measure hand evaluation and simulation speed")
    b.add_argument("--json", action="store_true")
    b.add_argument("--quick", action="store_true", help="small sizes (for tests)")
    b.add_argument("--only", choices=("hand", "simulate"), default=None)


def _add_warmup(sub) -> None:
    w = sub.add_parser(
        "warmup", help="compile the kernels and build the tables ahead of the first run"
    )
    w.add_argument("variants", nargs="*", metavar="VARIANT", help="default: every variant")
    w.add_argument("--quiet", action="store_true", help="no summary line")


def _add_variants(sub) -> None:
    v = sub.add_parser("variants", help="list the variants and their rule options")
    v.add_argument("--json", action="store_true")


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
    ru.add_argument("--quiet", action="store_true", help="no summary line")


def _add_simulate(sub) -> None:
    sim = sub.add_parser("simulate", help="play deals of a variant and write their records")
    sim.add_argument("variant", metavar="VARIANT")
    sim.add_argument("--deals", type=int, required=True, metavar="N")
    sim.add_argument("--seed", type=int, default=0, metavar="S")
    _rule_args(sim)
    sim.add_argument(
        "--policy",
        default="value",
        metavar="P|P0,P1,P2,P3",
        help="bot policy for every seat, or one per seat",
    )
    sim.add_argument(
        "--seating",
        choices=("seat", "dealer"),
        default="seat",
        help="read --policy by seat (default) or by place from each deal's dealer "
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
    sim.add_argument("--workers", type=int, default=None, metavar="W")
    sim.add_argument("--backend", choices=("local", "dask"), default="local")
    sim.add_argument(
        "--scheduler", default=None, metavar="ADDR", help="tls://HOST:PORT or tcp://HOST:PORT"
    )
    sim.add_argument("--tls-ca-file", default=None, metavar="FILE", help="the cluster's CA (PEM)")
    sim.add_argument("--tls-cert", default=None, metavar="FILE", help="client certificate (PEM)")
    sim.add_argument("--tls-key", default=None, metavar="FILE", help="client private key (PEM)")


def _dataset_args(sim) -> None:
    """``simulate``'s output: what is stored, in which file or folder, and replacing it."""
    sim.add_argument(
        "--summary-only",
        action="store_true",
        help="store mergeable summaries instead of per-deal rows",
    )
    sim.add_argument(
        "--chunk-matches",
        type=int,
        default=None,
        metavar="K",
        help="matches per chunk file of a dataset folder",
    )
    sim.add_argument(
        "--out",
        required=True,
        metavar="PATH",
        help="PATH.parquet (one file) or DIR/ (a chunked, resumable dataset)",
    )
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    sim.add_argument(
        "--force",
        action="store_true",
        help="replace an --out that holds another run or a file that is not mjlab output",
    )


def _add_summarize(sub) -> None:
    sm = sub.add_parser("summarize", help="tables of a record file or dataset")
    sm.add_argument("path", metavar="PATH")
    sm.add_argument("--json", action="store_true")
    sm.add_argument("--plot", default=None, metavar="DIR", help="write figures to DIR")
    sm.add_argument(
        "--loss",
        default=None,
        metavar="X[,X...]",
        help="amounts whose loss over a match is priced (default: the variant's stated ones)",
    )


def _add_sweep(sub) -> None:
    sw = sub.add_parser("sweep", help="one rule option over several values, paired deals")
    sw.add_argument("variant", metavar="VARIANT")
    sw.add_argument("--rule", action="append", default=[], metavar="K=V1,V2,...")
    sw.add_argument("--rules", default=None, metavar="FILE.toml")
    sw.add_argument("--deals", type=int, required=True, metavar="N")
    sw.add_argument("--seed", type=int, default=0)
    sw.add_argument("--policy", default="value")
    sw.add_argument("--workers", type=int, default=None)
    sw.add_argument("--out", required=True, metavar="DIR")
    sw.add_argument("--json", action="store_true")
    sw.add_argument("--plot", default=None, metavar="DIR")
    sw.add_argument(
        "--baseline",
        default=None,
        metavar="V",
        help="the value differences are taken from (default: the option's default, always played)",
    )
    sw.add_argument("--quiet", action="store_true", help="no progress bar")
    sw.add_argument(
        "--force", action="store_true", help="replace a folder that holds another sweep"
    )


def _add_report(sub) -> None:
    rp = sub.add_parser("report", help="the balance report (HTML, Markdown, JSON)")
    rp.add_argument("--variants", default=None, metavar="a,b,...")
    rp.add_argument("--deals", type=int, default=None, metavar="N")
    rp.add_argument("--seed", type=int, default=2026)
    rp.add_argument("--workers", type=int, default=None)
    rp.add_argument("--out", default="reports", metavar="DIR")
    rp.add_argument("--quiet", action="store_true")


def _add_score(sub) -> None:
    sc = sub.add_parser("score", help="score a winning hand under a variant's rules")
    sc.add_argument("variant", metavar="VARIANT")
    sc.add_argument("hand", metavar="HAND", help="concealed tiles including the winning tile")
    sc.add_argument(
        "--win",
        default=None,
        metavar="TILE",
        help="the winning tile (for a 字牌 天胡, optional: the dealer's last dealt card)",
    )
    how = sc.add_mutually_exclusive_group()
    how.add_argument("--self-draw", action="store_true")
    how.add_argument("--from", dest="from_seat", type=int, default=None, metavar="SEAT")
    sc.add_argument("--melds", default="", metavar='"pong:5z kong:1p ankong:9s chow:123m"')
    sc.add_argument("--seat", type=int, default=0)
    sc.add_argument("--dealer", type=int, default=0)
    sc.add_argument("--streak", type=int, default=0)
    sc.add_argument("--wild", action="append", default=[], metavar="TILE")
    sc.add_argument("--flowers", type=int, default=0, metavar="N")
    sc.add_argument("--xing-card", default=None, metavar="CARD", help="字牌: the 醒 card")
    sc.add_argument(
        "--flag",
        action="append",
        default=[],
        metavar="NAME",
        help="context patterns: tianhu, dihu, gangkai, qianggang, ...",
    )
    _rule_args(sc)
    sc.add_argument("--json", action="store_true")


def _add_replay(sub) -> None:
    rl = sub.add_parser("replay", help="print one deal turn by turn")
    rl.add_argument("variant", metavar="VARIANT")
    rl.add_argument("--seed", type=int, required=True)
    rl.add_argument("--match", type=int, required=True)
    rl.add_argument("--deal", type=int, default=0)
    _rule_args(rl)
    rl.add_argument("--policy", default="value")
    rl.add_argument("--match-length", type=int, default=None)


def _add_fit(sub) -> None:
    ft = sub.add_parser("fit", help="fit the strong policy's models from simulated positions")
    ft.add_argument("variant", metavar="VARIANT")
    ft.add_argument("--deals", type=int, default=20_000)
    ft.add_argument("--seed", type=int, default=1)
    ft.add_argument("--policy", default="value", help="the policy whose play is observed")
    ft.add_argument("--workers", type=int, default=None)
    ft.add_argument("--dry-run", action="store_true", help="fit and report, write nothing")
    ft.add_argument("--quiet", action="store_true")
    _rule_args(ft)


def _add_tune(sub) -> None:
    tu = sub.add_parser("tune", help="tune a policy's parameters by self-play (CMA-ES)")
    tu.add_argument("variant", metavar="VARIANT")
    tu.add_argument("--policy", default="strong", choices=("strong", "value"))
    tu.add_argument("--deals", type=int, default=3000, help="deals per seating and candidate")
    tu.add_argument("--seed", type=int, default=1)
    tu.add_argument("--generations", type=int, default=12)
    tu.add_argument("--popsize", type=int, default=None)
    tu.add_argument("--workers", type=int, default=None)
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
        help="search only these parameters; the others keep their committed values",
    )
    tu.add_argument("--dry-run", action="store_true", help="tune and report, write nothing")
    tu.add_argument("--quiet", action="store_true")
    _rule_args(tu)


def _add_ladder(sub) -> None:
    ld = sub.add_parser("ladder", help="each policy against the one below, duplicate seating")
    ld.add_argument("variant", metavar="VARIANT")
    ld.add_argument("--deals", type=int, default=40_000, help="deals per seating")
    ld.add_argument("--seed", type=int, default=1)
    ld.add_argument("--policies", default=None, metavar="P1,P2,...", help="weakest first")
    ld.add_argument("--workers", type=int, default=None)
    ld.add_argument("--json", action="store_true")
    ld.add_argument("--quiet", action="store_true")
    _rule_args(ld)
    _bot_params_arg(ld)


def _add_rescore(sub) -> None:
    rs = sub.add_parser("rescore", help="pay recorded deals again under other payout options")
    rs.add_argument("path", metavar="PATH", help="a record file or dataset folder")
    _rule_args(rs)
    rs.add_argument("--out", required=True, metavar="FILE.parquet")
    rs.add_argument("--force", action="store_true", help="replace --out if it exists")
    rs.add_argument(
        "--gap",
        action="store_true",
        help="measure the bias against re-simulation (value-aware play) and cache it",
    )
    rs.add_argument("--gap-deals", type=int, default=20_000, metavar="N")
    rs.add_argument("--json", action="store_true")
    rs.add_argument("--quiet", action="store_true")


def _add_design(sub) -> None:
    dg = sub.add_parser("design", help="search rule settings for a fairness target")
    dg.add_argument("variant", metavar="VARIANT")
    dg.add_argument("--vary", action="append", default=[], metavar="K=V1,V2,...", help="repeatable")
    dg.add_argument("--target", required=True, metavar="C", help='e.g. "dealer_edge<=0.02"')
    dg.add_argument(
        "--keep", action="append", default=[], metavar="C", help='e.g. "flow>=5" (repeatable)'
    )
    dg.add_argument("--deals", type=int, default=100_000, help="deals per simulated setting")
    dg.add_argument("--seed", type=int, default=0)
    dg.add_argument("--policy", default="value", metavar="P[,P...]")
    dg.add_argument(
        "--simulate-all", action="store_true", help="simulate every setting (no re-scoring)"
    )
    dg.add_argument("--max-settings", type=int, default=64, metavar="N")
    dg.add_argument("--skill-deals", type=int, default=4_000, metavar="N")
    dg.add_argument("--plot", default=None, metavar="FILE.png")
    dg.add_argument("--workers", type=int, default=None)
    dg.add_argument("--json", action="store_true")
    dg.add_argument("--quiet", action="store_true")
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
        help="set a rule option (repeatable); see `mjlab variants`",
    )
    p.add_argument("--rules", default=None, metavar="FILE.toml", help="rule options from TOML")


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
