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
    """The accelerator type the examples run on ("cuda", "mps", ...), or None for the CPU alone.

    PTDOCS_NO_ACCELERATOR=1 hides one that torch reports but the machine cannot use: GitHub's
    arm64 macOS runners report MPS, which they do not support (see .github/workflows/site.yml)."""
    import torch  # here, not at the top: pytest-xdist's controller runs no example and need not load it

    if os.environ.get("PTDOCS_NO_ACCELERATOR") == "1" or not torch.accelerator.is_available():
        return None
    return torch.accelerator.current_accelerator().type


def _setup(namespace):
    # What the examples import first (torch, and what the first optimizer and assert_close
    # import), then frozen: the garbage collector no longer walks it, about a quarter of what the
    # examples cost in the worker.
    preload()
    gc.collect()  # garbage of earlier pages is freed, not frozen for good
    gc.freeze()
    # Names a page's skip directives may use: <!-- skip: next if(not HAS_ACCELERATOR, reason="...") -->
    # (ptdocs/downloads.py SETUP_NAMES gives the downloads the same names).
    namespace["ACCELERATOR"] = _accelerator()
    namespace["HAS_ACCELERATOR"] = namespace["ACCELERATOR"] is not None


pages = Sybil(
    parsers=[SkipParser(), PageBlockParser(), ProseValuesParser()],
    path="docs",
    patterns=["*.md"],  # matched from the right: pages in nested folders are collected too
    setup=_setup,
    name="pages",
)
pytest_collect_file = pages.pytest()


ROOT = Path(__file__).parent
BROWSER_TESTS = ROOT / "tests" / "browser"


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config):
    """How many workers `-n auto` starts (pyproject.toml caps them with --maxprocesses).

    The page examples keep their worker's core busy: one worker per core, pytest-xdist's own
    count. The rest of the suite spends about a third of its time waiting for the processes it
    starts (scripts, kernels, builds, Chromium): two per core (on two cores, the whole suite
    took 111 s with 2 workers, 102 s with 3, 98 s with 4; `pytest docs` 12 s with 2, 17 s with 4).
    """
    from xdist.plugin import pytest_xdist_auto_num_workers as one_per_core

    per_core = one_per_core(config)
    pages_only = all(Path(arg.partition("::")[0]).resolve().is_relative_to(ROOT / "docs")
                     for arg in config.args)
    if pages_only or os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):  # a count the user chose
        return per_core
    return 2 * per_core


def pytest_collection_modifyitems(items):
    # `python -m pytest -m "not browser"` leaves out the tests that drive Chromium.
    for item in items:
        if BROWSER_TESTS in item.path.parents:
            item.add_marker(pytest.mark.browser)


def pytest_configure(config):
    config.pluginmanager.register(ExampleReport(config.rootpath), "ptdocs-example-report")
    config.pluginmanager.register(SiteBuildPlugin(config), "ptdocs-site-build")


@pytest.fixture(scope="session")
def built_site(pytestconfig):
    """``mkdocs build --strict`` once for the whole run (ptdocs/site_build.py starts it in the
    background as soon as a test that needs it is collected)."""
    try:
        return pytestconfig.pluginmanager.get_plugin("ptdocs-site-build").build.wait()
    except BuildFailed as error:
        pytest.fail(str(error), pytrace=False)
