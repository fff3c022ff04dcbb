"""Exceptions shared by the engine, the analysis layer and the CLI."""

from __future__ import annotations

__all__ = ["UsageError", "CacheError"]


class UsageError(ValueError):
    """Bad input from the user (unknown variant, bad option value, malformed hand...).

    The CLI reports it as one line on stderr and exits with code 2.
    """


class CacheError(PermissionError):
    """A cache folder or file that someone other than the user could have written
    (engine._cache): mjlab will not load from it.

    The CLI reports it as one line on stderr (naming the path and the fix) and exits 1.
    """
