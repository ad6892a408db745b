"""Write each exercise notebook in every language from one jupytext source.

``notebooks/<name>.py`` holds the code cells once and each Markdown cell tagged with
its language (``# %% [markdown] lang="es"``); ``docs/<language>/exercises/<name>.ipynb``
gets every code cell, with the catalog's comments, and that language's prose, without
outputs. ``--check`` writes nothing and exits 1 if a committed notebook is stale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jupytext
import nbformat

from . import catalog
from .atomic import write_atomically
from .snippets import ROOT

SOURCES = Path("notebooks")
LANGUAGES = ("en", "es")
KERNEL = {"display_name": "Python 3", "language": "python", "name": "python3"}


class SourceError(ValueError):
    """A notebook source that cannot be split into languages, for its author."""


def target(source: Path, language: str, root: Path = ROOT) -> Path:
    return root / "docs" / language / "exercises" / f"{source.stem}.ipynb"


def twins(source: Path) -> dict[str, str]:
    """The text of the notebook for each language, from one source file."""
    cells = jupytext.read(source, fmt="py:percent").cells
    for position, cell in enumerate(cells):
        language = cell.metadata.get("lang")
        if cell.cell_type == "markdown" and language not in LANGUAGES:
            raise SourceError(
                f"{source}: the Markdown cell {position + 1} needs lang= one of "
                f"{', '.join(LANGUAGES)} (it has {language!r})"
            )
    _check_code(source, cells)
    # Every stretch of prose between two code cells exists in every language.
    shapes = {language: _shape(cells, language) for language in LANGUAGES}
    if len(set(map(tuple, shapes.values()))) > 1:
        raise SourceError(
            f"{source}: the languages have different Markdown cells between the "
            f"code cells: {shapes}"
        )
    texts = {}
    for language in LANGUAGES:  # code cells with the language's comments (locale/)
        kept = [
            ("code", catalog.translate_notebook_code(cell.source, language), {})
            if cell.cell_type == "code"
            else ("markdown", cell.source, {})
            for cell in cells
            if cell.cell_type == "code" or cell.metadata.get("lang") == language
        ]
        texts[language] = nbformat.writes(notebook(kept, digits=2)) + "\n"
    return texts


def notebook(cells, digits: int = 1) -> nbformat.NotebookNode:
    """``(type, source, metadata)`` cells as a notebook with stable ids (the same in
    every language): regenerating changes nothing. Validated once as a whole:
    nbformat's new_*_cell validates each cell too, most of the time of a page's
    downloads."""
    made = []
    for n, (kind, source, metadata) in enumerate(cells):
        cell = {"id": f"cell-{n:0{digits}d}", "cell_type": kind, "metadata": metadata}
        if kind == "code":
            cell |= {"execution_count": None, "outputs": []}
        made.append(cell | {"source": source})
    made = nbformat.from_dict(
        {
            "nbformat": 4,
            "nbformat_minor": nbformat.v4.nbformat_minor,
            "metadata": {"kernelspec": KERNEL, "language_info": {"name": "python"}},
            "cells": made,
        }
    )
    nbformat.validate(made)
    return made


def _check_code(source: Path, cells) -> None:
    """Refuse a code cell that is not Python (IPython's %magics and !commands allowed),
    naming the file and line: it would otherwise land in every language's notebook."""
    from IPython.core.inputtransformer2 import TransformerManager  # as ipykernel runs

    for position, first_line, cell in catalog.code_cells(source, cells):
        try:
            compile(
                TransformerManager().transform_cell(cell.source), str(source), "exec"
            )
        except SyntaxError as error:
            where = f"{source}, code cell {position + 1}"
            if first_line:
                where = f"{source}, line {first_line + (error.lineno or 1) - 1}"
            message = f"{where}: {error.msg}: {(error.text or '').strip()}"
            raise SourceError(message) from None


def _shape(cells, language: str) -> list[int]:
    """How many Markdown cells of one language come before each code cell, and after
    the last."""
    shape = [0]
    for cell in cells:
        if cell.cell_type == "code":
            shape.append(0)
        elif cell.metadata.get("lang") == language:
            shape[-1] += 1
    return shape


def sources(root: Path = ROOT) -> list[Path]:
    return sorted((root / SOURCES).glob("*.py"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ptdocs.notebook_twins", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if a notebook differs from its source",
    )
    check = parser.parse_args(argv).check
    stale = []
    for source in sources():
        try:
            texts = twins(source)
        except SourceError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        for language, text in texts.items():
            path = target(source, language)
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(path.relative_to(ROOT))
                if not check:
                    write_atomically(path, text)
    for path in stale:
        print(f"{'stale' if check else 'wrote'}: {path}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
