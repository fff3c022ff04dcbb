"""The mahjong family's loop and its entry points.

- the loop: :mod:`engine.play.mahjong.loop` (and ``observe``), reaching the variants
  through :mod:`engine.play.mahjong.hooks`;
- the entry points of :data:`engine.play.family.MAHJONG`: replays
  (:mod:`engine.play.mahjong.replay`), the conformance check (``testing``), the fit
  (``fit``), the tuning spaces (``tuning``).

The toolkit it plays with (encodings, patterns, evaluation, bots) is :mod:`engine.mahjong`.
"""
