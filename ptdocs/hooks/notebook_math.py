"""Math in notebook pages, rendered at build time as MathML: no script, no font, no CDN.

nbconvert leaves the math of a Markdown cell as TeX between dollars (``$x^2$``)
for MathJax to typeset in the browser. mkdocs-jupyter would load MathJax from
a CDN; configured offline (no ``custom_mathjax_url``) it loads none, and the
reader saw the dollars. This hook turns each ``$...$`` (inline) and
``$$...$$`` (display) of a notebook's Markdown cells into MathML with
latex2mathml; browsers render MathML natively (MathML Core), offline.

Only text inside nbconvert's Markdown output (``.jp-MarkdownOutput``) is
touched, never code, ``<pre>``, scripts or styles, and never tag attributes:
the page is read with :mod:`html.parser` and only its text runs are rewritten.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from latex2mathml.converter import convert
from mkdocs_jupyter.plugin import NotebookFile

MARKDOWN_CELL = "jp-MarkdownOutput"
LITERAL = {"code", "pre", "script", "style", "textarea", "math", "svg"}
VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}
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
    runs = _TextRuns(document)
    out, last = [], 0
    for start, end in runs.spans:
        out.append(document[last:start])
        out.append(MATH.sub(_mathml, document[start:end]))
        last = end
    out.append(document[last:])
    return "".join(out)


def _mathml(match: re.Match) -> str:
    display = match.group("display") is not None
    tex = html.unescape(match.group("display") if display else match.group("inline"))
    return convert(tex.strip(), display="block" if display else "inline")


class _TextRuns(HTMLParser):
    """The (start, end) offsets of the text between tags inside Markdown cells,
    outside literals."""

    def __init__(self, document: str) -> None:
        super().__init__(convert_charrefs=False)
        self.document = document
        self.lines = [0] + [match.end() for match in re.finditer("\n", document)]
        self.stack: list[tuple[str, bool]] = []  # (tag, opens a Markdown cell)
        self.cells = 0  # Markdown cells we are in
        self.literals = 0  # literal elements we are in
        self.text_from: int | None = None
        self.spans: list[tuple[int, int]] = []
        self.feed(document)
        self.close()

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def _markup(self, end: int) -> None:
        """A tag, comment or declaration from here to ``end``: close the text run
        before it."""
        start = self._offset()
        if (
            self.text_from is not None
            and self.cells
            and not self.literals
            and start > self.text_from
        ):
            self.spans.append((self.text_from, start))
        self.text_from = end

    def handle_starttag(self, tag, attrs):
        self._markup(self._offset() + len(self.get_starttag_text()))
        if tag in VOID:
            return
        cell = MARKDOWN_CELL in (dict(attrs).get("class") or "").split()
        self.stack.append((tag, cell))
        self.cells += cell
        self.literals += tag in LITERAL

    def handle_startendtag(self, tag, attrs):
        self._markup(self._offset() + len(self.get_starttag_text()))

    def handle_endtag(self, tag):
        self._markup(self.document.index(">", self._offset()) + 1)
        for index in range(
            len(self.stack) - 1, -1, -1
        ):  # close up to the matching open tag
            if self.stack[index][0] == tag:
                for name, cell in self.stack[index:]:
                    self.cells -= cell
                    self.literals -= name in LITERAL
                del self.stack[index:]
                break

    def handle_comment(self, data):
        self._markup(self.document.index("-->", self._offset()) + 3)

    def handle_decl(self, decl):
        self._markup(self.document.index(">", self._offset()) + 1)

    def handle_pi(self, data):
        self._markup(self.document.index(">", self._offset()) + 1)

    def unknown_decl(self, data):  # <![CDATA[...]]>
        self._markup(self.document.index("]]>", self._offset()) + 3)

    def close(self):
        super().close()
        if self.text_from is not None and self.cells and not self.literals:
            self.spans.append((self.text_from, len(self.document)))
