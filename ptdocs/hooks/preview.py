"""``mkdocs serve``: after a save, the preview is what a fresh build would show.

mkdocs.yml's ``watch:`` makes a save under snippets/, notebooks/ or ptdocs/ start a
rebuild, but on its own the rebuild would not show every such change:

* Python imports each module of ptdocs once per process: after an edit of a step or of
  ptdocs/, the rebuild would run the old code. Before a rebuild, when any of that
  code (or
  mkdocs.yml, which ptdocs reads once) changed since it was loaded, the ``ptdocs``
  modules (and
  the compare.py that ptdocs.results imports) are forgotten, all together (a module
  holds names
  of the others), so that the rebuild, which loads mkdocs.yml and so the ``ptdocs``
  plugin
  again, imports them from their files. Modules outside the project (torch, matplotlib,
  mkdocs-jupyter...) stay loaded: they do not change under a server.
* The notebooks under docs/*/exercises/ are generated from notebooks/*.py (see
  ptdocs/notebook_twins.py): before the first build and each rebuild, the twins are
  written
  again from their sources where they differ, so an edit of a source reaches the
  preview.
  Writing them saves files under docs/, which starts one more, quick, rebuild.
* No bytecode is written while serving: a ``.pyc`` written under a watched folder
  (ptdocs/,
  snippets/) would start another rebuild.

This is the ``ptdocs-preview`` plugin, apart from the ``ptdocs`` one
(ptdocs/plugin.py): a plugin with an ``on_startup`` is kept for the whole ``mkdocs
serve`` session, so edits to this module need a restart of ``mkdocs serve``.
"""

import hashlib
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

ROOT = Path(__file__).resolve().parents[2]
# Modules loaded from the project's files: the ptdocs package, and
# snippets.measuring.compare, which ptdocs.results imports; and those files, with
# mkdocs.yml, which ptdocs.snippets reads once per process.
PROJECT_MODULES = ("ptdocs", "snippets")
PROJECT_CODE = (
    ROOT / "ptdocs",
    ROOT / "snippets" / "measuring" / "compare.py",
    ROOT / "mkdocs.yml",
)
_loaded = {"code": None}  # the digest of the project's code as its modules were loaded


class Preview(BasePlugin):
    def on_startup(self, command, dirty):
        if command == "serve":
            sys.dont_write_bytecode = True
            _loaded["code"] = code_digest()
            write_notebook_twins()

    def on_serve(self, server, config, builder):
        def rebuild(config=None):
            # Forgetting costs the reloads (and the modules' caches): only after a
            # change of the code.
            code = (
                code_digest()
            )  # before the reload: a save during it shows at the next rebuild
            if code != _loaded["code"]:
                forget_project_code()
                _loaded["code"] = code
            write_notebook_twins()
            builder(config)

        server.builder = rebuild
        return server


def code_digest() -> str:
    digest = hashlib.sha256()
    for place in PROJECT_CODE:
        for file in sorted(place.rglob("*.py")) if place.is_dir() else [place]:
            digest.update(str(file).encode("utf-8") + b"\0")
            digest.update(file.read_bytes() if file.is_file() else b"(missing)")
    return digest.hexdigest()


def forget_project_code() -> None:
    """Make the next load of mkdocs.yml import the ptdocs plugin, and each module of
    ptdocs, from its file."""
    for name in list(sys.modules):
        if name.partition(".")[0] in PROJECT_MODULES:
            del sys.modules[name]


def write_notebook_twins() -> None:
    from ptdocs import notebook_twins

    if notebook_twins.main([]) != 0:  # it printed which source and line
        raise PluginError(
            "preview: a notebook source under notebooks/ is not valid; see above"
        )
