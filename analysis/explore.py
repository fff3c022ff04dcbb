"""A payout explorer for notebooks: widgets for a variant's payout options, with the
tables and the fairness figure re-scored (:func:`analysis.rescore`) as they move.

:func:`explorer` needs ``ipywidgets`` (the ``dev`` extras, or ``pip install
ipywidgets``); :func:`explore_view` is the same view without widgets, for scripts and
tests. Re-scoring is exact for value-blind play (``efficiency``, ``random``); for
``value`` and ``strong`` the view says it is first-order (see :func:`analysis.rescore_gap`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from engine.errors import UsageError

__all__ = ["explorer", "explore_view", "payout_controls"]


def payout_controls(variant) -> dict[str, Any]:
    """One widget per payout option of ``variant``, at its default: a slider for a run of
    integers, a checkbox for a yes/no option, a dropdown otherwise.
    """
    try:
        import ipywidgets as w
    except ImportError:  # pragma: no cover - the dev extras install it
        raise UsageError("the explorer needs ipywidgets: pip install ipywidgets") from None
    from engine.runs import rescore as rs
    from engine.variants import get as get_variant

    v = get_variant(variant) if isinstance(variant, str) else variant
    out: dict[str, Any] = {}
    style = {"description_width": "initial"}
    for o in v.options:
        if not o.payout:
            continue
        if isinstance(o.default, bool):
            out[o.key] = w.Checkbox(value=o.default, description=o.key, style=style)
        elif isinstance(o.default, int) and list(o.allowed) == list(
            range(min(o.allowed), max(o.allowed) + 1)
        ):
            out[o.key] = w.IntSlider(
                value=o.default,
                min=min(o.allowed),
                max=max(o.allowed),
                description=o.key,
                style=style,
                continuous_update=False,
            )
        else:
            out[o.key] = w.Dropdown(
                options=list(o.allowed), value=o.default, description=o.key, style=style
            )
        out[o.key].tooltip = o.doc
    if not out:
        raise UsageError(f"{v.name} has no payout option to explore ({rs.payout_keys(v)})")
    return out


def explore_view(frame: pd.DataFrame, changes: Mapping[str, Any], *, top: int = 8) -> dict:
    """The explorer's content for one setting of the payout options.

    Parameters
    ----------
    frame : DataFrame
        Records with their identity (:func:`analysis.load`, or ``Run.to_pandas()``
        with ``attrs["mjlab"]`` set).
    changes : mapping
        Payout options; those equal to the records' own values are ignored.
    top : int
        Patterns shown (the most frequent per win).

    Returns
    -------
    dict
        ``changes`` (the effective ones), ``frame`` (re-scored, or the records),
        ``headline`` (:func:`analysis.rescoring.effect_table`), ``roles``
        (:func:`analysis.payouts_by_role` of the re-scored deals), ``patterns`` (per-win
        frequency and the mean value of wins holding each pattern), ``exact`` (bool).
    """
    import analysis
    from analysis.rescoring import effect_table
    from engine.runs import rescore as rs

    meta = frame.attrs.get("mjlab") or {}
    if "rules" not in meta:
        raise UsageError("explore_view needs records with their identity (analysis.load)")
    rules = meta["rules"]
    eff = {k: val for k, val in changes.items() if rules.get(k) != val}
    new = analysis.rescore(frame, **eff) if eff else frame
    won = new["winner"].to_numpy() >= 0
    value = new["value"].to_numpy().astype(float)
    freq = analysis.pattern_frequencies(new)
    freq = freq[freq["per"] == "win"].sort_values("rate", ascending=False).head(top)
    mean_value = []
    for p in freq["pattern"]:
        has = won & new[f"pat_{p}"].to_numpy().astype(bool)
        mean_value.append(float(value[has].mean()) if has.any() else np.nan)
    pats = freq[["pattern", "k", "rate", "lo", "hi"]].assign(mean_value=mean_value)
    policies = meta.get("policies") or []
    return {
        "changes": eff,
        "frame": new,
        "headline": effect_table(frame, new),
        "roles": analysis.payouts_by_role(new)[["role", "n", "mean", "lo", "hi"]],
        "patterns": pats.reset_index(drop=True),
        "exact": rs.is_exact(meta["variant"], policies),
    }


def _figure(base_roles: pd.DataFrame, view: dict):
    import matplotlib.pyplot as plt

    from analysis.plots import style

    with style():
        fig, ax = plt.subplots(figsize=(6.5, 3.2))
        roles = view["roles"]
        keep = roles["role"] != "non_dealer"
        names = roles.loc[keep, "role"].tolist()
        x = np.arange(len(names))
        for off, t, lab in ((-0.2, base_roles, "recorded"), (0.2, roles, "re-scored")):
            t = t[t["role"] != "non_dealer"]
            mean = t["mean"].to_numpy()
            ax.bar(x + off, mean, width=0.4, label=lab)
            ax.errorbar(
                x + off,
                mean,
                yerr=[mean - t["lo"].to_numpy(), t["hi"].to_numpy() - mean],
                fmt="none",
                ecolor="k",
                lw=0.8,
            )
        ax.axhline(0, color="0.5", lw=0.6)
        ax.set_xticks(x, names)
        ax.set_ylabel("mean result per deal (95%)")
        ax.set_title("who wins what, by place from the dealer")
        ax.legend(fontsize=8)
        fig.tight_layout()
    return fig


def explorer(records, *, top: int = 8):
    """A widget box: the payout controls and, below them, the re-scored tables and the
    fairness figure, redrawn whenever a control moves.

    Parameters
    ----------
    records : Run, DataFrame or path
        As :func:`analysis.rescore`.
    """
    import ipywidgets as w
    import matplotlib.pyplot as plt
    from IPython.display import display

    from analysis.rescoring import _source

    frame, meta = _source(records)
    frame.attrs["mjlab"] = meta
    controls = payout_controls(meta["variant"])
    base_roles = analysis_roles(frame)
    out = w.Output()

    def redraw(**changes):
        with out:
            out.clear_output(wait=True)
            view = explore_view(frame, changes, top=top)
            shown = ", ".join(f"{k}={v}" for k, v in view["changes"].items()) or "as recorded"
            kind = "exact" if view["exact"] else "first-order (value-aware play)"
            print(f"{meta['variant']}: {shown}; re-scoring is {kind}")
            display(view["headline"].round(4))
            display(view["roles"].round(4))
            display(view["patterns"].round(4))
            fig = _figure(base_roles, view)
            display(fig)
            plt.close(fig)

    def moved(_change=None):
        redraw(**{k: c.value for k, c in controls.items()})

    for c in controls.values():
        c.observe(moved, names="value")
    moved()
    return w.VBox([w.HBox(list(controls.values()), layout=w.Layout(flex_flow="row wrap")), out])


def analysis_roles(frame: pd.DataFrame) -> pd.DataFrame:
    """``payouts_by_role`` of the recorded deals (the figure's reference bars)."""
    import analysis

    return analysis.payouts_by_role(frame)[["role", "n", "mean", "lo", "hi"]]
