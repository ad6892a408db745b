"""Expand ``--8<--`` include lines exactly as pymdownx.snippets does, keeping line
numbers.

A page's Python block holds only include lines such as::

    --8<-- "snippets/autograd/basics.py:first_gradient"

``expand`` returns the code of one include as an :class:`Include`: the lines the
reader sees, and the same code padded with blank lines so that compiling it under the
snippet's file name gives tracebacks with the snippet's real line numbers. Every
expansion is compared with pymdownx.snippets' own output for the same line, with the
configuration in ``mkdocs.yml``, so the tests run what the site shows.

In another language than English the comments of a Python snippet are that language's
(:mod:`ptdocs.catalog`), line for line, and so are its prose strings and the ``# >``
output that shows them, so the code's tokens and line numbers stay the English ones.
The site gets them from :class:`CommentLanguage`, a Markdown extension that the
translations hook adds to each non-English build: it swaps pymdownx.snippets'
preprocessor for one that translates in ``process_snippet_lines``, pymdownx's own
hook for changing a snippet's lines.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import markdown
import yaml
from markdown.extensions import Extension
from pymdownx.snippets import SnippetExtension, SnippetPreprocessor

from . import catalog
from .includes import IncludeError, cut, include_target, snippet_file  # noqa: F401  include_target: for the pages' modules

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Include:
    target: str  # as written on the page: "snippets/x.py:section"
    path: str  # the snippet file, relative to the repository root
    first_line: int  # 1-based line of the first shown line in that file
    shown: tuple[str, ...]  # the lines the reader sees
    language: str = catalog.SOURCE  # the language of its comments
    untranslated: tuple[catalog.Place, ...] = ()  # each shown comment left in English

    @property
    def padded_source(self) -> str:
        """The shown code, preceded by blank lines so line numbers match the file."""
        return "\n" * (self.first_line - 1) + "\n".join(self.shown) + "\n"

    @property
    def location(self) -> str:
        return f"{self.path}, line {self.first_line}"


def expand(
    target: str, root: Path = ROOT, language: str = catalog.SOURCE, check: bool = True
) -> Include:
    """Expand one include target into the code it shows, in a language (its comments),
    checked against pymdownx unless ``check`` is false (for a caller that reads only its
    comments; the page tests keep the check)."""
    rel, file = snippet_file(target, root)
    lines, untranslated = _lines(file, Path(root), language)
    first, shown = cut(target, lines)
    last = first + len(shown) - 1
    left = tuple(place for place in untranslated if first <= place.line <= last)
    include = Include(target, rel, first, tuple(shown), language, left)
    if check:
        _check_against_pymdownx(include, root)
    return include


def _lines(
    file: Path, root: Path, language: str
) -> tuple[list[str], list[catalog.Place]]:
    """A snippet file's lines, a Python one with the language's comments, and the
    comments left in English."""
    if file.suffix not in catalog.SUFFIXES or language == catalog.SOURCE:
        return file.read_text(encoding="utf-8").split("\n"), []
    try:
        return catalog.translate_file(file, language, root)
    except catalog.CatalogError as error:
        raise IncludeError(str(error)) from None


class _TranslatingSnippets(SnippetPreprocessor):
    """pymdownx.snippets' preprocessor, with a Python snippet's comments in one
    language."""

    def __init__(self, config, md, language: str, root: Path):
        super().__init__(config, md)
        self.language, self.root = language, root

    def process_snippet_lines(self, lines, target):
        path = Path(target["snippet"])
        if target["is_url"] or path.suffix not in catalog.SUFFIXES:
            return lines
        translated, _ = _lines(path, self.root, self.language)
        # The same selection (section or line range) of the translated file: same lines,
        # other comments.
        selected = self.select_snippet_lines(translated, target)
        if len(selected) != len(lines):  # cannot happen: translation keeps every line
            raise IncludeError(
                f"{path}: translating the comments changed the number of lines"
            )
        return selected


class CommentLanguage(Extension):
    """Load after pymdownx.snippets: its includes of Python files get this language's
    comments."""

    def __init__(self, language: str, root: Path = ROOT, **kwargs):
        self.language, self.root = language, Path(root)
        super().__init__(**kwargs)

    def extendMarkdown(self, md):
        snippets = next(
            (
                extension
                for extension in md.registeredExtensions
                if isinstance(extension, SnippetExtension)
            ),
            None,
        )
        if snippets is None:
            raise IncludeError(
                "CommentLanguage needs pymdownx.snippets, loaded before it"
            )
        md.preprocessors.register(
            _TranslatingSnippets(snippets.getConfigs(), md, self.language, self.root),
            "snippet",
            32,
        )


class _TagTolerantLoader(yaml.SafeLoader):
    """Reads mkdocs.yml's MkDocs-only tags (``!ENV``, ``!relative``) as plain values."""


_TagTolerantLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


@functools.cache
def site_config(root: Path) -> dict:
    """The repository's mkdocs.yml as plain data (shared: copy before changing any of
    it)."""
    return yaml.load(
        (root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_TagTolerantLoader
    )


@functools.cache
def _snippets_config(root: Path) -> dict:
    for extension in site_config(root).get("markdown_extensions", []):
        if isinstance(extension, dict) and "pymdownx.snippets" in extension:
            settings = dict(extension["pymdownx.snippets"] or {})
            settings["base_path"] = [
                str(root / base) for base in settings.get("base_path", ["."])
            ]
            return settings
    raise IncludeError("mkdocs.yml does not configure pymdownx.snippets")


@functools.cache
def snippet_preprocessor(root: Path = ROOT, language: str = catalog.SOURCE):
    """pymdownx.snippets' preprocessor, configured as in mkdocs.yml: it expands
    include lines, in another language with CommentLanguage, as the site's build of
    that language does.

    One per root and language, reused: each run() starts from a clean state, and
    building the Markdown instance was most of what checking an include cost."""
    extensions = ["pymdownx.snippets"]
    if language != catalog.SOURCE:
        extensions.append(CommentLanguage(language, Path(root)))
    md = markdown.Markdown(
        extensions=extensions,
        extension_configs={"pymdownx.snippets": _snippets_config(Path(root))},
    )
    return md.preprocessors["snippet"]


def pymdownx_expansion(
    target: str, root: Path = ROOT, language: str = catalog.SOURCE
) -> list[str]:
    """What pymdownx.snippets puts on the page of that language for this include
    line."""
    return snippet_preprocessor(root, language).run([f'--8<-- "{target}"'])


def _strip(lines) -> list[str]:
    """Drop the blank lines a reader cannot see (marker lines, trailing newlines)."""
    return [line for line in lines if line.strip()]


def _check_against_pymdownx(include: Include, root: Path) -> None:
    expected = _strip(pymdownx_expansion(include.target, root, include.language))
    if _strip(include.shown) != expected:
        raise IncludeError(
            f'--8<-- "{include.target}": the test harness and pymdownx.snippets '
            "expand this "
            "include differently; the tests would not run what the page shows"
        )
