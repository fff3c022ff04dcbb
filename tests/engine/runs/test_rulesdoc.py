"""The rules reference (engine.runs.rulesdoc, ``mjlab rules``): complete, anchored, shipped."""

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine import variants
from engine.runs import rulesdoc
from mjlab.cli import main

ROOT = Path(__file__).resolve().parents[3]


def _flat(text: str) -> str:
    """Markup of code and bold undone, ``x`` written `x`, as both formats show it."""
    for tag in ("<code>", "</code>"):
        text = text.replace(tag, "`")
    return text.replace("<strong>", "").replace("</strong>", "").replace("``", "`")


def _shown(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("fmt", rulesdoc.FORMATS)
@pytest.mark.parametrize("name", variants.names())
def test_every_option_and_pattern_is_on_the_page(name, fmt):
    v = variants.get(name)
    text = rulesdoc.page(name, fmt)
    plain = html.unescape(text) if fmt == "html" else text.replace("\\|", "|")
    ids = rulesdoc.anchors(text)
    assert {"about", "options", "patterns"} <= ids
    for o in v.options:
        assert rulesdoc.option_anchor(o.key) in ids, o.key
        # the option's entry: from its anchor to the next anchor
        entry = plain.split(f'id="{rulesdoc.option_anchor(o.key)}"', 1)[1].split('id="', 1)[0]
        entry = _flat(entry)
        assert o.key in entry and f"default `{_shown(o.default)}`" in entry, o.key
        assert ("payout" if o.payout else "play") in entry
        assert _flat(o.doc.rstrip(".")) in entry
        if o.rulebook:
            assert o.rulebook in entry
        allowed = [_shown(a) for a in o.allowed]
        shown = rulesdoc.reference(name)["options"][[x.key for x in v.options].index(o.key)]
        if shown["allowed"] == [f"{allowed[0]}..{allowed[-1]}"]:  # a long integer range
            assert allowed == [str(i) for i in range(int(allowed[0]), int(allowed[-1]) + 1)]
        else:
            assert shown["allowed"] == allowed
        for a in shown["allowed"]:
            assert f"`{a}`" in entry
    for p in v.patterns:
        assert rulesdoc.pattern_anchor(p.name) in ids, p.name
        entry = plain.split(f'id="{rulesdoc.pattern_anchor(p.name)}"', 1)[1].split('id="', 1)[0]
        entry = _flat(entry)
        assert p.hanzi in entry and p.name in entry and _flat(p.doc) in entry
        assert ("big hand" in entry) == p.big
    # a pattern's value options are linked to their own entries on the page
    for ref in re.findall(r'href="#([^"]+)"|\]\(#([^)]+)\)', text):
        assert (ref[0] or ref[1]) in ids


@pytest.mark.parametrize("name", variants.listed())  # the tiny test variant has no prose
def test_prose_is_written_and_cites_the_rulebook(name):
    v = variants.get(name)
    text = rulesdoc.prose(name)
    assert text is not None, f"engine/variants/{name}/rules.md is missing"
    heads = re.findall(r"^## (.+)$", text, re.M)
    assert heads == ["What the game is", "How a deal goes", "How it pays"]
    section = v.rulebook_section.lstrip("§")
    assert re.search(rf"§{re.escape(section)}(\.\d+)?\b", text)
    assert text in rulesdoc.page(name, "md")
    # the declarations' own simplifications are on the page too
    if "Engine simplifications" in v.doc:
        assert 'id="simplifications"' in rulesdoc.page(name, "html")


def test_open_questions_ship_with_the_package():
    qs = rulesdoc.open_questions()
    assert len(qs) == 9 and all("§6" in q for q in qs)
    assert 'id="open-questions"' in rulesdoc.index(variants.listed(), "html")


def test_write_and_the_command(tmp_path, capsys):
    assert main(["rules", "--out", str(tmp_path / "h"), "--quiet"]) == 0
    files = sorted(p.name for p in (tmp_path / "h").iterdir())
    assert files == sorted([f"{n}.html" for n in variants.listed()] + ["index.html"])
    index = (tmp_path / "h" / "index.html").read_text(encoding="utf-8")
    for n in variants.listed():
        assert f'href="{n}.html"' in index
    assert main(["rules", "zhuji", "--out", str(tmp_path / "m"), "--format", "md"]) == 0
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["index.md", "zhuji.md"]
    capsys.readouterr()
    assert main(["rules", "tuidaohu"]) == 0
    assert capsys.readouterr().out == rulesdoc.page("tuidaohu", "md")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["rules", "nosuch"], "unknown variant 'nosuch'"),
        (["rules"], "name one VARIANT"),
        (["rules", "zhuji", "lishui"], "name one VARIANT"),
        (["rules", "--format", "pdf", "zhuji"], "invalid choice: 'pdf'"),
        (["rules", "--out", "{f}"], "exists and is not a folder"),
        (["rules", "--out", "/proc/mjlab-rules"], "not writable"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, message, tmp_path, capsys):
    f = tmp_path / "a-file"
    f.write_text("x")
    assert main([a.replace("{f}", str(f)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert [p.name for p in tmp_path.iterdir()] == ["a-file"]


def test_an_installed_copy_writes_the_same_reference(tmp_path):
    """Build the packages as an install does (setuptools build_py with the pyproject's
    package data) and write the reference from that copy alone, from another folder.
    """
    lib, eggs = tmp_path / "lib", tmp_path / "egg"
    eggs.mkdir()
    build = [sys.executable, "-c", "from setuptools import setup; setup()", "-q"]
    build += ["egg_info", "--egg-base", str(eggs), "build_py", "--build-lib", str(lib)]
    subprocess.run(build, cwd=ROOT, check=True, capture_output=True)
    assert (lib / "engine" / "variants" / "zhuji" / "rules.md").is_file()
    out = tmp_path / "out"
    code = (
        "import sys, engine, analysis; from mjlab.cli import main;"
        "assert engine.__file__.startswith(sys.argv[1]), engine.__file__;"
        "assert analysis.__file__.startswith(sys.argv[1]), analysis.__file__;"
        "sys.exit(main(['rules', '--out', sys.argv[2], '--format', 'md', '--quiet']))"
    )
    env = {**os.environ, "PYTHONPATH": str(lib)}
    run = subprocess.run(
        [sys.executable, "-c", code, str(lib), str(out)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    for n in variants.listed():
        assert (out / f"{n}.md").read_text(encoding="utf-8") == rulesdoc.page(n, "md")
