"""Render notebooks in every language, with a language switcher that works.

mkdocs-static-i18n rebuilds every File in its own ``on_files`` (priority -100), after
mkdocs-jupyter has wrapped the notebooks, so the ``.ipynb`` files would be copied as
raw JSON instead of rendered. This hook runs after i18n and wraps them again with
mkdocs-jupyter's own ``NotebookFile``, in place (the i18n plugin's ``Files`` object
must survive: its navigation step depends on it), keeping the output path i18n chose
(``exercises/...`` or ``es/exercises/...``).

i18n treats a notebook as an asset, so it records no translations for it and its
language switcher would lead to the other language's home page. The twins
(``docs/en/x.ipynb`` and ``docs/es/x.ipynb``) are added as alternates.

mkdocs-jupyter's ``include_source`` copies the ``.ipynb`` next to the page's HTML
but, with the Material theme, shows no link to it: each notebook page gets a
"Download notebook" button at its end, after the lesson, as a guide page's downloads
are (ptdocs/hooks/downloads.py), in the page's language, with a relative link, so it
works under ``es/`` and at any site URL; the verification stamp
(ptdocs/hooks/stamp.py) follows it.

i18n builds one language at a time, and after each, mkdocs-jupyter evicts every
cached render that this language did not use: the other language's. So each rebuild
of ``mkdocs serve`` executed every notebook again. Before it evicts, the renders of
every language's current notebooks are marked as used.

mkdocs-jupyter keys a render on the notebook's bytes and its own settings, not on the
Python packages that ran it: after an upgrade of torch a warm build would show the
old outputs. So the renders are kept in a folder per environment,
``.cache/mkdocs-jupyter/<torch>-<digest>/`` under the project's root (not the current
folder), the digest naming Python's version and every installed distribution with its
version: a new environment starts with no render and runs the notebooks.

mkdocs-jupyter runs a notebook when its page is built, one after another, each build
waiting on its kernel. So when the first language's build knows its files, every
notebook of every language that has no render yet starts rendering in a thread of its
own, with mkdocs-jupyter's own converter and settings, into its cache; the build goes
on with the other pages meanwhile, and a notebook's page waits for its render and
reads it as a cache hit. The stamp still says the notebook ran in this build
(``ptdocs.notebook_renders.made_by_this_build``).
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
from ptdocs.catalog import CatalogError
from ptdocs.downloads import (
    TEXTS,
    Site,
)  # the download links' words; the site's URL rules
from ptdocs.layout import language as language_of
from ptdocs.notebook_renders import executes, made_by_this_build, render_path


def on_config(config):
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is None or not jupyter.config["cache"]:
        return config
    folder, name = Path(jupyter.config["cache_dir"]), environment()
    if folder.name != name:  # MkDocs runs on_config again in each language's build
        root = Path(config.config_file_path).resolve().parent
        jupyter.config["cache_dir"] = str(root / folder / name)
    return config


@functools.lru_cache(
    maxsize=1
)  # per process, as the packages themselves are loaded once
def environment() -> str:
    """A name for the Python environment the notebooks run in: torch's version, and a
    digest of Python's version and of every installed distribution's name and
    version."""
    installed = sorted(
        {
            (dist.name or "", dist.version or "")
            for dist in importlib.metadata.distributions()
        }
    )
    digest = hashlib.sha256(repr((sys.version, installed)).encode("utf-8")).hexdigest()[
        :16
    ]
    torch = dict(installed).get("torch", "none")
    return f"torch-{torch}-{digest}"


def on_files(files, config):
    jupyter = config.plugins.get("mkdocs-jupyter")
    i18n = config.plugins.get("i18n")
    if jupyter is None:
        return files
    for file in list(files):
        if isinstance(file, NotebookFile) or not jupyter.should_include(file):
            continue
        notebook = NotebookFile(file, **config)
        notebook.dest_path = file.dest_path
        notebook.abs_dest_path = file.abs_dest_path
        notebook.url = file.url
        if i18n is not None:
            file.alternates = _twins(file, i18n, config)
        files.remove(file)
        files.append(notebook)
    if i18n is None or not i18n.building:  # the first (outermost) language's build
        _start_renders(Path(config.docs_dir), jupyter.config)
    return files


def _start_renders(docs: Path, settings) -> None:
    made_by_this_build.clear()
    if not settings["cache"]:  # nowhere to put a render for the page to find
        return
    renders = [
        (notebook, render_path(notebook, settings))
        for notebook in current_notebooks(docs)
    ]
    missing = [
        (notebook, path)
        for notebook, path in renders
        if executes(notebook, settings) and not path.exists()
    ]
    if not missing:
        return
    # A thread each, not a process: a render waits on its own kernel process most of the
    # time.
    pool = ThreadPoolExecutor(
        max_workers=len(missing), thread_name_prefix="notebook-render"
    )
    for notebook, path in missing:
        made_by_this_build[path] = pool.submit(_render, notebook, path, settings)
    pool.shutdown(wait=False)  # its threads finish the queued renders, then end


def _render(notebook: Path, path: Path, settings) -> None:
    """What mkdocs-jupyter's own render does on a cache miss (``new_render`` in its
    plugin.py), written whole (its page may read it the moment it exists)."""
    body = convert.nb2html(
        str(notebook),
        execute=True,
        kernel_name=settings["kernel_name"],
        theme=settings["theme"],
        allow_errors=settings["allow_errors"],
        show_input=settings["show_input"],
        no_input=settings["no_input"],
        no_prompt=settings["no_prompt"],
        remove_tag_config=settings["remove_tag_config"],
        highlight_extra_classes=settings["highlight_extra_classes"],
        include_requirejs=settings["include_requirejs"],
        custom_mathjax_url=settings["custom_mathjax_url"],
    )
    toc_tokens, title = _get_nb_toc_tokens(str(notebook), settings["toc_depth"])
    write_atomically(
        path, json.dumps({"content": body, "toc_tokens": toc_tokens, "title": title})
    )


def on_page_markdown(markdown, page, config, files):
    """A notebook's page waits for the render started for it; a failed render fails
    the build here."""
    jupyter = config.plugins.get("mkdocs-jupyter")
    if (
        jupyter is not None
        and jupyter.config["cache"]
        and isinstance(page.file, NotebookFile)
    ):
        render = made_by_this_build.get(
            render_path(Path(page.file.abs_src_path), jupyter.config)
        )
        if render is not None:
            render.result()
    return markdown


def _twins(file, i18n, config):
    """The same notebook in each built language, at the URL the site's rules give it."""
    relative = file.src_uri.partition("/")[2]
    site = Site.from_config(config)
    return {
        lang: SimpleNamespace(url=site.page_url(lang, relative))
        for lang in i18n.build_languages
        if (Path(config.docs_dir) / lang / relative).is_file()
    }


def on_page_content(html, page, config, files):
    jupyter = config.plugins.get("mkdocs-jupyter")
    if (
        jupyter is None
        or not jupyter.config["include_source"]
        or not jupyter.should_include(page.file)
    ):
        return html
    return with_download_link(html, page.file.src_uri)


def with_download_link(html: str, src_uri: str) -> str:
    """The rendered notebook with its download button at the end, in a box of its own
    (the guides' ``ptdocs-end ptdocs-downloads``, ptdocs.css): the page opens with
    its lesson.

    mkdocs-jupyter copies the notebook into the folder of the page's HTML under its
    own name, so the link is just that name."""
    try:
        language = language_of(src_uri)
    except ValueError:
        language = ""
    if language not in TEXTS:
        raise PluginError(
            f"{src_uri}: no download label for the language '{language}'; "
            "add the language to the catalog (locale/, python -m ptdocs.catalog update)"
        )
    try:
        label = TEXTS[language]["notebook"]
    except CatalogError as error:
        raise PluginError(f"{src_uri}: {error}") from None
    name = posixpath.basename(src_uri)
    # Out of the search index (Material's data-search-exclude): results start with the
    # page's words.
    return (
        f'{html.rstrip()}\n<div class="ptdocs-end ptdocs-downloads" '
        "data-search-exclude>"
        f'<p><a class="md-button" href="{quote(name)}" download>{label}</a></p></div>\n'
    )


def on_post_build(config):
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is None or not jupyter.config["cache"]:
        return
    jupyter._used_cache_paths |= current_renders(Path(config.docs_dir), jupyter.config)


def current_renders(docs: Path, settings) -> set[Path]:
    """Where mkdocs-jupyter keeps the render of each notebook under docs/, as it is
    now."""
    return {render_path(notebook, settings) for notebook in current_notebooks(docs)}


def current_notebooks(docs: Path) -> list[Path]:
    """Every language's notebooks under docs/, language by language."""
    languages = sorted(folder.name for folder in docs.iterdir() if folder.is_dir())
    return [
        docs / language / page
        for language in languages
        for page in translations.pages(docs, language)
        if page.endswith(".ipynb")
    ]
