"""Runs: simulations, datasets, fitting and tuning, benchmarks, re-scoring, rules pages.

The layer between the analysis and the play: what the commands and the analysis call.
"""
