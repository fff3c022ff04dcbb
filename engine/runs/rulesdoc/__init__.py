"""The rules reference that ships with the package: one page per variant.

Each page is generated from the variant's own declarations, read through the registry
(:func:`engine.variants.get`): every rule option with its allowed values, default,
meaning, RULEBOOK citation and whether it is a payout option (re-scorable) or changes
play; every pattern with its name, whether it is a big hand, what it is worth and the
options that set its value; and the sections of the variant's docstring (its rules as
implemented, payout notes, engine simplifications, the strong policy). Beside them sits
prose written in the project (``rules.md`` in the variant's folder,
``engine/variants/<variant>/``: what the game is, how a deal goes, how it pays), which
cites the RULEBOOK by section number as text. Nothing is read from
outside the package, so an installed copy writes the same reference.

``mjlab rules [VARIANT] [--out DIR] [--format html|md]`` writes it; the balance report
writes it beside itself (``<report>/rules/``) and links every rule citation to an
anchor of it (:func:`option_anchor`, :func:`pattern_anchor`).

Examples
--------
>>> from engine import rulesdoc
>>> rulesdoc.option_anchor("horses"), rulesdoc.page_name("tuidaohu", "html")
('opt-horses', 'tuidaohu.html')
>>> "opt-horses" in rulesdoc.anchors(rulesdoc.page("tuidaohu", "html"))
True
"""

from __future__ import annotations

import html
import re
from importlib import resources
from pathlib import Path

from engine.errors import UsageError

__all__ = [
    "FORMATS",
    "INDEX",
    "anchors",
    "index",
    "open_questions",
    "option_anchor",
    "page",
    "page_name",
    "pattern_anchor",
    "prose",
    "reference",
    "write",
]

FORMATS = ("html", "md")
"""The formats :func:`write` produces."""

INDEX = "index"
"""The base name of the page listing the variants."""

_DOC_SECTIONS = {
    "Rules": "rules-as-implemented",
    "Payout options (re-scoring)": "payout-notes",
    "Engine simplifications": "simplifications",
    "The strong policy": "strong-policy",
}
"""Docstring sections of a variant that the reference shows -> their anchors."""


def option_anchor(key: str) -> str:
    """The anchor of rule option ``key`` on its variant's page."""
    return f"opt-{key}"


def pattern_anchor(name: str) -> str:
    """The anchor of pattern ``name`` on its variant's page."""
    return f"pat-{name}"


def page_name(variant: str, fmt: str) -> str:
    """The file name of a variant's page (or of :data:`INDEX`) in format ``fmt``."""
    _check_format(fmt)
    return f"{variant}.{fmt}"


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")


def _data_text(name: str) -> str | None:
    path = resources.files(__name__).joinpath("prose", name)
    return path.read_text(encoding="utf-8") if path.is_file() else None


def prose(variant: str) -> str | None:
    """The project's prose for ``variant`` (Markdown): ``rules.md`` in its folder
    (``Variant.folder``), or None when none is written.
    """
    from engine.variants import get

    folder = get(variant).folder
    path = folder / "rules.md" if folder is not None else None
    return path.read_text(encoding="utf-8") if path is not None and path.is_file() else None


def open_questions() -> list[str]:
    """Where the sources disagree (RULEBOOK §6), in the project's words: one item each."""
    text = _data_text("_open_questions.md") or ""
    return [line[2:].strip() for line in text.splitlines() if line.startswith("- ")]


def _allowed(option) -> list[str]:
    vals = list(option.allowed)
    ints = all(isinstance(a, int) and not isinstance(a, bool) for a in vals)
    if ints and len(vals) > 8 and vals == list(range(vals[0], vals[-1] + 1)):
        return [f"{vals[0]}..{vals[-1]}"]
    return [_show(a) for a in vals]


def _show(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _doc_sections(doc: str) -> tuple[str, dict[str, str]]:
    """A variant docstring's summary line and its underlined sections by title."""
    lines = (doc or "").splitlines()
    summary = lines[0].strip() if lines else ""
    sections: dict[str, str] = {}
    title, body = None, []
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r"-{3,}", nxt.strip() or "x"):
            if title is not None:
                sections[title] = "\n".join(body).strip()
            title, body = line.strip(), []
        elif title is not None and not re.fullmatch(r"-{3,}", line.strip() or "x"):
            body.append(line)
    if title is not None:
        sections[title] = "\n".join(body).strip()
    return summary, sections


def reference(variant: str) -> dict:
    """Everything a variant's page shows, from its declarations (UsageError if unknown)."""
    from engine.variants import get

    v = get(variant)
    keys = [o.key for o in v.options]
    summary, sections = _doc_sections(v.doc)
    return {
        "name": v.name,
        "long_name": v.long_name,
        "summary": summary,
        "family": v.family,
        "version": v.version,
        "players": v.players,
        "value_unit": v.value_unit,
        "rulebook": v.rulebook_section,
        "policies": list(v.policies),
        "options": [
            {
                "key": o.key,
                "anchor": option_anchor(o.key),
                "default": _show(o.default),
                "allowed": _allowed(o),
                "doc": o.doc,
                "rulebook": o.rulebook,
                "kind": "payout" if o.payout else "play",
                "changes_deal": o.changes_deal,
            }
            for o in v.options
        ],
        "patterns": [
            {
                "name": p.name,
                "anchor": pattern_anchor(p.name),
                "hanzi": p.hanzi,
                "big": p.big,
                "doc": p.doc,
                "value_options": [
                    k for k in keys if k == f"pay_{p.name}" or k.startswith(f"pay_{p.name}_")
                ],
            }
            for p in v.patterns
        ],
        "sections": {t: sections[t] for t in _DOC_SECTIONS if t in sections},
        "prose": prose(v.name),
    }


# --- Markdown ------------------------------------------------------------------------


def _md_escape(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _page_md(ref: dict) -> str:
    out = [
        f"# {ref['long_name']} ({ref['name']})",
        "",
        f"{ref['summary']}",
        "",
        f"Family {ref['family']}, version {ref['version']}, {ref['players']} players by "
        f"default, values in {ref['value_unit']}; RULEBOOK {ref['rulebook']}. "
        f"[All variants]({page_name(INDEX, 'md')}).",
        "",
        '<a id="about"></a>',
        "",
    ]
    if ref["prose"]:
        out += [ref["prose"].strip(), ""]
    else:
        out += ["(No prose is written for this variant yet: only its declarations follow.)", ""]
    out += [
        '<a id="options"></a>',
        "",
        "## Rule options",
        "",
        "A *payout* option changes only what a deal pays (recorded deals can be re-scored "
        "under it, `mjlab rescore`); a *play* option changes how deals are played.",
        "",
    ]
    for o in ref["options"]:
        deal = " It changes the cards dealt (its sweeps are unpaired)." if o["changes_deal"] else ""
        cite = f" (RULEBOOK {o['rulebook']})" if o["rulebook"] else ""
        out += [
            f'<a id="{o["anchor"]}"></a>',
            "",
            f"- **`{o['key']}`** ({o['kind']}): default `{o['default']}`; allowed "
            + ", ".join(f"`{a}`" for a in o["allowed"])
            + f". {_md_escape(o['doc'].rstrip('.'))}{cite}.{deal}",
            "",
        ]
    out += ['<a id="patterns"></a>', "", "## Patterns", ""]
    for p in ref["patterns"]:
        big = " (big hand)" if p["big"] else ""
        vals = (
            " Value set by "
            + ", ".join(f"[`{k}`](#{option_anchor(k)})" for k in p["value_options"])
            + "."
            if p["value_options"]
            else ""
        )
        out += [
            f'<a id="{p["anchor"]}"></a>',
            "",
            f"- **{p['hanzi']}** `{p['name']}`{big}: {_md_escape(p['doc'])}{vals}",
            "",
        ]
    titles = {"Rules": "Rules as implemented", "Payout options (re-scoring)": "Payout notes"}
    for title, body in ref["sections"].items():
        out += [
            f'<a id="{_DOC_SECTIONS[title]}"></a>',
            "",
            f"## {titles.get(title, title)}",
            "",
            body,
            "",
        ]
    return "\n".join(out).rstrip() + "\n"


# --- HTML ----------------------------------------------------------------------------

_CSS = """body{font:15px/1.5 system-ui,sans-serif;max-width:52em;margin:2em auto;padding:0 1em}
code{background:#f2f2f2;padding:0 .2em}dt{font-weight:600;margin-top:.6em}
.kind{color:#666;font-size:.9em}h2{border-bottom:1px solid #ddd}"""


def _inline(text: str) -> str:
    """Escaped text with ``code``, `code` and **bold** marked up."""
    out = html.escape(str(text), quote=False)
    out = re.sub(r"``(.+?)``", r"<code>\1</code>", out)
    out = re.sub(r"`(.+?)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", out)


def _blocks(text: str) -> str:
    """Paragraphs, ``## `` headings and ``- `` lists of prose or a docstring as HTML."""
    parts = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.splitlines()
        if lines[0].startswith("## "):
            parts.append(f"<h3>{_inline(lines[0][3:])}</h3>")
            lines = lines[1:]
            if not lines:
                continue
        if lines[0].lstrip().startswith("- "):
            items, cur = [], []
            for line in lines:
                if line.lstrip().startswith("- "):
                    if cur:
                        items.append(" ".join(cur))
                    cur = [line.lstrip()[2:]]
                else:
                    cur.append(line.strip())
            items.append(" ".join(cur))
            parts.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
        else:
            parts.append(f"<p>{_inline(' '.join(x.strip() for x in lines))}</p>")
    return "\n".join(parts)


def _html(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )


def _page_html(ref: dict) -> str:
    e = html.escape
    body = [
        f"<h1>{e(ref['long_name'])} ({e(ref['name'])})</h1>",
        f"<p>{_inline(ref['summary'])}</p>",
        f"<p>Family {e(ref['family'])}, version {ref['version']}, {ref['players']} players by "
        f"default, values in {e(ref['value_unit'])}; RULEBOOK {e(ref['rulebook'])}. "
        f'<a href="{page_name(INDEX, "html")}">All variants</a>.</p>',
        '<section id="about">',
        _blocks(ref["prose"])
        if ref["prose"]
        else "<p>(No prose is written for this variant yet: only its declarations follow.)</p>",
        "</section>",
        '<section id="options"><h2>Rule options</h2>',
        "<p>A <em>payout</em> option changes only what a deal pays (recorded deals can be "
        "re-scored under it, <code>mjlab rescore</code>); a <em>play</em> option changes how "
        "deals are played.</p><dl>",
    ]
    for o in ref["options"]:
        allowed = ", ".join(f"<code>{e(a)}</code>" for a in o["allowed"])
        cite = f" (RULEBOOK {e(o['rulebook'])})" if o["rulebook"] else ""
        deal = " It changes the cards dealt (its sweeps are unpaired)." if o["changes_deal"] else ""
        body.append(
            f'<dt id="{o["anchor"]}"><code>{e(o["key"])}</code> '
            f'<span class="kind">{o["kind"]}</span></dt>'
            f"<dd>default <code>{e(o['default'])}</code>; allowed {allowed}. "
            f"{_inline(o['doc'].rstrip('.'))}{cite}.{deal}</dd>"
        )
    body += ["</dl></section>", '<section id="patterns"><h2>Patterns</h2><dl>']
    for p in ref["patterns"]:
        big = ' <span class="kind">big hand</span>' if p["big"] else ""
        vals = (
            " Value set by "
            + ", ".join(
                f'<a href="#{option_anchor(k)}"><code>{e(k)}</code></a>' for k in p["value_options"]
            )
            + "."
            if p["value_options"]
            else ""
        )
        body.append(
            f'<dt id="{p["anchor"]}">{e(p["hanzi"])} <code>{e(p["name"])}</code>{big}</dt>'
            f"<dd>{_inline(p['doc'])}{vals}</dd>"
        )
    body.append("</dl></section>")
    titles = {"Rules": "Rules as implemented", "Payout options (re-scoring)": "Payout notes"}
    for title, text in ref["sections"].items():
        body.append(
            f'<section id="{_DOC_SECTIONS[title]}"><h2>{e(titles.get(title, title))}</h2>'
            f"{_blocks(text)}</section>"
        )
    return _html(f"{ref['long_name']} - mjlab rules", "\n".join(body))


# --- pages and files -----------------------------------------------------------------


def page(variant: str, fmt: str = "html") -> str:
    """The reference page of one variant, as HTML or Markdown text."""
    _check_format(fmt)
    ref = reference(variant)
    return _page_html(ref) if fmt == "html" else _page_md(ref)


def index(variants, fmt: str = "html") -> str:
    """The page that lists ``variants`` (names), each linked to its page."""
    from engine.variants import get

    _check_format(fmt)
    rows = [(get(n).name, get(n).long_name, get(n).rulebook_section) for n in variants]
    questions = open_questions()
    if fmt == "md":
        out = ["# mjlab rules reference", ""]
        out += [f"- [{long} ({n})]({page_name(n, 'md')}): RULEBOOK {sec}" for n, long, sec in rows]
        out += ["", '<a id="open-questions"></a>', "", "## Open questions (RULEBOOK §6)", ""]
        out += [f"- {q}" for q in questions]
        return "\n".join(out) + "\n"
    items = "".join(
        f'<li><a href="{page_name(n, "html")}">{html.escape(long)} ({n})</a>: '
        f"RULEBOOK {html.escape(sec)}</li>"
        for n, long, sec in rows
    )
    qs = "".join(f"<li>{_inline(q)}</li>" for q in questions)
    return _html(
        "mjlab rules reference",
        f"<h1>mjlab rules reference</h1><ul>{items}</ul>"
        f'<section id="open-questions"><h2>Open questions (RULEBOOK §6)</h2><ul>{qs}</ul>'
        "</section>",
    )


def anchors(text: str) -> set[str]:
    """The anchors (``id`` attributes) a page defines, HTML or Markdown."""
    return set(re.findall(r'\bid="([^"]+)"', text))


def write(out_dir, variants=None, fmt: str = "html") -> list[Path]:
    """Write the pages of ``variants`` (default: every listed variant) and the index.

    Each file is written to a temporary name and renamed when complete
    (:func:`engine.fileio.write_bytes`). Returns the paths written, index last.
    """
    from engine import fileio
    from engine.variants import get, listed

    _check_format(fmt)
    chosen = [get(n).name for n in variants] if variants else list(listed())
    texts = {page_name(n, fmt): page(n, fmt) for n in chosen}
    texts[page_name(INDEX, fmt)] = index(chosen, fmt)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in texts.items():
        path = out / name
        fileio.write_bytes(path, text.encode("utf-8"))
        written.append(path)
    return written
