"""Notebook pages link one trimmed, shared stylesheet (ptdocs/hooks/notebook_css.py)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from mkdocs.structure.files import File
from mkdocs_jupyter.plugin import NotebookFile

from ptdocs.hooks import notebook_css
from ptdocs.hooks.notebook_css import NotebookCssError

HEAD = (
    '<style type="text/css">\n.jupyter-wrapper .jp-Cell{margin:0}</style>'
    "<script>x()</script><style>.jp-Mermaid{display:none}</style>"
)
OUTPUT_STYLE = "<style scoped>.dataframe td{color:red}</style>"
NOTEBOOK = (
    '<div class="jupyter-wrapper"><div class="jp-Cell jp-CodeCell">'
    + OUTPUT_STYLE
    + "<p>cell</p></div></div> <!-- jupyter-wrapper -->\n"
)
# mkdocs-jupyter's convert.py appends the Pygments CSS once more, as a list's repr.
JUNK = (
    "<style>\n['pre { line-height: 125%; }\\ntd.linenos { color: red; }']\n</style>\n"
)
CONTENT = HEAD + NOTEBOOK + JUNK


def rules(css: str) -> list[str]:
    css = css.removeprefix('@charset "UTF-8";\n').strip()
    return [rule + "}" for rule in css.split("}") if rule]


# --- taking the styles out


def test_styles_around_the_notebook_go_in_order_and_an_outputs_own_stay():
    content, css = notebook_css.split_styles(CONTENT)
    assert content == "<script>x()</script>" + NOTEBOOK
    assert OUTPUT_STYLE in content
    order = [css.index(s) for s in (".jp-Cell{margin:0}", ".jp-Mermaid", "line-height")]
    assert order == sorted(order)


def test_a_page_without_mkdocs_jupyters_wrapper_is_a_one_line_error():
    with pytest.raises(NotebookCssError, match="no mkdocs-jupyter wrapper"):
        notebook_css.split_styles("<style>p{}</style><p>no notebook</p>")


def test_classes_come_from_class_attributes_and_from_the_pages_scripts():
    html = (
        """<p class="a  b"><span class='c'></span><i class=d></i>"""
        """<b data-class="x"></b>"""
        """<script>el.classList.add("jp-RenderedMermaid")</script>"""
    )
    found = notebook_css.classes_of(html)
    assert {"a", "b", "c", "d", "jp-RenderedMermaid"} <= found and "x" not in found


# --- trimming


def test_selectors_needing_a_class_no_page_has_are_dropped_the_rest_kept():
    css = (
        ".used{color:red}.unused{color:blue}"
        ".used .unused,.used>p{margin:0}"  # one of two selectors stays
        "p:not(.unused){padding:0}"  # a class in :not() is not required
        # the theme's, added by its script
        ".jupyter-wrapper .md-typeset__scrollwrap{margin:0}"
        "table{width:max-content}[data-md-color-scheme=slate] .used{color:#fff}"
    )
    assert rules(notebook_css.trim(css, frozenset({"used", "jupyter-wrapper"}))) == [
        ".used{color:red}",
        ".used>p{margin:0}",
        "p:not(.unused){padding:0}",
        ".jupyter-wrapper .md-typeset__scrollwrap{margin:0}",
        "table{width:max-content}",
        "[data-md-color-scheme=slate] .used{color:#fff}",
    ]


def test_root_after_a_combinator_matches_nothing_and_is_dropped():
    css = ".jupyter-wrapper :root{--a:1}.w>:root,:root{--b:2}"
    css += "html:root{--c:3}:root .used{--d:4}"
    kept = rules(notebook_css.trim(css, frozenset({"used", "jupyter-wrapper", "w"})))
    assert kept == [":root{--b:2}", "html:root{--c:3}", ":root .used{--d:4}"]


def test_media_blocks_are_trimmed_inside_and_dropped_when_empty_other_at_rules_kept():
    css = (
        '@charset "UTF-8";@media (max-width:760px){.used{top:0}.unused{top:1px}}'
        "@media print{.unused{top:0}}@keyframes spin{to{transform:rotate(1turn)}}"
    )
    trimmed = notebook_css.trim(css, frozenset({"used"}))
    assert trimmed.count("@charset") == 1 and trimmed.startswith('@charset "UTF-8";')
    assert "@media (max-width:760px){.used{top:0}}" in trimmed
    assert "unused" not in trimmed and "print" not in trimmed
    assert "@keyframes spin{to{transform:rotate(1turn)}}" in trimmed


def test_what_browsers_drop_as_invalid_is_left_out_and_comments_too():
    junk = JUNK.removeprefix("<style>").removesuffix("</style>\n")
    trimmed = notebook_css.trim("/* c */ p{margin:0}" + junk, frozenset())
    assert rules(trimmed) == ["p{margin:0}"]
    assert notebook_css.trim("['a { }']", frozenset()) == ""


def test_named_classes_are_those_a_selector_requires():
    css = ".a .b,p:not(.c){}@media print{.d{}}[class~=e]{}"
    assert notebook_css.named_classes(css) == {"a", "b", "d"}


# --- the hook in a build


def _page(tmp_path, src_uri: str, url: str):
    docs, site = tmp_path / "docs", str(tmp_path / "site")
    (docs / src_uri).parent.mkdir(parents=True, exist_ok=True)
    (docs / src_uri).write_text("{}", encoding="utf-8")
    file = File(src_uri, str(docs), site, use_directory_urls=True)
    notebook = NotebookFile(file, use_directory_urls=True, site_dir=site)
    return SimpleNamespace(file=notebook, url=url)


def _written(config):
    return sorted(
        path.name for path in (config.site_dir / notebook_css.FOLDER).iterdir()
    )


def test_every_notebook_page_links_the_same_trimmed_stylesheet_written_once(tmp_path):
    config = SimpleNamespace(site_dir=tmp_path / "site")
    english = _page(tmp_path, "en/exercises/x.ipynb", "exercises/x/")
    spanish = _page(tmp_path, "es/exercises/x.ipynb", "es/exercises/x/")
    guide_file = File("en/guide.md", str(tmp_path), str(tmp_path / "site"), True)
    guide = SimpleNamespace(file=guide_file, url="guide/")
    notebook_css.on_pre_build(config)
    # Every page's content first, as MkDocs renders them, then every page is written.
    notebooks = (english, spanish)
    contents = [
        notebook_css.on_page_content(CONTENT, n, config, None) for n in notebooks
    ]
    for content in contents:
        assert "<style type" not in content and "line-height" not in content
    style = "<style>p{}</style>"
    assert notebook_css.on_page_content(style, guide, config, None) == style
    shell = "<html><head><title>t</title></head><body>{}</body></html>".format
    pages = [
        notebook_css.on_post_page(shell(content), page, config)
        for content, page in zip(contents, notebooks, strict=False)
    ]
    assert notebook_css.on_post_page(shell("guide"), guide, config) == shell("guide")

    [name] = _written(config)  # one file, no temporary left behind
    assert re.fullmatch(r"notebook\.[0-9a-f]{8}\.css", name)
    css = (config.site_dir / notebook_css.FOLDER / name).read_text(encoding="utf-8")
    assert name == notebook_css.file_name(css)
    # No Mermaid diagram, no junk.
    assert rules(css) == [".jupyter-wrapper .jp-Cell{margin:0}"]
    for page, up in zip(pages, ("../..", "../../.."), strict=True):
        link = f'<link rel="stylesheet" href="{up}/assets/stylesheets/{name}"></head>'
        assert link in page


def test_a_class_given_to_a_page_after_its_content_was_read_is_an_error(tmp_path):
    config = SimpleNamespace(site_dir=tmp_path / "site")
    page = _page(tmp_path, "en/exercises/x.ipynb", "exercises/x/")
    notebook_css.on_pre_build(config)
    content = notebook_css.on_page_content(CONTENT, page, config, None)
    body = f"<div class='jp-Mermaid'></div>{content}"
    late = f"<html><head></head><body>{body}</body></html>"
    with pytest.raises(NotebookCssError, match="got the classes jp-Mermaid after"):
        notebook_css.on_post_page(late, page, config)


# --- the built site


def test_the_built_notebook_pages_carry_no_inline_notebook_css_and_link_one_stylesheet(
    built_site,
):
    htmls = {p: p.read_text(encoding="utf-8") for p in built_site.rglob("index.html")}
    pages = {p: html for p, html in htmls.items() if 'class="jupyter-wrapper"' in html}
    folders = {path.relative_to(built_site).parts[0] for path in pages}
    assert folders >= {"exercises", "es"}
    link = (
        r'<link rel="stylesheet" '
        r'href="((?:\.\./)+assets/stylesheets/notebook\.\w+\.css)">'
    )
    linked = set()
    for path, html in pages.items():
        inline = re.search(r"<style[^>]*>[^<]*--jp-", html)
        assert not inline, f"{path}: JupyterLab's CSS is still inline"
        links = re.findall(link, html)
        assert len(links) == 1, f"{path}: {links}"
        target = (path.parent / links[0]).resolve()
        assert target.is_file(), f"{path}: links {links[0]}, not built"
        linked.add(target)
    # One file for every page in every language, much smaller than each page carried.
    assert len(linked) == 1 and linked.pop().stat().st_size < 100_000
