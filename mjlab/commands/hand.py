"""``mjlab hand``: shanten by shape, waits and best discards of one hand."""

from __future__ import annotations

from engine.errors import UsageError

__all__ = ["run_hand", "analyse"]


def analyse(text: str, wild_names=(), sets=None, shapes=None) -> dict:
    """Everything ``mjlab hand`` prints, as a dict (ValueError on bad input)."""
    import numpy as np

    from engine import hand, tiles

    counts = tiles.parse(text)
    wild_kinds = sorted({tiles.kind(w) for w in wild_names})
    wilds = int(sum(int(counts[k]) for k in wild_kinds))
    plain = counts.copy()
    plain[wild_kinds] = 0
    n = int(counts.sum())
    if sets is None:
        sets = (n - 1) // 3
        if n % 3 == 0 or sets > 5:
            raise ValueError(f"{n} tiles is not a hand size (3k+1 or 3k+2 tiles, at most 17)")
    if not 0 <= sets <= 5:
        raise ValueError(f"--sets must be 0..5, got {sets}")
    shapes = tuple(shapes) if shapes else hand.DEFAULT_SHAPES
    hand.shape_mask(shapes)
    by_shape = {}
    for shape in shapes:
        if sets != 4 and shape != "standard":
            continue
        by_shape[shape] = int(hand.shanten(plain, wilds, sets, (shape,)))
    best = int(hand.shanten(plain, wilds, sets, shapes))
    out = {
        "hand": tiles.format(counts),
        "glyphs": tiles.glyphs(counts),
        "tiles": n,
        "wilds": wilds,
        "wild_kinds": [tiles.kind_name(k) for k in wild_kinds],
        "sets": sets,
        "shanten": best,
        "shanten_by_shape": by_shape,
        "complete": best == -1 and n == 3 * sets + 2,
    }
    if n == 3 * sets + 1:
        mask = hand.waits(plain, wilds, sets, shapes)
        drawable = _drawable(mask, counts, wild_kinds)
        out["waits"] = [
            {"tile": tiles.kind_name(k), "remaining": int(4 - counts[k])}
            for k in np.flatnonzero(drawable)
        ]
        out["waits_total"] = int(sum(w["remaining"] for w in out["waits"]))
    else:
        unseen = 4 - counts.astype(np.int64)
        u = hand.ukeire(plain, wilds, sets, shapes, unseen=unseen)
        order = sorted(
            (k for k in range(34) if plain[k] > 0),
            key=lambda k: (int(u.shanten[k]), -int(u.tiles[k]), k),
        )
        out["discards"] = [
            {
                "discard": tiles.kind_name(k),
                "shanten": int(u.shanten[k]),
                "ukeire": int(u.tiles[k]),
                "draws": [tiles.kind_name(j) for j in np.flatnonzero(u.improving[k])],
            }
            for k in order
        ]
    return out


def _drawable(mask, counts, wild_kinds):
    """Waits among kinds that still have a copy to draw."""
    mask = mask.copy()
    for k in range(34):
        if counts[k] >= 4:
            mask[k] = False
    return mask


def run_hand(args) -> int:
    """Handle ``mjlab hand``."""
    from engine.fileio import print_json
    from engine.jit.warmup import expect

    try:
        with expect("engine.hand"):  # the tables and kernels, announced as one on a cold start
            result = analyse(args.hand, args.wild, args.sets, args.shape)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print_json(result)
        return 0
    wild = f"  wilds: {result['wilds']} ({','.join(result['wild_kinds'])})" if args.wild else ""
    head = f"{result['hand']}  {result['glyphs']}  {result['tiles']} tiles"
    print(f"{head}, sets={result['sets']}{wild}")
    shapes = ", ".join(f"{k} {v}" for k, v in result["shanten_by_shape"].items())
    state = "complete" if result["complete"] else f"shanten {result['shanten']}"
    print(f"{state}  (by shape: {shapes})")
    if "waits" in result:
        if result["waits"]:
            waits = " ".join(f"{w['tile']}×{w['remaining']}" for w in result["waits"])
            print(f"waits: {waits}  ({result['waits_total']} tiles)")
        else:
            print("waits: none")
    else:
        print("discard  shanten  ukeire  draws")
        for d in result["discards"][:8]:
            draws = " ".join(d["draws"])
            print(f"{d['discard']:>7}  {d['shanten']:>7}  {d['ukeire']:>6}  {draws}")
    return 0
