"""What the hooks add to the built site: files next to a page of every language, HTML
under a page's title."""

import posixpath

from mkdocs.structure.files import File


def pages_named(files, name):
    """The documentation pages called ``name``: one per language once i18n has run."""
    return [
        file
        for file in files
        if file.is_documentation_page() and posixpath.basename(file.src_uri) == name
    ]


def add_beside(files, config, page, src_name, dest_name, content):
    """Add a generated file: linked as ``src_name`` from the page's source (so MkDocs
    validates and rewrites the link), written as ``dest_name`` next to the built
    page."""
    file = File.generated(
        config,
        posixpath.join(posixpath.dirname(page.src_uri), src_name),
        content=content,
    )
    file.dest_uri = posixpath.join(posixpath.dirname(page.dest_uri), dest_name)
    files.append(file)


def after_title(html, block):
    """A page's HTML with ``block`` right after its title (its first ``</h1>``), or
    at the top."""
    end = html.find("</h1>")
    at = end + len("</h1>") if end >= 0 else 0
    return html[:at] + block + html[at:]
