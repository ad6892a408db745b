"""Every guide page as a notebook and a script, generated from the page itself.

A guide page is any Markdown page under ``docs/<language>/`` with a Python block (the
blocks hold only ``--8<--`` include lines, see :mod:`ptdocs.pages`). From it:

* a notebook (nbformat): a first cell that says which torch verified the page and
  how to install it, then the page's prose as Markdown cells in its language and
  each Python block as one code cell, in page order;
* a script (jupytext's ``py:percent`` form of a notebook with the same code cells
  and only the page's headings), so the section titles are comments in the page's
  language.

The page is read with the same Sybil parsers the tests use, so a download holds
exactly the examples that run as tests, and the code is the page's own includes
(``ptdocs.snippets.expand``), so the two cannot disagree.

An example behind a Sybil skip directive (``<!-- skip: next if(not HAS_ACCELERATOR,
reason="...") -->``) is wrapped in an ``if``/``else`` that prints ``Skipped:
<reason>`` where the condition holds, so a download runs everywhere and shows the
same reason as the test report.

Downloads run from any folder: a file that the examples read from the repository (a
string in the code naming a file of the repository, such as
``"snippets/choosing/criteria.yaml"``) is written by a first code cell, where it is
missing, at the same relative path.

``# >`` lines stay as the page shows them, a release condition included (``#
>[torch>=2.14] 0.0``, see :mod:`ptdocs.pages`), and the first cell says what such a
condition means. What a download prints is what :func:`ptdocs.pages.shown_output`
selects for the running torch, as on the page.

Each download checks itself where the reader runs it: its first code cell records
what each top-level statement prints, its last compares that with the ``# >`` lines
by the page tests' own rules and prints one line in the page's language ("✓ 31 of 31
outputs match the page (torch 2.13.0, CPU)"), or the outputs that differ, each with
the page's line and what printed, and a link that reports them (the page's "Report a
problem" link with the differences filled in); then a script exits with status 1 and
a notebook's last cell fails. Both cells are the code of :mod:`ptdocs.output_check`
(:func:`check_cells`), which needs only the standard library and is the module the
page tests use, so a reader's run and the tests cannot apply different rules.

The hook ``ptdocs/hooks/downloads.py`` writes both files next to the built page and
puts the links at its top.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import io
import posixpath
import re
import sys
import textwrap
import tokenize
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import jupytext
import nbformat
from mkdocs.utils.meta import get_data
from packaging.utils import canonicalize_name
from sybil import Document
from sybil.parsers.markdown import SkipParser

from . import catalog, output_check, problem_report
from .catalog import CatalogError, Plural, Texts
from .layout import language
from .pages import PROSE_VALUES, Block, PageBlockParser, has_conditioned_output
from .snippets import ROOT, Include, snippet_preprocessor

SELECTOR = "https://pytorch.org/get-started/locally/"

# What the downloads say, in English; other languages come from the catalog
# (locale/<language>/LC_MESSAGES/interface.po, see ptdocs.catalog): a missing entry
# stops the build with a one-line error, instead of showing English on its pages.
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
        "the CPU-only "
        "build of torch or one for a given CUDA version, choose the command at the "
        "selector: <{selector}>.",
        "output": "Lines that start with `# >` show what the statement above them "
        "prints.",
        "output_versions": "A line that starts with a condition, such as `# "
        ">[torch>=2.14]`, is printed "
        "only by the torch releases it names; the tests check each line on those "
        "releases.",
        "skips": "Examples that need hardware you may not have print `Skipped:` and "
        "the reason "
        "where it is missing, instead of running.",
        "files": "The examples read these files of the repository; this cell writes "
        "them next to "
        "the notebook where they are missing: {files}.",
        "recording": "Not part of the lesson: this cell records what the examples "
        "print, so that the "
        "last cell can compare it with the page.",
        "checking": "Not part of the lesson: this cell compares what the examples "
        "printed with the "
        "`# >` lines, by the rules of the page's tests, and says how it went in one "
        "line.",
    },
)

# What the last cell prints, in the page's language (ptdocs.output_check.report); a
# Plural goes to the download as the language's forms and Plural-Forms rule, which
# Python's gettext applies there.
CHECK_TEXTS = Texts(
    "check",
    {
        "match": "✓ {ok} of {total} outputs match the page (torch {torch}, {device})",
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
    },
)

# Names a skip condition may use, as conftest.py's _setup defines them for the
# tests: the import each needs and the expression that computes it in a download.
SETUP_NAMES = {
    "HAS_ACCELERATOR": ("import torch", "torch.accelerator.is_available()"),
    "ACCELERATOR": (
        "import torch",
        "torch.accelerator.current_accelerator().type if "
        "torch.accelerator.is_available() else None",
    ),
}


class DownloadError(ValueError):
    """A page whose downloads cannot be made, with a message for its author."""


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
        if i18n is not None:
            for language in i18n.config.languages:
                if language.default:
                    default = language.locale
                names[language.locale] = language.site_name or config["site_name"]
        root = (
            Path(config.config_file_path).resolve().parent
            if config.config_file_path
            else ROOT
        )
        return cls(
            url + "/" if url else "",
            default,
            names,
            bool(config.get("use_directory_urls", True)),
            problem_report.repository(config),
            problem_report.built_commit(root),
        )

    def page_url(self, language: str, relative: str) -> str:
        """The URL (relative to the site's root) of ``docs/<language>/<relative>``."""
        prefix = "" if language == self.default_language else f"{language}/"
        stem, suffix = posixpath.splitext(relative)
        if suffix not in (".md", ".ipynb"):
            return prefix + relative
        if not self.use_directory_urls:
            return prefix + stem + ".html"
        if posixpath.basename(stem) in ("index", "README"):
            directory = posixpath.dirname(stem)
            return prefix + (directory + "/" if directory else "")
        return prefix + stem + "/"


@dataclass(frozen=True)
class Skip:
    condition: str  # a Python expression, true where the example is skipped
    reason: str
    names: tuple[
        str, ...
    ]  # the SETUP_NAMES it uses, defined just before it in a download


@dataclass(frozen=True)
class Example:
    """One Python block of a page: its includes and the skip that applies to it."""

    line: int
    includes: tuple[Include, ...]
    skip: Skip | None

    @property
    def code(self) -> str:
        lines = [line for include in self.includes for line in include.shown]
        return "\n".join(lines).strip("\n")


@dataclass(frozen=True)
class Downloads:
    page: str  # relative to the repository root, e.g. "docs/es/autograd.md"
    language: str
    examples: tuple[Example, ...]
    notebook: nbformat.NotebookNode
    script: str
    check: str  # the last code cell: the check's rules and the call that applies them

    @property
    def stem(self) -> str:
        return PurePosixPath(self.page).stem

    @property
    def notebook_name(self) -> str:
        return self.stem + ".ipynb"

    @property
    def script_name(self) -> str:
        return self.stem + ".py"

    @property
    def notebook_text(self) -> str:
        return nbformat.writes(self.notebook)


# ---------------------------------------------------------------- the page


def language_of(page: Path, root: Path = ROOT) -> tuple[str, str]:
    """``(language, path inside the language folder)`` of a page under docs/."""
    try:
        relative = (
            Path(page).resolve().relative_to((Path(root) / "docs").resolve()).as_posix()
        )
        return language(relative), relative.partition("/")[2]
    except ValueError:
        raise DownloadError(
            f"{page}: a guide page lives under docs/<language>/"
        ) from None


def guide_pages(root: Path = ROOT) -> list[Path]:
    """Every Markdown page under docs/<language>/ with at least one Python block."""
    pages = []
    for page in sorted((Path(root) / "docs").glob("*/**/*.md")):
        if any(
            not isinstance(region.parsed, tuple) for region in _parse(page, root)[1]
        ):
            pages.append(page)
    return pages


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
    parts: list = []
    examples: list[Example] = []
    position = 0
    active: Skip | None = None  # a skip that applies to the next example(s)
    ranged = False  # skip: start ... end
    for region in regions:
        parts.append(text[position : region.start])
        position = region.end
        if isinstance(region.parsed, tuple):  # a skip directive
            action, argument = region.parsed
            line = text.count("\n", 0, region.start) + 1
            # Sybil's region stops before the comment's end: drop the whole comment.
            closing = re.match(r"[ \t]*-->[ \t]*\n?", text[position:])
            if closing:
                position += closing.end()
            if action == "end":
                active, ranged = None, False
            elif action in ("next", "start"):
                active, ranged = (
                    _skip(argument, f"{where}, line {line}"),
                    action == "start",
                )
            else:
                raise DownloadError(
                    f"{where}, line {line}: unknown skip action {action!r}"
                )
            continue
        block = region.parsed
        if isinstance(block, str):  # the page test reports the same error
            raise DownloadError(block)
        assert isinstance(block, Block)
        example = Example(block.line, block.includes, active)
        examples.append(example)
        parts.append(example)
        if not ranged:
            active = None
    parts.append(text[position:])
    parts[0] = get_data(parts[0])[
        0
    ]  # YAML front matter is the page's metadata, not prose
    # prose-values comments are the site's checks of its prose, not part of what a
    # reader runs
    parts = [
        _without_prose_values(part) if isinstance(part, str) else part for part in parts
    ]
    return parts, examples


def _without_prose_values(prose: str) -> str:
    return re.sub(rf"[ \t]*(?:{PROSE_VALUES.pattern})[ \t]*\n?", "", prose, flags=re.S)


def _skip(argument: str | None, where: str) -> Skip:
    """A download's version of a Sybil skip: what makes it skip, and the reason
    shown."""
    if not argument:
        raise DownloadError(
            f"{where}: a skip without a reason; write "
            "'skip: next if(CONDITION, reason=\"...\")' so readers see why"
        )
    argument = argument.strip()
    if argument.startswith("if"):
        try:
            call = ast.parse("if_" + argument[2:], mode="eval").body
        except SyntaxError as error:
            raise DownloadError(
                f"{where}: cannot read the skip condition: {error.msg}"
            ) from None
        if not isinstance(call, ast.Call) or not 1 <= len(call.args) <= 2:
            raise DownloadError(
                f'{where}: write the skip as if(CONDITION, reason="...")'
            )
        condition = call.args[0]
        reasons = call.args[1:] + [k.value for k in call.keywords if k.arg == "reason"]
        try:
            reason = ast.literal_eval(reasons[0]) if reasons else None
        except ValueError:
            raise DownloadError(
                f"{where}: a skip reason must be a plain string"
            ) from None
        text = ast.unparse(condition)
        reason = reason or text  # Sybil's own default reason
    else:
        try:
            reason = ast.literal_eval(argument)
        except (SyntaxError, ValueError):
            raise DownloadError(
                f"{where}: a skip reason must be a string or if(...)"
            ) from None
        text, condition = "True", ast.Constant(True)
    # Other names in a condition come from the page's earlier examples, which run
    # before it in a download too.
    names = sorted(
        {
            node.id
            for node in ast.walk(condition)
            if isinstance(node, ast.Name) and node.id in SETUP_NAMES
        }
    )
    return Skip(text, str(reason), tuple(names))


# ---------------------------------------------------------------- the code


def cell_code(example: Example) -> str:
    """The code of one example as it runs in a download: skips become if/else."""
    code = example.code
    skip = example.skip
    if skip is None:
        return code
    imports = sorted({SETUP_NAMES[name][0] for name in skip.names})
    lines = [*imports, *(f"{name} = {SETUP_NAMES[name][1]}" for name in skip.names)]
    if lines:
        lines.append("")
    lines.append(f"if {skip.condition}:")
    lines.append(f"    print({('Skipped: ' + skip.reason)!r})")
    lines.append("else:")
    lines.append(_indent(code))
    return "\n".join(lines)


def _indent(code: str) -> str:
    """Indent code one level, leaving the inside of multi-line strings untouched."""
    inside = set()  # lines that continue a string token
    for token in tokenize.generate_tokens(io.StringIO(code + "\n").readline):
        if (
            token.type == tokenize.STRING
            or getattr(tokenize, "FSTRING_MIDDLE", None) == token.type
        ):
            inside.update(range(token.start[0] + 1, token.end[0] + 1))
    return "\n".join(
        line if number in inside or not line.strip() else "    " + line
        for number, line in enumerate(code.split("\n"), start=1)
    )


def files_read(examples, root: Path = ROOT) -> dict[str, str]:
    """Files of the repository named by a string in the code: path -> text."""
    found: dict[str, str] = {}
    for example in examples:
        for node in ast.walk(ast.parse(example.code)):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            value = node.value
            if (
                "\n" in value
                or not value
                or value.startswith(("/", "."))
                or len(value) > 200
            ):
                continue
            file = Path(root) / value
            if file.is_file() and file.resolve().is_relative_to(Path(root).resolve()):
                try:
                    found[value] = file.read_text(encoding="utf-8")
                except UnicodeDecodeError:
                    raise DownloadError(
                        f"{value}: the examples read a binary file, which a "
                        "download cannot carry"
                    ) from None
    return dict(sorted(found.items()))


def files_cell_code(files: dict[str, str]) -> str:
    lines = ["from pathlib import Path", "", "FILES = {"]
    lines += [f"    {name!r}: {text!r}," for name, text in files.items()]
    lines += [
        "}",
        "for name, text in FILES.items():",
        "    path = Path(name)",
        "    if not path.exists():",
        "        path.parent.mkdir(parents=True, exist_ok=True)",
        '        path.write_text(text, encoding="utf-8")',
    ]
    return "\n".join(lines)


def requirements(root: Path = ROOT) -> dict[str, str]:
    """The pins of requirements.txt: normalized distribution name -> version."""
    pins = {}
    for line in (
        (Path(root) / "requirements.txt").read_text(encoding="utf-8").splitlines()
    ):
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)", line)
        if match:
            pins[canonicalize_name(match[1])] = match[2]
    return pins


@functools.lru_cache(maxsize=1)
def _distributions() -> dict:
    return (
        importlib.metadata.packages_distributions()
    )  # slow: reads every installed RECORD


# torch's own functions that need a module torch does not install: Tensor.numpy() and
# torch.from_numpy fail with "Numpy is not available" without NumPy, imported or not.
NEEDS_MODULE = {"numpy": "numpy", "from_numpy": "numpy"}


def packages(codes, root: Path = ROOT) -> list[str]:
    """``name==version`` for each distribution the code imports or needs, torch
    first."""
    pins = requirements(root)
    if "torch" not in pins:
        raise DownloadError("requirements.txt does not pin torch (torch==X.Y.Z)")
    distributions = _distributions()
    wanted = {"torch"}
    for code in codes:
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Attribute) and node.attr in NEEDS_MODULE:
                modules = [NEEDS_MODULE[node.attr]]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                if top in sys.stdlib_module_names:
                    continue
                names = [canonicalize_name(d) for d in distributions.get(top, [])]
                pinned = [name for name in names if name in pins]
                if not pinned:
                    raise DownloadError(
                        f"the examples import {top!r}, which requirements.txt does "
                        "not pin "
                        "(or call torch's bridge to it, see NEEDS_MODULE): "
                        "a download of the page could not be installed and run "
                        "outside a clone"
                    )
                wanted.add(pinned[0])
    return [
        f"{name}=={pins[name]}"
        for name in sorted(wanted, key=lambda n: (n != "torch", n))
    ]


# ---------------------------------------------------------------- the check

RECORDING, COMPARING = (
    "# ---------------------------------------------------------------- recording",
    "# ---------------------------------------------------------------- comparing",
)


def _code_only(code: str) -> str:
    """Code without its docstrings and comments: the check's cells are the same in
    every language, and the Markdown cell above each says, in the page's language,
    what it does."""
    tree = ast.parse(code)
    replaced: dict[int, str | None] = {}  # line -> its new text; None: dropped
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            docstring = body[0]
            for line in range(docstring.lineno, docstring.end_lineno + 1):
                replaced[line] = None
            if len(body) == 1:  # a class of its own name only
                replaced[docstring.lineno] = " " * docstring.col_offset + "pass"
    lines = code.split("\n")
    for line in [line for line, text in replaced.items() if text is None]:
        if (
            line < len(lines) and not lines[line].strip()
        ):  # the blank line after a docstring
            replaced[line + 1] = None
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            row, column = token.start
            kept = lines[row - 1][:column].rstrip()
            replaced.setdefault(row, kept or None)
    return "\n".join(
        replaced.get(number, line)
        for number, line in enumerate(lines, start=1)
        if replaced.get(number, line) is not None
    )


def check_cells(call: str) -> tuple[str, str]:
    """The first and the last code cell of a download: ptdocs.output_check's two
    parts (its code only), the last followed by ``call``, which applies them."""
    source = Path(output_check.__file__).read_text(encoding="utf-8")
    head, found, tail = source.partition("\n" + COMPARING + "\n")
    _, started, head = head.partition("\n" + RECORDING + "\n")
    if not (found and started):
        raise DownloadError(
            f"{output_check.__file__}: the markers that cut it in two are missing"
        )
    first = _code_only(head).strip("\n") + "\n\n\n_recorder = Recorder(globals())"
    return first, _code_only(tail).strip("\n") + "\n\n\n" + call


def check_call(texts: dict, repository: str, fields: dict) -> str:
    """The call that ends a download: texts in the page's language, and the report's
    address."""

    def literal(mapping):
        return (
            "{\n"
            + "".join(
                f"        {key!r}: {_plain(value)!r},\n"
                for key, value in mapping.items()
            )
            + "    }"
        )

    return (
        f"finish(\n    _recorder,\n    texts={literal(texts)},\n    "
        f"repository={repository!r},\n"
        f"    fields={literal(fields)},\n)"
    )


def _plain(value):
    """A text as a download carries it: a Plural as (its forms, its Plural-Forms
    rule)."""
    return (tuple(value.forms), value.rule) if isinstance(value, Plural) else value


# ---------------------------------------------------------------- the prose


ADMONITION = re.compile(
    r"^(?P<indent>[ \t]*)(?:!!!|\?\?\?\+?)[ \t]*(?P<type>[\w-]+(?: +[\w-]+)*)"
    r'(?:[ \t]+"(?P<title>.*?)")?[ \t]*$'
)
HEADING = re.compile(
    r"^(?P<hashes>#{1,6})[ \t]+(?P<title>.+?)[ \t]*(?:\{[^}]*\})?[ \t]*#*[ \t]*$"
)
FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})")
LINK = re.compile(
    r"(?P<open>!?\[[^\]\n]*\]\()(?P<target>[^)\s]+)(?P<rest>(?:[ \t]+\"[^\"]*\")?\))"
)
REFERENCE = re.compile(
    r"^(?P<open>[ ]{0,3}\[[^\]\n]+\]:[ \t]*)(?P<target>\S+)(?P<rest>.*)$", re.M
)


def prose_markdown(
    text: str, language: str, relative: str, site: Site, root: Path
) -> str:
    """A stretch of the page's prose as notebook Markdown."""
    if "8<" in text:  # includes in prose: expanded by pymdownx.snippets, as on the page
        text = "\n".join(
            snippet_preprocessor(root, _comment_language(language)).run(
                text.split("\n")
            )
        )
    text = _admonitions(_continued_block(text))
    for pattern in (LINK, REFERENCE):
        text = pattern.sub(
            lambda m: (
                m["open"] + _link(m["target"], language, relative, site) + m["rest"]
            ),
            text,
        )
    return text


def _comment_language(language: str) -> str:
    return language if language in catalog.LANGUAGES else catalog.SOURCE


def _continued_block(text: str) -> str:
    """Prose that goes on inside an admonition or a collapsed block (``??? note``)
    after an example in it: its indented start, as the block quote that _admonitions
    made of the block's beginning, not as an indented code block."""
    lines, index = text.split("\n"), 0
    while index < len(lines) and (
        not lines[index].strip() or lines[index].startswith(("    ", "\t"))
    ):
        index += 1
    if not any(line.strip() for line in lines[:index]):
        return text
    inner = _admonitions(textwrap.dedent("\n".join(lines[:index])).strip("\n")).split(
        "\n"
    )
    return "\n".join(
        [("> " + line if line.strip() else ">") for line in inner]
        + [""]
        + lines[index:]
    )


def _admonitions(text: str) -> str:
    """Material admonitions (``!!! note "Title"``) as block quotes, which Jupyter
    shows."""
    lines, out, index = text.split("\n"), [], 0
    while index < len(lines):
        match = ADMONITION.match(lines[index])
        if not match:
            out.append(lines[index])
            index += 1
            continue
        indent = match["indent"]
        title = (
            match["title"]
            if match["title"] is not None
            else match["type"].split()[0].title()
        )
        body, index = [], index + 1
        while index < len(lines) and (
            not lines[index].strip()
            or lines[index].startswith(indent + "    ")
            or lines[index].startswith(indent + "\t")
        ):
            body.append(lines[index][len(indent) :])
            index += 1
        while body and not body[-1].strip():
            body.pop()
        quoted = [f"**{title}**"] if title else []
        inner = (
            _admonitions(textwrap.dedent("\n".join(body))).split("\n") if body else []
        )
        if quoted and inner:
            quoted.append("")
        quoted += inner
        out += [indent + ("> " + line if line.strip() else ">") for line in quoted]
        out.append("")
    return "\n".join(out)


def _link(target: str, language: str, relative: str, site: Site) -> str:
    """A link of the page, made absolute so that it works from a downloaded notebook."""
    if not site.url or re.match(r"^[a-z][a-z0-9+.-]*:|^/", target, re.I):
        return target
    path, _, anchor = target.partition("#")
    if path:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(relative), path))
    url = site.url + site.page_url(language, path or relative)
    return url + ("#" + anchor if anchor else "")


def lines_with_prose_flag(markdown_text: str):
    """Each line, and whether it is prose: outside every code fence and not a fence
    line."""
    fence = None
    for line in markdown_text.split("\n"):
        match = FENCE.match(line)
        if match:
            marker = match["fence"]
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            yield line, False
        else:
            yield line, fence is None


def headings(markdown_text: str) -> list[str]:
    """The ATX headings of some Markdown, outside code fences, as they read."""
    found = []
    for line, prose in lines_with_prose_flag(markdown_text):
        heading = HEADING.match(line) if prose else None
        if heading:
            found.append(f"{heading['hashes']} {heading['title']}")
    return found


def _title(parts) -> str | None:
    for part in parts:
        if isinstance(part, str):
            for heading in headings(part):
                if heading.startswith("# "):
                    return heading[2:]
    return None


def _split_at_headings(text: str) -> list[str]:
    """Markdown cut before each heading (outside fences): one notebook cell per
    section."""
    cells, current = [], []
    for line, prose in lines_with_prose_flag(text):
        if prose and HEADING.match(line) and any(kept.strip() for kept in current):
            cells.append("\n".join(current))
            current = []
        current.append(line)
    cells.append("\n".join(current))
    return [cell.strip("\n") for cell in cells if cell.strip()]


# ---------------------------------------------------------------- the downloads


def run_command(page: str) -> str:
    """How to run the examples of one page as tests, from a clone."""
    return f"python -m pytest {page}"


def make_downloads(page: Path, site: Site, root: Path = ROOT) -> Downloads | None:
    """The notebook and the script of a page; None for a page without Python blocks."""
    page = Path(page)
    language, relative = language_of(page, root)
    if language not in TEXTS:
        raise DownloadError(
            f"{catalog.relative(page, root)}: the catalog (locale/) has no texts for "
            f"the language {language!r}"
        )
    try:
        texts = TEXTS[language]
    except CatalogError as error:
        raise DownloadError(str(error)) from None
    parts, examples = read_page(page, root)
    if not examples:
        return None
    where = catalog.relative(page, root)
    codes = [cell_code(example) for example in examples]
    files = files_read(examples, root)

    page_title = _title(parts) or PurePosixPath(relative).stem
    page_link = (
        f"[{page_title}]({site.url + site.page_url(language, relative)})"
        if site.url
        else f"*{page_title}*"
    )
    site_name = site.name(language)

    install = " ".join(packages(codes, root))

    def intro(origin: str, quoted: bool) -> str:
        lines = [
            texts[origin].format(page=page_link, site=site_name),
            texts["verified"].format(torch=requirements(root)["torch"]),
            texts["install"].format(packages=install, selector=SELECTOR),
            texts["output"],
        ]
        if any(has_conditioned_output(example.code) for example in examples):
            lines.append(texts["output_versions"])
        if any(example.skip for example in examples):
            lines.append(texts["skips"])
        lines += [texts["run_page"], f"`{run_command(where)}`"]
        if not quoted:  # the script's comments: "# > " would read as an output line
            return "\n\n".join(lines)
        return "\n>\n".join("> " + line for line in lines)

    files_note = texts["files"].format(files=", ".join(f"`{name}`" for name in files))

    notebook_cells, script_cells = [], []
    notebook_cells.append(_markdown_cell(intro("origin", quoted=True)))
    script_cells.append(_markdown_cell(intro("origin_script", quoted=False)))
    page_url = site.url + site.page_url(language, relative)
    fields = problem_report.fields(
        page_url, language, site.commit, requirements(root)["torch"]
    )
    first, last = check_cells(
        check_call(CHECK_TEXTS[language], site.repository, fields)
    )
    for cells in (notebook_cells, script_cells):
        cells.append(_markdown_cell(texts["recording"]))
        cells.append(_code_cell(first, hidden=True))
    if files:
        for cells in (notebook_cells, script_cells):
            cells.append(_markdown_cell(files_note))
            cells.append(_code_cell(files_cell_code(files)))
    code_of = dict(zip(map(id, examples), codes, strict=False))
    for part in parts:
        if isinstance(part, Example):
            for cells in (notebook_cells, script_cells):
                cells.append(_code_cell(code_of[id(part)]))
            continue
        prose = prose_markdown(part, language, relative, site, root)
        notebook_cells += [_markdown_cell(cell) for cell in _split_at_headings(prose)]
        titles = headings(prose)
        if titles:
            script_cells.append(_markdown_cell("\n".join(titles)))

    for cells in (notebook_cells, script_cells):
        cells.append(_markdown_cell(texts["checking"]))
        cells.append(_code_cell(last, hidden=True))
    notebook = _notebook(notebook_cells)
    script = _script(script_cells)
    return Downloads(where, language, tuple(examples), notebook, script, last)


def _code_cell(source: str, hidden: bool = False) -> dict:
    """A code cell; a hidden one (the check's) shows collapsed in JupyterLab and VS
    Code, under the Markdown cell that says what it is, so the lesson's code comes
    first."""
    metadata = {"jupyter": {"source_hidden": True}} if hidden else {}
    return {
        "cell_type": "code",
        "metadata": metadata,
        "execution_count": None,
        "source": source,
        "outputs": [],
    }


def _markdown_cell(source: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _notebook(cells) -> nbformat.NotebookNode:
    """The cells as a notebook, validated once as a whole (nbformat's new_*_cell
    validated each cell on its own as well: most of the time of a page's downloads)."""
    notebook = nbformat.from_dict(
        {
            "nbformat": 4,
            "nbformat_minor": nbformat.v4.nbformat_minor,
            "metadata": {
                "kernelspec": {
                    "name": "python3",
                    "display_name": "Python 3",
                    "language": "python",
                },
                "language_info": {"name": "python"},
            },
            # stable ids: the same page gives the same file
            "cells": [
                {**cell, "id": f"cell-{number}"} for number, cell in enumerate(cells)
            ],
        }
    )
    nbformat.validate(notebook)
    return notebook


def _script(cells) -> str:
    notebook = _notebook(cells)
    # No jupytext header: the script is plain Python with comments. The code holds no
    # IPython magics, so a comment such as "# cat joins ..." is left as written, not
    # escaped to "# # cat".
    notebook.metadata = {
        "jupytext": {
            "notebook_metadata_filter": "-all",
            "cell_metadata_filter": "-all",
            "comment_magics": False,
        }
    }
    return jupytext.writes(notebook, fmt="py:percent")


def links_markdown(downloads: Downloads) -> str:
    """The download links and the test command, as Markdown
    (ptdocs/hooks/downloads.py places it).

    Both paragraphs are left out of the search index (attr_list puts Material's
    ``data-search-exclude`` on them): a search result then starts with the page's own
    words."""
    texts = TEXTS[downloads.language]
    return (
        f'<a class="md-button" href="{downloads.notebook_name}" '
        f"download>{texts['notebook']}</a>\n"
        f'<a class="md-button" href="{downloads.script_name}" '
        f"download>{texts['script']}</a>\n"
        "{ data-search-exclude }\n"
        "\n"
        f"{texts['run_page']} `{run_command(downloads.page)}`\n"
        "{ data-search-exclude }\n"
    )
