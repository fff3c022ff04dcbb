"""The mahjong family: its toolkit, game loop and entry points.

- the toolkit: encodings (``_layout``), hand patterns (``_patterns``, ``_eval``), bots
  (``_params``, ``_bots``, ``_strong``);
- the loop: ``_loop`` (and ``_observe``), reaching the variants through ``_hooks``;
- the entry points of :data:`engine.family.MAHJONG`: replays (:func:`replay`, in
  ``_replay``), the conformance check (``testing``), the fit (``fit``), the tuning
  spaces (``tuning``).
"""

from __future__ import annotations

__all__ = ["replay", "replay_events"]


def __getattr__(name):
    # imported on first use: the replays reach the loop, whose hooks read the variant
    # registry, and the variants import this package's toolkit while they load
    if name in __all__:
        from . import _replay

        return getattr(_replay, name)
    raise AttributeError(f"module 'engine.game' has no attribute {name!r}")
