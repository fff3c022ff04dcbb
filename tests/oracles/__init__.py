"""Brute-force twins of engine functions, used as test oracles (no tables, no numba)."""
