"""Every page of the site, in both languages, runs as a test (see ptdocs/pages.py)."""

import torch
from sybil import Sybil
from sybil.parsers.markdown import SkipParser

from ptdocs.pages import PageBlockParser
from ptdocs.report import ExampleReport


def _setup(namespace):
    # Names a page's skip directives may use: <!-- skip: next if(not HAS_ACCELERATOR, reason="...") -->
    namespace["HAS_ACCELERATOR"] = torch.accelerator.is_available()


pages = Sybil(
    parsers=[SkipParser(), PageBlockParser()],
    path="docs",
    patterns=["*.md"],  # matched from the right: pages in nested folders are collected too
    setup=_setup,
    name="pages",
)
pytest_collect_file = pages.pytest()


def pytest_configure(config):
    config.pluginmanager.register(ExampleReport(config.rootpath), "ptdocs-example-report")
