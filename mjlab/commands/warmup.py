"""``mjlab warmup [VARIANT...]``: compile ahead of time what ``simulate``, ``sweep`` and
``report`` need for the named variants (all by default): the hand tables, each family's
game kernels, and the hand evaluation that ``hand`` and ``score`` use. The notice and
the bar of a cold start are :mod:`engine.jit.warmup`'s.
"""

from __future__ import annotations

import sys
import time

__all__ = ["warmup", "run_warmup"]


def warmup(variants=None, *, hand: bool = True, out=sys.stderr) -> dict[str, float]:
    """Compile (or load) the kernels and tables ahead of time; CPU seconds per step.

    ``variants``: names (default: every registered variant). Each variant plays one deal
    with a strong seat among value seats, which compiles its family's game kernels
    (shared by the variants of a family) and its own hooks and strong decisions.
    """
    from engine import variants as registry
    from engine.hand._tables import tables
    from engine.jit.warmup import expect
    from engine.play.family import family_of
    from engine.runs.run import simulate

    names = list(variants) if variants else list(registry.names())
    for name in names:
        registry.get(name)  # UsageError naming an unknown variant, before any work
    steps: dict[str, float] = {}

    def step(label, part, fn):
        t = time.process_time()
        with expect(part):
            fn()
        steps[label] = time.process_time() - t

    step("hand tables", "engine.hand._tables", tables)
    if hand:
        step("hand evaluation", "engine.hand", _hand_api)
    for name in names:
        package = family_of(registry.get(name)).package
        # value and strong seats: the strong policy's kernels are bound, and compiled,
        # only when a seat plays it (the balance report's main figures do)
        step(name, package, lambda n=name: simulate(n, 1, seed=0, progress=False,
                                                   policies=_mixed(n)))  # fmt: skip
    return steps


def _mixed(name: str) -> list[str]:
    """A strong seat among value seats for a variant's players (all value where it has no
    fitted strong model).
    """
    from engine import variants as registry
    from engine.play.bots import BOTDATA

    v = registry.get(name)
    first = "strong" if (BOTDATA / name / "strong.json").exists() else "value"
    return [first] + ["value"] * (v.n_players(v.resolve(None)) - 1)


def _hand_api() -> None:
    """What ``mjlab hand`` and the single-hand API compile: a waiting and a full hand,
    with and without wilds.
    """
    from mjlab.commands.hand import analyse

    analyse("123m456p789s1122z", [], None, None)
    analyse("123m456p789s11223z", [], None, None)
    analyse("123m456p789s1122z", ["5z"], None, None)
    analyse("123m456p789s11225z", ["5z"], None, None)


def run_warmup(args) -> int:
    """Handle ``mjlab warmup [VARIANT...]``."""
    steps = warmup(args.variants or None)
    if not args.quiet:
        from engine.jit.njit import compiled_dir

        total = sum(steps.values())
        parts = ", ".join(f"{k} {v:.1f} s" for k, v in steps.items())
        print(f"warm: {parts} (CPU, {total:.1f} s in all); cache {compiled_dir()}")
    return 0
