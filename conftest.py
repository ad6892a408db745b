"""Every page of the site, in both languages, runs as a test (see ptdocs/pages.py)."""

import gc
import os
from pathlib import Path

import pytest
from sybil import Sybil
from sybil.parsers.markdown import SkipParser

from ptdocs.pages import PageBlockParser, ProseValuesParser
from ptdocs.report import ExampleReport
from ptdocs.script_runner import preload
from ptdocs.site_build import BuildFailed, SiteBuildPlugin


def _accelerator():
    """The accelerator type the examples run on ("cuda", "mps", ...), or None for the
    CPU alone. PTDOCS_NO_ACCELERATOR=1 hides one that torch reports but the machine
    cannot use: GitHub's arm64 macOS runners report MPS, which they do not support."""
    import torch  # here: pytest-xdist's controller runs no example, needs no torch

    hidden = os.environ.get("PTDOCS_NO_ACCELERATOR") == "1"
    if hidden or not torch.accelerator.is_available():
        return None
    return torch.accelerator.current_accelerator().type


def _setup(namespace):
    # What the examples import first, then frozen: the garbage collector no longer walks
    # it, about a quarter of what the examples cost in the worker.
    preload()
    gc.collect()  # garbage of earlier pages is freed, not frozen for good
    gc.freeze()
    # Names a page's skip directives may use, <!-- skip: next if(not HAS_ACCELERATOR,
    # reason="...") -->, as ptdocs/downloads.py SETUP_NAMES gives the downloads.
    namespace["ACCELERATOR"] = _accelerator()
    namespace["HAS_ACCELERATOR"] = namespace["ACCELERATOR"] is not None


# "*.md" is matched from the right: pages in nested folders are collected too.
pages = Sybil(
    parsers=[SkipParser(), PageBlockParser(), ProseValuesParser()],
    path="docs",
    patterns=["*.md"],
    setup=_setup,
    name="pages",
)
pytest_collect_file = pages.pytest()


ROOT = Path(__file__).parent
BROWSER_TESTS = ROOT / "tests" / "browser"


# The files that take longest, longest first (measured on two cores with pytest
# --durations). pytest-xdist hands out whole files in the order of the collection
# (--no-loadscope-reorder, pyproject.toml): started first, they do not end the run
# alone. Its own order, by number of tests, started the tour of every page (8 tests,
# 50-70 s) last. Only an order: a file missing here runs all the same, after these.
LONGEST_FIRST = [
    "tests/browser/test_pages.py",  # waits for the site build, then tours every page
    "tests/test_downloads.py",
    "tests/test_results_page.py",
    "tests/browser/test_reader.py",
    "tests/test_benchmark.py",
    "tests/test_compare.py",
    "tests/browser/test_not_found.py",
    "tests/test_notebook_renders.py",
    "tests/test_derivatives_notebook.py",
    # its worker's fork server first imports torch (see tests/conftest.py)
    "tests/test_snippets_as_scripts.py",
    # The pages whose examples take longest, for `python -m pytest docs`.
    "docs/en/measuring.md",
    "docs/es/measuring.md",
    "docs/en/choosing.md",
    "docs/es/choosing.md",
]


def pytest_collection_modifyitems(items):
    # `python -m pytest -m "not browser"` leaves out the tests that drive Chromium.
    for item in items:
        if BROWSER_TESTS in item.path.parents:
            item.add_marker(pytest.mark.browser)
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))


def pytest_configure(config):
    register = config.pluginmanager.register
    register(ExampleReport(config.rootpath), "ptdocs-example-report")
    register(SiteBuildPlugin(config), "ptdocs-site-build")


@pytest.fixture(scope="session")
def built_site(pytestconfig):
    """``mkdocs build --strict`` once for the whole run (ptdocs/site_build.py starts
    it in the background as soon as a test that needs it is collected)."""
    try:
        return pytestconfig.pluginmanager.get_plugin("ptdocs-site-build").build.wait()
    except BuildFailed as error:
        pytest.fail(str(error), pytrace=False)
