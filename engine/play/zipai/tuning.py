"""The 字牌 family's tuning spaces: which bot parameters ``mjlab tune`` searches."""

from __future__ import annotations

from engine._dims import Dim

__all__ = ["SPACES", "relevant"]

SPACES = {
    "strong": (
        Dim("alpha", 0.0, 3.0, 0.4),
        Dim("keep", 0.0, 1.0, 0.15),
        Dim("peng_bias", -0.3, 0.3, 0.04),
        Dim("chi_bias", -0.3, 0.3, 0.04),
        Dim("colour", 0.0, 2.0, 0.3),
        Dim("survive", 0.7, 1.0, 0.04),
        Dim("pass_risk", 0.0, 2.0, 0.3),
        Dim("pair", 0.0, 0.3, 0.04),
    ),
    "value": (
        Dim("huxi", 0.0, 1.0, 0.15),
        Dim("pair", 0.0, 5.0, 1.0),
        Dim("claim_margin", -1.0, 1.0, 0.3),
        Dim("pass_margin", -0.3, 1.0, 0.2),
    ),
}
"""The dimensions of each tuned policy (engine.zipai.params)."""


PASSING = ("pass_margin", "survive", "pass_risk")
"""The dimensions of passing an optional win: inert where every win is forced."""


def relevant(variant, resolved, policy: str) -> list[Dim]:
    """The dimensions ``mjlab tune`` searches for ``policy``: the space's, less those of
    passing a win under ``must_win=any`` (有胡必胡: no win may be passed).
    """
    dims = list(SPACES.get(policy, ()))
    if resolved.get("must_win") == "any":
        dims = [d for d in dims if d.name not in PASSING]
    return dims
