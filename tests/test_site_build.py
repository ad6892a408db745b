"""The strict build produces both languages, rendered notebooks and twin language
links."""

import dataclasses
import subprocess
import sys
from types import SimpleNamespace
from urllib.parse import urljoin

import pytest
from helpers import alternates, load_hook

from ptdocs.snippets import ROOT


def test_both_languages_are_built(built_site):
    assert (built_site / "index.html").is_file()
    assert '<html lang="es"' in (built_site / "es" / "index.html").read_text()


@pytest.mark.parametrize(
    "prefix, printed",
    [
        ("", "autograd agrees with 2x at x = 3.0"),
        ("es/", "autograd coincide con 2x en x = 3.0"),
    ],
)
def test_notebook_pages_are_rendered_with_executed_outputs(built_site, prefix, printed):
    page = built_site / prefix / "exercises" / "first-gradient"
    html = (page / "index.html").read_text()
    assert '"cells":' not in html, "the notebook was shipped as raw JSON"
    # The printed gradient comes from running the notebook during the build, in the
    # page's language (the Spanish notebook's string comes from the catalog).
    assert "tensor(6.)" in html and printed in html


@pytest.mark.parametrize("page", ["", "exercises/first-gradient/", "autograd/"])
def test_the_language_link_of_each_page_points_at_its_twin(built_site, page):
    english = alternates((built_site / page / "index.html").read_text())
    spanish = alternates((built_site / "es" / page / "index.html").read_text())
    # Resolve the links against each page's own URL, as the browser does.
    assert urljoin(f"http://site/{page}", english["es"]) == f"http://site/es/{page}"
    assert urljoin(f"http://site/es/{page}", spanish["en"]) == f"http://site/{page}"


def test_materials_spanish_strings_are_mended_where_they_read_as_a_calque(built_site):
    """mkdocs.yml's extra.theme_strings of the Spanish build
    (overrides/partials/language.html) replace Material's «Tabla de contenidos» and
    «Teclee para comenzar búsqueda»; the English build, without such corrections,
    keeps Material's own strings."""
    spanish = (built_site / "es" / "tensors" / "index.html").read_text()
    english = (built_site / "tensors" / "index.html").read_text()
    assert "En esta página" in spanish and "Tabla de contenidos" not in spanish
    assert "Escribe para buscar" in spanish and "Teclee" not in spanish
    assert "Table of contents" in english and "En esta página" not in english


# ---- what makes a rebuild cheap, and still right ----


@dataclasses.dataclass(frozen=True)
class Data:
    rows: tuple


def test_a_plot_is_drawn_once_and_again_whenever_something_it_is_drawn_from_changes(
    tmp_path, monkeypatch
):
    import matplotlib

    hook = load_hook("results")
    # the drawing code, and compare.py beside its package
    drawing = tmp_path / "ptdocs" / "results.py"
    compare = tmp_path / "snippets" / "measuring" / "compare.py"
    for file in (drawing, compare):
        file.parent.mkdir(parents=True)
        file.write_text("# version 1\n")
    drawn = []

    def draw(data, language, scheme):
        drawn.append((data, language, scheme))
        return f"<svg>{data.rows} {language} {scheme} {len(drawn)}</svg>"

    module = SimpleNamespace(__file__=str(drawing), plot_svg=draw)
    monkeypatch.setattr(hook, "results_module", module)

    def plot(data=Data((1, 2)), language="en", scheme="light"):
        return hook.svg(tmp_path, data, language, scheme)

    first = plot()
    assert plot() == first and len(drawn) == 1  # the second came from the cache
    for change in ({"data": Data((1, 3))}, {"language": "es"}, {"scheme": "dark"}):
        plot(**change)
    for file in (drawing, compare):
        file.write_text("# version 2\n")
        plot()
    with matplotlib.rc_context({"font.size": 13}):
        plot()
    assert len(drawn) == 7, (
        "a change of data, language, scheme, code or matplotlib settings "
        "must draw again"
    )
    # the sixth's inputs again: cached
    assert plot() == "<svg>(1, 2) en light 6</svg>" and len(drawn) == 7


def test_the_data_of_the_real_plots_can_be_cached():
    """A repr with an object's address ('<... at 0x...>') would change in every
    process: the plots would be drawn in every build, the cache never used."""
    from ptdocs import results

    assert " at 0x" not in repr(results.load(ROOT))
    for pair in (results.COMPARISON, results.AA_PAIR):
        assert " at 0x" not in repr(results.load_comparison(ROOT, pair))


def test_plots_no_language_of_the_build_used_are_removed_after_it(
    tmp_path, monkeypatch
):
    hook = load_hook("results")
    monkeypatch.setattr(hook, "_code", lambda: "code")
    monkeypatch.setattr(hook.results_module, "plot_svg", lambda *_: "<svg/>")
    config = SimpleNamespace(config_file_path=str(tmp_path / "mkdocs.yml"), plugins={})
    old = hook.svg(tmp_path, Data((0,)), "en")
    hook.on_pre_build(config)
    hook.svg(tmp_path, Data((1,)), "en")
    hook.on_post_build(config)
    kept = [path.name for path in (tmp_path / hook.PLOTS).iterdir()]
    assert kept == [next(iter(hook._used_plots)).name] and old == "<svg/>"


def test_compiled_templates_are_reused_only_for_the_same_source_and_environment(
    tmp_path,
):
    import jinja2

    hook = load_hook("template_cache")
    (tmp_path / "templates").mkdir()
    page = tmp_path / "templates" / "page.html"
    config = SimpleNamespace(config_file_path=str(tmp_path / "mkdocs.yml"))

    def render():
        loader = jinja2.FileSystemLoader(tmp_path / "templates")
        env = hook.on_env(jinja2.Environment(loader=loader), config, None)
        return env.get_template("page.html").render(x=1)

    page.write_text("one {{ x }}")
    assert render() == "one 1"
    folder = hook.cache_folder(jinja2.Environment(), tmp_path)
    assert len(list(folder.iterdir())) == 1  # compiled once, kept
    page.write_text("two {{ x }}")
    # a changed template is compiled again, not taken from the cache
    assert render() == "two 1"
    with_filter = jinja2.Environment()
    with_filter.filters["shout"] = str.upper
    assert hook.cache_folder(with_filter, tmp_path) != folder
    assert hook.cache_folder(jinja2.Environment(trim_blocks=True), tmp_path) != folder
    finalizing = jinja2.Environment(finalize=lambda value: value)
    assert hook.cache_folder(finalizing, tmp_path) is None


@pytest.fixture
def project_modules():
    """Give back the project's modules this process had after a test that makes
    MkDocs load new ones."""

    def ours(name):
        return name.partition(".")[0] in ("ptdocs", "snippets")

    kept = {name: module for name, module in sys.modules.items() if ours(name)}
    yield
    for name in [name for name in sys.modules if ours(name)]:
        del sys.modules[name]
    sys.modules.update(kept)


def test_each_rebuild_of_serve_runs_the_steps_and_ptdocs_as_they_are_in_their_files(
    project_modules,
):
    from mkdocs.config import load_config

    def plugins():
        return load_config(str(ROOT / "mkdocs.yml")).plugins

    first = plugins()
    downloads = sys.modules["ptdocs.downloads"]
    stamp = sys.modules["ptdocs.hooks.stamp"]
    # Python imports a module once
    assert type(plugins()["ptdocs"]) is type(first["ptdocs"])
    sys.modules["ptdocs.hooks.preview"].forget_project_code()
    again = plugins()
    # the plugin, imported again
    assert type(again["ptdocs"]) is not type(first["ptdocs"])
    assert sys.modules["ptdocs.hooks.stamp"] is not stamp
    assert sys.modules["ptdocs.downloads"] is not downloads
    # MkDocs keeps a plugin with on_startup
    assert again["ptdocs-preview"] is first["ptdocs-preview"]


def test_a_serve_rebuild_loads_changed_code_and_writes_notebooks_before_building(
    monkeypatch,
):
    hook = load_hook("preview")
    calls, code = [], ["version 1"]
    monkeypatch.setattr(hook, "code_digest", lambda: code[0])
    monkeypatch.setattr(hook, "forget_project_code", lambda: calls.append("forget"))
    monkeypatch.setattr(hook, "write_notebook_twins", lambda: calls.append("notebooks"))
    monkeypatch.setattr(hook.sys, "dont_write_bytecode", False)
    preview = hook.Preview()
    preview.on_startup(command="serve", dirty=False)
    # a .pyc would start a rebuild
    assert calls == ["notebooks"] and hook.sys.dont_write_bytecode

    def build(config=None):
        calls.append("build")

    server = preview.on_serve(SimpleNamespace(builder=None), config=None, builder=build)
    server.builder()  # a page was saved: the code is as it was loaded
    code[0] = "version 2"
    server.builder()  # a hook or a module of ptdocs was saved
    server.builder()
    # startup; the first rebuild; the second (forget, then build); the third
    assert calls == ["notebooks"] * 2 + ["build", "forget"] + ["notebooks", "build"] * 2


def test_the_code_digest_changes_with_ptdocs_the_compare_module_or_mkdocs_yml(
    tmp_path, monkeypatch
):
    hook = load_hook("preview")
    # what ptdocs, snippets.measuring load
    code = {"ptdocs", "snippets/measuring/compare.py", "mkdocs.yml"}
    assert {place.relative_to(ROOT).as_posix() for place in hook.PROJECT_CODE} == code
    package = tmp_path / "ptdocs"
    compare, config = tmp_path / "compare.py", tmp_path / "mkdocs.yml"
    (package / "hooks").mkdir(parents=True)
    for file in (package / "a.py", package / "hooks" / "h.py", compare, config):
        file.write_text("x = 1\n")
    monkeypatch.setattr(hook, "PROJECT_CODE", (package, compare, config))
    seen = {hook.code_digest()}
    for change in (
        lambda: (package / "hooks" / "h.py").write_text("x = 2\n"),
        lambda: compare.write_text("x = 2\n"),
        lambda: config.write_text("x: 2\n"),
        lambda: (package / "b.py").write_text(""),
        lambda: (package / "a.py").unlink(),
    ):
        change()
        seen.add(hook.code_digest())
    assert len(seen) == 6


# ---- the benchmark module beside the pages that link it (measuring_module.py) ----

# benchmark.py's CPU_MEMORY
SPANISH_STRING = "perfilador: bytes de tensores vivos desde la construcción"


@pytest.mark.parametrize("language", ["", "es/"])
def test_the_benchmark_module_is_in_the_site_in_each_language_for_the_pages_linking_it(
    built_site, language
):
    """One file per language, beside the module's page; the measuring page links that
    one."""
    hook = load_hook("measuring_module")
    english = (ROOT / hook.MODULE).read_text(encoding="utf-8")
    folder = built_site / language
    module = (folder / "benchmark-module" / "benchmark.py").read_text(encoding="utf-8")
    assert module == (english if not language else hook.module_text("es"))
    assert (SPANISH_STRING in module) == bool(language)
    assert SPANISH_STRING not in english
    for page, link in (
        ("benchmark-module", "benchmark.py"),
        ("measuring", "../benchmark-module/benchmark.py"),
    ):
        html = (folder / page / "index.html").read_text(encoding="utf-8")
        assert f'href="{link}"' in html


def test_the_spanish_benchmark_module_is_the_same_code_and_runs(tmp_path):
    """Beside a Spanish page, the module differs from the English file only in the
    comments and strings that the Spanish pages show translated (every one of them),
    and it still runs."""
    from ptdocs import catalog

    hook = load_hook("measuring_module")
    english = (ROOT / hook.MODULE).read_text(encoding="utf-8")
    spanish = hook.module_text("es")
    assert spanish != english and catalog.same_code(english, spanish)
    shown = catalog.shown_lines()[hook.MODULE.as_posix()]
    _, left = catalog.translate_file(ROOT / hook.MODULE, "es")
    assert [place for place in left if place.line in shown] == []
    module = tmp_path / "benchmark.py"
    module.write_text(spanish, encoding="utf-8")
    command = [sys.executable, str(module), "--preset", "huge"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    # its usage error, before torch
    assert done.returncode == 2 and "huge" in done.stderr, done.stderr
