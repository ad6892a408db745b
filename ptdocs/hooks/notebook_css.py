"""Notebook pages share one small stylesheet instead of carrying ~600 kB of inline
CSS each.

mkdocs-jupyter writes, into every notebook page, ``<style>`` blocks with JupyterLab's
whole stylesheet (575 kB, most of it for JupyterLab's own interface: Blueprint
widgets, the file browser, menus), its theme and Pygments' colours: the same ~600 kB
on each page, never cached. It has no option to link them instead (its settings:
mkdocs_jupyter/plugin.py).

This hook takes those blocks out of each notebook page's content, keeps only the
rules that can apply to the site's notebook pages, and writes what is left once, as
``assets/stylesheets/notebook.<digest>.css`` (its name changes with its content, as
the theme's own ``main.<digest>.min.css``, so a browser may cache it for good),
linked from the head of each notebook page, after the theme's stylesheets, where the
blocks came in the cascade too.

Which rules can apply: a selector that requires a class (``.name`` outside
``:not()``, ``:is()`` and the like) that no notebook page of the build has, in its
HTML or in its own scripts (mkdocs-jupyter's Mermaid script adds classes), matches
nothing and is dropped, and so is a rule left without selectors. Classes of the theme
(``md-``) are never taken as missing: Material's JavaScript adds them to the page
(the scroll wrapper it puts around each table). Everything else (custom properties,
element and attribute selectors, keyframes) is kept as written. The classes are
gathered from every notebook page before any page is written (MkDocs renders every
page's content first); each written page is checked against them.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import tinycss2
from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url
from mkdocs_jupyter.plugin import NotebookFile

from ptdocs.atomic import write_atomically

FOLDER = PurePosixPath("assets/stylesheets")
# mkdocs-jupyter's template: its <style> blocks, then the notebook in this wrapper, then
# one more <style> (convert.py appends the Pygments CSS again, as a Python list: CSS
# that browsers drop).
WRAPPER_START = '<div class="jupyter-wrapper">'
WRAPPER_END = "<!-- jupyter-wrapper -->"
STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>\s*", re.S | re.I)
CLASS_ATTRIBUTE = re.compile(
    r"""\sclass\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.I
)
SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script>", re.S | re.I)
WORD = re.compile(r"[-\w]+")
THEME_CLASS = (
    "md-"  # Material's classes, which its JavaScript adds to the page as it runs
)
# At-rules whose block holds rules to trim; any other at-rule is kept as it is.
GROUPING = {
    "media",
    "supports",
    "layer",
    "container",
    "document",
    "-moz-document",
    "scope",
}


class NotebookCssError(PluginError):
    pass


# --- the stylesheet
# -----------------------------------------------------------------------


def split_styles(content: str) -> tuple[str, str]:
    """A notebook page's content without mkdocs-jupyter's ``<style>`` blocks, and
    their CSS.

    Only the blocks outside the notebook's wrapper are taken: a ``<style>`` in a
    cell's output (a pandas table's, say) belongs to that output and stays."""
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
    scripts could use as one."""
    found = set()
    for match in CLASS_ATTRIBUTE.finditer(html):
        found.update((match.group(1) or match.group(2) or match.group(3) or "").split())
    for script in SCRIPT.finditer(html) if scripts else ():
        found.update(WORD.findall(script.group(1)))
    return found


@functools.lru_cache(
    maxsize=8
)  # the same CSS on every notebook page: parsed once (~1 s)
def _parsed(css: str) -> tuple:
    return tuple(
        tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    )


@functools.lru_cache(maxsize=8)  # each language's build asks again
def trim(css: str, classes: frozenset[str]) -> str:
    """``css`` without the selectors that match nothing or need a class missing from
    ``classes``, and without comments. What browsers drop as invalid (a rule without a
    block) is left out too."""
    text = "".join(_kept(_parsed(css), classes))
    # UTF-8 throughout; said first, as a file served without a charset is read by the
    # page's.
    return '@charset "UTF-8";\n' + text + "\n" if text else ""


@functools.lru_cache(maxsize=8)
def named_classes(css: str) -> frozenset[str]:
    """Every class that a selector of ``css`` requires."""
    found: set[str] = set()
    for rule in _qualified(_parsed(css)):
        for selector in _selectors(rule.prelude):
            found |= _required(selector)
    return frozenset(found)


def _kept(rules, classes: frozenset[str]):
    for rule in rules:
        if rule.type == "qualified-rule":
            selectors = [
                selector
                for selector in _selectors(rule.prelude)
                if not _below_root(selector)
                and all(
                    name in classes or name.startswith(THEME_CLASS)
                    for name in _required(selector)
                )
            ]
            if selectors:
                yield (
                    ",".join(
                        tinycss2.serialize(selector).strip() for selector in selectors
                    )
                    + "{"
                    + tinycss2.serialize(rule.content).strip()
                    + "}"
                )
        elif rule.type == "at-rule":
            if rule.lower_at_keyword == "charset":
                continue  # one, first in the file, is written by trim()
            if rule.lower_at_keyword in GROUPING and rule.content is not None:
                inner = "".join(
                    _kept(
                        tinycss2.parse_blocks_contents(
                            rule.content, skip_comments=True, skip_whitespace=True
                        ),
                        classes,
                    )
                )
                if inner:
                    prelude = tinycss2.serialize(rule.prelude).strip()
                    yield f"@{rule.at_keyword} {prelude}{{{inner}}}"
            else:
                yield rule.serialize()
        # a parse error: dropped, as browsers drop it


def _qualified(rules):
    for rule in rules:
        if rule.type == "qualified-rule":
            yield rule
        elif (
            rule.type == "at-rule"
            and rule.lower_at_keyword in GROUPING
            and rule.content is not None
        ):
            yield from _qualified(
                tinycss2.parse_blocks_contents(
                    rule.content, skip_comments=True, skip_whitespace=True
                )
            )


def _selectors(prelude) -> list[list]:
    """A selector list's selectors, each as its tokens (split at the commas outside
    brackets)."""
    selectors, current = [], []
    for token in prelude:
        if token.type == "literal" and token.value == ",":
            selectors.append(current)
            current = []
        else:
            current.append(token)
    selectors.append(current)
    return [selector for selector in selectors if tinycss2.serialize(selector).strip()]


def _required(selector) -> set[str]:
    """The classes a selector requires: ``.name`` at its top level. A class inside a
    function (``:not(.a)``, ``:is(.a, .b)``) or an attribute selector is not
    required, so not counted."""
    return {
        after.value
        for before, after in zip(selector, selector[1:], strict=False)
        if before.type == "literal" and before.value == "." and after.type == "ident"
    }


def _below_root(selector) -> bool:
    """Whether the selector asks for ``:root`` after a combinator, as JupyterLab's
    ``:root`` rules do once mkdocs-jupyter has put ``.jupyter-wrapper `` before every
    selector (86 kB of custom properties): the root element is inside no other and
    has no sibling, so such a selector matches nothing."""
    tokens = [token for token in selector if token.type != "comment"]
    while tokens and tokens[0].type == "whitespace":
        tokens.pop(0)
    for index, (before, after) in enumerate(zip(tokens, tokens[1:], strict=False)):
        if (
            before.type == "literal"
            and before.value == ":"
            and after.type == "ident"
            and after.lower_value == "root"
        ):
            return any(
                token.type == "whitespace"
                or (token.type == "literal" and token.value in ">+~")
                for token in tokens[:index]
            )
    return False


def file_name(css: str) -> str:
    return f"notebook.{hashlib.sha256(css.encode('utf-8')).hexdigest()[:8]}.css"


def with_stylesheet(output: str, href: str) -> str:
    """The page with a link to the stylesheet last in its head (after the theme's)."""
    end = output.find("</head>")
    if end < 0:
        raise NotebookCssError("notebook_css hook: a notebook page without </head>")
    return output[:end] + f'<link rel="stylesheet" href="{href}">' + output[end:]


# --- the build
# ----------------------------------------------------------------------------


@dataclass
class _Build:
    css: dict[str, str] = field(
        default_factory=dict
    )  # page src_uri -> the CSS taken out
    classes: set[str] = field(
        default_factory=set
    )  # of every notebook page of this build
    written: dict[str, str] = field(default_factory=dict)  # taken-out CSS -> file name


_build = _Build()


def on_pre_build(config):
    global _build
    _build = _Build()  # i18n builds each language in turn; `mkdocs serve` rebuilds


def on_page_content(html, page, config, files):
    if not isinstance(page.file, NotebookFile):
        return html
    html, css = split_styles(html)
    _build.css[page.file.src_uri] = css
    _build.classes |= classes_of(html)
    return html


def on_post_page(output, page, config):
    css = _build.css.get(page.file.src_uri)
    if css is None:
        return output
    # Every notebook page's content is rendered before the first page is written: the
    # classes are complete. A class added to a page since, that the CSS names, would
    # have lost its rules. (The words of the theme's scripts are no classes: its
    # configuration names features.)
    late = (classes_of(output, scripts=False) - _build.classes) & named_classes(css)
    late = {name for name in late if not name.startswith(THEME_CLASS)}
    if late:
        raise NotebookCssError(
            f"notebook_css hook: {page.file.src_uri} got the classes "
            f"{', '.join(sorted(late))} after its content was rendered; their "
            "rules were trimmed away (see ptdocs/hooks/notebook_css.py)"
        )
    name = _build.written.get(css)
    if name is None:
        trimmed = trim(css, frozenset(_build.classes))
        name = file_name(trimmed)
        path = Path(config.site_dir) / FOLDER / name
        if (
            not path.is_file()
        ):  # the name is its content's digest: an existing one is the same
            write_atomically(path, trimmed)
        _build.written[css] = name
    return with_stylesheet(output, get_relative_url(str(FOLDER / name), page.url))
