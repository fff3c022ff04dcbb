"""The variant registry: one place that knows every variant by name."""

from __future__ import annotations

from ..errors import UsageError
from ._base import Variant

_REGISTRY: dict[str, Variant] = {}


def register(variant: Variant) -> Variant:
    """Add a variant (each module calls this on its last line)."""
    if variant.name in _REGISTRY:
        raise ValueError(f"variant {variant.name!r} registered twice")
    _REGISTRY[variant.name] = variant
    return variant


def get(name: str) -> Variant:
    """The variant called ``name`` (UsageError naming the known ones if unknown)."""
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise UsageError(f"unknown variant {name!r}; known variants: {known}") from None


def names() -> list[str]:
    """Registered variant names, sorted."""
    return sorted(_REGISTRY)
