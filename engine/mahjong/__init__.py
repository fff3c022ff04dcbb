"""The mahjong toolkit the variants build on: encodings, patterns, evaluation, bots.

- :mod:`engine.mahjong.layout`: the packed rules, state and record slots;
- :mod:`engine.mahjong.patterns` and :mod:`engine.mahjong.evaluation`: hand patterns
  and the hand evaluation the bots score discards with;
- :mod:`engine.mahjong.params`, :mod:`engine.mahjong.bots`, :mod:`engine.mahjong.strong`:
  the bots' parameter layout and their decision kernels.

The loop that plays them is in :mod:`engine.play.mahjong`.
"""
