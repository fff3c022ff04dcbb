"""The 字牌 family's loop and its entry points: replay, conformance, fit, tuning.

The toolkit it plays with (cards, 胡息, bots) is :mod:`engine.zipai`.
"""
