"""``mkdocs serve``: after a save, the preview is what a fresh build would show.

The ``ptdocs-preview`` plugin: MkDocs keeps one with ``on_startup`` for the session (an
edit here needs a restart). Before a rebuild it forgets the project's modules when their
code changed, and writes the exercise notebooks again from notebooks/*.py.
"""

import hashlib
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

ROOT = Path(__file__).resolve().parents[2]
# The ptdocs package and snippets.measuring.compare, which ptdocs.results imports; their
# files, and mkdocs.yml, which ptdocs.snippets reads once.
PROJECT_MODULES = ("ptdocs", "snippets")
PROJECT_CODE = (
    ROOT / "ptdocs",
    ROOT / "snippets" / "measuring" / "compare.py",
    ROOT / "mkdocs.yml",
)


class Preview(BasePlugin):
    def on_startup(self, command, dirty):
        if command == "serve":
            sys.dont_write_bytecode = True  # a .pyc under ptdocs/ would start a rebuild
            self.loaded = code_digest()  # the project's code as its modules were loaded
            write_notebook_twins()

    def on_serve(self, server, config, builder):
        def rebuild(config=None):
            code = code_digest()  # before the reload: a later save shows next time
            if code != self.loaded:  # forgetting costs reloads and caches
                forget_project_code()
                self.loaded = code
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
    """All together: a module holds names of the others."""
    for name in list(sys.modules):
        if name.partition(".")[0] in PROJECT_MODULES:
            del sys.modules[name]


def write_notebook_twins() -> None:
    from ptdocs import notebook_twins

    if notebook_twins.main([]) != 0:  # it printed which source and line
        raise PluginError(
            "preview: a notebook source under notebooks/ is not valid; see above"
        )
