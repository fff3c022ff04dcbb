"""A tuned parameter's box: the one record the tuning spaces of both families share."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Dim"]


@dataclass(frozen=True)
class Dim:
    """One tuned parameter: ``name`` (``mult.3`` is element 3 of ``mult``), its box and
    the step CMA starts with.
    """

    name: str
    lo: float
    hi: float
    step: float
