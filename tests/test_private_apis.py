"""Every private or undocumented API of another project that ptdocs/, tools/, tests/ or
conftest.py uses: the list (``PRIVATE``), why each is used, and a check of each that
fails when a new release of that project changes it, so that the upgrade stops here and
not on a page.

Add a line here when the code starts to use another one; remove it when the code stops.
"""

import inspect
import multiprocessing.forkserver
import sys

import pytest
from mkdocs.config import load_config
from mkdocs_jupyter import convert
from mkdocs_jupyter.plugin import Plugin

from ptdocs.notebook_renders import render_path
from ptdocs.snippets import ROOT

HOOKS = "ptdocs/hooks/"
NOTEBOOKS, RUNNER = HOOKS + "notebooks.py", "ptdocs/script_runner.py"
# (API, the name the code uses, the files that use it); above each, why: what no public
# API offers.
PRIVATE = [
    # Renders every notebook in threads at the first build, writing its cache entry as
    # mkdocs-jupyter's own render does (content, table of contents, title).
    ("mkdocs_jupyter.plugin._get_nb_toc_tokens", "_get_nb_toc_tokens", [NOTEBOOKS]),
    # Where mkdocs-jupyter keeps a notebook's render: the stamp says whether it ran in
    # this build.
    (
        "mkdocs_jupyter.plugin._compute_cache_key and _get_cache_path",
        "_get_cache_path",
        ["ptdocs/notebook_renders.py"],
    ),
    # Marks the other language's renders used, or mkdocs-jupyter evicts them after each
    # language.
    ("the mkdocs-jupyter plugin's _used_cache_paths", "_used_cache_paths", [NOTEBOOKS]),
    # The render in a thread is made with mkdocs-jupyter's own converter and settings.
    (
        "mkdocs_jupyter.convert.nb2html's keywords (undocumented)",
        "convert.nb2html",
        [NOTEBOOKS],
    ),
    # Which language a build is for, and whether it is the last: i18n documents no API.
    (
        "mkdocs-static-i18n's plugin attributes (undocumented): current_language, "
        "default_language, build_languages, building, extra_alternate, "
        "config.languages",
        'plugins.get("i18n")',
        [
            HOOKS + "interface.py",
            HOOKS + "not_found.py",
            NOTEBOOKS,
            HOOKS + "results.py",
            HOOKS + "search.py",
            HOOKS + "translations.py",
        ],
    ),
    # The standard library has no public way to stop its fork server before the process
    # ends.
    ("multiprocessing.forkserver._forkserver._stop", "_forkserver._stop", [RUNNER]),
    # Imported ahead, once, in the fork server: torch.compile's import costs a script
    # seconds.
    ("torch._dynamo", "torch._dynamo", [RUNNER]),
    # The print options in force, to put them back after a mutant changed them
    # (torch.set_printoptions sets them; nothing public reads them).
    (
        "torch._tensor_str.PRINT_OPTS",
        "torch._tensor_str.PRINT_OPTS",
        ["tools/mutate.py"],
    ),
    # The tolerances assert_close documents, read where the notebook states them.
    (
        "torch.testing._comparison.default_tolerances",
        "default_tolerances",
        ["tests/test_derivatives_notebook.py"],
    ),
    # The caller's line, to point at the checked output.
    ("sys._getframe", "sys._getframe", ["ptdocs/output_check.py"]),
]


@pytest.mark.parametrize(
    "api, name, files", PRIVATE, ids=[api[:40] for api, *_ in PRIVATE]
)
def test_each_listed_api_is_used_where_the_list_says(api, name, files):
    for file in files:
        assert name in (ROOT / file).read_text(encoding="utf-8"), (
            f"{file} no longer uses {api}: update PRIVATE"
        )


def _parameters(function):
    return list(inspect.signature(function).parameters)


NOTEBOOK = ROOT / "docs" / "en" / "exercises" / "first-gradient.ipynb"


def test_mkdocs_jupyter_table_of_contents_of_a_notebook():
    from mkdocs_jupyter.plugin import _get_nb_toc_tokens

    assert _parameters(_get_nb_toc_tokens) == ["fpath", "toc_depth"]
    tokens, title = _get_nb_toc_tokens(str(NOTEBOOK), 6)
    assert isinstance(tokens, list) and tokens and isinstance(title, str) and title


def test_mkdocs_jupyter_cache_key_and_path(tmp_path):
    from mkdocs_jupyter.plugin import _compute_cache_key, _get_cache_path

    assert _parameters(_compute_cache_key) == ["nb_path", "config", "exec_nb"]
    assert _parameters(_get_cache_path) == ["cache_dir", "cache_key"]
    notebook = tmp_path / "n.ipynb"
    notebook.write_bytes(NOTEBOOK.read_bytes())
    plugin = Plugin()
    cache = str(tmp_path / "cache")
    assert plugin.load_config({"execute": True, "cache_dir": cache}) == ([], [])
    settings = plugin.config
    first = render_path(notebook, settings)
    assert first.parent == tmp_path / "cache"
    notebook.write_bytes(NOTEBOOK.read_bytes().replace(b"gradient", b"Gradient", 1))
    assert render_path(notebook, settings) != first  # keyed on the notebook's bytes


def test_mkdocs_jupyter_evicts_the_renders_not_in_used_cache_paths():
    plugin = Plugin()
    plugin.on_pre_build(None)
    assert plugin._used_cache_paths == set()
    assert "self._used_cache_paths" in inspect.getsource(Plugin.on_post_build)


def test_mkdocs_jupyter_converter_takes_the_settings_it_is_given():
    settings = """execute kernel_name theme allow_errors show_input no_input no_prompt
    remove_tag_config highlight_extra_classes include_requirejs custom_mathjax_url"""
    assert set(settings.split()) <= set(_parameters(convert.nb2html))


def test_i18n_says_which_language_it_builds():
    config = load_config(str(ROOT / "mkdocs.yml"))
    i18n = config.plugins["i18n"]
    i18n.on_config(config)
    languages = (i18n.current_language, i18n.default_language, i18n.building)
    assert languages == ("en", "en", False)
    assert i18n.build_languages == ["en", "es"]
    assert [entry["lang"] for entry in i18n.extra_alternate] == ["en", "es"]
    assert isinstance(i18n.config.languages[1].nav_translations, dict)


def test_multiprocessing_fork_server_can_be_stopped():
    assert _parameters(multiprocessing.forkserver._forkserver._stop) == []


def test_torch_private_modules_and_options():
    import torch._dynamo  # the preload must import it
    from torch.testing._comparison import default_tolerances

    options = torch._tensor_str.PRINT_OPTS
    names = {"precision", "threshold", "edgeitems", "linewidth", "sci_mode"}
    assert names <= set(vars(options))
    saved = options.precision
    try:
        torch.set_printoptions(precision=2)
        # What set_printoptions sets, read where mutate reads it.
        assert options.precision == 2
    finally:
        torch.set_printoptions(precision=saved)
    assert default_tolerances(torch.float32) == (1.3e-6, 1e-5)


def test_the_callers_frame():
    def where():
        return sys._getframe(1).f_lineno

    assert where() == inspect.currentframe().f_lineno
