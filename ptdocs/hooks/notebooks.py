"""Render notebooks in every language, with a language switcher that works.

mkdocs-static-i18n rebuilds every File in its own ``on_files`` (priority -100),
after mkdocs-jupyter has wrapped the notebooks, so the ``.ipynb`` files would be
copied as raw JSON instead of rendered. This hook runs after i18n and wraps them
again with mkdocs-jupyter's own ``NotebookFile``, in place (the i18n plugin's
``Files`` object must survive: its navigation step depends on it), keeping the
output path i18n chose (``exercises/...`` or ``es/exercises/...``).

i18n treats a notebook as an asset, so it records no translations for it and
its language switcher would lead to the other language's home page. The
twins (``docs/en/x.ipynb`` and ``docs/es/x.ipynb``) are added as alternates.
"""

import posixpath
from pathlib import Path
from types import SimpleNamespace

from mkdocs.plugins import event_priority
from mkdocs_jupyter.plugin import NotebookFile


@event_priority(-200)
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
    return files


def _twins(file, i18n, config):
    """The same notebook in each built language, by the i18n plugin's URL rules."""
    locale, _, relative = file.src_uri.partition("/")
    page_url = posixpath.splitext(relative)[0] + "/"
    twins = {}
    for lang in i18n.build_languages:
        if (Path(config.docs_dir) / lang / relative).is_file():
            prefix = "" if lang == i18n.default_language else f"{lang}/"
            twins[lang] = SimpleNamespace(url=prefix + page_url)
    return twins
