"""The ``mjlab`` command handlers: the top layer, above the engine and the analysis.

Each handler takes the parsed arguments (an :class:`argparse.Namespace` built by
:mod:`mjlab.cli`) and returns the exit code; it checks its input, calls domain
functions that take plain Python values, and prints. The domain modules below never see
a Namespace. Every module here imports only :mod:`engine.errors` at its top and the
engine and analysis inside its handlers; the functions below are the entry points that
:mod:`mjlab.cli` dispatches to, each importing its command's module only when that
command runs, so that ``mjlab --help`` compiles none of them.

- :mod:`.hand`: ``hand``; :mod:`.exact`: ``exact``; :mod:`.bench`: ``bench``;
  :mod:`.warmup`: ``warmup``;
- :mod:`.variants`: ``variants``, ``score``, ``replay``; :mod:`.rules`: ``rules``;
- :mod:`.simulate`: ``simulate``; :mod:`.summarize`: ``summarize``, ``sweep``;
- :mod:`.report`: ``report``; :mod:`.bots`: ``fit``, ``tune``; :mod:`.ladder`: ``ladder``;
- :mod:`.rescore`: ``rescore``; :mod:`.design`: ``design``; :mod:`.audit`: ``audit``.
"""

from __future__ import annotations

__all__ = [
    "run_hand",
    "run_exact",
    "run_bench",
    "run_variants",
    "run_rules",
    "run_simulate",
    "run_summarize",
    "run_sweep",
    "run_report",
    "run_score",
    "run_replay",
    "run_fit",
    "run_tune",
    "run_ladder",
    "run_rescore",
    "run_design",
    "run_warmup",
    "run_audit",
]


def run_hand(args) -> int:
    """``mjlab hand``: :func:`mjlab.commands.hand.run_hand`."""
    from mjlab.commands.hand import run_hand as handler

    return handler(args)


def run_exact(args) -> int:
    """``mjlab exact``: :func:`mjlab.commands.exact.run_exact`."""
    from mjlab.commands.exact import run_exact as handler

    return handler(args)


def run_bench(args) -> int:
    """``mjlab bench``: :func:`mjlab.commands.bench.run_bench`."""
    from mjlab.commands.bench import run_bench as handler

    return handler(args)


def run_variants(args) -> int:
    """``mjlab variants``: :func:`mjlab.commands.variants.run_variants`."""
    from mjlab.commands.variants import run_variants as handler

    return handler(args)


def run_rules(args) -> int:
    """``mjlab rules``: :func:`mjlab.commands.rules.run_rules`."""
    from mjlab.commands.rules import run_rules as handler

    return handler(args)


def run_simulate(args) -> int:
    """``mjlab simulate``: :func:`mjlab.commands.simulate.run_simulate`."""
    from mjlab.commands.simulate import run_simulate as handler

    return handler(args)


def run_summarize(args) -> int:
    """``mjlab summarize``: :func:`mjlab.commands.summarize.run_summarize`."""
    from mjlab.commands.summarize import run_summarize as handler

    return handler(args)


def run_sweep(args) -> int:
    """``mjlab sweep``: :func:`mjlab.commands.summarize.run_sweep`."""
    from mjlab.commands.summarize import run_sweep as handler

    return handler(args)


def run_report(args) -> int:
    """``mjlab report``: :func:`mjlab.commands.report.run_report`."""
    from mjlab.commands.report import run_report as handler

    return handler(args)


def run_score(args) -> int:
    """``mjlab score``: :func:`mjlab.commands.variants.run_score`."""
    from mjlab.commands.variants import run_score as handler

    return handler(args)


def run_replay(args) -> int:
    """``mjlab replay``: :func:`mjlab.commands.variants.run_replay`."""
    from mjlab.commands.variants import run_replay as handler

    return handler(args)


def run_fit(args) -> int:
    """``mjlab fit``: :func:`mjlab.commands.bots.run_fit`."""
    from mjlab.commands.bots import run_fit as handler

    return handler(args)


def run_tune(args) -> int:
    """``mjlab tune``: :func:`mjlab.commands.bots.run_tune`."""
    from mjlab.commands.bots import run_tune as handler

    return handler(args)


def run_ladder(args) -> int:
    """``mjlab ladder``: :func:`mjlab.commands.ladder.run_ladder`."""
    from mjlab.commands.ladder import run_ladder as handler

    return handler(args)


def run_rescore(args) -> int:
    """``mjlab rescore``: :func:`mjlab.commands.rescore.run_rescore`."""
    from mjlab.commands.rescore import run_rescore as handler

    return handler(args)


def run_design(args) -> int:
    """``mjlab design``: :func:`mjlab.commands.design.run_design`."""
    from mjlab.commands.design import run_design as handler

    return handler(args)


def run_warmup(args) -> int:
    """``mjlab warmup``: :func:`mjlab.commands.warmup.run_warmup`."""
    from mjlab.commands.warmup import run_warmup as handler

    return handler(args)


def run_audit(args) -> int:
    """``mjlab audit``: :func:`mjlab.commands.audit.run_audit`."""
    from mjlab.commands.audit import run_audit as handler

    return handler(args)
