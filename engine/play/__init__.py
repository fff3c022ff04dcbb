"""Playing deals: both families' loops and everything that drives them.

- :mod:`engine.play.mahjong` and :mod:`engine.play.zipai`: each family's loop,
  observation, replay, conformance check, fitting and tuning drivers;
- :mod:`engine.play.drivers`: what both families' drivers share;
- :mod:`engine.play.bots` (policies and parameter rows per seat) and
  :mod:`engine.play.records` (the per-deal records);
- :mod:`engine.play.family`: the two families as objects.
"""
