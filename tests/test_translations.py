"""The translators' checks on small fixture sites: each problem is caught and said
clearly."""

import itertools
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from helpers import mkdocs_build
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from ptdocs import translations
from ptdocs.hooks import translations as hook
from ptdocs.snippets import ROOT
from ptdocs.translations import (
    compare,
    content_hash,
    freshness,
    main,
    mark,
    missing_twins,
)

ENGLISH = """\
# Gradients

A gradient is a derivative. See [tensors](tensors.md#shapes) first.

```python
--8<-- "snippets/autograd/basics.py:once"
```

## Accumulation

!!! note "Why"
    Gradients add up:

    ```python
    --8<-- "snippets/autograd/basics.py:twice"
    ```

```text
a note that is not code
```
"""

SPANISH = """\
# Gradientes

Un gradiente es una derivada. Lee antes [tensores](tensors.md#formas).

```python
--8<-- "snippets/autograd/basics.py:once"
```

## Acumulación

!!! note "Por qué"
    Los gradientes se suman:

    ```python
    --8<-- "snippets/autograd/basics.py:twice"
    ```

```text
una nota que no es código
```
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            textwrap.dedent(text) if not relative.endswith(".ipynb") else text
        )
    return root / "docs"


def notebook(*cells) -> str:
    made = [
        new_code_cell(source) if kind == "code" else new_markdown_cell(source)
        for kind, source in cells
    ]
    return nbformat.writes(new_notebook(cells=made)) + "\n"


@pytest.fixture
def docs(tmp_path):
    """A correct pair of twins, plus the pages they link to."""
    return write(
        tmp_path,
        {
            "docs/en/autograd.md": ENGLISH,
            "docs/es/autograd.md": SPANISH,
            "docs/en/tensors.md": "# Tensors\n",
            "docs/es/tensors.md": "# Tensores\n",
        },
    )


def status(docs, capsys) -> tuple[int, str]:
    code = main(["--docs", str(docs), "status"])
    return code, capsys.readouterr().out


# ---------------------------------------------------------------- parity


def test_a_correct_pair_passes(docs):
    assert missing_twins(docs) == []
    assert [compare(docs, page) for page in ("autograd.md", "tensors.md")] == [[], []]


def test_compare_reads_each_twin_once(docs, reads):
    for language in ("en", "es"):
        (docs / language / "n.ipynb").write_text(notebook(("markdown", "# N")))
    reads.clear()
    assert [compare(docs, page) for page in ("autograd.md", "n.ipynb")] == [[], []]
    opened = [path.relative_to(docs).as_posix() for path in reads]
    assert opened == ["en/autograd.md", "es/autograd.md", "en/n.ipynb", "es/n.ipynb"]


def test_a_page_without_its_twin_is_named(docs):
    (docs / "es" / "tensors.md").unlink()
    write(docs.parent, {"docs/es/extra.md": "# Extra\n"})
    spanish = (
        "docs/es/extra.md has no English page docs/en/extra.md: rename it to match "
        "one, or remove it"
    )
    assert missing_twins(docs) == [
        "docs/en/tensors.md has no Spanish twin docs/es/tensors.md: create it and "
        "translate the page",
        spanish,
    ]
    assert missing_twins(docs, "es") == [spanish]


TEXT_BLOCK = "```text\nuna nota que no es código\n```\n"
VALUES = "<!-- prose-values: x.grad.item() -> 6 -->"
ES, EN = "docs/es/autograd.md", "docs/en/autograd.md"
BLOCK = "a ```python block including snippets/autograd/basics.py"


@pytest.mark.parametrize(
    "old, new, expected",
    [
        (  # a different snippet, named with both lines
            "basics.py:twice",
            "basics.py:thrice",
            [
                f"{ES}, line 15, has {BLOCK}:thrice where {EN}, line 15, has "
                f"{BLOCK}:twice"
            ],
        ),
        (  # snippets in another order
            ':once"',
            ':twice"\n--8<-- "snippets/autograd/basics.py:once"',
            [
                f"{ES}, line 5, has {BLOCK}:twice, snippets/autograd/basics.py:once "
                f"where {EN}, line 5, has {BLOCK}:once"
            ],
        ),
        (  # a missing block
            '    ```python\n    --8<-- "snippets/autograd/basics.py:twice"\n    ```\n',
            "",
            [f"{ES} lacks {BLOCK}:twice, which {EN} has at line 15"],
        ),
        (  # an extra code block
            TEXT_BLOCK,
            TEXT_BLOCK + "\n```text\notra nota\n```\n",
            [f"{ES}, line 23, has a ```text block, which {EN} does not have"],
        ),
        (  # a missing heading, named with its English title
            "## Acumulación\n",
            "Acumulación\n",
            [
                f"{ES} lacks a level-2 heading («Accumulation»), which {EN} has at "
                "line 9"
            ],
        ),
        (  # a heading of another level: one line, not every later heading moved
            "## Acumulación\n",
            "### Acumulación\n",
            [
                f"{ES}, line 9, has a level-3 heading («Acumulación») where {EN}, "
                "line 9, has a level-2 heading («Accumulation»)"
            ],
        ),
        (  # a heading moved above a code block: named in its new place
            TEXT_BLOCK + "\n## Notas\n",
            "## Notas\n\n" + TEXT_BLOCK,
            [
                f"{ES}, line 19, has a level-2 heading («Notas») where {EN}, line 23, "
                "has a level-2 heading («Notes»)"
            ],
        ),
        (  # a link to another page (anchors may differ: #shapes, #formas)
            "tensors.md#formas",
            "index.md",
            [
                f"{ES}, line 3, has a link to index.md where {EN}, line 3, has a link "
                "to tensors.md"
            ],
        ),
        (  # prose-values must be the same checks in both languages
            VALUES,
            VALUES.replace("6", "7"),
            [
                f"{ES}, line 11, has {VALUES.replace('6', '7')} where {EN}, line 11, "
                f"has {VALUES}"
            ],
        ),
        (
            "## Acumulación\n\n" + VALUES,
            "## Acumulación\n",
            [f"{ES} lacks {VALUES}, which {EN} has at line 11"],
        ),
    ],
    ids=[
        "snippet",
        "order",
        "missing block",
        "extra block",
        "heading",
        "heading level",
        "heading moved",
        "link",
        "values",
        "no values",
    ],
)
def test_a_structure_difference_is_named(docs, old, new, expected):
    """A last level-2 heading after all the code blocks: only the heading that
    differs is named, not it, however the code blocks above it differ (issue 26)."""
    english = ENGLISH.replace("## Accumulation\n", "## Accumulation\n\n" + VALUES)
    spanish = SPANISH.replace("## Acumulación\n", "## Acumulación\n\n" + VALUES)
    english, spanish = english + "\n## Notes\n", spanish + "\n## Notas\n"
    (docs / "en" / "autograd.md").write_text(english)
    (docs / "es" / "autograd.md").write_text(spanish)
    assert compare(docs, "autograd.md") == []
    assert old in spanish
    (docs / "es" / "autograd.md").write_text(spanish.replace(old, new, 1))
    assert compare(docs, "autograd.md") == expected


def test_the_guides_quote_what_compare_prints_for_a_missing_heading(tmp_path):
    """CONTRIBUTING's example, in both languages, is the real autograd page's message
    when its Spanish twin lacks a heading; and no other heading is named (issue 26)."""
    for language in ("en", "es"):
        text = (ROOT / "docs" / language / "autograd.md").read_text(encoding="utf-8")
        if language == "es":
            assert "\n## Los gradientes se acumulan\n" in text
            text = text.replace("\n## Los gradientes se acumulan\n", "\n", 1)
        write(tmp_path, {f"docs/{language}/autograd.md": text})
    message = (
        f"{ES} lacks a level-2 heading («Gradients accumulate»), which {EN} has at "
        "line 102"
    )
    assert compare(tmp_path / "docs", "autograd.md") == [message]
    for guide in ("CONTRIBUTING.md", "CONTRIBUTING.es.md"):
        text = " ".join((ROOT / guide).read_text(encoding="utf-8").split())
        assert f"`{message}`" in text, guide


def test_a_fence_shown_inside_a_longer_fence_is_one_block():
    text = (
        '````markdown\n```python\n--8<-- "snippets/a.py:x"\n```\n````\n'
        "\n~~~\nplain\n~~~\n"
    )
    assert translations.outline(text).blocks == [
        (1, 5, "markdown", (("snippets/a.py:x", 3),)),
        (7, 9, "", ()),
    ]
    assert translations.outline("") == ([], [], {})  # an empty page or cell


def test_a_headings_title_keeps_its_marks_and_a_links_text_on_one_line():
    """pages.headings, which a download's outline uses too."""
    text = "# A *b* `c`  [d](e.md) ![f](g.png) { #h }\n\nOne\ntwo\n---\n"
    assert translations.outline(text).headings == [
        (1, 1, "A *b* `c` d f"),
        (3, 2, "One two"),
    ]


@pytest.mark.parametrize(
    "info, language",
    [("python", "python"), ("py linenums=1", "py"), ("{.python}", "python")],
)
def test_a_code_blocks_language_is_read_as_the_page_tests_read_it(info, language):
    """pages.INFO, the Sybil lexer's rule: a twin message names the same language."""
    (block,) = translations.outline(f"```{info}\nx = 1\n```\n").blocks
    assert block.language == language


def test_notebook_twins_need_identical_code_cells(tmp_path):
    english = notebook(("markdown", "# Exercise"), ("code", "x = 1\nprint(x)"))
    docs = write(
        tmp_path,
        {
            "docs/en/exercises/n.ipynb": english,
            "docs/es/exercises/n.ipynb": notebook(
                ("markdown", "# Ejercicio"), ("code", "x = 1\nprint(x)")
            ),
        },
    )
    assert compare(docs, "exercises/n.ipynb") == []
    # Its comments are translated (by the catalog), the code is not.
    (docs / "es/exercises/n.ipynb").write_text(
        notebook(("markdown", "# Ejercicio"), ("code", "x = 1  # uno\nprint(x)"))
    )
    assert compare(docs, "exercises/n.ipynb") == []
    (docs / "es/exercises/n.ipynb").write_text(
        notebook(("markdown", "# Ejercicio"), ("code", "x = 2\nprint(x)"))
    )
    assert compare(docs, "exercises/n.ipynb") == [
        "docs/es/exercises/n.ipynb, cell 2: its code differs from cell 2 of "
        "docs/en/exercises/n.ipynb (line 1 is `x = 2` where English has `x = 1`); code "
        "cells are never translated (their comments are, in "
        "locale/es/LC_MESSAGES/snippets.po), copy the English cell"
    ]
    (docs / "es/exercises/n.ipynb").write_text(
        notebook(
            ("markdown", "# Ejercicio"),
            ("markdown", "Más."),
            ("code", "x = 1\nprint(x)"),
        )
    )
    assert compare(docs, "exercises/n.ipynb") == [
        "docs/es/exercises/n.ipynb has 3 cells (markdown, markdown, code) where "
        "docs/en/exercises/n.ipynb has 2 (markdown, code): keep one Spanish cell "
        "per English cell"
    ]


# ---------------------------------------------------------------- freshness and the
# command


IDENTITY = {"NAME": "t", "EMAIL": "t@example.invalid", "DATE": "2026-01-02T00:00:00"}


def git(root, *args):
    """Git as one fixed author and committer, on one fixed date."""
    env = dict(os.environ)
    for role, (key, value) in itertools.product(
        ("AUTHOR", "COMMITTER"), IDENTITY.items()
    ):
        env[f"GIT_{role}_{key}"] = value
    return subprocess.run(
        ["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repository(docs):
    """The fixture site in a git repository, both Spanish pages marked and committed."""
    root = docs.parent
    git(root, "init", "-q", "-b", "main")
    assert main(["--docs", str(docs), "mark", "--all"]) == 0
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    return docs


def test_mark_records_the_english_hash_in_the_front_matter(repository):
    spanish = (repository / "es" / "autograd.md").read_text()
    assert (
        spanish == "---\ntranslation_of: "
        f'"{content_hash(repository / "en/autograd.md")}"\n---\n\n' + SPANISH
    )
    assert freshness(repository, "autograd.md").state == translations.CURRENT


def test_mark_keeps_other_front_matter_and_replaces_only_its_field(docs):
    page = docs / "es" / "autograd.md"
    page.write_text(
        '---\ntitle: Gradientes\ntranslation_of: "000000000000"\nhide: [toc]\n---\n'
        + SPANISH
    )
    mark(docs, page)
    assert page.read_text() == (
        "---\ntitle: Gradientes\ntranslation_of: "
        f'"{content_hash(docs / "en/autograd.md")}"'
        f"\nhide: [toc]\n---\n" + SPANISH
    )
    before = page.read_text()
    mark(docs, page)
    assert page.read_text() == before  # marking twice changes nothing


def test_all_up_to_date_exits_zero(repository, capsys):
    code, out = status(repository, capsys)
    assert code == 0
    assert out == (
        "up to date       docs/es/autograd.md\nup to date       docs/es/tensors.md\n"
        "\n1 up to date (2 pages)\n".replace("1 up", "2 up")
    )


def test_a_stale_hash_shows_the_english_diff_since_the_translated_version(
    repository, capsys
):
    english = repository / "en" / "autograd.md"
    english.write_text(
        ENGLISH.replace(
            "A gradient is a derivative.", "A gradient is a vector of derivatives."
        )
    )
    commit = git(repository.parent, "log", "-1", "--format=%h").strip()
    recorded = translations.recorded_hash(repository, repository / "es/autograd.md")
    code, out = status(repository, capsys)
    assert code == 1
    assert (
        "outdated         docs/es/autograd.md: docs/en/autograd.md has changed since "
        "the version "
        f"translated here (translation_of: {recorded}, commit {commit}, 2026-01-02); "
        "update the translation, then run: python -m ptdocs.translations mark "
        "docs/es/autograd.md. What changed in English:\n"
    ) in out
    assert (
        f"    --- docs/en/autograd.md (commit {commit}, 2026-01-02)\n    +++ "
        "docs/en/autograd.md (now)\n" in out
    )
    assert (
        "    -A gradient is a derivative. See [tensors](tensors.md#shapes) first.\n"
        in out
    )
    assert (
        "    +A gradient is a vector of derivatives. See [tensors](tensors.md#shapes) "
        "first.\n" in out
    )
    assert out.endswith("\n1 up to date, 1 outdated (2 pages)\n")
    # The translator updates the page and marks it: current again.
    assert (
        main(["--docs", str(repository), "mark", str(repository / "es/autograd.md")])
        == 0
    )
    assert status(repository, capsys)[0] == 0


def test_a_hash_found_nowhere_in_history_is_said(repository, capsys):
    page = repository / "es" / "autograd.md"
    page.write_text(
        page.read_text().replace(
            content_hash(repository / "en/autograd.md"), "0123456789ab"
        )
    )
    code, out = status(repository, capsys)
    assert code == 1
    assert (
        "outdated         docs/es/autograd.md: docs/en/autograd.md has changed since "
        "the version translated here (translation_of: 0123456789ab); no diff: no "
        "version of docs/en/autograd.md in the git history has that hash (was it "
        "marked against uncommitted text?), so compare the pages by hand\n"
    ) in out


def test_outside_git_the_status_says_why_there_is_no_diff(docs, capsys):
    mark(docs, docs / "es/autograd.md")
    (docs / "en" / "autograd.md").write_text(ENGLISH + "\nMore.\n")
    code, out = status(docs, capsys)
    assert "no diff: not a git repository, so old versions cannot be recovered" in out


def test_status_of_unmarked_missing_and_orphan_pages(docs, capsys):
    write(
        docs.parent,
        {"docs/en/measuring.md": "# Measuring\n", "docs/es/old.md": "# Viejo\n"},
    )
    code, out = status(docs, capsys)
    assert code == 1
    assert out.splitlines()[:4] == [
        "outdated         docs/es/autograd.md: records no version of "
        "docs/en/autograd.md (no translation_of); compare the two pages, update the "
        "translation, then run: python -m ptdocs.translations mark docs/es/autograd.md",
        "missing          docs/es/measuring.md: create it: translate "
        "docs/en/measuring.md, then run: "
        "python -m ptdocs.translations mark docs/es/measuring.md",
        "no English page  docs/es/old.md: docs/en/old.md does not exist; rename this "
        "page to match its English page, or remove it",
        "outdated         docs/es/tensors.md: records no version of docs/en/tensors.md "
        "(no translation_of); compare the two pages, update the translation, then run: "
        "python -m ptdocs.translations mark docs/es/tensors.md",
    ]
    assert out.endswith(
        "\n0 up to date, 2 outdated, 1 missing, 1 no English page (4 pages)\n"
    )


def test_status_lists_structure_differences_too(docs, capsys):
    (docs / "es" / "autograd.md").write_text(
        SPANISH.replace("basics.py:twice", "basics.py:thrice")
    )
    code, out = status(docs, capsys)
    assert (
        "\nWhere the Spanish page's structure differs from the English page (the tests "
        "report these too):\n  docs/es/autograd.md, line 14, has a ```python block "
        "including snippets/autograd/basics.py:thrice"
    ) in out


def test_mark_refuses_a_page_whose_structure_differs_and_leaves_it_untouched(
    docs, capsys
):
    page = docs / "es" / "autograd.md"
    page.write_text(SPANISH + "\n```text\notra nota\n```\n")
    before = page.read_bytes()
    assert main(["--docs", str(docs), "mark", str(page)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "error: not marked: docs/es/autograd.md differs from docs/en/autograd.md:\n"
        "  docs/es/autograd.md, line 22, has a ```text block, which "
        "docs/en/autograd.md does not have"
    )
    assert page.read_bytes() == before


@pytest.mark.parametrize(
    "given, message",
    [
        (
            "docs/en/autograd.md",
            "docs/en/autograd.md: give a Spanish page, inside docs/es/ (for example "
            "docs/es/autograd.md)",
        ),
        ("docs/es/nothing.md", "docs/es/nothing.md does not exist"),
        ("docs/es/notes.txt", "docs/es/notes.txt: a page is a .md or .ipynb file"),
    ],
)
def test_mark_says_what_is_wrong_with_bad_input_in_one_line(
    docs, capsys, monkeypatch, given, message
):
    monkeypatch.chdir(docs.parent)
    assert main(["--docs", "docs", "mark", given]) == 1
    assert capsys.readouterr().err == f"error: {message}\n"


@pytest.mark.parametrize("given", [[], ["--all", "docs/es/autograd.md"]])
def test_mark_takes_pages_or_all_and_says_so_given_neither_or_both(
    docs, capsys, monkeypatch, given
):
    """Given nothing, "not both" would be no answer (issue 26): one message fits."""
    monkeypatch.chdir(docs.parent)
    with pytest.raises(SystemExit) as raised:
        main(["--docs", "docs", "mark", *given])
    assert raised.value.code == 2
    assert capsys.readouterr().err.endswith(
        "error: mark takes Spanish pages (docs/es/...) or --all: one of the two\n"
    )


def test_mark_records_a_hand_written_notebook_in_its_metadata(tmp_path):
    cells = (("markdown", "# Exercise"), ("code", "x = 1"))
    docs = write(
        tmp_path,
        {
            "docs/en/exercises/n.ipynb": notebook(*cells),
            "docs/es/exercises/n.ipynb": notebook(*cells),
        },
    )
    mark(docs, docs / "es/exercises/n.ipynb")
    saved = nbformat.read(docs / "es/exercises/n.ipynb", as_version=4)
    assert saved.metadata["translation_of"] == content_hash(
        docs / "en/exercises/n.ipynb"
    )
    assert freshness(docs, "exercises/n.ipynb").state == translations.CURRENT


SCRIPT = """\
# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown] lang="en"
# # Exercise

# %% [markdown] lang="es"
# # Ejercicio

# %%
x = 1
"""


def test_a_generated_notebook_is_recorded_in_the_script_it_is_rewritten_from(
    tmp_path,
):
    from ptdocs import notebook_twins

    source = tmp_path / "notebooks" / "n.py"
    write(tmp_path, {"notebooks/n.py": SCRIPT})
    for language, text in notebook_twins.twins(source).items():
        write(tmp_path, {f"docs/{language}/exercises/n.ipynb": text})
    docs = tmp_path / "docs"
    spanish = (docs / "es/exercises/n.ipynb").read_bytes()
    assert "recorded in notebooks/n.py" in mark(docs, docs / "es/exercises/n.ipynb")
    assert (
        docs / "es/exercises/n.ipynb"
    ).read_bytes() == spanish  # still what the generator writes
    assert source.read_text().startswith(
        "# ---\n# jupyter:\n#   translation_of: "
        f'"{content_hash(docs / "en/exercises/n.ipynb")}"\n#   jupytext:\n'
    )
    assert freshness(docs, "exercises/n.ipynb").state == translations.CURRENT


def test_the_command_runs_as_a_module_on_the_real_site():
    done = subprocess.run(
        [sys.executable, "-m", "ptdocs.translations", "status"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 1), done.stderr
    assert "(" in done.stdout.splitlines()[-1] and "pages)" in done.stdout


# ---------------------------------------------------------------- the MkDocs hook


def fake_page(src_uri, url):
    english_url = url.removeprefix("es/")
    return SimpleNamespace(
        file=SimpleNamespace(
            src_uri=src_uri, alternates={"en": SimpleNamespace(url=english_url)}
        ),
        url=url,
    )


def test_only_an_outdated_spanish_page_gets_a_notice_after_its_title(docs):
    config, text = (
        SimpleNamespace(docs_dir=str(docs), plugins={}),
        "# Gradientes\n\nTexto.",
    )

    def shown(src_uri, url):
        return hook.on_page_markdown(text, fake_page(src_uri, url), config, None)

    words = translations.MESSAGES["es"]
    assert shown("es/autograd.md", "es/autograd/") == (
        f'# Gradientes\n\n!!! warning "{words["outdated_title"]}"\n\n    La '
        f'<a href="../../autograd/">{words["original_page"]}</a> ha cambiado'
        + words["outdated_body"].split("{link} ha cambiado", 1)[1]
        + "\n\n\n\nTexto."
    )
    mark(docs, docs / "es/autograd.md")
    assert shown("es/autograd.md", "es/autograd/") == text
    assert shown("en/autograd.md", "autograd/") == text


def test_every_interface_string_exists_in_both_languages():
    assert set(translations.MESSAGES) == {translations.SOURCE, translations.TARGET}
    assert len({frozenset(words) for words in translations.MESSAGES.values()}) == 1
    assert all(
        "{link}" in words["outdated_body"] for words in translations.MESSAGES.values()
    )


def test_a_missing_twin_is_a_warning_in_the_language_being_built(docs, caplog):
    write(docs.parent, {"docs/en/new.md": "# New\n", "docs/es/old.md": "# Viejo\n"})
    for language, expected in [
        ("en", "docs/en/new.md has no Spanish twin docs/es/new.md"),
        ("es", "docs/es/old.md has no English page docs/en/old.md"),
    ]:
        caplog.clear()
        config = SimpleNamespace(
            docs_dir=str(docs),
            plugins={"i18n": SimpleNamespace(current_language=language)},
        )
        with caplog.at_level(logging.WARNING, logger="mkdocs"):
            hook.on_files([], config)
        messages = [record.getMessage() for record in caplog.records]
        assert len(messages) == 1 and expected in messages[0], messages


SITE = """\
site_name: t
docs_dir: docs
strict: true
plugins:
  - i18n:
      docs_structure: folder
      fallback_to_default: false
      languages:
        - {{locale: en, default: true, name: English, build: true}}
        - {{locale: es, name: Español, build: true}}
  - ptdocs:
      steps: [translations]
markdown_extensions: [admonition]
nav:
  - index.md
  - autograd.md
  - tensors.md
"""


def build(docs):
    (docs.parent / "mkdocs.yml").write_text(SITE.format())
    return mkdocs_build(docs.parent / "mkdocs.yml", docs.parent / "site")


def test_the_strict_build_shows_the_notice_and_fails_on_a_missing_twin(docs):
    write(
        docs.parent, {"docs/en/index.md": "# Home\n", "docs/es/index.md": "# Inicio\n"}
    )
    for page in ("tensors.md", "index.md"):  # autograd.md stays unmarked: outdated
        mark(docs, docs / "es" / page)
    done = build(docs)
    assert done.returncode == 0, done.stderr
    site = docs.parent / "site"
    assert (
        "Esta traducción está desactualizada"
        in (site / "es/autograd/index.html").read_text()
    )
    assert "desactualizada" not in (site / "es/tensors/index.html").read_text()
    assert "out of date" not in (site / "autograd/index.html").read_text()

    write(docs.parent, {"docs/en/extra.md": "# Not in the nav, no twin\n"})
    done = build(docs)
    assert done.returncode == 1
    assert "docs/en/extra.md has no Spanish twin docs/es/extra.md" in done.stderr


# ---------------------------------------------------------------- glossary


GUIDE = """\
| English | Spanish | Not in Spanish prose | Note |
|---|---|---|---|
| batch size | tamaño de lote | batch size | |
| broadcasting | difusión (broadcasting) | broadcasting | |
| tensor | tensor | | |
"""


def test_the_glossary_is_read_from_the_guide_table(tmp_path):
    write(
        tmp_path,
        {
            "guide.md": "# Guide\n\n| What | Where |\n|---|---|\n| a | b |\n\n"
            + GUIDE
            + "\nAfter.\n"
        },
    )
    terms = translations.glossary(tmp_path / "guide.md")
    assert [(t.english, t.spanish, t.avoid) for t in terms] == [
        ("batch size", "tamaño de lote", ("batch size",)),
        ("broadcasting", "difusión (broadcasting)", ("broadcasting",)),
        ("tensor", "tensor", ()),
    ]


# A page that records the English version it translates: the glossary checks translated
# pages.
RECORD = '---\ntranslation_of: "0123456789ab"\n---\n'
HEAD = "| English | Spanish | Avoid | Note |\n|---|---|---|---|\n"


@pytest.mark.parametrize(
    "rows, text, expected",
    [
        (  # code, «titles», asides naming the English term, comments: not prose
            GUIDE.split("\n", 2)[2],
            "El batch size importa. La difusión (broadcasting) también.\nUsa `batch "
            "size` en código, o cita «Batch size and broadcasting».\n\n```python\n"
            '--8<-- "snippets/broadcasting.py"\n```\n<!-- broadcasting -->\n',
            [(6, "batch size", "«tamaño de lote» for «batch size»")],
        ),
        (  # a ruled-out word inside the approved term is fine
            "| pilot | prueba piloto | pilot, piloto | |\n",
            "Una prueba piloto, dos pruebas piloto.\nEl piloto decide.\n",
            [(7, "piloto", "«prueba piloto» for «pilot»")],
        ),
        (  # plurals, hyphens, line breaks and parentheses do not hide one
            "| throughput | tasa de procesamiento | throughput | |\n"
            "| steady state | régimen estable | steady state | |\n",
            "Dos throughputs.\nUn steady-state.\nUn steady\nstate partido.\nLa tasa "
            "de procesamiento (throughput) está bien.\nPero (el throughput de la GPU) "
            "no.\n",
            [
                (6, "throughput", "«tasa de procesamiento» for «throughput»"),
                (7, "steady state", "«régimen estable» for «steady state»"),
                (8, "steady state", "«régimen estable» for «steady state»"),
                (11, "throughput", "«tasa de procesamiento» for «throughput»"),
            ],
        ),
    ],
    ids=["code and asides", "approved term", "plurals and hyphens"],
)
def test_spanish_prose_with_a_ruled_out_word_is_caught(tmp_path, rows, text, expected):
    page = RECORD + "# M\n\n" + text
    docs = write(tmp_path, {"guide.md": HEAD + rows, "docs/es/m.md": page})
    terms = translations.glossary(tmp_path / "guide.md")
    assert translations.glossary_problems(docs, terms) == [
        f"docs/es/m.md, line {n}: «{word}» in Spanish prose; the glossary says {term}"
        for n, word, term in expected
    ]


def test_the_catalog_translations_follow_the_glossary_too(tmp_path):
    """A page's code comments, strings and output come from the PO catalog: a
    ruled-out form there is caught like one in the prose; names of code and a line
    kept as torch prints it are not, nor a word that printed output keeps from the
    English (the task name ``gradient``), and neither is an outdated (fuzzy) entry,
    still to be translated."""
    guide = (
        "| English | Spanish | Avoid | Note |\n|---|---|---|---|\n| wall time | tiempo "
        "transcurrido | tiempo de pared, tiempo real | |\n| scratch buffer | búfer "
        "temporal | búfer auxiliar | |\n| profiler | perfilador | profiler | |\n| "
        "percent | 5% | /\\d %/ | |\n| gradient | gradiente | gradient | |\n"
    )
    po = """\
        msgid ""
        msgstr "Content-Type: text/plain; charset=utf-8\\n"

        msgid "wall time per thread"
        msgstr "tiempo de pared por hilo"

        msgid "read by the profiler, within 5% of torch.profiler and prof_step"
        msgstr "lo lee el perfilador, dentro del 5 % de torch.profiler y prof_step"

        msgid ""
        "scratch buffers\\n"
        "the profiler failed"
        msgstr ""
        "búferes auxiliares\\n"
        "the profiler failed"

        #, fuzzy
        msgid "the real time"
        msgstr "el tiempo real"

        #. what the code prints: translate as its strings are translated
        msgid "gradient memory 4 B, wall time 2 s"
        msgstr "gradient memoria 4 B, tiempo de pared 2 s"
        """
    docs = write(
        tmp_path,
        {
            "guide.md": guide,
            "locale/es/LC_MESSAGES/snippets.po": po,
            "docs/es/m.md": RECORD
            + "# M\n\nEl tiempo transcurrido, no el tiempo real.\n",
        },
    )
    terms = translations.glossary(tmp_path / "guide.md")
    where = "locale/es/LC_MESSAGES/snippets.po, entry at line"
    assert translations.glossary_problems(docs, terms) == [
        "docs/es/m.md, line 6: «tiempo real» in Spanish prose; the glossary says "
        "«tiempo transcurrido» for «wall time»",
        f"{where} 10: «búfer auxiliar» in Spanish prose; the glossary says «búfer "
        "temporal» for «scratch buffer»",
        f"{where} 22: «tiempo de pared» in Spanish prose; the glossary says «tiempo "
        "transcurrido» for «wall time»",
        f"{where} 4: «tiempo de pared» in Spanish prose; the glossary says «tiempo "
        "transcurrido» for «wall time»",
        f"{where} 7: «5 %» in Spanish prose; the glossary says «5%» for «percent»",
    ]


# ---------------------------------------------------------------- line endings


def test_crlf_and_lf_copies_of_a_page_have_one_hash(docs):
    english = docs / "en" / "autograd.md"
    lf = content_hash(english)
    english.write_bytes(english.read_bytes().replace(b"\n", b"\r\n"))
    assert content_hash(english) == lf


@pytest.mark.parametrize(
    "attributes", [True, False], ids=["with .gitattributes", "without"]
)
def test_a_clone_with_autocrlf_sees_the_pages_as_up_to_date(
    repository, tmp_path, attributes
):
    """Git for Windows' default (core.autocrlf=true) checks text out with CRLF. With
    the project's .gitattributes the files stay LF; without it they are CRLF, and the
    hashes still agree, so neither kind of clone reports (or records) a page as
    outdated."""
    root = repository.parent
    if attributes:
        (root / ".gitattributes").write_text((ROOT / ".gitattributes").read_text())
        git(root, "add", ".gitattributes")
        git(root, "commit", "-q", "-m", "attributes")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-c", "core.autocrlf=true", str(root), str(clone))
    english = (clone / "docs" / "en" / "autograd.md").read_bytes()
    assert (b"\r\n" in english) is not attributes
    docs = clone / "docs"
    assert {freshness(docs, page).state for page in ("autograd.md", "tensors.md")} == {
        translations.CURRENT
    }
    assert main(["--docs", str(docs), "mark", str(docs / "es/autograd.md")]) == 0
    assert git(clone, "status", "--porcelain") == ""  # marking again changed nothing


# ---------------------------------------------------------------- menu labels


def test_menu_titles_are_listed_with_their_sections():
    nav = [
        {"Home": "index.md"},
        {"Guides": [{"Tensors": "tensors.md"}, "autograd.md"]},
        "x.md",
    ]
    assert translations.nav_titles(nav) == ["Home", "Guides", "Tensors"]
    assert (
        translations.untranslated_nav(
            nav, {"Home": "Inicio", "Guides": "Guías", "Tensors": "Tensores"}
        )
        == []
    )


def test_a_menu_title_without_a_spanish_label_fails_the_strict_build(docs):
    write(
        docs.parent, {"docs/en/index.md": "# Home\n", "docs/es/index.md": "# Inicio\n"}
    )
    for page in ("tensors.md", "index.md", "autograd.md"):
        mark(docs, docs / "es" / page)
    site = SITE.replace(
        "        - {{locale: es, name: Español, build: true}}",
        "        - {{locale: es, name: Español, build: true, nav_translations: "
        "{{Home: Inicio}}}}",
    )
    site = site.replace(
        "  - index.md\n  - autograd.md\n",
        "  - Home: index.md\n  - Gradients: autograd.md\n",
    )
    (docs.parent / "mkdocs.yml").write_text(site.format())
    done = mkdocs_build(docs.parent / "mkdocs.yml", docs.parent / "site")
    assert done.returncode != 0
    assert "the menu title «Gradients» has no Spanish label" in done.stderr
    assert "«Home»" not in done.stderr


def test_a_page_never_translated_is_outdated_and_not_yet_checked_as_spanish(tmp_path):
    """An English-only contributor's new page: the English text copied into docs/es,
    with the same structure (CONTRIBUTING.md, "Behind the English"). It warns; it
    does not fail."""
    english = "# Medir\n\nThe steady state comes after the warm-up.\n"
    docs = write(
        tmp_path,
        {
            "guide.md": "| English | Spanish | Avoid | Note |\n|---|---|---|---|\n"
            "| steady state | régimen estable | steady state | |\n",
            "docs/en/m.md": english,
            "docs/es/m.md": english,
        },
    )
    terms = translations.glossary(tmp_path / "guide.md")
    assert (
        translations.glossary_problems(docs, terms) == []
        and missing_twins(docs) == compare(docs, "m.md") == []
    )
    assert freshness(docs, "m.md").state == translations.OUTDATED
    mark(
        docs, docs / "es" / "m.md"
    )  # marked as translated while still English: now it is checked
    assert len(translations.glossary_problems(docs, terms)) == 1
