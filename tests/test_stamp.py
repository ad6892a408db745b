"""The verification stamp says what the test run proved about each page, in the
page's language."""

import json
from types import SimpleNamespace

import pytest
from helpers import mkdocs_build
from mkdocs.exceptions import PluginError

from ptdocs.hooks import stamp
from ptdocs.provenance import page_sources
from ptdocs.report import ExampleReport
from ptdocs.versions import Status, installed_torch, result_from, status_of

TORCH = "2.13.0+cpu"
URL = "../compatibility/"  # the releases page, from the page
PASSED = {
    "en": f"✓ 3 examples verified with [torch 2.13]({URL}) on CPU (x86_64), 30 Nov "
    "2026.",
    "es": f"✓ 3 ejemplos verificados con [torch 2.13]({URL}) en CPU (x86_64), 30 nov "
    "2026.",
}
NOT_VERIFIED = {
    "en": "Not verified in this build.",
    "es": "Sin verificar en esta generación del sitio.",
}


@pytest.fixture
def project(tmp_path):
    """A page including a snippet, inside a root of its own."""
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "demo.py").write_text(
        "# --8<-- [start:one]\nx = 1\n# --8<-- [end:one]\n"
    )
    (tmp_path / "docs" / "en").mkdir(parents=True)
    page = tmp_path / "docs" / "en" / "demo.md"
    page.write_text('# Demo\n\n```python\n--8<-- "snippets/demo.py:one"\n```\n')
    return tmp_path, page


def _report(sources, **counts):
    entry = {**dict.fromkeys(("passed", "failed", "skipped"), 0), "skip_reasons": []}
    pages = {"en/demo.md": {**entry, **counts, "sources": sources}}
    return {
        "torch": TORCH,
        "device": "CPU (x86_64)",
        "date": "2026-11-30",
        "pages": pages,
    }


def _stamp(language, report, sources, torch=TORCH, runs=(), page="en/demo.md"):
    """The stamp of ``page`` from a report (a dict as written, or loaded)."""
    if isinstance(report, dict):
        report = result_from(report, "reports/examples.json")
    now = report and status_of(report, page, sources)
    return stamp.report_stamp(language, now, torch, runs)


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_page_whose_examples_all_passed_gets_one_quiet_line_in_its_language(
    project, language
):
    root, page = project
    sources = page_sources(page, root)
    result = _stamp(language, _report(sources, passed=3), sources)
    assert result.state == stamp.VERIFIED
    assert result.markdown(URL) == PASSED[language]
    # One line at the page's end, as Material's page metadata, out of the search index;
    # no box.
    html = result.html(URL)
    assert html.startswith(
        '<aside class="md-source-file ptdocs-end ptdocs-stamp ptdocs-stamp--verified" '
        "data-search-exclude>"
    )
    assert (
        f'<a href="{URL}">torch 2.13</a>' in html
        and html.count("<p>") == 1
        and "admonition" not in html
    )
    assert result.markdown(None) == PASSED[language].replace(
        f"[torch 2.13]({URL})", "torch 2.13"
    ), "no releases page: no link, same words"


def test_the_sources_are_the_page_and_the_snippet_files_it_includes(project):
    root, page = project
    assert sorted(page_sources(page, root)) == ["docs/en/demo.md", "snippets/demo.py"]


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("passed", [0, 5])
def test_a_page_with_a_failed_example_gets_a_warning_box_never_a_passing_line(
    project, language, passed
):
    root, page = project
    sources = page_sources(page, root)
    result = _stamp(language, _report(sources, passed=passed, failed=1), sources)
    assert result.state == stamp.FAILED
    assert "✓" not in result.markdown(URL) and "verifi" not in result.text
    assert f"1 {'of' if language == 'en' else 'de'} {passed + 1}" in result.text
    title = stamp.STRINGS.in_language(language)["failed"]
    assert result.html().startswith(
        '<div class="admonition failure" data-search-exclude>\n'
        f'<p class="admonition-title">{title}</p>'
    )


@pytest.mark.parametrize("language", ["en", "es"])
def test_without_a_report_the_page_gets_a_neutral_note_not_a_warning(project, language):
    root, page = project
    result = _stamp(language, None, page_sources(page, root))
    assert result.state == stamp.UNVERIFIED
    assert (
        result.markdown(URL).startswith(NOT_VERIFIED[language])
        and "python -m pytest" in result.text
    )
    html = result.html(URL)
    assert (
        "ptdocs-stamp--unverified" in html
        and "admonition" not in html
        and "✓" not in html
    )


def test_release_runs_on_the_page_as_it_is_verify_it_without_a_report(project):
    root, page = project
    x86 = {"device": "CPU (x86_64)", "date": "2026-12-02"}
    runs = [
        Status("2.14.1", "passed", passed=3, device="CPU (x86_64)", date="2026-11-28"),
        Status("2.15.0", "passed", passed=3, device="CPU (arm64)", date="2026-12-01"),
        Status("2.10.0", "outdated", **x86),
        Status("2.11.0", "not_run", **x86),
    ]
    result = _stamp("en", None, page_sources(page, root), runs=runs)
    assert result.markdown(URL) == (
        f"✓ 3 examples verified with [torch 2.14–2.15]({URL}) on CPU (x86_64) "
        "and CPU (arm64), 1 Dec 2026."
    )


def test_the_releases_are_named_short_and_a_range_only_where_none_is_missing():
    for language, releases, said in [
        (
            "en",
            ["2.10.0", "2.11.0", "2.12.1", "2.13.0+cpu", "2.14.1", "2.15.0"],
            "2.10–2.15",
        ),
        ("en", ["2.13.0+cpu", "2.10.0", "2.12.1"], "2.10 and 2.12–2.13"),
        # As the rest of the English site: no comma before "and".
        ("en", ["2.9.1", "2.10.0", "2.15.0", "2.13.0"], "2.9.1, 2.10, 2.13 and 2.15"),
        ("es", ["2.9.1", "2.10.0", "2.15.0", "2.13.0"], "2.9.1, 2.10, 2.13 y 2.15"),
        ("es", ["2.10.0", "2.15.0"], "2.10 y 2.15"),
    ]:
        assert stamp.releases_span(language, releases) == said


def test_a_page_the_last_run_did_not_cover_is_not_verified(project):
    root, page = project
    report = _report({}, passed=3)
    report["pages"] = {"en/other.md": report["pages"]["en/demo.md"]}
    result = _stamp("en", report, page_sources(page, root))
    assert result.state == stamp.UNVERIFIED and result.text.startswith(
        NOT_VERIFIED["en"]
    )
    assert "did not run the examples of this page" in result.text


def test_editing_a_snippet_after_the_run_voids_the_stamp_and_names_the_file(project):
    root, page = project
    report = _report(page_sources(page, root), passed=3)
    (root / "snippets" / "demo.py").write_text(
        "# --8<-- [start:one]\nx = 2\n# --8<-- [end:one]\n"
    )
    result = _stamp("es", report, page_sources(page, root))
    assert result.text.startswith(NOT_VERIFIED["es"])
    assert "`snippets/demo.py`" in result.text and "docs/en/demo.md" not in result.text


def test_a_report_from_another_torch_does_not_verify_this_build(project):
    root, page = project
    sources = page_sources(page, root)
    result = _stamp("en", _report(sources, passed=3), sources, torch="2.12.0+cpu")
    assert result.text.startswith(NOT_VERIFIED["en"])
    assert "torch 2.13.0+cpu" in result.text and "torch 2.12.0+cpu" in result.text


def test_skipped_examples_are_named_with_their_reason(project):
    root, page = project
    sources = page_sources(page, root)
    reason = "needs an accelerator: only the CPU is present"
    result = _stamp(
        "en",
        _report(sources, passed=3, skipped=2, skip_reasons=[reason, reason]),
        sources,
    )
    assert result.state == stamp.VERIFIED
    assert result.markdown(URL) == PASSED["en"] + f" Skipped: 2 examples ({reason})."
    spanish = _stamp(
        "es", _report(sources, passed=3, skipped=1, skip_reasons=[reason]), sources
    )
    assert spanish.markdown(URL) == PASSED["es"] + f" Se omitió 1 ejemplo ({reason})."


def test_a_page_whose_examples_were_all_skipped_is_not_verified(project):
    root, page = project
    sources = page_sources(page, root)
    result = _stamp("en", _report(sources, skipped=3, skip_reasons=["no GPU"]), sources)
    assert result.text.startswith(NOT_VERIFIED["en"])
    assert "no GPU" in result.text


def _written(root, page, outcomes):
    """The report ExampleReport writes for ``page`` from pytest's reports of its
    tests' call phase, ``(nodeid, outcome)`` each."""
    collector = ExampleReport(root)
    for nodeid, outcome in outcomes:
        collector.pytest_runtest_logreport(
            SimpleNamespace(
                fspath=str(page),
                nodeid=nodeid,
                when="call",
                outcome=outcome,
                skipped=outcome == "skipped",
                longrepr=(str(page), 3, "Skipped: needs an accelerator"),
            )
        )
    collector.pytest_sessionfinish(session=None)
    return stamp.load_report(root / "reports" / "examples.json")


def test_the_report_the_test_suite_writes_is_the_one_the_stamp_reads(project):
    """ExampleReport (fed pytest's reports) → reports/examples.json → stamp."""
    root, page = project
    report = _written(root, page, [("a", "passed"), ("b", "passed"), ("c", "failed")])
    result = _stamp("en", report, page_sources(page, root), report.torch)
    assert result.state == stamp.FAILED
    assert result.text.startswith(
        "Examples on this page that failed: 1 of 3, with torch "
    )


def test_an_example_skipped_while_it_runs_reaches_the_stamp_with_its_reason(project):
    """A Sybil skip directive skips during the call phase; its reason must still be
    recorded."""
    root, page = project
    report = _written(root, page, [("a", "passed"), ("b", "skipped")])
    result = _stamp("en", report, page_sources(page, root), report.torch)
    assert result.text.endswith("Skipped: 1 example (needs an accelerator).")


@pytest.mark.parametrize(
    "older, says",
    [
        ({"sources": None}, "does not record which version of the page ran"),
        ({"failed": 1, "failures": ["Line 3: boom"]}, "has failures as text"),
    ],
)
def test_a_report_from_an_older_run_stops_the_build_in_one_line(project, older, says):
    """Not a stamp that says the page changed when nothing did, nor a traceback: the
    file, what is wrong and the command that writes it anew."""
    root, page = project
    report = _report(page_sources(page, root), passed=1)
    entry = {**report["pages"]["en/demo.md"], **older}
    report["pages"]["en/demo.md"] = {k: v for k, v in entry.items() if v is not None}
    path = root / "reports" / "examples.json"
    path.parent.mkdir()
    path.write_text(json.dumps(report))
    with pytest.raises(PluginError) as error:
        stamp.load_report(path)
    assert str(error.value).startswith(f"{path}: page 'en/demo.md' {says}")
    assert str(error.value).endswith("; rerun python -m pytest")


def test_a_failure_goes_under_the_title_out_of_the_search_index():
    from ptdocs.generated import after_title

    failure = stamp.Stamp(stamp.FAILED, "1 of 3 failed.", title="Failing")
    html = (
        "<pre><code>&lt;h1&gt;not a title&lt;/h1&gt;</code></pre>"
        '<h1 id="t">Title</h1><p>Body</p>'
    )
    result = after_title(html, failure.html())
    box = (
        '<div class="admonition failure" data-search-exclude>\n'
        '<p class="admonition-title">Failing</p>'
    )
    assert (
        result.index(box) > result.index("</h1>") and "<p>1 of 3 failed.</p>" in result
    )
    assert after_title("<p>Body</p>", failure.html()).startswith(box)


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_notebook_is_verified_only_when_this_build_ran_it(language):
    ran = stamp.notebook_stamp(language, 3, True, TORCH, "CPU (x86_64)", "2026-11-30")
    assert ran.state == stamp.VERIFIED and "3" in ran.text and TORCH in ran.text
    assert ran.markdown().startswith("✓ ")
    result = stamp.notebook_stamp(language, 3, False, TORCH, "", "2026-11-30")
    assert result.state == stamp.UNVERIFIED and result.text.startswith(
        NOT_VERIFIED[language]
    )
    assert "`execute`" in result.text and "`allow_errors`" in result.text


def test_a_notebook_rendered_from_mkdocs_jupyters_cache_counts_as_not_run(
    tmp_path, monkeypatch
):
    from mkdocs_jupyter.plugin import Plugin, _compute_cache_key, _get_cache_path

    monkeypatch.chdir(tmp_path)
    notebook = tmp_path / "n.ipynb"
    notebook.write_text("{}")
    # mkdocs-jupyter's defaults, with a build that executes and fails on an error
    settings = {name: option.default for name, option in Plugin.config_scheme}
    settings.update(execute=True, allow_errors=False, cache=True, cache_dir=".cache/nb")
    config = SimpleNamespace(
        plugins={"mkdocs-jupyter": SimpleNamespace(config=settings)}
    )
    assert stamp._runs_here(notebook, config)
    cached = _get_cache_path(
        settings["cache_dir"], _compute_cache_key(str(notebook), settings, True)
    )
    cached.parent.mkdir(parents=True)
    cached.write_text("{}")
    assert not stamp._runs_here(notebook, config)  # a cached render
    for changed in ({"allow_errors": True}, {"execute": False}):
        plugin = SimpleNamespace(config={**settings, **changed, "cache": False})
        plugins = {"mkdocs-jupyter": plugin}
        assert not stamp._runs_here(notebook, SimpleNamespace(plugins=plugins))
    assert not stamp._runs_here(notebook, SimpleNamespace(plugins={}))


def test_a_built_page_carries_its_stamp(project):
    """The hook in a real (small) MkDocs build: report present, then removed."""
    root, page = project
    (root / "mkdocs.yml").write_text(
        "site_name: t\ndocs_dir: docs\ntheme: mkdocs\n"
        "markdown_extensions:\n  - admonition\n  - pymdownx.snippets:\n      "
        "base_path: ['.']\n"
        "plugins:\n  - ptdocs:\n      steps: [stamp]\n"
    )
    (root / "docs" / "en" / "plain.md").write_text("# Plain\n\nNo code here.\n")
    (root / "reports").mkdir()
    report = {**_report(page_sources(page, root), passed=1), "torch": installed_torch()}
    (root / "reports" / "examples.json").write_text(json.dumps(report))

    def build():
        result = mkdocs_build(root / "mkdocs.yml", root / "out")
        assert result.returncode == 0, result.stderr
        return (root / "out" / "en" / "demo" / "index.html").read_text()

    minor = ".".join(report["torch"].split(".")[:2])
    html = build()
    plain = (root / "out" / "en" / "plain" / "index.html").read_text()
    assert "ptdocs-stamp" not in plain, "a page without code gets no stamp"
    line = f"✓ 1 example verified with torch {minor} on CPU (x86_64), 30 Nov 2026."
    assert line in html
    # At the page's end: after the lesson, not under the title.
    assert html.index("</h1>") < html.index("<pre") < html.index(line)
    (root / "reports" / "examples.json").unlink()
    html = build()
    assert (
        "Not verified in this build." in html
        and "verified with" not in html
        and "admonition" not in html
    )


# Each count's sentence is written whole in each language (interface.po): these are the
# texts the stamps showed when the Spanish verb was chosen in Python, which they must
# still show.
COUNTED = {
    "en": [
        "✓ 1 example verified with torch 2.13 on CPU (x86_64), 30 Nov 2026. Skipped: "
        "1 example (no GPU).",
        "✓ 2 examples verified with torch 2.13 on CPU (x86_64), 30 Nov 2026. Skipped: "
        "2 examples (no GPU).",
        "✓ The 1 code cell of this notebook ran without error while this page was "
        "built, with torch "
        "2.13.0+cpu on CPU, 30 Nov 2026.",
        "✓ All 2 code cells of this notebook ran without error while this page was "
        "built, with torch "
        "2.13.0+cpu on CPU, 30 Nov 2026.",
    ],
    "es": [
        "✓ 1 ejemplo verificado con torch 2.13 en CPU (x86_64), 30 nov 2026. Se "
        "omitió 1 ejemplo (no GPU).",
        "✓ 2 ejemplos verificados con torch 2.13 en CPU (x86_64), 30 nov 2026. Se "
        "omitieron 2 ejemplos (no GPU).",
        "✓ La única celda de código de este notebook se ejecutó sin errores al "
        "generar esta página, con "
        "torch 2.13.0+cpu en CPU, 30 nov 2026.",
        "✓ Las 2 celdas de código de este notebook se ejecutaron sin errores al "
        "generar esta página, con "
        "torch 2.13.0+cpu en CPU, 30 nov 2026.",
    ],
}


@pytest.mark.parametrize("language", ["en", "es"])
def test_each_count_gets_its_own_whole_sentence_in_each_language(project, language):
    root, page = project
    sources = page_sources(page, root)
    texts = [
        _stamp(
            language,
            _report(sources, passed=n, skipped=n, skip_reasons=["no GPU"] * n),
            sources,
        ).markdown()
        for n in (1, 2)
    ]
    texts += [
        stamp.notebook_stamp(language, n, True, TORCH, "CPU", "2026-11-30").markdown()
        for n in (1, 2)
    ]
    assert texts == COUNTED[language]
    # no code cell: nothing ran, so no stamp (not "All 0 code cells ran")
    assert stamp.notebook_stamp(language, 0, True, TORCH, "CPU", "2026-11-30") is None


def test_a_spanish_page_is_outdated_when_its_comment_catalog_changes(project):
    """The Spanish examples run with the comments of snippets.po: a change there
    voids the run, as a snippet change does; the English page does not depend on it."""
    root, page = project
    (root / "docs" / "es").mkdir()
    spanish = root / "docs" / "es" / "demo.md"
    spanish.write_text(page.read_text())
    catalog = root / "locale" / "es" / "LC_MESSAGES" / "snippets.po"
    catalog.parent.mkdir(parents=True)
    catalog.write_text('msgid "one"\nmsgstr "uno"\n')
    recorded = page_sources(spanish, root)
    assert "locale/es/LC_MESSAGES/snippets.po" in recorded
    assert "locale/es/LC_MESSAGES/snippets.po" not in page_sources(page, root)
    catalog.write_text('msgid "one"\nmsgstr "una"\n')
    report = {
        **_report(recorded, passed=3),
        "pages": {"es/demo.md": {"passed": 3, "sources": recorded}},
    }
    result = _stamp("es", report, page_sources(spanish, root), page="es/demo.md")
    assert (
        result.state == stamp.UNVERIFIED
        and "`locale/es/LC_MESSAGES/snippets.po`" in result.text
    )
