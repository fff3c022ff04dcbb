"""``mjlab audit``: what a policy chose wherever it had a choice (:mod:`engine.runs.audit`)."""

from __future__ import annotations

__all__ = ["run_audit"]


def run_audit(args) -> int:
    """Handle ``mjlab audit VARIANT [--policy P] [--deals N] [--seed S] [--rule K=V] [--json]``."""
    import json
    import sys

    from analysis.audit import audit_table, audit_text
    from engine.runs.audit import audit
    from engine.variants import parse_rule_args

    rules = parse_rule_args(args.rule, args.rules)
    result = audit(args.variant, deals=args.deals, seed=args.seed, rules=rules,
                   policy=args.policy)  # fmt: skip
    if args.json:
        out = {**result, "rates": audit_table(result).to_dict(orient="records")}
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(audit_text(result))
    return 0
