"""The report's rules reference: written beside the report, linked from every citation.

:func:`write_rules` writes the pages of :mod:`engine.runs.rulesdoc` (shipped with the
package, generated from the variants' declarations) to ``<report>/rules/`` in both
formats; :func:`rule_link` gives the templates the relative link of a variant's page or
of one of its rule options, so that the HTML report links the HTML pages and the
Markdown report the Markdown ones.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from analysis.report._config import RULES_DIR

__all__ = ["rule_link", "write_rules"]


def rule_link(fmt: str) -> Callable[..., str]:
    """``href(variant, option=None)``: the link, relative to the report, of a variant's
    page (its prose) or of one rule option's entry on it, in format ``fmt``.
    """
    from engine.runs import rulesdoc

    def href(variant: str, option: str | None = None) -> str:
        anchor = rulesdoc.option_anchor(option) if option else "about"
        return f"{RULES_DIR}/{rulesdoc.page_name(variant, fmt)}#{anchor}"

    return href


def write_rules(out: Path, variants) -> list[Path]:
    """Write the reference of ``variants`` (names) to ``out/rules/`` in every format."""
    from engine.runs import rulesdoc

    written = []
    for fmt in rulesdoc.FORMATS:
        written += rulesdoc.write(Path(out) / RULES_DIR, list(variants), fmt)
    return written
