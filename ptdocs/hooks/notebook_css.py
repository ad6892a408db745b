"""Notebook pages share one small stylesheet instead of ~600 kB of inline CSS each.

mkdocs-jupyter inlines JupyterLab's whole stylesheet into every notebook page and has
no option to link it. This takes those ``<style>`` blocks out, drops each selector that
needs a class no notebook page of the build has (Material's ``md-`` classes, which its
JavaScript adds, always count as present), and links the rest as one file named by its
digest (``assets/stylesheets/notebook.<digest>.css``), after the theme's.
"""

from __future__ import annotations

import functools
import hashlib
import re
from itertools import dropwhile, pairwise
from pathlib import Path, PurePosixPath

import tinycss2
from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url
from mkdocs_jupyter.plugin import NotebookFile

from ptdocs.atomic import write_atomically

FOLDER = PurePosixPath("assets/stylesheets")
# mkdocs-jupyter's template: its <style> blocks, the notebook in this wrapper, then one
# more <style> (convert.py appends the Pygments CSS again, as a Python list: CSS that
# browsers drop).
WRAPPER_START, WRAPPER_END = '<div class="jupyter-wrapper">', "<!-- jupyter-wrapper -->"
STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>\s*", re.S | re.I)
CLASS_ATTRIBUTE = re.compile(
    r"""\sclass\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.I
)
SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script>", re.S | re.I)
WORD = re.compile(r"[-\w]+")
THEME_CLASS = "md-"  # Material's classes, which its JavaScript adds as it runs
# At-rules whose block holds rules to trim; any other at-rule is kept as it is.
GROUPING = set("media supports layer container document -moz-document scope".split())


class NotebookCssError(PluginError):
    pass


def split_styles(content: str) -> tuple[str, str]:
    """A notebook page's content without mkdocs-jupyter's ``<style>`` blocks, and
    their CSS. A ``<style>`` inside the wrapper belongs to a cell's output and stays."""
    start, end = content.find(WRAPPER_START), content.rfind(WRAPPER_END)
    if start < 0 or end < start:
        raise NotebookCssError(
            "notebook_css hook: no mkdocs-jupyter wrapper in a notebook page; "
            "did mkdocs-jupyter change its template?"
        )
    head, body, tail = content[:start], content[start:end], content[end:]
    css = [match.group(1) for part in (head, tail) for match in STYLE.finditer(part)]
    return STYLE.sub("", head) + body + STYLE.sub("", tail), "\n".join(css)


def classes_of(html: str, scripts: bool = True) -> set[str]:
    """The classes an HTML text gives its elements, and (``scripts``) any word its
    scripts could use as one (mkdocs-jupyter's Mermaid script adds classes)."""
    found = {
        n for m in CLASS_ATTRIBUTE.finditer(html) for n in "".join(m.groups("")).split()
    }
    for script in SCRIPT.finditer(html) if scripts else ():
        found.update(WORD.findall(script.group(1)))
    return found


@functools.lru_cache(maxsize=8)  # the same CSS on every notebook page: parsed once
def _parsed(css: str) -> tuple:
    # (skip_comments drops them inside preludes too: no rule below meets one)
    return tuple(tinycss2.parse_stylesheet(css, True, True))


def _inner(rule) -> list | None:
    """The rules inside a grouping at-rule (``@media``); None for any other rule."""
    if rule.type != "at-rule" or rule.lower_at_keyword not in GROUPING:
        return None
    return (
        None
        if rule.content is None
        else tinycss2.parse_blocks_contents(rule.content, True, True)
    )


@functools.lru_cache(maxsize=8)  # each language's build asks again
def trim(css: str, classes: frozenset[str]) -> str:
    """``css`` without comments and the selectors that match nothing or need a class
    missing from ``classes``; what browsers drop as invalid is left out too."""
    text = "".join(_kept(_parsed(css), classes))
    # Said first, as a file served without a charset is read in the page's.
    return '@charset "UTF-8";\n' + text + "\n" if text else ""


@functools.lru_cache(maxsize=8)
def named_classes(css: str) -> frozenset[str]:
    """Every class that a selector of ``css`` requires."""

    def required(rules):
        for rule in rules:
            if rule.type == "qualified-rule":
                for selector in _selectors(rule.prelude):
                    yield from _required(selector)
            yield from required(_inner(rule) or ())

    return frozenset(required(_parsed(css)))


def _kept(rules, classes: frozenset[str]):
    for rule in rules:
        if rule.type == "qualified-rule":
            selectors = [
                tinycss2.serialize(selector).strip()
                for selector in _selectors(rule.prelude)
                if not _below_root(selector)
                and all(
                    n in classes or n.startswith(THEME_CLASS)
                    for n in _required(selector)
                )
            ]
            if selectors:
                content = tinycss2.serialize(rule.content).strip()
                yield ",".join(selectors) + "{" + content + "}"
        elif (grouped := _inner(rule)) is not None:
            if inner := "".join(_kept(grouped, classes)):
                prelude = tinycss2.serialize(rule.prelude).strip()
                yield f"@{rule.at_keyword} {prelude}{{{inner}}}"
        elif rule.type == "at-rule" and rule.lower_at_keyword != "charset":
            yield rule.serialize()  # trim() writes one @charset, first
        # else a parse error or an empty grouping: dropped, as browsers drop it


def _is(token, literals: str) -> bool:
    return token.type == "literal" and token.value in literals


def _selectors(prelude) -> list[list]:
    """A selector list's selectors, each as its tokens (split at top-level commas)."""
    selectors = [[]]
    for token in prelude:
        if _is(token, ","):
            selectors.append([])
        else:
            selectors[-1].append(token)
    return [selector for selector in selectors if tinycss2.serialize(selector).strip()]


def _required(selector) -> set[str]:
    """The classes a selector requires: ``.name`` at its top level (not inside
    ``:not()``, ``:is()`` or an attribute selector)."""
    return {b.value for a, b in pairwise(selector) if _is(a, ".") and b.type == "ident"}


def _below_root(selector) -> bool:
    """Whether the selector asks for ``:root`` after a combinator, as JupyterLab's
    ``:root`` rules do once mkdocs-jupyter put ``.jupyter-wrapper`` before them (86
    kB of custom properties): the root is inside no other element, so none matches."""
    tokens = list(dropwhile(lambda token: token.type == "whitespace", selector))
    for index, (before, after) in enumerate(pairwise(tokens)):
        if _is(before, ":") and after.type == "ident" and after.lower_value == "root":
            return any(t.type == "whitespace" or _is(t, ">+~") for t in tokens[:index])
    return False


def file_name(css: str) -> str:
    return f"notebook.{hashlib.sha256(css.encode('utf-8')).hexdigest()[:8]}.css"


# This build's: page src_uri -> the CSS taken out; the classes of every notebook page;
# CSS taken out -> the name of the file written for it.
_css: dict[str, str] = {}
_classes: set[str] = set()
_written: dict[str, str] = {}


def on_pre_build(config):
    # i18n builds each language in turn; `mkdocs serve` rebuilds
    for state in (_css, _classes, _written):
        state.clear()


def on_page_content(html, page, config, files):
    if not isinstance(page.file, NotebookFile):
        return html
    html, _css[page.file.src_uri] = split_styles(html)
    _classes.update(classes_of(html))
    return html


def on_post_page(output, page, config):
    css = _css.get(page.file.src_uri)
    if css is None:
        return output
    # MkDocs renders every page's content before it writes the first: the classes are
    # complete, and a class the CSS names added since would have lost its rules. (The
    # words of the theme's scripts are no classes: its configuration names features.)
    late = (classes_of(output, scripts=False) - _classes) & named_classes(css)
    if late := sorted(name for name in late if not name.startswith(THEME_CLASS)):
        raise NotebookCssError(
            f"notebook_css hook: {page.file.src_uri} got the classes "
            f"{', '.join(late)} after its content was rendered; their "
            "rules were trimmed away (see ptdocs/hooks/notebook_css.py)"
        )
    if css not in _written:
        trimmed = trim(css, frozenset(_classes))
        _written[css] = file_name(trimmed)
        path = Path(config.site_dir) / FOLDER / _written[css]
        if not path.is_file():  # named by its digest: an existing one is the same
            write_atomically(path, trimmed)
    href = get_relative_url(str(FOLDER / _written[css]), page.url)
    end = output.find("</head>")  # last in the head, after the theme's stylesheets
    if end < 0:
        raise NotebookCssError("notebook_css hook: a notebook page without </head>")
    return output[:end] + f'<link rel="stylesheet" href="{href}">' + output[end:]
