"""A variant is one folder: its declaration, kernels, rules prose and bot data together."""

from pathlib import Path

import pytest

from engine import variants
from engine.play.bots import BOTDATA
from engine.runs import rulesdoc

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name", variants.names())
def test_the_declaration_names_its_folder_and_the_folder_holds_the_variant(name):
    v = variants.get(name)
    assert v.folder == ROOT / "engine" / "variants" / name
    assert BOTDATA / name == v.folder  # the bots' data are the folder's
    assert (v.folder / "__init__.py").is_file() and (v.folder / "_kernels.py").is_file()
    for policy in ("value", "strong"):
        if policy in v.policies and (BOTDATA / name / f"{policy}.json").exists():
            assert (v.folder / f"{policy}.json").is_file()
    if v.listed:  # the listed variants' rules pages have their prose
        assert rulesdoc.prose(name) == (v.folder / "rules.md").read_text(encoding="utf-8")
    assert not (ROOT / "engine" / "botdata" / name).exists(), "bot data outside the folder"


def test_a_folder_of_another_name_is_refused():
    v = variants.get("tiny")
    with pytest.raises(ValueError, match="its folder is"):
        v.__class__(**{**v.__dict__, "folder": v.folder.parent / "zhuji"})
