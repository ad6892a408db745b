"""What hooks add to the built site: files beside a page, HTML under a title, tables."""

import posixpath
import re

from mkdocs.structure.files import File


def pages_named(files, name):
    """The documentation pages called ``name``: one per language once i18n has run."""
    return [
        file
        for file in files
        if file.is_documentation_page() and posixpath.basename(file.src_uri) == name
    ]


def add_beside(files, config, page, src_name, dest_name, content):
    """A generated file, linked as ``src_name`` from the page's source (so MkDocs
    checks and rewrites the link), written as ``dest_name`` beside the built page."""
    src_uri = posixpath.join(posixpath.dirname(page.src_uri), src_name)
    file = File.generated(config, src_uri, content=content)
    file.dest_uri = posixpath.join(posixpath.dirname(page.dest_uri), dest_name)
    files.append(file)


def after_title(html, block):
    """``block`` right after the title (the first ``</h1>``), or at the top."""
    end = html.find("</h1>")
    at = end + len("</h1>") if end >= 0 else 0
    return html[:at] + block + html[at:]


# A | ends a table cell unless escaped, except in a code span, where \| would show.
_PIPE = re.compile(r"((?<![\\`])(`+)(?!`).*?(?<!`)\2(?!`))|\|")


def table_cell(text) -> str:
    """Text as one Markdown table cell: a | would end it, a line break the row."""
    return _PIPE.sub(lambda found: found[1] or "\\|", str(text).replace("\n", " "))


def markdown_table(header, rows, align=None, searched=True) -> str:
    """A Markdown table, each cell escaped; ``align``: each column's "---|" or
    "---:|". ``searched=False``: search leaves it out (Material's
    data-search-exclude), for numbers no reader searches for that would weigh on
    the index every page loads."""
    lines = ["| " + " | ".join(map(table_cell, row)) + " |" for row in (header, *rows)]
    lines.insert(1, "|" + "".join(align or ["---|"] * len(header)))
    table = "\n".join(lines)
    wrap = "<div markdown data-search-exclude>\n\n{}\n\n</div>"
    return table if searched else wrap.format(table)
