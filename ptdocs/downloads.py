"""Every guide page (a page under docs/<language>/ with a Python block) as a notebook
and a script (jupytext ``py:percent``), made from the page with the page tests' own
Sybil parsers and includes, so a download holds exactly the examples that run as tests.
Its first and last code cells are :mod:`ptdocs.output_check`: where the reader runs it,
it compares what the examples print with the page's ``# >`` lines, by the tests' rules.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import io
import itertools
import posixpath
import pprint
import re
import sys
import textwrap
import tokenize
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import jupytext
import nbformat
from markdown_it.helpers import parseLinkDestination
from mkdocs.utils.meta import get_data
from packaging.utils import canonicalize_name
from sybil import Document
from sybil.parsers.markdown import SkipParser

from . import catalog, output_check, problem_report
from .catalog import CatalogError, Plural, Texts
from .layout import language
from .notebook_twins import notebook as notebook_of
from .pages import (
    PROSE_VALUES,
    PageBlockParser,
    has_conditioned_output,
    headings,
    markdown_reader,
)
from .snippets import ROOT, Include, snippet_preprocessor

# pytorch.org's install command for each platform and CUDA version
SELECTOR = "https://pytorch.org/get-started/locally/"

# The names a skip condition may use, as conftest.py's _setup defines them for the
# tests: the import each needs and the expression that computes it in a download.
SETUP_NAMES = {
    "HAS_ACCELERATOR": ("import torch", "torch.accelerator.is_available()"),
    "ACCELERATOR": (
        "import torch",
        "torch.accelerator.current_accelerator().type if "
        "torch.accelerator.is_available() else None",
    ),
}

# The cell that writes the files the examples read, where a download runs without them
FILES_CELL = """from pathlib import Path

FILES = {{
{files}}}
for name, text in FILES.items():
    path = Path(name)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")"""


class DownloadError(ValueError):
    """A page whose downloads cannot be made, with a message for its author."""


@dataclass(frozen=True)
class Skip:
    """A skip directive of the page, as a download applies it."""

    condition: str  # a Python expression, true where the example is skipped
    reason: str
    names: tuple[str, ...]  # the SETUP_NAMES it uses, defined just before it


# In English; other languages come from locale/ (ptdocs.catalog): a missing entry stops
# the build, instead of showing English on their pages. locale/interface.pot records
# the line of TEXTS and CHECK_TEXTS; moved, they need python -m ptdocs.catalog update.
TEXTS = Texts(
    "downloads",
    {
        "notebook": "Download notebook",
        "script": "Download script",
        "run_page": "To run just this page's examples as tests, from a clone of the "
        "repository:",
        "origin": "This notebook holds the code of the page {page} of *{site}*, in "
        "the same order.",
        "origin_script": "This script holds the code of the page {page} of *{site}*, "
        "in the same order.",
        "verified": "Every example on that page runs as a test with torch {torch}.",
        "install": "To run it, install what it imports: `pip install {packages}`. For "
        "the CPU-only build of torch or one for a given CUDA version, choose the "
        "command at the selector: <{selector}>.",
        "output": "Lines that start with `# >` show what the statement above them "
        "prints.",
        "output_versions": "A line that starts with a condition, such as `# "
        ">[torch>=2.14]`, is printed only by the torch releases it names; the tests "
        "check each line on those releases.",
        "skips": "Examples that need hardware you may not have print `Skipped:` and "
        "the reason where it is missing, instead of running.",
        "files": "The examples read these files of the repository; this cell writes "
        "them next to the notebook where they are missing: {files}.",
        "recording": "Not part of the lesson: this cell records what the examples "
        "print, so that the last cell can compare it with the page.",
        "checking": "Not part of the lesson: this cell compares what the examples "
        "printed with the `# >` lines, by the rules of the page's tests, and says how "
        "it went in one line.",
    },
)

# torch's functions that need a module torch does not install ("Numpy is not
# available" without NumPy, imported or not).
NEEDS_MODULE = {
    "numpy": "numpy",  # Tensor.numpy()
    "from_numpy": "numpy",  # torch.from_numpy()
}

# What the last cell prints (ptdocs.output_check.report); a Plural travels as its forms
# and Plural-Forms rule, which Python's gettext applies there.
CHECK_TEXTS = Texts(
    "check",
    {
        "match": "✓ {ok} of {total} outputs match the page (torch {torch}, {device})",
        "none": "✓ Nothing to compare: the examples that ran printed nothing, and the "
        "page shows no output for them with this torch release (torch {torch}, "
        "{device})",
        "differ": "✗ {bad} of {total} outputs differ from the page (torch {torch}, "
        "{device})",
        "skipped": Plural(
            "; 1 example skipped here: {reasons}",
            "; {n} examples skipped here: {reasons}",
        ),
        "where": "Line {line}: {code}",
        "where_cell": "Cell [{cell}], line {line}: {code}",
        "page": "the page shows:",
        "printed": "printed here:",
        "nothing": "(nothing)",
        "report": "Report it, with these differences filled in: {url}",
        "nothing_recorded": "Nothing was recorded to compare: run the notebook from "
        "its first cell.",
        # A # > line the check cannot read or place, by its cause (OutputError.kind).
        "output_trailing": "This `# >` line is at the end of a line of code: put it "
        "on a line of its own below the last line of the statement whose output it "
        "shows, indented like its first line.",
        "output_inside": "This `# >` line is inside a statement that goes on below "
        "it (a loop, a block or an open bracket): move it below that statement's last "
        "line, indented like its first line.",
        "output_indent": "This `# >` line is not indented like the statement above "
        "it; below a loop or other block, that statement is the whole block: give the "
        "line the indentation of the block's first line (the `for`, `with`, `if`…).",
        "output_before": "This `# >` line comes before any statement of its cell: put "
        "it below the statement whose output it shows.",
        "output_skip_head": "This `# >` line is between the `if` of an example that "
        "may be skipped and the first statement of its `else:`: move it below the "
        "statement whose output it shows, inside the `else:`, indented like that "
        "statement.",
        "output_skipped": "This `# >` line follows an example that may be skipped: "
        "put it inside that example's `else:`, indented like the statements there.",
        "output_condition": "This `# >` line's condition cannot be read: write it as "
        "`# >[torch>=2.14,<2.16] TEXT` (output that starts with [ is written "
        "`# > [...`).",
    },
)


@dataclass(frozen=True)
class Site:
    """What a download needs to know of the built site (from the MkDocs config)."""

    url: str  # site_url with a trailing slash, or "" when none is configured
    default_language: str
    names: dict  # language -> site name in that language
    use_directory_urls: bool = True
    repository: str = ""  # repo_url: where "Report a problem" opens an issue
    commit: str = ""  # the commit the site is built from

    def name(self, language: str) -> str:
        return self.names.get(language) or self.names.get(self.default_language, "")

    @classmethod
    def from_config(cls, config) -> Site:
        url = (config.get("site_url") or "").rstrip("/")
        default, names = "en", {"en": config["site_name"]}
        i18n = config["plugins"].get("i18n")
        for entry in i18n.config.languages if i18n is not None else ():
            default = entry.locale if entry.default else default
            names[entry.locale] = entry.site_name or config["site_name"]
        path = config.config_file_path
        return cls(
            url + "/" if url else "",
            default,
            names,
            bool(config.get("use_directory_urls", True)),
            problem_report.repository(config),
            problem_report.built_commit(Path(path).resolve().parent if path else ROOT),
        )

    def page_url(self, language: str, relative: str) -> str:
        """The URL (relative to the site's root) of ``docs/<language>/<relative>``."""
        prefix = "" if language == self.default_language else f"{language}/"
        stem, suffix = posixpath.splitext(relative)
        if suffix not in (".md", ".ipynb"):
            return prefix + relative
        if not self.use_directory_urls:
            return prefix + stem + ".html"
        directory, name = posixpath.split(stem)
        if name in ("index", "README"):
            return prefix + (directory + "/" if directory else "")
        return prefix + stem + "/"


@dataclass(frozen=True)
class Example:
    """One Python block of a page: its includes and the skip that applies to it."""

    line: int
    includes: tuple[Include, ...]
    skip: Skip | None

    @property
    def code(self) -> str:
        return "\n".join(line for i in self.includes for line in i.shown).strip("\n")


@dataclass(frozen=True)
class Downloads:
    page: str  # relative to the repository root, e.g. "docs/es/autograd.md"
    language: str
    examples: tuple[Example, ...]
    notebook: nbformat.NotebookNode
    script: str
    check: str  # the last code cell: the check's rules and the call that applies them

    notebook_name = property(lambda self: PurePosixPath(self.page).stem + ".ipynb")
    script_name = property(lambda self: PurePosixPath(self.page).stem + ".py")
    notebook_text = property(lambda self: nbformat.writes(self.notebook))


def language_of(page: Path, root: Path = ROOT) -> tuple[str, str]:
    """``(language, path inside the language folder)`` of a page under docs/."""
    try:
        relative = Path(page).resolve().relative_to((Path(root) / "docs").resolve())
        return language(relative.as_posix()), relative.as_posix().partition("/")[2]
    except ValueError:
        raise DownloadError(
            f"{page}: a guide page lives under docs/<language>/"
        ) from None


def guide_pages(root: Path = ROOT) -> list[Path]:
    """Every Markdown page under docs/<language>/ with at least one Python block."""
    return [
        page
        for page in sorted((Path(root) / "docs").glob("*/**/*.md"))
        if any(not isinstance(region.parsed, tuple) for region in _parse(page, root)[1])
    ]


def _parse(page: Path, root: Path):
    """The page's text and its regions, parsed as the tests parse it, in page order."""
    document = Document(Path(page).read_text(encoding="utf-8"), str(page))
    for parser in (SkipParser(), PageBlockParser(root)):
        for region in parser(document):
            document.add(region)
    return document, [region for _, region in document.regions]  # sorted by start


def read_page(page: Path, root: Path = ROOT) -> tuple[list, list[Example]]:
    """The page as parts in order: prose (``str``) and examples (:class:`Example`)."""
    document, regions = _parse(page, root)
    text, where = document.text, catalog.relative(page, root)
    parts, examples, position = [], [], 0
    skip, ranged = None, False  # the skip of the next example(s); skip: start ... end
    for region in regions:
        parts.append(text[position : region.start])
        position = region.end
        if isinstance(region.parsed, tuple):  # a skip directive
            action, argument = region.parsed
            line = text.count("\n", 0, region.start) + 1
            # Sybil's region stops before the comment's end: drop the whole comment.
            closing = re.match(r"[ \t]*-->[ \t]*\n?", text[position:])
            position += closing.end() if closing else 0
            if action not in ("next", "start", "end"):
                raise DownloadError(
                    f"{where}, line {line}: unknown skip action {action!r}"
                )
            ranged = action == "start"
            skip = None if action == "end" else _skip(argument, f"{where}, line {line}")
            continue
        if isinstance(region.parsed, str):  # the page test reports the same error
            raise DownloadError(region.parsed)
        examples.append(Example(region.parsed.line, region.parsed.includes, skip))
        parts.append(examples[-1])
        skip = skip if ranged else None
    parts.append(text[position:])
    parts[0] = get_data(parts[0])[0]  # YAML front matter is metadata, not prose
    # prose-values comments are the site's checks of its prose, not the reader's text
    values = re.compile(rf"[ \t]*(?:{PROSE_VALUES.pattern})[ \t]*\n?", re.S)
    return [values.sub("", p) if isinstance(p, str) else p for p in parts], examples


HOW_TO_SKIP = (
    "write it as 'skip: next if(CONDITION, reason=\"...\")' or 'skip: next "
    '"reason"\', a plain string that tells readers why'
)


def _skip(argument: str | None, where: str) -> Skip:
    """A Sybil skip as a download makes it: its condition and the reason it prints.
    Read as Sybil reads it: ``if(CONDITION, reason)``, the reason CONDITION's text
    where none is given; or a reason alone, which always skips."""
    argument = (argument or "").strip()
    if not argument:
        raise DownloadError(f"{where}: a skip without a reason; {HOW_TO_SKIP}")
    if argument.startswith("if"):
        condition, reason = _skip_if(argument.removeprefix("if"), where)
        # No reason: the condition's text (Sybil's own default also keeps the brackets).
        reason = reason or ast.unparse(condition)
    else:
        condition, reason = ast.Constant(True), _skip_reason(argument, where)
        if not reason:
            raise DownloadError(f"{where}: a skip without a reason; {HOW_TO_SKIP}")
    # Other names come from the page's earlier examples, which run before it here too.
    names = {
        node.id
        for node in ast.walk(condition)
        if isinstance(node, ast.Name) and node.id in SETUP_NAMES
    }
    return Skip(ast.unparse(condition), reason, tuple(sorted(names)))


def _skip_if(arguments: str, where: str) -> tuple[ast.expr, str | None]:
    """The condition and the reason (None where not given) of ``(CONDITION, reason)``,
    the arguments of Sybil's ``if``, positional or by name."""
    cannot_read = f"{where}: cannot read the skip; {HOW_TO_SKIP}"
    try:
        call = ast.parse("_" + arguments, mode="eval").body
    except SyntaxError as error:
        message = f"{where}: cannot read the skip: {error.msg}; {HOW_TO_SKIP}"
        raise DownloadError(message) from None
    if not (isinstance(call, ast.Call) and ast.unparse(call.func) == "_"):
        raise DownloadError(cannot_read)
    if len(call.args) > 2:
        raise DownloadError(cannot_read)
    given = dict(zip(("condition", "reason"), call.args, strict=False))
    for keyword in call.keywords:
        if keyword.arg not in ("condition", "reason") or keyword.arg in given:
            raise DownloadError(cannot_read)
        given[keyword.arg] = keyword.value
    if "condition" not in given:
        raise DownloadError(cannot_read)
    reason = given.get("reason")
    return given["condition"], reason and _skip_reason(reason, where)


def _skip_reason(text: str | ast.expr, where: str) -> str | None:
    """A skip's reason (its text, or read already): a plain string literal (or None,
    Sybil's default)."""
    not_plain = f"{where}: a skip reason must be a plain string; {HOW_TO_SKIP}"
    try:
        reason = ast.literal_eval(text)
    except SyntaxError as error:
        message = f"{where}: cannot read the skip: {error.msg}; {HOW_TO_SKIP}"
        raise DownloadError(message) from None
    except ValueError:  # a name or an expression: the download cannot print it
        raise DownloadError(not_plain) from None
    if reason is not None and not isinstance(reason, str):
        raise DownloadError(not_plain)
    return reason


def cell_code(example: Example) -> str:
    """The code of one example as it runs in a download: a skip becomes if/else."""
    skip = example.skip
    if skip is None:
        return example.code
    lines = sorted({SETUP_NAMES[name][0] for name in skip.names})
    lines += [f"{name} = {SETUP_NAMES[name][1]}" for name in skip.names]
    if lines:
        lines.append("")
    lines += [f"if {skip.condition}:", f"    print({('Skipped: ' + skip.reason)!r})"]
    return "\n".join([*lines, "else:", _indent(example.code)])


def _indent(code: str) -> str:
    """Indent code one level, leaving the inside of multi-line strings untouched."""
    inside = set()  # lines that continue a string token
    strings = (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", None))
    for token in tokenize.generate_tokens(io.StringIO(code + "\n").readline):
        if token.type in strings:
            inside.update(range(token.start[0] + 1, token.end[0] + 1))
    return "\n".join(
        line if number in inside or not line.strip() else "    " + line
        for number, line in enumerate(code.split("\n"), start=1)
    )


def files_read(examples, root: Path = ROOT) -> dict[str, str]:
    """Files of the repository named by a string in the code: path -> text."""
    root, found = Path(root), {}
    for example in examples:
        for node in ast.walk(ast.parse(example.code)):
            value = node.value if isinstance(node, ast.Constant) else None
            if not isinstance(value, str) or not value or "\n" in value:
                continue
            file = root / value
            if (
                value.startswith(("/", "."))
                or len(value) > 200
                or not file.is_file()
                or not file.resolve().is_relative_to(root.resolve())
            ):
                continue
            try:
                found[value] = file.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                raise DownloadError(
                    f"{value}: the examples read a binary file, which a download "
                    "cannot carry"
                ) from None
    return dict(sorted(found.items()))


def requirements(root: Path = ROOT) -> dict[str, str]:
    """The pins of requirements.txt: normalized distribution name -> version."""
    text = (Path(root) / "requirements.txt").read_text(encoding="utf-8")
    pins = re.findall(r"(?m)^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)", text)
    return {canonicalize_name(name): version for name, version in pins}


@functools.lru_cache(maxsize=1)  # slow: reads every installed RECORD
def _distributions() -> dict:
    return importlib.metadata.packages_distributions()


def packages(codes, root: Path = ROOT) -> list[str]:
    """``name==version`` of each distribution the code imports or needs, torch first."""
    pins, wanted = requirements(root), {"torch"}
    if "torch" not in pins:
        raise DownloadError("requirements.txt does not pin torch (torch==X.Y.Z)")
    for node in (node for code in codes for node in ast.walk(ast.parse(code))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Attribute) and node.attr in NEEDS_MODULE:
            modules = [NEEDS_MODULE[node.attr]]
        else:
            continue
        for top in {module.split(".")[0] for module in modules}:
            if top in sys.stdlib_module_names:
                continue
            names = map(canonicalize_name, _distributions().get(top, []))
            pinned = [name for name in names if name in pins]
            if not pinned:
                raise DownloadError(
                    f"the examples import {top!r}, which requirements.txt does not pin "
                    "(or call torch's bridge to it, see NEEDS_MODULE): a download of "
                    "the page could not be installed and run outside a clone"
                )
            wanted.add(pinned[0])
    return [f"{n}=={pins[n]}" for n in sorted(wanted, key=lambda n: (n != "torch", n))]


RECORDING, COMPARING = (
    "# ---------------------------------------------------------------- recording",
    "# ---------------------------------------------------------------- comparing",
)


def _code_only(code: str) -> str:
    """Code without its docstrings and comments, nor the blank lines they leave at the
    start of a block: the check's cells are the same in every language, and the
    Markdown cell above each says what it does. Strings keep every line they hold (the
    line after a block's colon starts a statement: it is in no string)."""
    lines = code.split("\n")
    dropped = set()  # numbers of the lines that go
    for node in ast.walk(ast.parse(code)):
        body = getattr(node, "body", None)
        if (
            isinstance(
                node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
            )
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            docstring = body[0]
            dropped.update(range(docstring.lineno, docstring.end_lineno + 1))
            if len(body) == 1:  # a block of its docstring only still needs a statement
                lines[docstring.lineno - 1] = " " * docstring.col_offset + "pass"
                dropped.discard(docstring.lineno)
    openers = set()  # lines that end with the colon that opens a block
    previous = None
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        row, column = token.start
        if token.type == tokenize.COMMENT and row not in dropped:
            lines[row - 1] = lines[row - 1][:column].rstrip()
            if not lines[row - 1]:
                dropped.add(row)
        if token.type == tokenize.NEWLINE and previous.string == ":":
            openers.add(row)
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            previous = token
    kept, after_opener = [], False
    for number, line in enumerate(lines, start=1):
        if number in dropped:
            continue
        if after_opener and not line.strip():
            continue  # what a docstring or comment at a block's start leaves
        after_opener = number in openers
        kept.append(line)
    return "\n".join(kept)


def check_cells(call: str) -> tuple[str, str]:
    """The first and the last code cell of a download: ptdocs.output_check's two
    parts (its code only), the last followed by ``call``, which applies them."""
    source = Path(output_check.__file__).read_text(encoding="utf-8")
    head, found, tail = source.partition("\n" + COMPARING + "\n")
    _, started, head = head.partition("\n" + RECORDING + "\n")
    if not (found and started):
        message = "the markers that cut it in two are missing"
        raise DownloadError(f"{output_check.__file__}: {message}")
    first = _code_only(head).strip("\n") + "\n\n\n_recorder = Recorder(globals())"
    return first, _code_only(tail).strip("\n") + "\n\n\n" + call


def check_call(texts: dict, repository: str, fields: dict) -> str:
    """The call that ends a download: texts in the page's language (a Plural as its
    forms and Plural-Forms rule), the report's address and fields, as Python literals
    (repr: JSON is not Python for true, false and null)."""
    texts = {
        key: [value.forms, value.rule] if isinstance(value, Plural) else value
        for key, value in texts.items()
    }
    arguments = {"texts": texts, "repository": repository, "fields": fields}
    start = "finish(_recorder, **"
    literal = pprint.pformat(arguments, width=88 - len(start), sort_dicts=False)
    return start + literal.replace("\n", "\n" + " " * len(start)) + ")"


# Where a link's target may follow (`](`, or a reference definition's `]:`; spaces and
# one line break allowed before it), or where a code span opens: no link inside it
TARGET_OR_CODE = re.compile(r"(?<!\\)(?P<ticks>`+)|\](?:\(|:)[ \t]*\n?[ \t]*")
# An admonition's quoted title, which ends its first line
ADMONITION_TITLE = re.compile(r'[ \t]"(?P<title>.*)"[ \t]*$')


def prose_cells(text: str, language: str, relative: str, site: Site, root: Path):
    """A stretch of the page's prose as notebook Markdown, cut before each heading: a
    cell a section, each ``(markdown, (level, title) of its heading or None)``; links
    made absolute. Headings and links are where markdown-it sees them, so a heading
    inside an HTML block (``<div markdown>``, which md_in_html reads on the site)
    starts no cell."""
    if "8<" in text:  # includes in prose: expanded by pymdownx.snippets, as on the page
        comments = language if language in catalog.LANGUAGES else catalog.SOURCE
        lines = snippet_preprocessor(root, comments).run(text.split("\n"))
        text = "\n".join(lines)
    text, env = _admonitions(text, continued=True), {}
    tokens = markdown_reader().parse(text, env)

    def absolute(target: str) -> str:
        return _link(target, language, relative, site)

    lines = _absolute_links(text.split("\n"), tokens, env, absolute)
    top = headings(tokens, nested=False)
    return _sections(lines, {line - 1: (level, title) for line, level, title in top})


def _absolute_links(lines: list[str], tokens: list, env: dict, absolute) -> list[str]:
    """The lines with each link's and reference definition's target made ``absolute``,
    where markdown-it reads one: in each block of inline text (a paragraph, a heading,
    a table row), only the targets markdown-it found there."""
    found = {}  # the lines of a block or a reference definition: the targets read there
    for token in tokens:
        if token.type == "inline":
            found.setdefault(tuple(token.map), set()).update(_targets(token))
    for reference in env.get("references", {}).values():
        found.setdefault(tuple(reference["map"]), set()).add(reference["href"])
    lines = list(lines)
    for (start, end), targets in found.items():
        if targets:
            block = "\n".join(lines[start:end])
            lines[start:end] = _rewrite_targets(block, targets, absolute).split("\n")
    return lines


def _targets(inline) -> set[str]:
    """The targets of the links and images of an inline token, as markdown-it stores
    them (unescaped, then percent-encoded)."""
    links = {c.attrs["href"] for c in inline.children if c.type == "link_open"}
    return links | {c.attrs["src"] for c in inline.children if c.type == "image"}


def _rewrite_targets(block: str, targets: set[str], absolute) -> str:
    """``block`` with each target written after ``](`` or ``]:`` made ``absolute``
    where markdown-it reads it as one of ``targets``: a target ends where markdown-it
    ends it (balanced parentheses, ``<angle brackets>``), and none is read inside a
    code span. Not told apart: a stray ``](target)`` with no ``[`` before it whose
    target a real link of the same block has."""
    out, position = [], 0
    while found := TARGET_OR_CODE.search(block, position):
        out.append(block[position : found.end()])
        position = found.end()
        if found["ticks"]:  # a code span: up to the same number of backticks, if any
            closing = re.compile(f"(?<!`){found['ticks']}(?!`)").search(block, position)
            if closing:
                out.append(block[position : closing.end()])
                position = closing.end()
            continue
        target = parseLinkDestination(block, position, len(block))
        if target.ok and markdown_reader().normalizeLink(target.str) in targets:
            written = block[position : target.pos]
            if written.startswith("<"):
                out.append("<" + absolute(written[1:-1]) + ">")
            else:
                out.append(absolute(written))
            position = target.pos
    return "".join(out) + block[position:]


def _sections(lines: list[str], headings: dict[int, tuple[int, str]]) -> list:
    """The lines cut before each heading: ``(markdown, heading or None)`` a section;
    blank lines only (before the first heading) make none."""
    cuts = [0, *headings, len(lines)]
    sections = []
    for start, end in itertools.pairwise(cuts):
        if any(line.strip() for line in lines[start:end]):
            markdown = "\n".join(lines[start:end]).strip("\n")
            sections.append((markdown, headings.get(start)))
    return sections


def _admonitions(text: str, continued: bool = False) -> str:
    """Material admonitions (``!!! note "Title"``) as block quotes, which Jupyter shows,
    under their bold title; so, if ``continued``, is the indented prose that starts the
    text (an admonition going on after an example in it), not an indented code block.
    An admonition inside a block quote, or on a list item's first line, stays as
    written."""
    lines, out, position = text.split("\n"), [], 0
    tokens = markdown_reader().parse(text)
    if continued and tokens and tokens[0].type == "code_block":
        start, end = tokens[0].map
        out += _block_quote(lines[start:end], title="", indent="")
        position = _after_blank_lines(lines, end)
    for token in tokens:
        if token.type != "admonition_open" or token.map[0] < position:
            continue  # inside a quoted admonition, quoted with it
        start, end = token.map
        indent = re.match(r"[ \t]*", lines[start])[0]
        if not lines[start][len(indent) :].startswith(("!!!", "???")):
            continue  # after "> " or "- ": as written
        out += lines[position:start]
        out += _block_quote(lines[start + 1 : end], _admonition_title(token), indent)
        position = _after_blank_lines(lines, end)
    return "\n".join(out + lines[position:])


def _admonition_title(token) -> str:
    """As Material titles an admonition: its quoted title (none where empty), else its
    type's first word, capitalised."""
    quoted = ADMONITION_TITLE.search(token.info)
    return quoted["title"] if quoted else token.info.split()[0].title()


def _block_quote(body: list[str], title: str, indent: str) -> list[str]:
    """An admonition's body lines (each after ``indent``) as a block quote under its
    bold title (none where empty), then a blank line; admonitions inside it quoted in
    turn."""
    body = [line[len(indent) :] for line in body]
    while body and not body[-1].strip():
        body.pop()
    quoted = [f"**{title}**"] if title else []
    if title and body:
        quoted.append("")
    if body:
        quoted += _admonitions(textwrap.dedent("\n".join(body))).split("\n")
    return [indent + ("> " + line if line.strip() else ">") for line in quoted] + [""]


def _after_blank_lines(lines: list[str], index: int) -> int:
    """The index of the first line from ``index`` on that is not blank."""
    while index < len(lines) and not lines[index].strip():
        index += 1
    return index


def _link(target: str, language: str, relative: str, site: Site) -> str:
    """A link of the page, made absolute so that it works from a downloaded notebook."""
    if not site.url or re.match(r"^[a-z][a-z0-9+.-]*:|^/", target, re.I):
        return target
    path, _, anchor = target.partition("#")
    if path:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(relative), path))
    url = site.url + site.page_url(language, path or relative)
    return url + ("#" + anchor if anchor else "")


def run_command(page: str) -> str:
    """How to run the examples of one page as tests, from a clone."""
    return f"python -m pytest {page}"


def texts_in(language: str, where: str) -> dict:
    """The downloads' words in ``language``; a language without them stops the build."""
    if language not in TEXTS:
        raise DownloadError(
            f"{where}: no download label for the language '{language}'; add the "
            "language to the catalog (locale/, python -m ptdocs.catalog update)"
        )
    try:
        return TEXTS[language]
    except CatalogError as error:
        raise DownloadError(f"{where}: {error}") from None


def make_downloads(page: Path, site: Site, root: Path = ROOT) -> Downloads | None:
    """The notebook and the script of a page; None for a page without Python blocks."""
    page = Path(page)
    language, relative = language_of(page, root)
    where = catalog.relative(page, root)
    texts = texts_in(language, where)
    parts, examples = read_page(page, root)
    if not examples:
        return None
    # The lesson: the notebook's cells, a Markdown cell a section; the script's, the
    # code and the headings.
    lesson, outline, titles = [], [], []
    for part in parts:
        if isinstance(part, Example):
            lesson.append(_cell("code", cell_code(part)))
            outline.append(lesson[-1])
            continue
        sections = prose_cells(part, language, relative, site, root)
        lesson += [_cell("markdown", section) for section, _ in sections]
        found = [heading for _, heading in sections if heading]
        titles += [title for level, title in found if level == 1]
        if found:
            headings = (f"{'#' * level} {title}" for level, title in found)
            outline.append(_cell("markdown", "\n".join(headings)))
    files, torch = files_read(examples, root), requirements(root)["torch"]
    page_url = site.url + site.page_url(language, relative)
    title = titles[0] if titles else PurePosixPath(relative).stem
    codes = [cell[1] for cell in lesson if cell[0] == "code"]
    intro = [
        texts["verified"].format(torch=torch),
        texts["install"].format(
            packages=" ".join(packages(codes, root)), selector=SELECTOR
        ),
        texts["output"],
    ]
    if any(has_conditioned_output(example.code) for example in examples):
        intro.append(texts["output_versions"])
    if any(example.skip for example in examples):
        intro.append(texts["skips"])
    intro += [texts["run_page"], f"`{run_command(where)}`"]
    origin = {
        "page": f"[{title}]({page_url})" if site.url else f"*{title}*",
        "site": site.name(language),
    }
    fields = problem_report.fields(page_url, language, site.commit, torch)
    first, last = check_cells(
        check_call(CHECK_TEXTS[language], site.repository, fields)
    )
    shared = [_cell("markdown", texts["recording"]), _cell("code", first, hidden=True)]
    if files:
        names = ", ".join(f"`{name}`" for name in files)
        items = "".join(f"    {name!r}: {text!r},\n" for name, text in files.items())
        shared += [
            _cell("markdown", texts["files"].format(files=names)),
            _cell("code", FILES_CELL.format(files=items)),
        ]
    quoted = "\n>\n".join(
        "> " + line for line in [texts["origin"].format(**origin), *intro]
    )
    # The script's intro is comments: no block quote, whose "# > " reads as output.
    origin_script = texts["origin_script"].format(**origin)
    notebook = [_cell("markdown", quoted), *shared, *lesson]
    script = [
        _cell("markdown", "\n\n".join([origin_script, *intro])),
        *shared,
        *outline,
    ]
    shared = [_cell("markdown", texts["checking"]), _cell("code", last, hidden=True)]
    notebook, script = notebook_of(notebook + shared), notebook_of(script + shared)
    # No jupytext header: the script is plain Python with comments. The code holds no
    # IPython magics, so "# cat joins ..." stays as written, not escaped to "# # cat".
    filters = dict.fromkeys(
        ("notebook_metadata_filter", "cell_metadata_filter"), "-all"
    )
    script.metadata = {"jupytext": {**filters, "comment_magics": False}}
    script = jupytext.writes(script, fmt="py:percent")
    return Downloads(where, language, tuple(examples), notebook, script, last)


def _cell(kind: str, source: str, hidden: bool = False) -> tuple:
    """A notebook cell; a hidden one (the check's) shows collapsed in JupyterLab and VS
    Code, under the Markdown cell that says what it is."""
    return kind, source, {"jupyter": {"source_hidden": True}} if hidden else {}
