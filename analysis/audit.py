"""The decision audit as rates with intervals (``mjlab audit``, the report's methods).

:func:`engine.runs.audit.audit` counts what a policy chose where it had a choice; here
each rate is a count over the choices it was made from, with its Wilson interval, and
each per-deal figure a count over the deals (a Poisson interval on the count).
"""

from __future__ import annotations

import pandas as pd
from scipy import stats as st

from analysis.stats import wilson

__all__ = ["RATES", "audit_table", "audit_text"]

RATES = (
    # (label, count, the counts it is out of; None: per deal)
    ("碰 taken (suit tiles)", "pong_made", ("pong_made", "pong_declined")),
    ("碰 taken (honors)", "honor_pong_made", ("honor_pong_made", "honor_pong_declined")),
    ("明杠 made", "mingkong_made", ("mingkong_made", "mingkong_declined")),
    ("暗杠 made", "ankong_made", ("ankong_made", "ankong_declined")),
    ("补杠 made", "addkong_made", ("addkong_made", "addkong_declined")),
    ("吃 taken", "chow_made", ("chow_made", "chow_declined")),
    ("live waits kept", "wait_kept", ("wait_kept", "wait_broken")),
    ("deal-ins against a visibly close opponent", "deal_in_visible", ("deal_in",)),
    ("legal wins passed on a discard, per deal", "win_passed_discard", None),
    ("legal self-draws passed, per deal", "win_passed_self", None),
    ("  of them for 金雀", "passed_for_jinque", None),
    ("  of them to wait for a self-draw", "passed_for_self_draw", None),
    ("  of them for 游金", "passed_for_youjin", None),
    ("wilds discarded, per deal", "wild_discarded", None),
    ("deal-ins, per deal", "deal_in", None),
    # 字牌 (engine.play.zipai.audit)
    ("吃 taken", "chi_made", ("chi_made", "chi_declined")),
    ("  of them worth 0 胡息", "chi_zero_huxi", ("chi_made",)),
    ("碰 taken", "peng_made", ("peng_made", "peng_declined")),
    ("pairs spent on a 0-胡息 吃, per deal", "pair_spent_zero_huxi_chi", None),
    ("legal wins passed, per deal", "win_passed", None),
    ("  of them on a discard", "win_passed_discard", None),
    ("  of them on a flipped card", "win_passed_flip", None),
    ("  of them on a self-draw", "win_passed_self_draw", None),
    ("live waits broken, per deal", "wait_broken_live", None),
)
"""The rates the audit shows."""


def _poisson(k: int, level: float = 0.95) -> tuple[float, float]:
    a = 1 - level
    lo = st.chi2.ppf(a / 2, 2 * k) / 2 if k > 0 else 0.0
    hi = st.chi2.ppf(1 - a / 2, 2 * k + 2) / 2
    return float(lo), float(hi)


def audit_table(result: dict, level: float = 0.95) -> pd.DataFrame:
    """One row per rate of :data:`RATES` the audit's counts have (a rate out of no
    choice is left out): ``measure, count, out_of, rate, lo, hi``.
    """
    counts = result["counts"]
    rows = []
    for label, num, of in RATES:
        if num not in counts:
            continue
        k = int(counts[num])
        if of is None:
            n = int(counts["deals"])
            lo, hi = _poisson(k, level)
            rows.append((label, k, n, k / n, lo / n, hi / n))
            continue
        n = int(sum(counts[c] for c in of))
        if n == 0:
            continue
        lo, hi = wilson(k, n, level)
        rows.append((label, k, n, k / n, float(lo), float(hi)))
    return pd.DataFrame(rows, columns=["measure", "count", "out_of", "rate", "lo", "hi"])


def audit_text(result: dict) -> str:
    """The audit as text: a header naming the variant, rules, policy and bots, then the
    rates with their 95% intervals.
    """
    head = (
        f"mjlab audit {result['variant']}  policy={result['policy']}  rules_id="
        f"{result['rules_id']}  deals={result['deals']:,}  seed={result['seed']}\n"
        f"{result['bots']}"
    )
    lines = [head, f"{'':<46}{'count':>8}{'of':>8}{'rate':>9}   95% interval"]
    for r in audit_table(result).itertuples():
        lines.append(
            f"{r.measure:<46}{r.count:>8}{r.out_of:>8}{r.rate:>9.3f}   [{r.lo:.3f}, {r.hi:.3f}]"
        )
    return "\n".join(lines)
