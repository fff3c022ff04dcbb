"""Small helpers shared by the analysis modules (not public)."""

from __future__ import annotations

import pandas as pd

ROLE_NAMES = {
    4: ("dealer", "xiajia", "duijia", "shangjia"),
    3: ("dealer", "xiajia", "shangjia"),
    2: ("dealer", "opponent"),
}
"""Role label of each distance from the dealer in turn order (下家 follows the dealer)."""

ROLE_PROSE = {
    "dealer": "the dealer",
    "xiajia": "the seat after the dealer (下家)",
    "duijia": "the seat opposite the dealer (对家)",
    "shangjia": "the seat before the dealer (上家)",
    "opponent": "the non-dealer",
}


def with_identity(
    variant: str, rules_id: str, rows: list[dict], columns: list[str] | None = None
) -> pd.DataFrame:
    """A tidy frame whose first columns are ``variant, rules_id``."""
    cols = None if columns is None else ["variant", "rules_id", *columns]
    recs = [{"variant": variant, "rules_id": rules_id, **r} for r in rows]
    return pd.DataFrame.from_records(recs, columns=cols)
