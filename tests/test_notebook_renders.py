"""Notebooks render side by side, ahead of their pages (ptdocs/hooks/notebooks.py),
and the stamp still tells a render this build made from one an earlier build left in
the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import Future
from pathlib import Path
from types import SimpleNamespace

import nbformat
from helpers import load_hook
from mkdocs_jupyter.plugin import _compute_cache_key, _get_cache_path

from ptdocs import notebook_renders


def _notebook(path: Path, *cells: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(
        nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell(cell) for cell in cells]
        ),
        path,
    )


def _build(root: Path) -> subprocess.CompletedProcess:
    (root / "mkdocs.yml").write_text(
        "site_name: t\ndocs_dir: docs\ntheme: mkdocs\n"
        "plugins:\n  - mkdocs-jupyter:\n      execute: true\n      allow_errors: "
        "false\n      include: ['*.ipynb']\n"
        "  - ptdocs:\n      steps: [notebooks]\n",
        encoding="utf-8",
    )
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", "out"],
        cwd=root,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )


# mkdocs-jupyter's settings that the cache key and the renders read
SETTINGS = {
    "execute": True,
    "execute_ignore": [],
    "cache": True,
    "kernel_name": "",
    "theme": "",
    "allow_errors": False,
    "show_input": True,
    "no_input": False,
    "no_prompt": False,
    "remove_tag_config": {},
    "highlight_extra_classes": "",
    "include_requirejs": False,
    "custom_mathjax_url": "",
    "toc_depth": 6,
}

# Each cell appends its notebook's name to runs.txt: one line per run of a notebook.
LOG = "open({log!r}, 'a').write({name!r} + '\\n')"


def test_the_notebooks_render_side_by_side_each_once_and_their_pages_show_the_outputs(
    tmp_path,
):
    log, ready = tmp_path / "runs.txt", tmp_path / "b-started"
    # a waits until b has started: run one after the other (a first, as mkdocs-jupyter
    # would on its own), a would give up after two minutes and fail the build.
    _notebook(
        tmp_path / "docs" / "en" / "a.ipynb",
        LOG.format(log=str(log), name="a"),
        "import pathlib, time\ndeadline = time.monotonic() + 120\n"
        f"while not pathlib.Path({str(ready)!r}).exists():\n"
        "    assert time.monotonic() < deadline, 'b never started while a ran'\n"
        "    time.sleep(0.05)\nprint('a saw b')",
    )
    _notebook(
        tmp_path / "docs" / "es" / "b.ipynb",
        LOG.format(log=str(log), name="b"),
        f"import pathlib\npathlib.Path({str(ready)!r}).touch()\nprint('b ran')",
    )
    built = _build(tmp_path)
    assert built.returncode == 0, built.stderr[-3000:]
    assert sorted(log.read_text().split()) == [
        "a",
        "b",
    ]  # each ran once: the page read its render
    assert "a saw b" in (tmp_path / "out" / "en" / "a" / "index.html").read_text(
        encoding="utf-8"
    )
    assert "b ran" in (tmp_path / "out" / "es" / "b" / "index.html").read_text(
        encoding="utf-8"
    )
    # A second build reuses both renders and runs nothing.
    assert _build(tmp_path).returncode == 0
    assert sorted(log.read_text().split()) == ["a", "b"]


def test_a_notebook_that_fails_fails_the_build_with_its_error(tmp_path):
    _notebook(
        tmp_path / "docs" / "en" / "broken.ipynb",
        "raise ValueError('the cell says no')",
    )
    built = _build(tmp_path)
    assert built.returncode != 0
    assert "ValueError" in built.stderr and "the cell says no" in built.stderr


def test_a_render_made_by_this_build_is_not_one_made_earlier(tmp_path, monkeypatch):
    notebook = tmp_path / "n.ipynb"
    _notebook(notebook, "1 + 1")
    settings = {**SETTINGS, "cache_dir": str(tmp_path / "cache")}
    monkeypatch.setattr(notebook_renders, "made_by_this_build", {})
    path = notebook_renders.render_path(notebook, settings)
    assert not notebook_renders.made_earlier(
        notebook, settings
    )  # no render at all: it will run
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"content": "", "toc_tokens": [], "title": None}))
    assert notebook_renders.made_earlier(
        notebook, settings
    )  # an earlier build's: it will not run
    notebook_renders.made_by_this_build[path] = Future()
    assert not notebook_renders.made_earlier(
        notebook, settings
    )  # this build's own: it ran


def test_a_language_build_keeps_the_other_languages_notebook_renders(tmp_path):
    """i18n builds one language after the other; mkdocs-jupyter evicts what the
    language just built did not use. The hook marks every language's current renders
    as used first."""
    hook = load_hook("notebooks")
    docs = tmp_path / "docs"
    for language in ("en", "es"):
        (docs / language / "exercises").mkdir(parents=True)
        (docs / language / "exercises" / "n.ipynb").write_text(
            f'{{"lang": "{language}"}}'
        )
    (docs / "es" / "exercises" / ".ipynb_checkpoints").mkdir()
    (
        docs / "es" / "exercises" / ".ipynb_checkpoints" / "n-checkpoint.ipynb"
    ).write_text("{}")
    settings = {**SETTINGS, "cache_dir": str(tmp_path / "cache")}
    english = _get_cache_path(
        settings["cache_dir"],
        _compute_cache_key(str(docs / "en/exercises/n.ipynb"), settings, True),
    )
    spanish = _get_cache_path(
        settings["cache_dir"],
        _compute_cache_key(str(docs / "es/exercises/n.ipynb"), settings, True),
    )
    jupyter = SimpleNamespace(
        config=settings, _used_cache_paths={english}
    )  # the English build's
    hook.on_post_build(
        SimpleNamespace(docs_dir=str(docs), plugins={"mkdocs-jupyter": jupyter})
    )
    assert jupyter._used_cache_paths == {english, spanish}
