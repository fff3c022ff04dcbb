"""Every notebook in notebooks/ runs top to bottom at small N, and is committed clean."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))

DEALS = "256"
"""``MJLAB_NB_DEALS`` for the suite: small, so that all notebooks run in about a minute."""


def test_the_five_notebooks_exist():
    assert [p.stem for p in NOTEBOOKS] == [
        "01-quick-start",
        "02-wildcards-and-horses",
        "03-variant-fairness",
        "04-exact-vs-simulated",
        "05-design-a-variant",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]
    assert "MJLAB_NB_DEALS" in "".join(c.source for c in nb.cells)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, tmp_path, monkeypatch):
    monkeypatch.setenv("MJLAB_NB_DEALS", DEALS)
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    stderr = [
        o.get("text", "")
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.get("output_type") == "stream" and o.get("name") == "stderr"
    ]
    assert not [s for s in stderr if "Warning" in s], stderr
    assert list(tmp_path.iterdir()) == [], "a notebook wrote files into its working folder"
    # issue 45: no test-only variant; every table shown names what it measures
    texts = [
        str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
        + str(o.get("data", {}).get("text/html", ""))
        for c in nb.cells if c.cell_type == "code" for o in c.outputs
    ]  # fmt: skip
    assert not [t for t in texts if "tiny" in t], "a test-only variant is shown"
    tables = [t for t in texts if "<table" in t]
    assert all("<caption" in t for t in tables), "a table without a caption naming its metric"


def test_design_notebook_checks_its_rescore(tmp_path, monkeypatch):
    """Notebook 05's re-score equals its fresh simulation, and its explorer drew."""
    monkeypatch.setenv("MJLAB_NB_DEALS", DEALS)
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    path = next(p for p in NOTEBOOKS if p.stem == "05-design-a-variant")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
        store_widget_state=True,
    ).execute()  # fmt: skip
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert f"re-scored == re-simulated, every column of {int(DEALS):,} deals: True" in text
    state = str(nb.metadata.get("widgets", ""))
    assert "re-scoring is exact" in state, "the explorer's output widget stayed empty"


def test_notebooks_extra_and_how_to_open_them():
    """Issue 45: ``.[dev]`` installed no Jupyter and the README did not say how to open the
    notebooks; the ``notebooks`` extra installs JupyterLab and the README says how."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert any(d.startswith("jupyterlab") for d in extras["notebooks"])
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "pip install -e '.[notebooks]'" in readme and "jupyter lab notebooks/" in readme


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_notebook_lists_test_only_variants(path):
    """``engine.variants.names()`` includes the test-only ``tiny``; the notebooks list the
    variants of the report (``listed()``)."""
    text = "".join(c.source for c in nbformat.read(path, as_version=4).cells)
    assert "variants.names()" not in text
