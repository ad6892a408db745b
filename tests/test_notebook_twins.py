"""One jupytext source, one notebook per language (ptdocs.notebook_twins), and the
download button and render cache of every notebook page (ptdocs/hooks/notebooks.py)."""

from pathlib import Path

import nbformat
import pytest
from helpers import load_hook
from mkdocs.exceptions import PluginError

from ptdocs import notebook_twins

SOURCE = """\
# %% [markdown] lang="en"
# # Title

# %% [markdown] lang="es"
# # Título

# %%
x = 1

# %% [markdown] lang="en"
# Closing words.

# %% [markdown] lang="es"
# Palabras finales.
"""


def write(tmp_path, text):
    source = tmp_path / "exercise.py"
    source.write_text(text, encoding="utf-8")
    return source


def test_each_language_gets_the_code_and_its_own_prose(tmp_path):
    texts = notebook_twins.twins(write(tmp_path, SOURCE))
    cells = {
        language: nbformat.reads(text, as_version=4).cells
        for language, text in texts.items()
    }
    assert [c["source"] for c in cells["en"]] == ["# Title", "x = 1", "Closing words."]
    assert [c["source"] for c in cells["es"]] == [
        "# Título",
        "x = 1",
        "Palabras finales.",
    ]
    assert all(c.get("outputs", []) == [] for c in cells["en"] + cells["es"])
    # Regenerating gives the same bytes: cell ids are stable, not random.
    assert notebook_twins.twins(write(tmp_path, SOURCE)) == texts


def test_a_markdown_cell_without_a_language_is_refused(tmp_path):
    source = write(
        tmp_path,
        SOURCE.replace(
            '# %% [markdown] lang="es"\n# # Título', "# %% [markdown]\n# # Título"
        ),
    )
    with pytest.raises(
        notebook_twins.SourceError, match=r"Markdown cell 2 needs lang="
    ):
        notebook_twins.twins(source)


def test_prose_missing_in_one_language_is_refused(tmp_path):
    source = write(
        tmp_path, SOURCE.replace('# %% [markdown] lang="es"\n# Palabras finales.\n', "")
    )
    with pytest.raises(notebook_twins.SourceError, match="different Markdown cells"):
        notebook_twins.twins(source)


def test_a_code_cell_with_a_syntax_error_is_refused_with_file_and_line(tmp_path):
    source = write(tmp_path, SOURCE.replace("x = 1\n", "x = 1\ny = (2\n"))
    with pytest.raises(
        notebook_twins.SourceError, match=r"exercise\.py, line 9: '\(' was never closed"
    ):
        notebook_twins.twins(source)


def test_ipython_magics_in_a_code_cell_are_fine(tmp_path):
    texts = notebook_twins.twins(
        write(tmp_path, SOURCE.replace("x = 1\n", "%matplotlib inline\nx = 1\n"))
    )
    assert "%matplotlib inline" in texts["en"]


@pytest.fixture
def broken_source(tmp_path, monkeypatch):
    """A project whose one notebook source has a syntax error on its line 8."""
    (tmp_path / "notebooks").mkdir()
    source = tmp_path / "notebooks" / "exercise.py"
    source.write_text(SOURCE.replace("x = 1", "x = = 1"))
    monkeypatch.setattr(notebook_twins, "ROOT", tmp_path)
    monkeypatch.setattr(notebook_twins, "sources", lambda root=tmp_path: [source])
    return tmp_path


def test_the_command_writes_nothing_for_a_broken_source_and_check_fails(
    broken_source, capsys
):
    tmp_path = broken_source
    for argv in ([], ["--check"]):
        assert notebook_twins.main(argv) == 2
        assert "exercise.py, line 8: invalid syntax" in capsys.readouterr().err
    assert not (tmp_path / "docs").exists()


def test_the_committed_notebooks_are_current():
    assert notebook_twins.main(["--check"]) == 0


@pytest.mark.parametrize(
    "language, label", [("en", "Download notebook"), ("es", "Descargar notebook")]
)
def test_the_download_button_closes_the_page_in_the_page_language(language, label):
    html = '<div class="jp-Cell"><h1 id="t">Title</h1><p>Text</p></div>'
    result = load_hook("notebooks").with_download_link(
        html, f"{language}/exercises/derivatives.ipynb"
    )
    # After the lesson, in the guides' end box; relative to the page's folder, where
    # mkdocs-jupyter copies the notebook.
    assert result == (
        f'{html}\n<div class="ptdocs-end ptdocs-downloads" data-search-exclude><p>'
        '<a class="md-button" href="derivatives.ipynb" '
        f"download>{label}</a></p></div>\n"
    )


def test_a_language_without_a_label_fails_the_build():
    with pytest.raises(PluginError, match="no download label for the language 'fr'"):
        load_hook("notebooks").with_download_link(
            "<h1>x</h1>", "fr/exercises/derivatives.ipynb"
        )


def test_notebook_renders_are_kept_per_python_environment(tmp_path, monkeypatch):
    """mkdocs-jupyter's key is the notebook and its settings: another torch must not
    reuse a render."""
    from types import SimpleNamespace

    hook = load_hook("notebooks")
    installed = [
        SimpleNamespace(name="torch", version="2.13.0+cpu"),
        SimpleNamespace(name="numpy", version="2.3.0"),
    ]
    monkeypatch.setattr(
        hook.importlib.metadata, "distributions", lambda: list(installed)
    )
    settings = {"cache": True, "cache_dir": ".cache/mkdocs-jupyter"}
    config = SimpleNamespace(
        config_file_path=str(tmp_path / "mkdocs.yml"),
        plugins={"mkdocs-jupyter": SimpleNamespace(config=settings)},
    )
    hook.on_config(config)
    folder = Path(settings["cache_dir"])
    assert (
        folder.parent == tmp_path / ".cache" / "mkdocs-jupyter"
        and folder.name.startswith("torch-2.13.0+cpu-")
    )
    hook.on_config(config)  # MkDocs runs on_config again in each language's build
    assert Path(settings["cache_dir"]) == folder
    for changed in (
        [installed[0], SimpleNamespace(name="numpy", version="2.3.1")],
        [SimpleNamespace(name="torch", version="2.14.0+cpu"), installed[1]],
    ):
        hook.environment.cache_clear()
        installed[:] = changed
        assert hook.environment() != folder.name


def test_a_broken_notebook_source_stops_the_preview_with_its_error(
    broken_source, capsys
):
    """mkdocs serve writes the notebooks from their sources before each rebuild
    (ptdocs/hooks/preview.py)."""
    with pytest.raises(PluginError, match="notebook source"):
        load_hook("preview").write_notebook_twins()
    assert "exercise.py, line 8: invalid syntax" in capsys.readouterr().err
    assert not (broken_source / "docs").exists()
