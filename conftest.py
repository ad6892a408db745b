"""Every page of the site, in both languages, runs as a test (see ptdocs/pages.py)."""

import os
import subprocess
import sys

import pytest
import torch
from sybil import Sybil
from sybil.parsers.markdown import SkipParser

from ptdocs.pages import PageBlockParser, ProseValuesParser
from ptdocs.report import ExampleReport
from ptdocs.snippets import ROOT


def _setup(namespace):
    # Names a page's skip directives may use: <!-- skip: next if(not HAS_ACCELERATOR, reason="...") -->
    namespace["HAS_ACCELERATOR"] = torch.accelerator.is_available()


pages = Sybil(
    parsers=[SkipParser(), PageBlockParser(), ProseValuesParser()],
    path="docs",
    patterns=["*.md"],  # matched from the right: pages in nested folders are collected too
    setup=_setup,
    name="pages",
)
pytest_collect_file = pages.pytest()


def pytest_configure(config):
    config.pluginmanager.register(ExampleReport(config.rootpath), "ptdocs-example-report")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """``mkdocs build --strict`` once for the whole session, into a folder of its own."""
    folder = tmp_path_factory.mktemp("site")
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(folder)],
        cwd=ROOT, env=environment, capture_output=True, text=True)
    if result.returncode:
        pytest.fail(f"mkdocs build --strict failed:\n{result.stdout}{result.stderr}"[-6000:], pytrace=False)
    return folder
