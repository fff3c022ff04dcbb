"""The variant registry: one place that knows every variant by name."""

from __future__ import annotations

from ..errors import UsageError
from ._base import Variant

MODULES = ("fuzhou", "lishui", "luodisao", "tiny", "tuidaohu", "zhuji")
"""The variant folders of this package, imported (and so registered) by the package's
``__init__`` in this order: a new variant is one folder ``engine/variants/<name>/`` and one
more name here."""

_REGISTRY: dict[str, Variant] = {}
_LOADED: list[bool] = [False]


def mark_loaded() -> None:
    """Called by the package once every module of :data:`MODULES` has registered."""
    _LOADED[0] = True


def loaded() -> list[Variant]:
    """Every registered variant, in name order, once the whole package is loaded.

    The game loop's hook dispatch (engine.play.mahjong.hooks) reads the registry when it is
    imported; an import cycle that reached it while the variants were still loading
    would leave a variant out of the dispatch silently, so that is an ImportError.
    """
    if not _LOADED[0]:
        raise ImportError(
            "the variant registry is read before engine.variants finished loading "
            "(an import cycle from a variant module up to the game loop)"
        )
    return [_REGISTRY[n] for n in sorted(_REGISTRY)]


def kernel_modules(family: str, ids: int, variants=None) -> dict[int, object]:
    """The kernel modules (``Variant.hooks``) of a family's registered variants by their
    ``KERNEL_ID``, for its loop's hook table of ``ids`` rows (refusing an id claimed twice,
    one that is not the declaration's, or one outside the table).
    """
    out: dict[int, object] = {}
    for v in loaded() if variants is None else variants:
        name, mod = v.name, v.hooks
        if v.family != family:
            continue
        if mod.KERNEL_ID != v.kernel_id or mod.KERNEL_ID < 1:
            raise ValueError(f"variant {name}: kernel id {v.kernel_id} but {mod.__name__} "
                             f"owns {mod.KERNEL_ID}")  # fmt: skip
        other = out.setdefault(mod.KERNEL_ID, mod)
        if other is not mod:
            raise ValueError(
                f"kernel id {mod.KERNEL_ID} is claimed by {other.__name__} and {mod.__name__}"
            )
    for i, mod in out.items():
        if i >= ids:
            raise ValueError(f"{mod.__name__}: kernel id {i}; the hook table has ids 0..{ids - 1}")
    return dict(sorted(out.items()))


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
    """Registered variant names, sorted (unlisted ones included: they run by name)."""
    return sorted(_REGISTRY)


def listed() -> list[str]:
    """The names ``mjlab variants``, the report and the benchmarks show: every registered
    variant but those declared ``listed=False`` (test variants), sorted.
    """
    return [n for n in sorted(_REGISTRY) if _REGISTRY[n].listed]


def chosen(variants) -> list[str]:
    """The variants a ``--variants a,b`` option names (a comma list or a list of names), in
    its order without repeats; every listed variant (:func:`listed`) for None. UsageError
    naming the known variants for an unknown name, or when the list names none.
    """
    if variants is None:
        return listed()
    if isinstance(variants, str):
        variants = variants.split(",")
    out: list[str] = []
    for raw in variants:
        name = str(raw).strip()
        if not name:
            continue
        get(name)  # UsageError naming the known variants
        if name not in out:
            out.append(name)
    if not out:
        raise UsageError("--variants: name at least one variant (see `mjlab variants`)")
    return out
