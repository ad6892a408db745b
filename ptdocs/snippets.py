"""Expand ``--8<--`` include lines exactly as pymdownx.snippets does, keeping line
numbers, and check every expansion against pymdownx.snippets' own (configured as in
mkdocs.yml), so the tests run what the site shows.

In another language, a Python snippet's comments, prose strings and their ``# >``
output are that language's (:mod:`ptdocs.catalog`), line for line; the site gets them
from :class:`CommentLanguage`, which translates in pymdownx's own hook for changing a
snippet's lines, ``process_snippet_lines``.
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
        """The shown code after blank lines, so that line numbers match the file."""
        return "\n" * (self.first_line - 1) + "\n".join(self.shown) + "\n"


def expand(
    target: str, root: Path = ROOT, language: str = catalog.SOURCE, check: bool = True
) -> Include:
    """One include target's code in a language, checked against pymdownx unless
    ``check`` is false (for a caller that reads only its comments)."""
    rel, file = snippet_file(target, root)
    lines, untranslated = _lines(file, Path(root), language)
    first, shown = cut(target, lines)
    last = first + len(shown) - 1
    left = tuple(place for place in untranslated if first <= place.line <= last)
    include = Include(target, rel, first, tuple(shown), language, left)
    if check and _visible(shown) != _visible(
        pymdownx_expansion(target, root, language)
    ):
        raise IncludeError(
            f'--8<-- "{target}": the test harness and pymdownx.snippets expand this '
            "include differently; the tests would not run what the page shows"
        )
    return include


def _visible(lines) -> list[str]:
    """Without the blank lines a reader cannot see (markers, trailing newlines)."""
    return [line for line in lines if line.strip()]


def _lines(file: Path, root: Path, language: str):
    """A snippet file's lines (a Python one with the language's comments), and the
    comments left in English."""
    if file.suffix not in catalog.SUFFIXES or language == catalog.SOURCE:
        return file.read_text(encoding="utf-8").split("\n"), []
    try:
        return catalog.translate_file(file, language, root)
    except catalog.CatalogError as error:
        raise IncludeError(str(error)) from None


class _TranslatingSnippets(SnippetPreprocessor):
    """pymdownx.snippets' preprocessor, with Python snippets' comments translated."""

    def __init__(self, config, md, language: str, root: Path):
        super().__init__(config, md)
        self.language, self.root = language, root

    def process_snippet_lines(self, lines, target):
        path = Path(target["snippet"])
        if target["is_url"] or path.suffix not in catalog.SUFFIXES:
            return lines
        translated, _ = _lines(path, self.root, self.language)  # line for line
        return self.select_snippet_lines(translated, target)  # the same section


class CommentLanguage(Extension):
    """Load after pymdownx.snippets: its includes of Python files get this language's
    comments."""

    def __init__(self, language: str, root: Path = ROOT, **kwargs):
        self.language, self.root = language, Path(root)
        super().__init__(**kwargs)

    def extendMarkdown(self, md):
        found = (e for e in md.registeredExtensions if isinstance(e, SnippetExtension))
        if (snippets := next(found, None)) is None:
            raise IncludeError(
                "CommentLanguage needs pymdownx.snippets, loaded before it"
            )
        config = snippets.getConfigs()
        translating = _TranslatingSnippets(config, md, self.language, self.root)
        md.preprocessors.register(translating, "snippet", 32)


class _TagTolerantLoader(yaml.SafeLoader):
    """Reads mkdocs.yml's MkDocs-only tags (``!ENV``, ``!relative``) as None."""


_TagTolerantLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


@functools.cache
def snippet_preprocessor(root: Path = ROOT, language: str = catalog.SOURCE):
    """pymdownx.snippets' preprocessor as mkdocs.yml configures it, in a language as
    that language's build has it; one per root and language (building the Markdown
    instance was most of what checking an include cost)."""
    root = Path(root)
    config = yaml.load((root / "mkdocs.yml").read_bytes(), Loader=_TagTolerantLoader)
    for extension in config.get("markdown_extensions", []):
        if isinstance(extension, dict) and "pymdownx.snippets" in extension:
            settings = dict(extension["pymdownx.snippets"] or {})
            break
    else:
        raise IncludeError("mkdocs.yml does not configure pymdownx.snippets")
    settings["base_path"] = [str(root / b) for b in settings.get("base_path", ["."])]
    extensions = ["pymdownx.snippets"]
    if language != catalog.SOURCE:
        extensions.append(CommentLanguage(language, root))
    md = markdown.Markdown(
        extensions=extensions, extension_configs={"pymdownx.snippets": settings}
    )
    return md.preprocessors["snippet"]


def pymdownx_expansion(
    target: str, root: Path = ROOT, language: str = catalog.SOURCE
) -> list[str]:
    """What pymdownx.snippets puts on the page of that language for this include."""
    return snippet_preprocessor(root, language).run([f'--8<-- "{target}"'])
