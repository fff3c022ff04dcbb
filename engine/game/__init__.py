"""The mahjong family: its toolkit, game loop and entry points.

- the toolkit: encodings (``_layout``), hand patterns (``_patterns``, ``_eval``), bots
  (``_params``, ``_bots``, ``_strong``);
- the loop: ``_loop`` (and ``_observe``), reaching the variants through ``_hooks``;
- the entry points of :data:`engine.family.MAHJONG`: replays (:func:`replay`, in
  ``_replay``), the conformance check (``testing``), the fit (``fit``), the tuning
  spaces (``tuning``).
"""

from __future__ import annotations

from ._replay import replay, replay_events

__all__ = ["replay", "replay_events"]
