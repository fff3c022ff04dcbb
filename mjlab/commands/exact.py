"""``mjlab exact``: exact probabilities of deal events (:mod:`engine.exact` computes them)."""

from __future__ import annotations

from engine.errors import UsageError

__all__ = ["run_exact"]


def _fraction_json(p) -> dict:
    return {"p": float(p), "fraction": f"{p.numerator}/{p.denominator}"}


def _one_in(p) -> str:
    return f"1 in {float(1 / p):,.0f}" if p else "never"


def _cli_wild(args) -> tuple[str | list[str], int | list[int], str]:
    """The ``wild`` and ``wild_copies`` the API takes, and a text for the title."""
    from engine import tiles as _tiles
    from engine.exact import FLIP_MODES

    if args.wild is not None and not args.wild.strip():
        raise UsageError("exact: --wild is empty: give a tile (7z, 5m,5p) or flip, flip2, flip0")
    wild = (args.wild or "").strip()
    if wild.lower() in FLIP_MODES:
        if args.wild_copies != 4:
            raise UsageError(f"exact: --wild-copies does not apply to --wild {wild}")
        return wild.lower(), 4, f"{wild.lower()} (random indicator)"
    if not wild:
        if args.wild_copies != 4:
            raise UsageError("exact: --wild-copies 3 needs --wild TILE")
        return [], [], "none"
    try:
        names = [_tiles.kind_name(k) for k in _tiles.kinds(wild)]
    except ValueError as exc:
        raise UsageError(f"exact: --wild {wild}: {exc}") from None
    # One indicator is set aside: with --wild-copies 3 it is of the first named kind.
    copies = [args.wild_copies] + [4] * (len(names) - 1)
    return names, copies, ", ".join(f"{n} ({q} live)" for n, q in zip(names, copies, strict=True))


def _variant_cli(args, print_json) -> int:
    """``mjlab exact VARIANT``: the variant's deal events (天胡 ...) under its rules."""
    from fractions import Fraction

    from engine.variants import get, parse_rule_args

    v = get(args.variant)
    if v.exact is None:
        raise UsageError(f"exact {v.name}: no exact deal events for this variant yet")
    if args.tiles is not None or args.hand is not None or args.wild is not None or args.shanten:
        raise UsageError(
            "exact VARIANT takes its deck and wilds from the rules; "
            "use --rule K=V instead of --tiles/--hand/--wild/--shanten"
        )
    rules = v.resolve(parse_rule_args(args.rule, getattr(args, "rules", None)))
    events = v.exact(rules)
    out = {"variant": v.name, "rules_id": v.rules_id(rules), "rules": rules}
    for name, value in events.items():
        if isinstance(value, Fraction):
            out[name] = {"p": float(value), "fraction": f"{value.numerator}/{value.denominator}"}
        else:
            out[name] = value
    if args.json:
        print_json(out)
        return 0
    print(f"{v.name} (rules_id {out['rules_id']}): exact probabilities of deal events")
    for name, value in out.items():
        if isinstance(value, dict) and "p" in value:
            p = value["p"]
            one_in = f"  (1 in {1 / p:,.0f})" if p > 0 else ""
            print(f"  {name:<24} {p:.6e}  = {value['fraction']}{one_in}")
        elif name == "note":
            print(f"  note: {value}")
    return 0


def run_exact(args) -> int:
    """``mjlab exact``: print exact deal probabilities; returns the exit code.

    Without ``--shanten``: P(the dealt hand is complete) per shape and for any shape.
    With ``--shanten``: the distribution of the dealt hand's shanten per shape and for
    the best shape. ``--json`` maps each shape name and ``any`` to ``{"p": float,
    "fraction": "num/den"}`` (under ``"shanten"`` and then the shanten value with
    ``--shanten``), beside the context keys ``tiles``, ``hand``, ``sets``, ``wild`` (a
    list of kinds, or the flip mode), ``wild_copies`` and ``dealt_from``.

    Raises
    ------
    UsageError
        On bad input (unknown deck, hand size, wild tile, ...).
    """
    from engine.exact import default_shapes, p_complete, shanten_distribution
    from engine.fileio import print_json

    if getattr(args, "variant", None) is not None:
        return _variant_cli(args, print_json)
    if getattr(args, "rule", None):
        raise UsageError("exact: --rule needs a VARIANT")
    n_tiles = 136 if args.tiles is None else args.tiles
    wild, copies, wild_text = _cli_wild(args)
    flip = isinstance(wild, str)
    default_hand = (
        (13 if n_tiles == 136 else 16) if args.shanten else (14 if n_tiles == 136 else 17)
    )
    n_hand = default_hand if args.hand is None else args.hand
    result = {
        "tiles": n_tiles,
        "hand": n_hand,
        "sets": n_hand // 3,
        "wild": wild,
        "wild_copies": None if flip else copies,
        "dealt_from": n_tiles - (1 if flip else sum(4 - q for q in copies)),
    }
    try:
        if args.shanten:
            shapes = default_shapes(n_tiles, n_hand) if n_hand // 3 == 4 else ("standard",)
            groups = {name: (name,) for name in shapes}
            groups["any"] = shapes
            dists = {
                name: shanten_distribution(n_tiles, n_hand, wild, copies, group)
                for name, group in groups.items()
            }
            result["shanten"] = {
                name: {str(k): _fraction_json(v) for k, v in d.items()} for name, d in dists.items()
            }
        else:
            probs = p_complete(n_tiles, n_hand, wild, copies)
            result.update({name: _fraction_json(p) for name, p in probs.items()})
    except ValueError as exc:
        raise UsageError(f"exact: {exc}") from None
    if args.json:
        print_json(result)
        return 0
    title = f"{n_tiles} tiles, {n_hand}-tile hand, wild: {wild_text}"
    if args.shanten:
        print(f"Shanten of the dealt hand (exact probabilities), {title}")
        names = list(dists)
        print("shanten  " + "  ".join(f"{n:>16}" for n in names))
        for value in sorted(set().union(*dists.values())):
            cells = [dists[n].get(value) for n in names]
            text = [f"{float(c):>16.10f}" if c else f"{'-':>16}" for c in cells]
            print(f"{value:>7}  " + "  ".join(text))
    else:
        print(f"P(dealt hand is complete) (exact), {title}")
        for name, p in probs.items():
            print(f"{name:<17} {float(p):.10g}  ({_one_in(p)})  = {p.numerator}/{p.denominator}")
    return 0
