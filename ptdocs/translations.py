"""Keep every Spanish page a faithful, current twin of its English page.

Three things, for translators and for the test suite:

* **Parity** (:func:`parity_problems`): every page in ``docs/en`` has a twin of
  the same name in ``docs/es`` and vice versa; twins include the same snippets
  in the same order, have as many code blocks and as many headings at each
  level, link to the same pages, and notebook twins have identical code cells.
  Each problem is one sentence naming the page and what differs.
* **Freshness** (:func:`freshness`): a Spanish page records which version of
  its English page it translates, as ``translation_of`` (the first 12 hex digits
  of the SHA-256 of the English file) in its front matter, or in the notebook's
  metadata. A page is *missing*, *outdated* (with the English diff since the
  recorded version, recovered from git history) or *up to date*.
* A command line::

      python -m ptdocs.translations status               # every page, with diffs
      python -m ptdocs.translations mark docs/es/x.md    # record the current English
      version

The MkDocs hook ``ptdocs/hooks/translations.py`` uses the same functions to show
readers a notice on outdated pages and to fail the strict build on missing ones.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import hashlib
import html.parser
import posixpath
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import markdown
import nbformat
import yaml
from mkdocs.utils.meta import get_data

from . import catalog
from .atomic import write_atomically
from .catalog import SOURCE, Plural, Texts  # SOURCE: the language pages are written in
from .pages import PROSE_VALUES
from .snippets import ROOT, IncludeError, expand, include_target, site_config

DOCS = ROOT / "docs"
TARGET = "es"  # the language they are translated into
SUFFIXES = (".md", ".ipynb")
FIELD = "translation_of"
HASH_LENGTH = 12
COMMAND = "python -m ptdocs.translations"

# Strings the site shows readers, in the language of the page they are on: English here,
# other languages in locale/<language>/LC_MESSAGES/interface.po (ptdocs.catalog).
MESSAGES = Texts(
    "translations",
    {
        "outdated_title": "This translation is out of date",
        "outdated_body": (
            "The {link} has changed since this page was translated. Until the "
            "translation is updated, the original page is the reference."
        ),
        "original_page": "original page",
    },
)

MISSING = "missing"
OUTDATED = "outdated"
CURRENT = "up to date"
ORPHAN = "no English page"


class TranslationError(ValueError):
    """Bad input to the command line: a one-line message for the translator."""


class OutdatedTranslation(UserWarning):
    """A Spanish page that lags its English page: reported by the tests, never a
    failure."""


# ---------------------------------------------------------------- the pages


def pages(docs: Path, language: str) -> list[str]:
    """Pages and notebooks of one language, as paths inside its folder
    (``exercises/x.ipynb``)."""
    folder = docs / language
    found = []
    for path in folder.rglob("*"):
        relative = path.relative_to(folder)
        if (
            path.suffix in SUFFIXES
            and path.is_file()
            and not any(part.startswith(".") for part in relative.parts)
        ):  # .ipynb_checkpoints, editors
            found.append(relative.as_posix())
    return sorted(found)


def shown(path: Path, docs: Path) -> str:
    """A page's path as a translator types it: ``docs/es/autograd.md``."""
    try:
        return path.resolve().relative_to(docs.resolve().parent).as_posix()
    except ValueError:
        return str(path)


def missing_twins(docs: Path) -> list[str]:
    """English pages without a Spanish twin, and Spanish pages without an English
    one."""
    english, spanish = set(pages(docs, SOURCE)), set(pages(docs, TARGET))
    problems = [
        f"{shown(docs / SOURCE / page, docs)} has no Spanish twin: "
        f"create {shown(docs / TARGET / page, docs)} (same file name) and translate it"
        for page in sorted(english - spanish)
    ]
    problems += [
        f"{shown(docs / TARGET / page, docs)} has no English page "
        f"{shown(docs / SOURCE / page, docs)}: rename it to match its English page, "
        "or remove it"
        for page in sorted(spanish - english)
    ]
    return problems


# ---------------------------------------------------------------- structure of a page


@dataclass(frozen=True)
class CodeBlock:
    line: int  # of the opening fence, in the file
    end: int  # of the closing fence (the last line, when a fence is left open)
    language: str
    includes: tuple[tuple[str, int], ...]  # (target, line) of each --8<-- line


@dataclass
class Structure:
    blocks: list[CodeBlock] = field(default_factory=list)
    headings: list[tuple[int, str]] = field(default_factory=list)  # (level, text)
    links: set[str] = field(
        default_factory=set
    )  # pages linked, relative to the language folder
    # prose-values comments (their text and line): the same checks of the same numbers
    # in both
    prose_values: list[tuple[str, int]] = field(default_factory=list)

    @property
    def includes(self) -> list[tuple[str, int]]:
        return [include for block in self.blocks for include in block.includes]


FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def code_blocks(text: str) -> list[CodeBlock]:
    """Fenced blocks of any language, outermost only (a fence shown inside a longer
    one is text)."""
    blocks: list[CodeBlock] = []
    opening = None
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        match = FENCE.match(line)
        if opening is None:
            if match and not (match["fence"][0] == "`" and "`" in match["info"]):
                info = match["info"].strip().lstrip("{").lstrip(".")
                opening = (
                    match["fence"],
                    number,
                    (info.split() or [""])[0].lower(),
                    [],
                )
            continue
        fence, start, language, includes = opening
        if (
            match
            and match["fence"][0] == fence[0]
            and len(match["fence"]) >= len(fence)
            and not match["info"].strip()
        ):
            blocks.append(CodeBlock(start, number, language, tuple(includes)))
            opening = None
        elif (target := include_target(line)) is not None:
            includes.append((target, number))
    if opening is not None:
        fence, start, language, includes = opening
        blocks.append(CodeBlock(start, len(lines), language, tuple(includes)))
    return blocks


class _Outline(html.parser.HTMLParser):
    """Headings and link targets of a rendered page."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[tuple[int, str]] = []
        self.hrefs: list[str] = []
        self._heading: list[str] | None = None
        self._level = 0
        self._permalink = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if re.fullmatch(r"h[1-6]", tag):
            self._heading, self._level = [], int(tag[1])
        elif tag == "a":
            self._permalink = "headerlink" in (attrs.get("class") or "")
            if attrs.get("href") and not self._permalink:
                self.hrefs.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag == "a":
            self._permalink = False
        elif self._heading is not None and tag == f"h{self._level}":
            self.headings.append(
                (self._level, " ".join("".join(self._heading).split()))
            )
            self._heading = None

    def handle_data(self, data):
        if self._heading is not None and not self._permalink:
            self._heading.append(data)


@functools.lru_cache(maxsize=1)
def _renderer() -> markdown.Markdown:
    """Python-Markdown with the site's extensions, minus snippets: include lines stay
    as written."""
    names, settings = [], {}
    for extension in site_config(ROOT).get("markdown_extensions", []):
        name, options = (
            next(iter(extension.items()))
            if isinstance(extension, dict)
            else (extension, None)
        )
        if name == "pymdownx.snippets":
            continue
        names.append(name)
        settings[name] = dict(options or {})
    if "pymdownx.highlight" in settings:
        settings["pymdownx.highlight"]["use_pygments"] = False
    return markdown.Markdown(extensions=names, extension_configs=settings)


def outline(markdown_text: str, page: str) -> tuple[list[tuple[int, str]], set[str]]:
    """Headings (level, text) and linked pages of Markdown, as the site renders it."""
    renderer = _renderer()
    renderer.reset()
    parser = _Outline()
    parser.feed(renderer.convert(markdown_text))
    return parser.headings, {
        link for href in parser.hrefs if (link := _page_link(href, page))
    }


def _page_link(href: str, page: str) -> str | None:
    """The page a link leads to, relative to the language folder; None for anchors
    and URLs."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
        return None
    path = unquote(parts.path)
    if not path.endswith(SUFFIXES):
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(page), path))


def front_matter(path: Path, text: str | None = None) -> tuple[str, dict]:
    """A page's text after its YAML front matter, and the front matter;
    TranslationError for front matter that is not valid YAML (MkDocs would read it as
    text, and its ``---`` lines as a heading)."""
    text = path.read_text(encoding="utf-8") if text is None else text
    match = FRONT_MATTER.match(text.replace("\r\n", "\n"))
    if match is not None:
        try:
            meta = yaml.safe_load(match["body"] or "")
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f", line {mark.line + 2}" if mark is not None else ""
            problem = getattr(error, "problem", None) or str(error).split("\n")[0]
            raise TranslationError(
                f"{path}{where}: the front matter (between the --- lines) is not "
                f"valid YAML: {problem}"
            ) from None
        if meta is not None and not isinstance(meta, dict):
            raise TranslationError(
                f"{path}: the front matter (between the --- lines) is not "
                "'name: value' lines"
            )
    return get_data(text)


def structure(path: Path, page: str) -> Structure:
    """The parts of a Markdown page a translation must keep (page: its path inside
    the language folder)."""
    text = path.read_text(encoding="utf-8")
    body, _ = front_matter(path, text)
    headings, links = outline(body, page)
    prose_values = [
        (" ".join(match[0].split()), text.count("\n", 0, match.start()) + 1)
        for match in PROSE_VALUES.finditer(text)
    ]
    return Structure(code_blocks(text), headings, links, prose_values)


# ---------------------------------------------------------------- menu labels


def nav_titles(nav) -> list[str]:
    """Every title of an MkDocs ``nav`` (sections and pages), in order; bare paths
    have none."""
    titles = []
    for entry in nav or []:
        if isinstance(entry, dict):
            for title, value in entry.items():
                titles.append(title)
                if isinstance(value, list):
                    titles += nav_titles(value)
    return titles


def untranslated_nav(nav, labels: dict | None) -> list[str]:
    """A sentence for each menu title without a label in ``nav_translations`` of the
    Spanish language: without one, the Spanish menu would show the English title."""
    labels = labels or {}
    return [
        f"the menu title «{title}» has no Spanish label: add `{title}: ...` to "
        "nav_translations "
        f"of the {TARGET} language in mkdocs.yml"
        for title in dict.fromkeys(nav_titles(nav))
        if title not in labels
    ]


# ---------------------------------------------------------------- parity


def parity_problems(docs: Path, page: str | None = None) -> list[str]:
    """Every difference between twins (of one page, or of all), one sentence each."""
    if page is not None:
        return compare(docs, page)
    return missing_twins(docs) + [
        problem for twin in twins(docs) for problem in compare(docs, twin)
    ]


def twins(docs: Path) -> list[str]:
    """Pages that exist in both languages."""
    return sorted(set(pages(docs, SOURCE)) & set(pages(docs, TARGET)))


def compare(docs: Path, page: str) -> list[str]:
    english, spanish = docs / SOURCE / page, docs / TARGET / page
    if not english.is_file():
        return [f"{shown(spanish, docs)} has no English page {shown(english, docs)}"]
    if not spanish.is_file():
        return [
            f"{shown(english, docs)} has no Spanish twin: create {shown(spanish, docs)}"
        ]
    en, es = shown(english, docs), shown(spanish, docs)
    if page.endswith(".ipynb"):
        return _compare_notebooks(english, spanish, en, es, page)
    try:
        return _compare_structures(
            structure(english, page), structure(spanish, page), en, es
        )
    except (
        TranslationError
    ) as error:  # front matter that is not YAML: say so, not "headings differ"
        return [str(error).replace(str(english), en).replace(str(spanish), es)]


def _compare_structures(
    english: Structure, spanish: Structure, en: str, es: str
) -> list[str]:
    return (
        _compare_includes(english.includes, spanish.includes, en, es)
        + _compare_blocks(english.blocks, spanish.blocks, en, es)
        + _compare_headings(english.headings, spanish.headings, en, es)
        + _compare_links(english.links, spanish.links, en, es)
        + _compare_prose_values(english.prose_values, spanish.prose_values, en, es)
    )


def _compare_prose_values(english, spanish, en, es) -> list[str]:
    """The numbers the prose restates are the same numbers in both languages, checked
    alike."""
    problems = []
    for (theirs, line), (mine, my_line) in zip(english, spanish, strict=False):
        if theirs != mine:
            problems.append(
                f"{es}, line {my_line}, has {mine} where {en}, line {line}, has "
                f"{theirs}"
            )
    for theirs, line in english[len(spanish) :]:
        problems.append(f"{es} lacks {theirs}, which {en} has at line {line}")
    for mine, my_line in spanish[len(english) :]:
        problems.append(f"{es}, line {my_line}, has {mine}, which {en} does not have")
    return problems


def _compare_includes(english, spanish, en, es) -> list[str]:
    problems = []
    matcher = difflib.SequenceMatcher(
        a=[t for t, _ in english], b=[t for t, _ in spanish], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        theirs, ours = english[i1:i2], spanish[j1:j2]
        for (target, line), (mine, my_line) in zip(theirs, ours, strict=False):
            problems.append(
                f"{es}, line {my_line}, includes {mine} where {en}, line {line}, "
                f"includes {target}"
            )
        for target, line in theirs[len(ours) :]:
            problems.append(
                f"{es} does not include {target}, which {en} includes at line {line}"
            )
        for mine, my_line in ours[len(theirs) :]:
            problems.append(
                f"{es}, line {my_line}, includes {mine}, which {en} does not include"
            )
    return problems


def _describe(blocks: list[CodeBlock], page: str) -> str:
    if len(blocks) == 1:
        block = blocks[0]
        language = f"```{block.language}" if block.language else "```"
        first = f", first include {block.includes[0][0]}" if block.includes else ""
        return f"the {language} block at line {block.line} of {page}{first}"
    return f"the blocks at lines {', '.join(str(b.line) for b in blocks)} of {page}"


def _compare_blocks(english, spanish, en, es) -> list[str]:
    if len(english) == len(spanish):
        return []
    sentence = f"{es} has {len(spanish)} code blocks where {en} has {len(english)}"
    key = lambda block: (block.language, tuple(t for t, _ in block.includes))  # noqa: E731
    matcher = difflib.SequenceMatcher(
        a=[key(b) for b in english], b=[key(b) for b in spanish], autojunk=False
    )
    extra, lacking = [], []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            lacking += english[i1:i2]
            extra += spanish[j1:j2]
    if len(spanish) > len(english) and extra:
        sentence += f"; the extra: {_describe(extra, es)}"
    elif len(english) > len(spanish) and lacking:
        sentence += f"; not translated: {_describe(lacking, en)}"
    return [sentence]


def _compare_headings(english, spanish, en, es) -> list[str]:
    problems = []
    for level in range(1, 7):
        theirs = [text for lvl, text in english if lvl == level]
        ours = [text for lvl, text in spanish if lvl == level]
        if len(theirs) != len(ours):
            kind = f"level-{level} headings ({'#' * level})"
            problems.append(
                f"{es} has {len(ours)} {kind} where {en} has {len(theirs)}: "
                f"Spanish {_quoted(ours)}; English {_quoted(theirs)}"
            )
    return problems


def _quoted(texts) -> str:
    return ", ".join(f"«{text}»" for text in texts) if texts else "(none)"


def _compare_links(english: set[str], spanish: set[str], en, es) -> list[str]:
    problems = [
        f"{es} does not link to {link}, which {en} links to"
        for link in sorted(english - spanish)
    ]
    problems += [
        f"{es} links to {link}, which {en} does not link to"
        for link in sorted(spanish - english)
    ]
    return problems


def _compare_notebooks(
    english: Path, spanish: Path, en: str, es: str, page: str
) -> list[str]:
    theirs, ours = (nbformat.read(path, as_version=4) for path in (english, spanish))
    kinds_en = [cell.cell_type for cell in theirs.cells]
    kinds_es = [cell.cell_type for cell in ours.cells]
    if kinds_en != kinds_es:
        return [
            f"{es} has {len(kinds_es)} cells ({', '.join(kinds_es)}) where {en} has "
            f"{len(kinds_en)} ({', '.join(kinds_en)}): keep one Spanish cell per "
            "English cell"
        ]
    # Only a code cell's comments may differ: translated in the catalog
    # (ptdocs.catalog).
    problems = [
        f"{es}, cell {number}: its code differs from cell {number} of {en} "
        f"({_first_difference(a.source, b.source)}); code cells are never translated "
        "(their comments are, in locale/es/LC_MESSAGES/snippets.po), copy the English "
        "cell"
        for number, (a, b) in enumerate(
            zip(theirs.cells, ours.cells, strict=False), start=1
        )
        if a.cell_type == "code" and not catalog.same_code(a.source, b.source)
    ]
    prose = [
        "\n\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
        for nb in (theirs, ours)
    ]
    (h_en, l_en), (h_es, l_es) = (outline(text, page) for text in prose)
    return (
        problems
        + _compare_headings(h_en, h_es, en, es)
        + _compare_links(l_en, l_es, en, es)
    )


def _first_difference(english: str, spanish: str) -> str:
    theirs, ours = english.splitlines(), spanish.splitlines()
    for number, (a, b) in enumerate(zip(theirs, ours, strict=False), start=1):
        if a != b:
            return f"line {number} is `{b.strip()}` where English has `{a.strip()}`"
    if len(ours) > len(theirs):
        return (
            f"line {len(theirs) + 1}, `{ours[len(theirs)].strip()}`, is not in English"
        )
    if len(theirs) > len(ours):
        return (
            f"English line {len(ours) + 1}, `{theirs[len(ours)].strip()}`, is missing"
        )
    return "they differ only in line endings or a final newline"


# ---------------------------------------------------------------- freshness


def content_hash(path: Path) -> str:
    return _hash(path.read_bytes())


def _hash(data: bytes) -> str:
    """The hash of a file's text, whatever its line endings: a clone with
    core.autocrlf=true (Git for Windows' default) holds CRLF files, and must see and
    record the same hashes as any other."""
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest()[:HASH_LENGTH]


FRONT_MATTER = re.compile(r"\A-{3}[ \t]*\n(?P<body>.*?\n)?(?:-{3}|\.{3})[ \t]*\n", re.S)


def notebook_source(docs: Path, path: Path) -> Path | None:
    """The bilingual jupytext script a notebook is generated from
    (``ptdocs.notebook_twins``), if any.

    A generated notebook is rewritten from its script, so its own metadata cannot
    keep a record: the record lives in the script's header instead, next to the prose
    it is about."""
    if path.suffix != ".ipynb":
        return None
    from . import (
        notebook_twins,
    )  # imported here: it imports jupytext, slow, and only notebooks need it

    root = docs.resolve().parent
    for source in notebook_twins.sources(root):
        if notebook_twins.target(source, TARGET, root).resolve() == path.resolve():
            return source
    return None


def recorded_hash(docs: Path, path: Path) -> str | None:
    """The English version a Spanish page says it translates, if it says."""
    if path.suffix == ".ipynb":
        source = notebook_source(docs, path)
        if source is not None:
            import jupytext  # imported here: slow, and only notebooks need it

            value = jupytext.read(source, fmt="py:percent").metadata.get(FIELD)
        else:
            value = nbformat.read(path, as_version=4).metadata.get(FIELD)
    else:
        _, meta = front_matter(path)
        value = meta.get(FIELD)
    return None if value is None else str(value)


# A jupytext script's YAML header: "# ---" lines around commented YAML.
SCRIPT_HEADER = re.compile(r"\A# ---[ \t]*\n(?P<body>(?:#.*\n)*?)# ---[ \t]*\n")


def record_hash(docs: Path, path: Path, value: str) -> Path:
    """Write ``translation_of: value`` for a page, keeping everything else as it is;
    returns the file written (the page, or the script a generated notebook comes
    from: its header's notebook metadata, ``# jupyter:`` ``#   translation_of:
    ...``)."""
    if path.suffix == ".ipynb":
        source = notebook_source(docs, path)
        if source is None:
            notebook = nbformat.read(path, as_version=4)
            notebook.metadata[FIELD] = value
            write_atomically(path, nbformat.writes(notebook) + "\n")
            return path
        path, header, fence, line, parent = (
            source,
            SCRIPT_HEADER,
            "# ---",
            f'#   {FIELD}: "{value}"',
            "# jupyter:",
        )
    else:
        header, fence, line, parent = FRONT_MATTER, "---", f'{FIELD}: "{value}"', ""
    text = path.read_text(encoding="utf-8")
    match = header.match(text)
    body = (match["body"] or "") if match else ""
    existing = re.compile(
        rf"^{re.escape(line[: line.index(FIELD)])}{FIELD}[ \t]*:.*$", re.M
    )
    under = re.compile(rf"^{re.escape(parent)}[ \t]*$", re.M) if parent else None
    if existing.search(body):
        body = existing.sub(lambda _: line, body, count=1)
    elif under is not None and under.search(body):
        body = under.sub(lambda _: f"{parent}\n{line}", body, count=1)
    else:
        body = f"{parent}\n{line}\n{body}" if parent else f"{body}{line}\n"
    text = f"{fence}\n{body}{fence}\n" + (text[match.end() :] if match else "\n" + text)
    if (
        b"\r\n" in path.read_bytes()
    ):  # read_text gave "\n": keep the file's own line endings
        text = text.replace("\n", "\r\n")
    write_atomically(path, text)
    return path


@dataclass(frozen=True)
class Freshness:
    page: str  # the Spanish page, as shown: docs/es/x.md
    source: str  # its English page
    state: str  # MISSING, OUTDATED, CURRENT or ORPHAN
    reason: str = ""
    diff: str = ""


def freshness(docs: Path, page: str, with_diff: bool = False) -> Freshness:
    """Whether the Spanish twin of ``page`` (a path inside the language folders) is
    current. ``reason`` is a phrase about the Spanish page, to print after its name."""
    english, spanish = docs / SOURCE / page, docs / TARGET / page
    en, es = shown(english, docs), shown(spanish, docs)
    if not english.is_file():
        return Freshness(
            es,
            en,
            ORPHAN,
            f"{en} does not exist; rename this page to match its "
            "English page, or remove it",
        )
    if not spanish.is_file():
        return Freshness(
            es, en, MISSING, f"create it: translate {en}, then run: {COMMAND} mark {es}"
        )
    try:
        recorded, current = recorded_hash(docs, spanish), content_hash(english)
    except TranslationError as error:
        return Freshness(es, en, OUTDATED, str(error).replace(str(spanish), es))
    if recorded == current:
        return Freshness(es, en, CURRENT)
    script = notebook_source(docs, spanish)
    edit = (
        f'update the translation (the lang="{TARGET}" cells of {shown(script, docs)}, '
        "then "
        "python -m ptdocs.notebook_twins)"
        if script
        else "update the translation"
    )
    if recorded is None:
        return Freshness(
            es,
            en,
            OUTDATED,
            f"records no version of {en} (no {FIELD}); compare the two pages, {edit}, "
            f"then run: {COMMAND} mark {es}",
        )
    reason = f"{en} has changed since the version translated here ({FIELD}: {recorded}"
    if not with_diff:
        return Freshness(es, en, OUTDATED, reason + ")")
    try:
        found = translated_version(english, recorded)
    except TranslationError as error:
        return Freshness(es, en, OUTDATED, f"{reason}); no diff: {error}")
    if found is None:
        if _shallow(english):
            why = (
                "this clone is shallow (git clone --depth) and lacks the older "
                "versions; run "
                "git fetch --unshallow to see the diff"
            )
        else:
            why = (
                f"no version of {en} in the git history has that hash (was it marked "
                "against "
                "uncommitted text?), so compare the pages by hand"
            )
        return Freshness(es, en, OUTDATED, f"{reason}); no diff: {why}")
    label, old = found
    return Freshness(
        es,
        en,
        OUTDATED,
        f"{reason}, {label}); {edit}, then run: {COMMAND} mark {es}. "
        "What changed in English:",
        _diff(
            old, english.read_bytes(), f"{en} ({label})", f"{en} (now)", english.suffix
        ),
    )


def untranslated_comments(
    docs: Path, page: str, root: Path | None = None
) -> list[catalog.Place]:
    """The place of each code comment that the Spanish ``page`` shows in English: the
    catalog (locale/es/LC_MESSAGES/snippets.po) has no translation of it, or an
    outdated (fuzzy) one. For a page, its includes; for a notebook, the code cells of
    its source."""
    spanish = docs / TARGET / page
    if not spanish.is_file():
        return []
    root = Path(root) if root is not None else docs.resolve().parent
    left: list[catalog.Place] = []
    if spanish.suffix == ".md":
        for line in spanish.read_text(encoding="utf-8").split("\n"):
            target = include_target(line)
            if target is not None:
                try:
                    # Only its comments are read here: what it shows is checked against
                    # pymdownx where the page's examples run (ptdocs/pages.py).
                    left += expand(target, root, TARGET, check=False).untranslated
                except (
                    IncludeError
                ):  # a broken include: the build and the page tests say so
                    continue
        return list(dict.fromkeys(left))
    script = notebook_source(docs, spanish)
    if script is not None:
        return catalog.untranslated_notebook_comments(script, TARGET, root)
    return []


def status(docs: Path, with_diff: bool = True) -> list[Freshness]:
    every = sorted(set(pages(docs, SOURCE)) | set(pages(docs, TARGET)))
    return [freshness(docs, page, with_diff) for page in every]


def _git(cwd: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise TranslationError("git is not installed") from None
    if done.returncode:
        raise TranslationError(
            done.stderr.decode(errors="replace").strip().splitlines()[-1]
        )
    return done.stdout


def _shallow(path: Path) -> bool:
    try:
        return (
            _git(path.resolve().parent, "rev-parse", "--is-shallow-repository").strip()
            == b"true"
        )
    except TranslationError:
        return False


def translated_version(english: Path, recorded: str) -> tuple[str, bytes] | None:
    """(where, text) of the version of an English page whose hash is ``recorded``,
    from git."""
    folder = english.resolve().parent
    try:
        top = Path(_git(folder, "rev-parse", "--show-toplevel").decode().strip())
    except TranslationError:
        raise TranslationError(
            "not a git repository, so old versions cannot be recovered"
        ) from None
    relative = english.resolve().relative_to(top.resolve()).as_posix()
    candidates: list[tuple[str, str]] = []
    log = _git(
        top, "log", "--follow", "--format=%x00%h %cs", "--name-only", "--", relative
    ).decode()
    for entry in log.split("\x00")[1:]:
        header, *paths = [line for line in entry.splitlines() if line.strip()]
        commit, date = header.split(" ", 1)
        candidates.append(
            (f"commit {commit}, {date}", f"{commit}:{paths[-1] if paths else relative}")
        )
    candidates.append(
        ("the staged version", f":{relative}")
    )  # marked, then changed before a commit
    for label, spec in candidates:
        try:
            text = _git(top, "show", spec)
        except TranslationError:
            continue  # not staged, or deleted in that commit
        if _hash(text) == recorded:
            return label, text
    return None


def _diff(old: bytes, new: bytes, old_name: str, new_name: str, suffix: str) -> str:
    old_text, new_text = (_readable(data, suffix) for data in (old, new))
    return "".join(
        difflib.unified_diff(
            old_text.splitlines(keepends=True),
            new_text.splitlines(keepends=True),
            old_name,
            new_name,
        )
    )


def _readable(data: bytes, suffix: str) -> str:
    """A page's text; a notebook as Markdown (jupytext), which diffs like a page."""
    text = data.decode("utf-8", errors="replace")
    if suffix != ".ipynb":
        return text
    import jupytext  # imported here: only notebooks need it, and it is slow to import

    return jupytext.writes(nbformat.reads(text, as_version=4), fmt="md")


# ---------------------------------------------------------------- marking


def mark(docs: Path, path: Path) -> str:
    """Record that a Spanish page translates the current English page; refuses a page
    whose structure differs from the English one (it would be marked current while
    wrong). Returns a line saying what was recorded where, for the translator."""
    page = spanish_page(docs, path)
    english, spanish = docs / SOURCE / page, docs / TARGET / page
    if not spanish.is_file():
        raise TranslationError(f"{shown(spanish, docs)} does not exist")
    if not english.is_file():
        raise TranslationError(
            f"{shown(spanish, docs)} has no English page {shown(english, docs)}"
        )
    problems = compare(docs, page)
    if problems:
        raise TranslationError(
            f"not marked: {shown(spanish, docs)} differs from "
            f"{shown(english, docs)}:\n  " + "\n  ".join(problems)
        )
    value = content_hash(english)
    written = record_hash(docs, spanish, value)
    where = "" if written == spanish else f", recorded in {shown(written, docs)}"
    return (
        f"marked {shown(spanish, docs)} as the translation of {shown(english, docs)} "
        f"({FIELD}: {value}{where})"
    )


def spanish_page(docs: Path, path: Path) -> str:
    """``docs/es/x.md`` → ``x.md``, with a clear error for anything else."""
    target = (docs / TARGET).resolve()
    resolved = Path(path).resolve()
    if not resolved.is_relative_to(target):
        raise TranslationError(
            f"{path}: give a Spanish page, inside {shown(docs / TARGET, docs)}/ "
            f"(for example {shown(docs / TARGET / 'autograd.md', docs)})"
        )
    if resolved.suffix not in SUFFIXES:
        raise TranslationError(f"{path}: a page is a .md or .ipynb file")
    return resolved.relative_to(target).as_posix()


# ---------------------------------------------------------------- glossary


@dataclass(frozen=True)
class Term:
    english: str
    spanish: str
    avoid: tuple[str, ...]  # forms that must not appear in Spanish prose


def glossary(guide: Path) -> list[Term]:
    """The glossary table of a translators' guide: the first table whose header
    starts with English (or Inglés); columns English, Spanish, words not to use,
    note."""
    terms, inside = [], False
    for line in guide.read_text(encoding="utf-8").splitlines():
        cells = (
            [cell.strip() for cell in line.strip().strip("|").split("|")]
            if line.lstrip().startswith("|")
            else None
        )
        if cells is None:
            if inside:
                break
            continue
        if not inside:
            inside = cells[0].lower() in {"english", "inglés"}
            continue
        if set(cells[0]) <= set("-: "):
            continue
        avoid = tuple(
            word.strip().strip("`") for word in cells[2].split(",") if word.strip("— -")
        )
        terms.append(Term(cells[0], cells[1], avoid))
    return terms


def translated(docs: Path, page: str) -> bool:
    """Whether a Spanish page has ever been translated: it records an English
    version. A page without a record is the English text copied in by an English-only
    contributor (CONTRIBUTING, "Behind the English"): it warns as outdated, and the
    checks of Spanish prose (glossary, spelling) wait until it is translated and
    marked."""
    try:
        return recorded_hash(docs, docs / TARGET / page) is not None
    except (
        TranslationError
    ):  # front matter that is not YAML: checked, and reported elsewhere
        return True


def glossary_problems(docs: Path, terms: list[Term]) -> list[str]:
    """Spanish prose that uses a form the glossary rules out, in the singular or
    plural, with a space, a hyphen or a line break between its words. Text in «» is
    exempt (a quoted title of an English source stays as it is), and so is an aside
    that only names the English term: "difusión (broadcasting)" does it on purpose;
    any other parenthesis is prose. A page never translated (:func:`translated`) is
    not Spanish prose yet. The Spanish PO catalogs are checked too
    (:func:`_catalog_texts`): the comments, strings and output a page shows are read
    beside its prose, so they use the same words."""
    exempt = {name.lower() for term in terms for name in (term.english, *term.avoid)}
    texts = [
        (shown(docs / TARGET / page, docs), label, first_line, prose)
        for page in filter(functools.partial(translated, docs), pages(docs, TARGET))
        for label, first_line, prose in _prose_texts(docs / TARGET / page, exempt)
    ]
    problems = []
    for name, label, first_line, prose in [
        *texts,
        *_catalog_texts(Path(docs).parent, exempt),
    ]:
        for term in terms:
            # The approved form may hold a ruled-out word: «prueba piloto» is fine,
            # «piloto» is not.
            allowed = _approved_form(term)
            checked = (
                allowed.sub(lambda m: re.sub(r"\S", " ", m[0]), prose)
                if allowed
                else prose
            )
            for word in term.avoid:
                for found in re.finditer(_word_pattern(word), checked, re.I):
                    line = first_line + prose.count("\n", 0, found.start())
                    where = f"line {line}" if label == "line" else label
                    problems.append(
                        (
                            name,
                            label,
                            line,
                            f"{name}, {where}: «{_ruled_out(word, found)}» in "
                            f"Spanish prose; the glossary says «{term.spanish}» for "
                            f"«{term.english}»",
                        )
                    )
    return [message for *_, message in sorted(set(problems))]


def _catalog_texts(root: Path, exempt: set[str]):
    """(file, "entry at line N", 1, msgstr) of each current translation in the
    Spanish PO files under ``root``, with what is not prose blanked out as on a page,
    and also the names of code (``torch.profiler``, ``has_warnings``, ``copy()``,
    ``gradient=``), ``{placeholders}`` and any line kept as the English prints it (an
    error message of torch); in what the code prints, also each word kept from the
    English line (a value such as the task name ``gradient``). Nothing for a tree
    without locale/."""
    for domain in catalog.DOMAINS:
        path = catalog.po_path(domain, TARGET, root)
        if not path.is_file():
            continue
        for message in catalog.load(domain, TARGET, root):
            if (
                not (isinstance(message.string, str) and message.id and message.string)
                or message.fuzzy
            ):
                continue
            ids = message.id.split("\n")
            printed = any(
                note.startswith("what the code prints")
                for note in message.auto_comments
            )
            lines = [
                ""
                if line in ids
                else _prose_line(
                    _kept_words_out(line, ids[at])
                    if printed and at < len(ids)
                    else line,
                    exempt,
                    code=True,
                )
                for at, line in enumerate(message.string.split("\n"))
            ]
            yield (
                catalog.relative(path, root),
                f"entry at line {message.lineno}",
                1,
                "\n".join(lines),
            )


def _kept_words_out(line: str, english: str) -> str:
    """``line`` with each word that its English line also prints blanked: printed data
    (a task's name, a dtype), not prose."""
    kept = set(re.findall(r"\w+", english))
    return re.sub(
        r"\w+", lambda word: " " * len(word[0]) if word[0] in kept else word[0], line
    )


def _ruled_out(word: str, found: re.Match) -> str:
    """How a problem names the ruled-out form: the entry, or for a pattern what it
    matched."""
    return found[0] if _is_pattern(word) else word


def _is_pattern(word: str) -> bool:
    """A ruled-out entry written /like this/ is a regular expression: «/\\d %/» for a
    space before the percent sign."""
    return len(word) > 2 and word.startswith("/") and word.endswith("/")


def _word_pattern(word: str) -> str:
    """A ruled-out form as a whole word, each of its words also in the plural
    («búferes auxiliares»), joined by any space or hyphen; or the entry's own regular
    expression."""
    if _is_pattern(word):
        return word[1:-1]
    parts = [
        re.escape(part) + "(?:e?s)?" for part in re.split(r"[\s\-]+", word.strip())
    ]
    joined = r"(?:[ \t]*\n[ \t]*|[\s\-\u2010\u2011])+".join(parts)
    return rf"(?<!\w){joined}(?!\w)"


def _approved_form(term: Term) -> re.Pattern | None:
    """The glossary's Spanish term as a pattern (each word also in the plural), when
    it is one plain phrase; None for entries such as «tensor (plural: tensores)» or
    «dtype, tipo de datos»."""
    if not re.fullmatch(r"[^\W\d_]+(?: [^\W\d_]+)*", term.spanish):
        return None
    words = r"\s+".join(re.escape(word) + "(?:e?s)?" for word in term.spanish.split())
    return re.compile(rf"(?<!\w){words}(?!\w)", re.I)


def _prose_texts(path: Path, exempt: set[str]):
    """(label, first line, text) of each Markdown source (a page, or a notebook's
    Markdown cell) with what is not prose blanked out, line breaks kept: code,
    include lines, link targets, «quoted titles» and asides that only name an English
    term."""
    if path.suffix == ".ipynb":
        notebook = nbformat.read(path, as_version=4)
        sources = [
            (f"cell {n}", cell.source)
            for n, cell in enumerate(notebook.cells, start=1)
            if cell.cell_type == "markdown"
        ]
    else:
        sources = [("line", path.read_text(encoding="utf-8"))]

    for label, text in sources:
        text = FRONT_MATTER.sub(lambda m: "\n" * m[0].count("\n"), text)
        text = re.sub(
            r"<!--.*?-->", lambda m: "\n" * m[0].count("\n"), text, flags=re.S
        )
        fenced = {
            line
            for block in code_blocks(text)
            for line in range(block.line, block.end + 1)
        }
        lines = []
        for number, line in enumerate(text.split("\n"), start=1):
            if number in fenced:
                lines.append("")
                continue
            lines.append(_prose_line(line, exempt))
        yield label, 1, "\n".join(lines)


def _prose_line(line: str, exempt: set[str], code: bool = False) -> str:
    """A line of prose without inline code, link targets, «quoted titles» and asides
    that only name an English term; with ``code``, a line of a code comment or
    string, also without the names of code and ``{placeholders}``, which it writes
    without backticks."""

    def aside(match):
        inner = re.sub(r"[*_]", "", match[1]).strip().lower()
        return " " if inner in exempt else match[0]

    line = re.sub(r"`[^`]*`", " ", line)  # inline code
    if code:  # dotted.names, snake_case, calls(), keyword=, {placeholders}
        line = re.sub(
            r"\{[^{}]*\}|[^\W\d]\w*(?:\.\w+)+(?:\(\))?|\w*_\w*|\w+\(\)|\w+=", " ", line
        )
    line = re.sub(
        r"\]\([^)]*\)|<https?://[^>]*>|https?://\S+", " ", line
    )  # link targets
    line = re.sub(r"\(([^()]*)\)", aside, line)  # "difusión (broadcasting)"
    return re.sub(r"«[^»]*»", " ", line)  # quoted titles of English sources


# ---------------------------------------------------------------- command line


def _print_status(docs: Path) -> int:
    report = status(docs)
    width = max(len(state) for state in (MISSING, OUTDATED, CURRENT, ORPHAN))
    for entry in report:
        print(
            f"{entry.state:<{width}}  {entry.page}"
            + (f": {entry.reason}" if entry.reason else "")
        )
        if entry.diff:
            print(
                "".join(f"    {line}" for line in entry.diff.splitlines(keepends=True)),
                end="",
            )
    problems = [problem for page in twins(docs) for problem in compare(docs, page)]
    if problems:
        print(
            "\nWhere the Spanish page's structure differs from the English page "
            "(the tests report these too):"
        )
        for problem in problems:
            print(f"  {problem}")
    comments = {
        page: found
        for page in pages(docs, TARGET)
        if (found := untranslated_comments(docs, page))
    }
    if comments:
        print(
            f"\nCode comments these Spanish pages show in English: translate them in "
            f"{catalog.po_path('snippets', TARGET, Path('.')).as_posix()} (run "
            f"`{catalog.COMMAND} update` "
            "first if the comment is new); each page shows the outdated-translation "
            "notice until then:"
        )
        for page, found in comments.items():
            print(
                f"  {shown(docs / TARGET / page, docs)}: {', '.join(map(str, found))}"
            )
    counts = {
        state: sum(entry.state == state for entry in report)
        for state in (CURRENT, OUTDATED, MISSING, ORPHAN)
    }
    print(
        "\n"
        + ", ".join(
            f"{count} {state}"
            for state, count in counts.items()
            if count or state == CURRENT
        )
        + f" ({len(report)} pages)"
        + (
            "; "
            f"{Plural('{n} comment', '{n} comments')(sum(map(len, comments.values())))}"
            " in English "
            f"on {Plural('{n} page', '{n} pages')(len(comments))}"
            if comments
            else ""
        )
    )
    return 0 if counts[CURRENT] == len(report) and not problems and not comments else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=COMMAND,
        description="Check and record which English version each Spanish page "
        "translates.",
    )
    parser.add_argument(
        "--docs", type=Path, default=DOCS, help="the docs folder (default: the site's)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "status",
        help="list every page as missing, outdated (with the English diff) "
        "or up to date; exit status 1 unless all are up to date",
    )
    marking = commands.add_parser(
        "mark",
        help="record that Spanish pages translate the current "
        "English pages (after you have updated them)",
    )
    marking.add_argument(
        "pages", nargs="*", type=Path, help="Spanish pages, e.g. docs/es/autograd.md"
    )
    marking.add_argument("--all", action="store_true", help="mark every Spanish page")
    arguments = parser.parse_args(argv)
    docs = arguments.docs
    if not (docs / SOURCE).is_dir() or not (docs / TARGET).is_dir():
        parser.error(
            f"--docs {docs}: no {SOURCE}/ and {TARGET}/ folders of pages in it"
        )
    if arguments.command == "status":
        return _print_status(docs)
    if arguments.all and arguments.pages:
        parser.error("give Spanish pages or --all, not both")
    targets = (
        [docs / TARGET / page for page in pages(docs, TARGET)]
        if arguments.all
        else arguments.pages
    )
    if not targets:
        parser.error("mark needs Spanish pages (docs/es/...) or --all")
    failed = 0
    for path in targets:
        try:
            if arguments.all:
                # --all records what has no record yet; it never calls an outdated page
                # current.
                state = freshness(docs, spanish_page(docs, path))
                if state.state == OUTDATED and recorded_hash(docs, path) is not None:
                    raise TranslationError(
                        f"not marked: {state.page} is outdated ({state.reason}); "
                        f"update it, then mark it by name: {COMMAND} mark {state.page}"
                    )
            print(mark(docs, path))
        except TranslationError as error:
            print(f"error: {error}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
