"""Exceptions shared by the engine, the analysis layer and the CLI."""

from __future__ import annotations

from engine.jit.cache import CacheError

__all__ = ["UsageError", "CacheError"]


class UsageError(ValueError):
    """Bad input from the user (unknown variant, bad option value, malformed hand...).

    The CLI reports it as one line on stderr and exits with code 2.
    """
