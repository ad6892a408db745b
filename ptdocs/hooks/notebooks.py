"""Render notebooks in every language, with a language switcher and download button.

mkdocs-static-i18n rebuilds every File after mkdocs-jupyter wrapped the notebooks, so
this wraps them again (i18n's ``Files`` object must survive) and gives each its twin
in the other language as alternate. Renders are cached per Python environment (the
cache key ignores torch), started in threads ahead of their pages, and kept for every
language (mkdocs-jupyter evicts what one language's build did not use).
"""

import functools
import hashlib
import importlib.metadata
import json
import posixpath
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import quote

from mkdocs.exceptions import PluginError
from mkdocs_jupyter import convert
from mkdocs_jupyter.plugin import NotebookFile, _get_nb_toc_tokens

from ptdocs import translations  # which files under docs/ are pages
from ptdocs.atomic import write_atomically
from ptdocs.downloads import Site, texts_in
from ptdocs.layout import language as language_of
from ptdocs.notebook_renders import executes, made_by_this_build, render_path

# mkdocs-jupyter's settings that its own render passes on to convert.nb2html
NB2HTML = (
    "kernel_name theme allow_errors show_input no_input no_prompt remove_tag_config "
    "highlight_extra_classes include_requirejs custom_mathjax_url"
).split()


def _jupyter(config):
    """mkdocs-jupyter's plugin, where it keeps a cache of renders; else None."""
    jupyter = config.plugins.get("mkdocs-jupyter")
    return jupyter if jupyter and jupyter.config["cache"] else None


def on_config(config):
    jupyter = _jupyter(config)
    # MkDocs runs on_config again in each language's build
    if jupyter and (folder := Path(jupyter.config["cache_dir"])).name != environment():
        root = Path(config.config_file_path).resolve().parent
        jupyter.config["cache_dir"] = str(root / folder / environment())
    return config


@functools.lru_cache(maxsize=1)  # per process, as the packages are loaded once
def environment() -> str:
    """A name for the Python environment the notebooks run in: torch's version, and a
    digest of Python's version and every installed distribution and its version."""
    installed = sorted(
        {(d.name or "", d.version or "") for d in importlib.metadata.distributions()}
    )
    digest = hashlib.sha256(repr((sys.version, installed)).encode("utf-8"))
    return f"torch-{dict(installed).get('torch', 'none')}-{digest.hexdigest()[:16]}"


def on_files(files, config):
    jupyter = config.plugins.get("mkdocs-jupyter")
    i18n = config.plugins.get("i18n")
    if jupyter is None:
        return files
    for file in list(files):
        if isinstance(file, NotebookFile) or not jupyter.should_include(file):
            continue
        notebook = NotebookFile(file, **config)
        notebook.dest_path = file.dest_path  # the path i18n chose
        notebook.abs_dest_path, notebook.url = file.abs_dest_path, file.url
        if i18n is not None:
            site, relative = Site.from_config(config), file.src_uri.partition("/")[2]
            file.alternates = {
                lang: SimpleNamespace(url=site.page_url(lang, relative))
                for lang in i18n.build_languages
                if (Path(config.docs_dir) / lang / relative).is_file()
            }
        files.remove(file)
        files.append(notebook)
    if i18n is None or not i18n.building:  # the first (outermost) language's build
        made_by_this_build.clear()
        if jupyter.config["cache"]:  # else nowhere to put a render for the page
            _start_renders(Path(config.docs_dir), jupyter.config)
    return files


def _start_renders(docs: Path, settings) -> None:
    """Every notebook without a render starts rendering in a thread of its own (it
    waits on its kernel most of the time); its page waits for it in on_page_markdown."""
    missing = [
        (notebook, path)
        for notebook in current_notebooks(docs)
        if executes(notebook, settings)
        and not (path := render_path(notebook, settings)).exists()
    ]
    if missing:
        pool = ThreadPoolExecutor(len(missing), thread_name_prefix="notebook-render")
        for notebook, path in missing:
            made_by_this_build[path] = pool.submit(_render, notebook, path, settings)
        pool.shutdown(wait=False)  # its threads finish the queued renders, then end


def _render(notebook: Path, path: Path, settings) -> None:
    """What mkdocs-jupyter's render does on a cache miss (``new_render`` in its
    plugin.py), written whole (its page may read it the moment it exists)."""
    keywords = {name: settings[name] for name in NB2HTML}
    body = convert.nb2html(str(notebook), execute=True, **keywords)
    toc_tokens, title = _get_nb_toc_tokens(str(notebook), settings["toc_depth"])
    render = {"content": body, "toc_tokens": toc_tokens, "title": title}
    write_atomically(path, json.dumps(render))


def on_page_markdown(markdown, page, config, files):
    """A notebook's page waits for its render; a failed render fails the build here."""
    jupyter = _jupyter(config)
    if jupyter and isinstance(page.file, NotebookFile):
        path = render_path(Path(page.file.abs_src_path), jupyter.config)
        if path in made_by_this_build:
            made_by_this_build[path].result()
    return markdown


def on_page_content(html, page, config, files):
    jupyter = config.plugins.get("mkdocs-jupyter")
    if (
        jupyter
        and jupyter.config["include_source"]
        and jupyter.should_include(page.file)
    ):
        return with_download_link(html, page.file.src_uri)
    return html


def with_download_link(html: str, src_uri: str) -> str:
    """The rendered notebook with its download button at the end, in the guides' end
    box, out of the search index; mkdocs-jupyter copies the notebook next to the
    page's HTML (``include_source``) but, with Material, shows no link to it."""
    try:
        label = texts_in(language_of(src_uri), src_uri)["notebook"]
    except ValueError as error:  # no language folder, or no texts for it (locale/)
        raise PluginError(str(error)) from None
    name = quote(posixpath.basename(src_uri))
    return (
        f'{html.rstrip()}\n<div class="ptdocs-end ptdocs-downloads" '
        f'data-search-exclude><p><a class="md-button" href="{name}" download>{label}'
        "</a></p></div>\n"
    )


def on_post_build(config):
    """Before mkdocs-jupyter evicts the renders this language did not use, every
    language's current renders are marked used."""
    if jupyter := _jupyter(config):
        docs = Path(config.docs_dir)
        renders = {render_path(n, jupyter.config) for n in current_notebooks(docs)}
        jupyter._used_cache_paths |= renders


def current_notebooks(docs: Path) -> list[Path]:
    """Every language's notebooks under docs/, language by language."""
    languages = sorted(folder.name for folder in docs.iterdir() if folder.is_dir())
    return [
        docs / language / page
        for language in languages
        for page in translations.pages(docs, language)
        if page.endswith(".ipynb")
    ]
