"""The on-disk cache for built tables (hand tables, exact-probability tables).

Tables are built by code in the repository and stored under a key that hashes the
builder's source, so a change to a builder invalidates its cache. The folder is
``$MJLAB_CACHE_DIR`` if set, else the platform's user cache folder (``~/.cache/mjlab``).
Files are written to a temporary name and renamed, so a killed build never leaves a
truncated table behind.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import tempfile
from pathlib import Path

import numpy as np
import platformdirs

__all__ = ["cache_dir", "source_key", "load_or_build"]


def cache_dir() -> Path:
    """The cache folder (created on first use)."""
    path = Path(os.environ.get("MJLAB_CACHE_DIR") or platformdirs.user_cache_dir("mjlab"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def source_key(*objects) -> str:
    """A short hash of the source code of the given modules or functions."""
    h = hashlib.sha256()
    for obj in objects:
        h.update(inspect.getsource(obj).encode())
    return h.hexdigest()[:16]


def load_or_build(name: str, key: str, build) -> dict[str, np.ndarray]:
    """Load the arrays cached as ``name-key.npz``, or call ``build()`` and cache its dict."""
    path = cache_dir() / f"{name}-{key}.npz"
    if path.exists():
        try:
            with np.load(path) as data:
                return {k: data[k] for k in data.files}
        except (OSError, ValueError, EOFError):
            path.unlink(missing_ok=True)
    arrays = build()
    _prune(path.parent, name, keep=path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return arrays


def _prune(folder: Path, name: str, keep: Path, n: int = 2) -> None:
    """Remove all but the ``n`` newest other cached versions of ``name``."""
    others = sorted(
        (p for p in folder.glob(f"{name}-*.npz") if p != keep),
        key=lambda p: p.stat().st_mtime,
    )
    for old in others[: max(0, len(others) - n)]:
        old.unlink(missing_ok=True)
