"""Write each exercise notebook in every language from one source.

``notebooks/<name>.py`` is a jupytext "percent" script: its code cells are written
once, and each Markdown cell is tagged with its language, ``# %% [markdown]
lang="en"`` or ``lang="es"``. For each language this writes
``docs/<language>/exercises/<name>.ipynb`` with all the code cells and that
language's prose, in source order, without outputs (the site and the tests execute
the notebooks). So the code cannot differ between languages, and a translator only
ever touches prose; the code cells' comments come from the catalog
(``locale/<language>/LC_MESSAGES/snippets.po``, see ptdocs.catalog).

    python -m ptdocs.notebook_twins            # write the notebooks
    python -m ptdocs.notebook_twins --check    # exit 1 if a committed notebook is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jupytext
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from . import catalog
from .atomic import write_atomically
from .snippets import ROOT

SOURCES = Path("notebooks")
LANGUAGES = ("en", "es")
KERNEL = {"display_name": "Python 3", "language": "python", "name": "python3"}


class SourceError(ValueError):
    """A notebook source that cannot be split into languages, with a message for its
    author."""


def target(source: Path, language: str, root: Path = ROOT) -> Path:
    return root / "docs" / language / "exercises" / f"{source.stem}.ipynb"


def twins(source: Path) -> dict[str, str]:
    """The text of the notebook for each language, from one source file."""
    cells = jupytext.read(source, fmt="py:percent").cells
    prose: dict[str, list[int]] = {language: [] for language in LANGUAGES}
    for position, cell in enumerate(cells):
        if cell.cell_type != "markdown":
            continue
        language = cell.metadata.get("lang")
        if language not in prose:
            raise SourceError(
                f"{source}: the Markdown cell {position + 1} needs lang= one of "
                f"{', '.join(LANGUAGES)} (it has {language!r})"
            )
        prose[language].append(position)
    _check_code(source, cells)
    # Every stretch of prose between two code cells exists in every language.
    shapes = {language: _shape(cells, language) for language in LANGUAGES}
    if len(set(map(tuple, shapes.values()))) > 1:
        raise SourceError(
            f"{source}: the languages have different Markdown cells between the "
            f"code cells: {shapes}"
        )
    texts = {}
    for language in LANGUAGES:
        kept = [
            cell
            for cell in cells
            if cell.cell_type == "code" or cell.metadata.get("lang") == language
        ]
        notebook = new_notebook(
            metadata={"kernelspec": KERNEL, "language_info": {"name": "python"}}
        )
        for index, cell in enumerate(kept):
            # Stable ids, the same in every language: regenerating changes nothing.
            if (
                cell.cell_type == "code"
            ):  # the same code, with the language's comments (locale/)
                code = catalog.translate_notebook_code(cell.source, language)
                notebook.cells.append(new_code_cell(code, id=f"cell-{index:02d}"))
            else:
                notebook.cells.append(
                    new_markdown_cell(cell.source, id=f"cell-{index:02d}")
                )
        nbformat.validate(notebook)
        texts[language] = nbformat.writes(notebook) + "\n"
    return texts


def _check_code(source: Path, cells) -> None:
    """Refuse a code cell that is not valid Python (IPython's %magics and !commands
    allowed), naming the source file and line: it would otherwise land in every
    language's notebook."""
    from IPython.core.inputtransformer2 import (
        TransformerManager,
    )  # ipykernel's: runs the notebooks

    for position, first_line, cell in catalog.code_cells(source, cells):
        try:
            compile(
                TransformerManager().transform_cell(cell.source), str(source), "exec"
            )
        except SyntaxError as error:
            line = (first_line + (error.lineno or 1) - 1) if first_line else None
            where = (
                f"{source}, line {line}"
                if line
                else f"{source}, code cell {position + 1}"
            )
            raise SourceError(
                f"{where}: {error.msg}: {(error.text or '').strip()}"
            ) from None


def _shape(cells, language: str) -> list[int]:
    """How many Markdown cells of one language come before each code cell, and after
    the last."""
    shape, count = [], 0
    for cell in cells:
        if cell.cell_type == "code":
            shape.append(count)
            count = 0
        elif cell.metadata.get("lang") == language:
            count += 1
    return shape + [count]


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
    arguments = parser.parse_args(argv)
    stale = []
    for source in sources():
        try:
            texts = twins(source)
        except SourceError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        for language, text in texts.items():
            path = target(source, language)
            current = path.read_text(encoding="utf-8") if path.is_file() else None
            if current == text:
                continue
            stale.append(path.relative_to(ROOT))
            if not arguments.check:
                write_atomically(path, text)
    for path in stale:
        print(f"{'stale' if arguments.check else 'wrote'}: {path}")
    return 1 if arguments.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
