"""Keep every Spanish page a current twin of its English page: the same structure
(:func:`compare`), the English version it translates (:func:`freshness`) and the
glossary's words; the commands ``status`` and ``mark docs/es/x.md``.
"""

from __future__ import annotations

import argparse
import bisect
import difflib
import functools
import hashlib
import itertools
import posixpath
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

import nbformat
import yaml
from mkdocs.utils.meta import get_data

from . import catalog
from .atomic import write_atomically
from .catalog import SOURCE, Plural, Texts  # SOURCE: the language pages are written in
from .pages import INFO, PROSE_VALUES, headings, markdown_reader
from .snippets import ROOT, IncludeError, expand, include_target

DOCS = ROOT / "docs"
TARGET = "es"  # the language they are translated into
SUFFIXES = (".md", ".ipynb")
FIELD = "translation_of"
HASH_LENGTH = 12
COMMAND = "python -m ptdocs.translations"
MISSING, OUTDATED, CURRENT = "missing", "outdated", "up to date"
ORPHAN = "no English page"  # the longest state: the width of status's first column
FRONT_MATTER = re.compile(r"\A-{3}[ \t]*\n(?P<body>.*?\n)?(?:-{3}|\.{3})[ \t]*\n", re.S)
# A jupytext script's YAML header: "# ---" lines around commented YAML.
SCRIPT_HEADER = re.compile(r"\A# ---[ \t]*\n(?P<body>(?:#.*\n)*?)# ---[ \t]*\n")


class TranslationError(ValueError):
    """Bad input to the command line: a one-line message for the translator."""


class OutdatedTranslation(UserWarning):
    """A Spanish page that lags its English page: a test warning, never a failure."""


# Shown to readers of an outdated page; other languages in locale/*/interface.po,
# which cite this line: moving it makes the catalog stale (catalog check).
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


def pages(docs: Path, language: str) -> list[str]:
    """One language's pages (``exercises/x.ipynb``), not in hidden folders."""
    folder = docs / language
    found = (path.relative_to(folder) for path in folder.rglob("*") if path.is_file())
    return sorted(
        path.as_posix()
        for path in found
        if path.suffix in SUFFIXES and not any(p.startswith(".") for p in path.parts)
    )


def shown(path: Path, docs: Path) -> str:
    """A page's path as a translator types it: ``docs/es/autograd.md``."""
    try:
        return path.resolve().relative_to(docs.resolve().parent).as_posix()
    except ValueError:
        return str(path)


def twins(docs: Path) -> list[str]:
    """Pages that exist in both languages."""
    return sorted(set(pages(docs, SOURCE)) & set(pages(docs, TARGET)))


def missing_twins(docs: Path, language: str | None = None) -> list[str]:
    """Pages without their twin in the other language (``language``: only its own)."""
    found = {lang: set(pages(docs, lang)) for lang in (SOURCE, TARGET)}
    return [
        f"{shown(docs / lang / page, docs)} has no {lacks} "
        f"{shown(docs / other / page, docs)}: {advice}"
        for lang, other, lacks, advice in (
            (SOURCE, TARGET, "Spanish twin", "create it and translate the page"),
            (TARGET, SOURCE, "English page", "rename it to match one, or remove it"),
        )
        if language in (None, lang)
        for page in sorted(found[lang] - found[other])
    ]


class CodeBlock(NamedTuple):
    line: int  # of the opening fence, in the file
    end: int  # of the closing fence (the last line, when a fence is left open)
    language: str
    includes: tuple[tuple[str, int], ...]  # (target, line) of each --8<-- line


class Outline(NamedTuple):
    blocks: list[CodeBlock]  # fenced, outermost: a fence inside a longer one is text
    headings: list[tuple[int, int, str]]  # (line, level, title): pages.headings
    links: dict[str, int]  # each page linked to (inside the language folder): its line


def outline(text: str, page: str = "") -> Outline:
    """Markdown's structure as markdown-it reads it (front matter: the caller's)."""
    tokens = markdown_reader().parse(text)
    found = Outline([], headings(tokens), {})
    for token in tokens:
        start, end = token.map or (0, 0)
        if token.type == "fence":
            language = INFO.match(token.info + "\n")["language"].lower()
            lines = enumerate(token.content.split("\n"), start + 2)
            found_in = [(include_target(line), n) for n, line in lines]
            includes = tuple((t, n) for t, n in found_in if t is not None)
            found.blocks.append(CodeBlock(start + 1, end, language, includes))
        for child in (c for c in token.children or [] if c.type == "link_open"):
            href = urlsplit(child.attrs.get("href", ""))
            path = unquote(href.path)
            if path.endswith(SUFFIXES) and not (href.scheme or href.netloc):
                if not path.startswith("/"):
                    path = posixpath.join(posixpath.dirname(page), path)
                    found.links.setdefault(posixpath.normpath(path), start + 1)
    return found


def front_matter(path: Path, text: str | None = None) -> dict:
    """A page's front matter (of ``text``, where already read) as MkDocs reads it;
    TranslationError for front matter MkDocs would show as text."""
    text = path.read_text(encoding="utf-8") if text is None else text
    match = FRONT_MATTER.match(text.replace("\r\n", "\n"))
    try:
        meta = yaml.safe_load(match["body"] or "") if match else None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f", line {mark.line + 2}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).split("\n")[0]
        raise TranslationError(
            f"{path}{where}: the front matter (between the --- lines) is not valid "
            f"YAML: {problem}"
        ) from None
    if meta is not None and not isinstance(meta, dict):
        raise TranslationError(
            f"{path}: the front matter (between the --- lines) is not 'name: value' "
            "lines"
        )
    return get_data(text)[1]


def _differences(english, spanish, en: str, es: str) -> list[str]:
    """A sentence for each (key, as said, where) of two lists whose keys differ."""
    matcher = difflib.SequenceMatcher(
        a=[key for key, *_ in english], b=[key for key, *_ in spanish], autojunk=False
    )
    problems = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        theirs, ours = english[i1:i2], spanish[j1:j2]
        problems += [
            f"{es}, {mine}, has {said} where {en}, {line}, has {target}"
            for (_, target, line), (_, said, mine) in zip(theirs, ours, strict=False)
        ]
        problems += [
            f"{es} lacks {t}, which {en} has at {n}" for _, t, n in theirs[len(ours) :]
        ]
        problems += [
            f"{es}, {n}, has {t}, which {en} does not have"
            for _, t, n in ours[len(theirs) :]
        ]
    return problems


def _structure(path: Path, page: str, content: str) -> list[list[tuple]]:
    """What a twin (``content``: its file's text) must have too, by kind, each (key,
    as said, where): code blocks (with what they include), headings, links to pages
    (sorted) and prose-values."""
    if path.suffix == ".md":
        front_matter(path, content)  # TranslationError when it is not YAML
    blocks, headings, values, links = [], [], [], {}
    for label, text in sources(path, content):

        def at(line, label=label):
            return f"line {line}" if label == "line" else label

        found = outline(text, page)
        above = len(blocks)  # the page's code blocks in the cells before this one
        for block in found.blocks:
            included = ", ".join(target for target, _ in block.includes)
            key = f"a ```{block.language} block" + f" including {included}" * bool(
                included
            )
            blocks.append((key, key, at(block.line)))
        # Keyed for now by level, cell and how many of the page's code blocks are
        # above it; compare() counts only the blocks both twins share.
        headings += [
            (
                (n, label, above + sum(block.line < line for block in found.blocks)),
                f"a level-{n} heading («{title}»)",
                at(line),
            )
            for line, n, title in found.headings
        ]
        for target, line in found.links.items():
            links.setdefault(f"a link to {target}", at(line))
        for match in PROSE_VALUES.finditer(text):
            value = " ".join(match[0].split())
            values.append((value, value, at(text.count("\n", 0, match.start()) + 1)))
    return [blocks, headings, [(k, k, w) for k, w in sorted(links.items())], values]


def compare(docs: Path, page: str) -> list[str]:
    """What differs between the twins of ``page``, one sentence each."""
    english, spanish = docs / SOURCE / page, docs / TARGET / page
    en, es = shown(english, docs), shown(spanish, docs)
    problems, paths = [], (english, spanish)
    contents = [path.read_text(encoding="utf-8") for path in paths]
    if page.endswith(".ipynb"):
        theirs, ours = (nbformat.reads(c, as_version=4).cells for c in contents)
        kinds = [[cell.cell_type for cell in cells] for cells in (theirs, ours)]
        if kinds[0] != kinds[1]:
            return [
                f"{es} has {len(kinds[1])} cells ({', '.join(kinds[1])}) where {en} "
                f"has {len(kinds[0])} ({', '.join(kinds[0])}): keep one Spanish cell "
                "per English cell"
            ]
        # Only a code cell's comments may differ: they are translated in the catalog.
        problems = [
            f"{es}, cell {number}: its code differs from cell {number} of {en} "
            f"({_first_difference(a.source, b.source)}); code cells are never "
            "translated (their comments are, in locale/es/LC_MESSAGES/snippets.po), "
            "copy the English cell"
            for number, (a, b) in enumerate(zip(theirs, ours, strict=True), 1)
            if a.cell_type == "code" and not catalog.same_code(a.source, b.source)
        ]
    try:
        found = [_structure(p, page, c) for p, c in zip(paths, contents, strict=True)]
    except TranslationError as error:  # front matter that is not YAML: say so
        return [str(error).replace(str(english), en).replace(str(spanish), es)]
    _place_headings(found[0], found[1])
    return problems + [
        p for a, b in zip(*found, strict=True) for p in _differences(a, b, en, es)
    ]


def _place_headings(english: list, spanish: list) -> None:
    """Key each heading by its level, cell and the number of code blocks above it
    that both twins have. A key of level alone let difflib pair any two headings of
    one level, naming the wrong one missing or every later one moved (issue 26);
    code blocks are copied, not translated, so they pin a heading's place, and a
    block only one twin has (reported on its own) moves no heading."""
    matcher = difflib.SequenceMatcher(
        a=[key for key, *_ in english[0]],
        b=[key for key, *_ in spanish[0]],
        autojunk=False,
    )
    pairs = matcher.get_matching_blocks()
    for side, structure in enumerate((english, spanish)):
        shared = [m[side] + i for m in pairs for i in range(m.size)]
        structure[1] = [
            ((n, label, bisect.bisect_left(shared, above)), said, where)
            for (n, label, above), said, where in structure[1]
        ]


def _first_difference(english: str, spanish: str) -> str:
    lines = itertools.zip_longest(english.splitlines(), spanish.splitlines())
    for number, (a, b) in enumerate(lines, 1):
        if a is None:
            return f"line {number}, `{b.strip()}`, is not in English"
        if b is None:
            return f"English line {number}, `{a.strip()}`, is missing"
        if a != b:
            return f"line {number} is `{b.strip()}` where English has `{a.strip()}`"
    return "they differ only in line endings or a final newline"


def content_hash(source: Path | bytes) -> str:
    """Whatever the line endings: a clone with core.autocrlf=true (Git for Windows'
    default) holds CRLF files, and must see and record the same hashes."""
    data = source.read_bytes() if isinstance(source, Path) else source
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest()[:HASH_LENGTH]


def notebook_source(docs: Path, path: Path) -> Path | None:
    """The script of a generated notebook: it keeps the record, since the notebook is
    rewritten."""
    if path.suffix != ".ipynb":
        return None
    from . import notebook_twins  # here: it imports jupytext, slow

    root = docs.resolve().parent
    for source in notebook_twins.sources(root):
        if notebook_twins.target(source, TARGET, root).resolve() == path.resolve():
            return source
    return None


def recorded_hash(docs: Path, path: Path) -> str | None:
    """The English version a Spanish page says it translates, if it says."""
    if path.suffix != ".ipynb":
        value = front_matter(path).get(FIELD)
    elif (source := notebook_source(docs, path)) is not None:
        import jupytext  # here: slow, and only notebooks need it

        value = jupytext.read(source, fmt="py:percent").metadata.get(FIELD)
    else:
        value = nbformat.read(path, as_version=4).metadata.get(FIELD)
    return None if value is None else str(value)


def record_hash(docs: Path, path: Path, value: str) -> Path:
    """Record ``value`` for a page and return the file written: the page, or the
    script of a generated notebook (its ``# jupyter:`` header holds the metadata)."""
    source = notebook_source(docs, path)
    if path.suffix == ".ipynb" and source is None:
        notebook = nbformat.read(path, as_version=4)
        notebook.metadata[FIELD] = value
        write_atomically(path, nbformat.writes(notebook) + "\n")
        return path
    header, fence, indent, parent = (
        (SCRIPT_HEADER, "# ---", "#   ", "# jupyter:")
        if source
        else (FRONT_MATTER, "---", "", "")
    )
    path = source or path
    line = f'{indent}{FIELD}: "{value}"'
    text = path.read_text(encoding="utf-8")
    match = header.match(text)
    body = (match["body"] or "") if match else ""
    existing = rf"^{re.escape(indent)}{FIELD}[ \t]*:.*$"
    body, done = re.subn(existing, lambda _: line, body, count=1, flags=re.M)
    if not done and parent:
        under = rf"^{re.escape(parent)}[ \t]*$"
        body, done = re.subn(under, f"{parent}\n{line}", body, count=1, flags=re.M)
    if not done:
        body = f"{parent}\n{line}\n{body}" if parent else f"{body}{line}\n"
    text = f"{fence}\n{body}{fence}\n" + (text[match.end() :] if match else "\n" + text)
    if b"\r\n" in path.read_bytes():  # read_text gave "\n": keep the file's own
        text = text.replace("\n", "\r\n")
    write_atomically(path, text)
    return path


class Freshness(NamedTuple):
    page: str  # the Spanish page, as shown: docs/es/x.md
    state: str  # MISSING, OUTDATED, CURRENT or ORPHAN
    reason: str = ""  # a phrase to print after the page's name
    diff: str = ""


def freshness(docs: Path, page: str, with_diff: bool = False) -> Freshness:
    """Whether the Spanish twin of ``page`` is current."""
    english, spanish = docs / SOURCE / page, docs / TARGET / page
    en, es = shown(english, docs), shown(spanish, docs)
    result = functools.partial(Freshness, es)
    if not english.is_file():
        return result(
            ORPHAN,
            f"{en} does not exist; rename this page to match its English page, or "
            "remove it",
        )
    mark_it = f"then run: {COMMAND} mark {es}"
    if not spanish.is_file():
        return result(MISSING, f"create it: translate {en}, {mark_it}")
    try:
        recorded = recorded_hash(docs, spanish)
    except TranslationError as error:
        return result(OUTDATED, str(error).replace(str(spanish), es))
    if recorded == content_hash(english):
        return result(CURRENT)
    edit = "update the translation"
    if script := notebook_source(docs, spanish):
        edit += f' (the lang="{TARGET}" cells of {shown(script, docs)}, then python '
        edit += "-m ptdocs.notebook_twins)"
    if recorded is None:
        return result(
            OUTDATED,
            f"records no version of {en} (no {FIELD}); compare the two pages, {edit}, "
            + mark_it,
        )
    reason = f"{en} has changed since the version translated here ({FIELD}: {recorded}"
    if not with_diff:
        return result(OUTDATED, reason + ")")
    try:
        label, old = translated_version(english, recorded, en)
    except TranslationError as error:
        return result(OUTDATED, f"{reason}); no diff: {error}")
    lines = [_lines(data, english.suffix) for data in (old, english.read_bytes())]
    diff = "".join(difflib.unified_diff(*lines, f"{en} ({label})", f"{en} (now)"))
    reason += f", {label}); {edit}, {mark_it}. What changed in English:"
    return result(OUTDATED, reason, diff)


def _git(cwd: Path, *args: str) -> bytes:
    """Git's output; TranslationError with the last line of its error."""
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise TranslationError("git is not installed") from None
    if done.returncode:
        error = done.stderr.decode(errors="replace").strip().splitlines() or ["failed"]
        raise TranslationError(error[-1])
    return done.stdout


def translated_version(english: Path, recorded: str, name: str) -> tuple[str, bytes]:
    """(where, text) of the English version whose hash is ``recorded``, from git;
    TranslationError saying why there is none."""
    english = english.resolve()
    try:
        top = _git(english.parent, "rev-parse", "--show-toplevel").decode().strip()
    except TranslationError:
        raise TranslationError(
            "not a git repository, so old versions cannot be recovered"
        ) from None
    relative = english.relative_to(Path(top).resolve()).as_posix()
    log = _git(
        top, "log", "--follow", "--format=%x00%h %cs", "--name-only", "--", relative
    ).decode()
    candidates = []
    for entry in log.split("\x00")[1:]:
        header, *paths = [line for line in entry.splitlines() if line.strip()]
        commit, date = header.split(" ", 1)
        path = paths[-1] if paths else relative
        candidates.append((f"commit {commit}, {date}", f"{commit}:{path}"))
    # Marked, then changed before a commit.
    candidates.append(("the staged version", f":{relative}"))
    for label, spec in candidates:
        try:
            text = _git(top, "show", spec)
        except TranslationError:
            continue  # not staged, or deleted in that commit
        if content_hash(text) == recorded:
            return label, text
    if _git(top, "rev-parse", "--is-shallow-repository").strip() == b"true":
        raise TranslationError(
            "this clone is shallow (git clone --depth) and lacks the older versions; "
            "run git fetch --unshallow to see the diff"
        )
    raise TranslationError(
        f"no version of {name} in the git history has that hash (was it marked against "
        "uncommitted text?), so compare the pages by hand"
    )


def _lines(data: bytes, suffix: str) -> list[str]:
    """A page's lines; a notebook's as Markdown, which diffs like a page."""
    text = data.decode("utf-8", errors="replace")
    if suffix == ".ipynb":
        import jupytext  # here: only notebooks need it, and it is slow to import

        text = jupytext.writes(nbformat.reads(text, as_version=4), fmt="md")
    return text.splitlines(keepends=True)


def untranslated_comments(docs: Path, page: str) -> list[catalog.Place]:
    """Where the Spanish ``page``'s code has a comment the catalog does not translate,
    or translates from an older English text (fuzzy)."""
    spanish, root = docs / TARGET / page, docs.resolve().parent
    if not spanish.is_file():
        return []
    if spanish.suffix == ".ipynb":
        if script := notebook_source(docs, spanish):
            return catalog.untranslated_notebook_comments(script, TARGET, root)
        return []
    left = []
    for line in spanish.read_text(encoding="utf-8").split("\n"):
        if (target := include_target(line)) is not None:
            try:  # only its comments: the page's tests check what it shows
                left += expand(target, root, TARGET, check=False).untranslated
            except IncludeError:  # a broken include: the build and the tests say so
                pass
    return list(dict.fromkeys(left))


def mark(docs: Path, path: Path) -> str:
    """Record that a Spanish page translates the current English page; refuses one
    whose structure differs (it would be marked current while wrong)."""
    target, resolved = (docs / TARGET).resolve(), Path(path).resolve()
    if not resolved.is_relative_to(target):
        raise TranslationError(
            f"{path}: give a Spanish page, inside {shown(docs / TARGET, docs)}/ "
            f"(for example {shown(docs / TARGET / 'autograd.md', docs)})"
        )
    if resolved.suffix not in SUFFIXES:
        raise TranslationError(f"{path}: a page is a .md or .ipynb file")
    page = resolved.relative_to(target).as_posix()
    english, spanish = docs / SOURCE / page, docs / TARGET / page
    en, es = shown(english, docs), shown(spanish, docs)
    if not spanish.is_file():
        raise TranslationError(f"{es} does not exist")
    if not english.is_file():
        raise TranslationError(f"{es} has no English page {en}")
    if problems := compare(docs, page):
        raise TranslationError(
            f"not marked: {es} differs from {en}:\n  " + "\n  ".join(problems)
        )
    value = content_hash(english)
    written = record_hash(docs, spanish, value)
    where = "" if written == spanish else f", recorded in {shown(written, docs)}"
    return f"marked {es} as the translation of {en} ({FIELD}: {value}{where})"


def nav_titles(nav) -> list[str]:
    """Every title of an MkDocs ``nav``, sections' too."""
    titles = []
    for entry in (entry for entry in nav or [] if isinstance(entry, dict)):
        for title, value in entry.items():
            titles += [title, *(nav_titles(value) if isinstance(value, list) else [])]
    return titles


def untranslated_nav(nav, labels: dict | None) -> list[str]:
    """Menu titles the Spanish menu would show in English."""
    return [
        f"the menu title «{title}» has no Spanish label: add `{title}: ...` to "
        f"nav_translations of the {TARGET} language in mkdocs.yml"
        for title in dict.fromkeys(nav_titles(nav))
        if title not in (labels or {})
    ]


class Term(NamedTuple):
    english: str
    spanish: str
    avoid: tuple[str, ...]  # forms that must not appear in Spanish prose


def glossary(guide: Path) -> list[Term]:
    """The guide's first table headed English (or Inglés): English, Spanish, the words
    not to use, a note."""
    terms, inside = [], False
    for line in guide.read_text(encoding="utf-8").splitlines():
        if not line.lstrip().startswith("|"):
            if inside:
                break
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not inside:
            inside = cells[0].lower() in {"english", "inglés"}
        elif not set(cells[0]) <= set("-: "):
            avoid = [word.strip().strip("`") for word in cells[2].split(",")]
            terms.append(Term(*cells[:2], tuple(w for w in avoid if w.strip("— -"))))
    return terms


def catalog_entries(root: Path):
    """(file, message) of each current (not fuzzy) Spanish translation."""
    for domain in catalog.DOMAINS:
        path = catalog.po_path(domain, TARGET, root)
        if path.is_file():
            for message in catalog.current(catalog.load(domain, TARGET, root)):
                yield catalog.relative(path, root), message


def glossary_problems(docs: Path, terms: list[Term]) -> list[str]:
    """Spanish prose of translated pages and catalogs (a page shows their comments,
    strings and output; plural entries aside) using a form the glossary rules out."""
    asides = _asides(terms)
    texts = [*prose_texts(docs, terms)] + [
        (name, f"entry at line {message.lineno}", _catalog_prose(message, asides))
        for name, message in catalog_entries(docs.parent)
        if isinstance(message.string, str)
    ]
    problems = set()
    for (name, label, prose), term in itertools.product(texts, terms):
        for start, word in _ruled_out(term, prose):
            line = 1 + prose.count("\n", 0, start)
            where = f"line {line}" if label == "line" else label
            message = (
                f"{name}, {where}: «{word}» in Spanish prose; the glossary says "
                f"«{term.spanish}» for «{term.english}»"
            )
            problems.add((name, label, line, message))
    return [message for *_, message in sorted(problems)]


def _blank(match: re.Match) -> str:
    """What a match covers, as spaces: line breaks, hence line numbers, stay."""
    return re.sub(r"\S", " ", match[0])


def _ruled_out(term: Term, prose: str):
    """(offset, form) of each ruled-out form outside the approved one: «prueba piloto»
    is fine, «piloto» is not."""
    if re.fullmatch(r"[^\W\d_]+(?: [^\W\d_]+)*", term.spanish):
        prose = _words_pattern(term.spanish).sub(_blank, prose)
    for word in term.avoid:
        # An entry written /like this/ is a regular expression: «/\d %/».
        if len(word) > 2 and word[0] == word[-1] == "/":
            yield from ((m.start(), m[0]) for m in re.finditer(word[1:-1], prose, re.I))
        else:
            yield from ((m.start(), word) for m in _words_pattern(word).finditer(prose))


def _words_pattern(words: str) -> re.Pattern:
    """Whole words, each also plural («búferes auxiliares»), spaces or hyphens apart."""
    parts = [
        re.escape(part) + "(?:e?s)?" for part in re.split(r"[\s\-]+", words.strip())
    ]
    return re.compile(r"(?<!\w)" + r"[\s\-\u2010\u2011]+".join(parts) + r"(?!\w)", re.I)


def _catalog_prose(message, asides: set[str]) -> str:
    """A msgstr's prose: also without lines kept as in English (a torch message) and,
    in what the code prints, words kept from the English line (a task name)."""
    ids = message.id.split("\n")
    printed = any(n.startswith("what the code prints") for n in message.auto_comments)
    lines = []
    for at, line in enumerate(message.string.split("\n")):
        if printed and at < len(ids):
            kept = set(re.findall(r"\w+", ids[at]))
            line = re.sub(
                r"\w+", lambda w, kept=kept: _blank(w) if w[0] in kept else w[0], line
            )
        lines.append("" if line in ids else _prose_line(line, asides, code=True))
    return "\n".join(lines)


def sources(path: Path, text: str | None = None) -> list[tuple[str, str]]:
    """(label, Markdown) of a page ("line") or each Markdown cell ("cell N"), of
    ``text`` where already read; front matter blanked, line breaks kept."""
    text = path.read_text(encoding="utf-8") if text is None else text
    if path.suffix == ".ipynb":
        cells = enumerate(nbformat.reads(text, as_version=4).cells, start=1)
        return [(f"cell {n}", c.source) for n, c in cells if c.cell_type == "markdown"]
    return [("line", FRONT_MATTER.sub(_lines_only, text))]


def _lines_only(match: re.Match) -> str:
    return "\n" * match[0].count("\n")


def prose_texts(docs: Path, terms: list[Term]):
    """(page, label, text) of :func:`sources` of each translated Spanish page, what is
    not prose blanked out. A page that records no English version is the English text
    copied in by an English-only contributor: it warns as outdated, and the checks of
    Spanish prose (glossary, spelling) wait until it is marked."""
    asides = _asides(terms)
    for page in pages(docs, TARGET):
        path = docs / TARGET / page
        try:
            if recorded_hash(docs, path) is None:
                continue
        except TranslationError:  # front matter that is not YAML: reported elsewhere
            pass
        for label, text in sources(path):
            text = re.sub(r"<!--.*?-->", _lines_only, text, flags=re.S)
            fenced = {n for b in outline(text).blocks for n in range(b.line, b.end + 1)}
            lines = enumerate(text.split("\n"), start=1)
            prose = ["" if n in fenced else _prose_line(ln, asides) for n, ln in lines]
            yield shown(path, docs), label, "\n".join(prose)


def _asides(terms: list[Term]) -> set[str]:
    """What an aside may name, as in "difusión (broadcasting)": an English term."""
    return {name.lower() for term in terms for name in (term.english, *term.avoid)}


def _prose_line(line: str, asides: set[str], code: bool = False) -> str:
    """A line without inline code, link targets, «titles» and asides naming an English
    term; with ``code``, also without names of code and ``{placeholders}``."""

    def aside(match):
        name = re.sub(r"[*_]", "", match[1]).strip().lower()
        return " " if name in asides else match[0]

    line = re.sub(r"`[^`]*`", " ", line)
    if code:  # {placeholders}, dotted.names, snake_case, calls(), keyword=
        line = re.sub(
            r"\{[^{}]*\}|[^\W\d]\w*(?:\.\w+)+(?:\(\))?|\w*_\w*|\w+\(\)|\w+=", " ", line
        )
    line = re.sub(r"\]\([^)]*\)|<https?://[^>]*>|https?://\S+", " ", line)
    line = re.sub(r"\(([^()]*)\)", aside, line)
    return re.sub(r"«[^»]*»", " ", line)


def _print_status(docs: Path) -> int:
    every = sorted(set(pages(docs, SOURCE)) | set(pages(docs, TARGET)))
    report = [freshness(docs, page, with_diff=True) for page in every]
    for entry in report:
        reason = f": {entry.reason}" if entry.reason else ""
        print(f"{entry.state:<{len(ORPHAN)}}  {entry.page}{reason}")
        print("".join(f"    {line}" for line in entry.diff.splitlines(True)), end="")
    problems = [problem for page in twins(docs) for problem in compare(docs, page)]
    if problems:
        print(
            "\nWhere the Spanish page's structure differs from the English page (the "
            "tests report these too):"
        )
        print("".join(f"  {problem}\n" for problem in problems), end="")
    comments = {
        shown(docs / TARGET / page, docs): found
        for page in pages(docs, TARGET)
        if (found := untranslated_comments(docs, page))
    }
    if comments:
        print(
            "\nCode comments these Spanish pages show in English: translate them in "
            f"{catalog.po_path('snippets', TARGET, Path('.')).as_posix()} (run "
            f"`{catalog.COMMAND} update` first if the comment is new); each page "
            "shows the outdated-translation notice until then:"
        )
        for page, found in comments.items():
            print(f"  {page}: {', '.join(map(str, found))}")
    counts = Counter(entry.state for entry in report)
    states = (CURRENT, OUTDATED, MISSING, ORPHAN)
    summary = ", ".join(f"{counts[s]} {s}" for s in states if counts[s] or s == CURRENT)
    summary += f" ({len(report)} pages)"
    if comments:
        n = sum(map(len, comments.values()))
        summary += (
            f"; {Plural('{n} comment', '{n} comments')(n)} in English on "
            f"{Plural('{n} page', '{n} pages')(len(comments))}"
        )
    print(f"\n{summary}")
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
        help="list every page as missing, outdated (with the English diff) or up to "
        "date; exit status 1 unless all are up to date",
    )
    marking = commands.add_parser(
        "mark",
        help="record that Spanish pages translate the current English pages (after "
        "you have updated them)",
    )
    marking.add_argument(
        "pages", nargs="*", type=Path, help="Spanish pages, e.g. docs/es/autograd.md"
    )
    marking.add_argument("--all", action="store_true", help="mark every Spanish page")
    arguments = parser.parse_args(argv)
    docs, all_pages = arguments.docs, getattr(arguments, "all", False)
    if not (docs / SOURCE).is_dir() or not (docs / TARGET).is_dir():
        parser.error(
            f"--docs {docs}: no {SOURCE}/ and {TARGET}/ folders of pages in it"
        )
    if arguments.command == "status":
        return _print_status(docs)
    if all_pages == bool(arguments.pages):
        parser.error("mark takes Spanish pages (docs/es/...) or --all: one of the two")
    failed = 0
    for path in arguments.pages or [docs / TARGET / p for p in pages(docs, TARGET)]:
        try:  # --all records what has no record yet; never an outdated page's.
            page = path.relative_to(docs / TARGET).as_posix() if all_pages else None
            state = freshness(docs, page) if page else None
            outdated = state and state.state == OUTDATED
            if outdated and recorded_hash(docs, path) is not None:
                raise TranslationError(
                    f"not marked: {state.page} is outdated ({state.reason}); update "
                    f"it, then mark it by name: {COMMAND} mark {state.page}"
                )
            print(mark(docs, path))
        except TranslationError as error:
            print(f"error: {error}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
