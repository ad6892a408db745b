"""Math in notebook pages, rendered at build time as MathML (latex2mathml): no script,
font or CDN. nbconvert leaves ``$...$`` and ``$$...$$`` for MathJax, which the site
does not load offline; only the text of Markdown cells (``.jp-MarkdownOutput``) is
rewritten, never code, scripts, styles or tag attributes.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from latex2mathml.converter import convert
from mkdocs_jupyter.plugin import NotebookFile

MARKDOWN_CELL = "jp-MarkdownOutput"
LITERAL = {"code", "pre", "script", "style", "textarea", "math", "svg"}
VOID = set("area base br col embed hr img input link meta source track wbr".split())
# $$display$$ first, then $inline$ (not empty, not starting or ending with a space, as
# in TeX practice, so that "costs $5 and $6" is left alone).
MATH = re.compile(
    r"\$\$(?P<display>.+?)\$\$|\$(?P<inline>[^\s$](?:[^$]*?[^\s$])?)\$", re.S
)


def on_page_content(content, page, config, files):
    if not isinstance(page.file, NotebookFile) or "$" not in content:
        return content
    return render_math(content)


def render_math(document: str) -> str:
    """``document`` with the TeX of its Markdown cells' text replaced by MathML."""
    out, last = [], 0
    for start, end in _TextRuns(document).spans:
        out += [document[last:start], MATH.sub(_mathml, document[start:end])]
        last = end
    return "".join(out) + document[last:]


def _mathml(match: re.Match) -> str:
    display = match["display"] is not None
    tex = html.unescape(match["display"] if display else match["inline"])
    return convert(tex.strip(), display="block" if display else "inline")


class _TextRuns(HTMLParser):
    """The (start, end) offsets of the runs of text (entities included) inside
    Markdown cells, outside literals: each event starts where the one before ends."""

    def __init__(self, document: str) -> None:
        super().__init__(convert_charrefs=False)
        self.lines = [0] + [match.end() for match in re.finditer("\n", document)]
        self.stack: list[tuple[str, bool]] = []  # (tag, opens a Markdown cell)
        self.starts: list[tuple[int, bool]] = []  # (offset, is text to rewrite)
        self.feed(document)
        self.close()
        self.spans, run = [], None
        for offset, text in [*self.starts, (len(document), False)]:
            if text and run is None:
                run = offset
            elif not text and run is not None:
                self.spans.append((run, offset))
                run = None

    def _event(self, text: bool = False) -> None:
        line, column = self.getpos()
        if text:
            text = any(cell for _, cell in self.stack) and not any(
                tag in LITERAL for tag, _ in self.stack
            )
        self.starts.append((self.lines[line - 1] + column, text))

    def handle_starttag(self, tag, attrs):
        self._event()
        if tag not in VOID:
            cell = MARKDOWN_CELL in (dict(attrs).get("class") or "").split()
            self.stack.append((tag, cell))

    def handle_endtag(self, tag):
        self._event()
        tags = [name for name, _ in self.stack]
        if tag in tags:  # close up to the matching open tag
            del self.stack[len(tags) - 1 - tags[::-1].index(tag) :]

    def handle_data(self, data):
        self._event(text=True)

    handle_entityref = handle_charref = handle_data

    def handle_startendtag(self, *_):
        self._event()

    handle_comment = handle_decl = handle_pi = unknown_decl = handle_startendtag
