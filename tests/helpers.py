"""Helpers that several test files share (plain functions; fixtures live in
conftest.py)."""

import contextlib
import importlib
import logging
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from sybil import Sybil
from sybil.example import SybilFailure

from ptdocs.pages import PageBlockParser, ProseValuesParser
from ptdocs.snippets import ROOT


def load_hook(name):
    """The step ptdocs.hooks.<name>, run again from its file: its module state is
    this test's alone."""
    return importlib.reload(importlib.import_module(f"ptdocs.hooks.{name}"))


def alternates(html):
    """The language switcher's links, by language (the head's hreflang links are
    removed, see ptdocs/hooks/language_links.py)."""
    return {
        lang: href
        for href, lang in re.findall(
            r'<a href="([^"]*)" hreflang="([a-z]+)" class="md-select__link"', html
        )
    }


def tiny_site(root, snippets):
    """A tiny repository in ``root``: mkdocs.yml's snippet settings, the requirements
    with the torch pin, and ``snippets`` ({"demo/x.py": code}) under snippets/."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copy(ROOT / "requirements.txt", root / "requirements.txt")
    for name, code in snippets.items():
        (root / "snippets" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "snippets" / name).write_text(code, encoding="utf-8")
    return root


def write_page(site, relative, body):
    """docs/<relative> in a small test repository, with ``body`` dedented."""
    path = site / "docs" / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body))
    return path


def run_page(site, path, prose_values=False):
    """Every example of a page in order, as pytest runs them (with its prose-values
    checks if asked): the examples, and Sybil's first failure or None."""
    parsers = [PageBlockParser(site)] + (
        [ProseValuesParser(site)] if prose_values else []
    )
    examples = list(Sybil(parsers=parsers).parse(path).examples())
    for example in examples:
        try:
            example.evaluate()
        except SybilFailure as failure:
            return examples, failure
    return examples, None


def page_failure(site, path):
    """Sybil's first failure running a page's examples and prose-values checks, or
    None."""
    return run_page(site, path, prose_values=True)[1]


def mkdocs_build(config_file, site_dir) -> subprocess.CompletedProcess:
    """``mkdocs build --strict -d site_dir`` of ``config_file`` in this process (a new
    interpreter costs ~1 s of imports a build), from the configuration's folder, as
    pymdownx.snippets resolves base_path there. Exit status 1 where MkDocs aborts;
    stderr holds its warnings and the reason. No on_startup/on_shutdown event runs."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    logged = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: logged.append(
        f"{record.levelname} - {record.getMessage()}"
    )
    logger = logging.getLogger("mkdocs")
    level = logger.level
    logger.addHandler(handler)
    # Warnings reach strict mode's counter whatever set the level before.
    logger.setLevel(logging.INFO)
    returncode = 0
    config_file = Path(config_file).resolve()  # a relative one is from here
    try:
        with contextlib.chdir(config_file.parent):
            build(load_config(str(config_file), strict=True, site_dir=str(site_dir)))
    except (Abort, ConfigurationError) as error:
        logged.append(str(error))
        returncode = 1
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    return subprocess.CompletedProcess(
        ["mkdocs", "build", "--strict", "-d", str(site_dir)],
        returncode,
        "",
        "\n".join(logged) + "\n",
    )


# The benchmark CSV's columns, written out apart from the code that writes and reads
# them: the guide's template, in order, and the columns earlier versions appended.
TEMPLATE = tuple(
    "trial torch_build device dtype shape batch latency memory quality_pass".split()
)
OLD_EXTRAS = tuple(
    "workload task latency_iqr first_call runs threads samples_per_s gflop_per_s "
    "memory_method rel_error tolerance error".split()
)


BENCHMARK = ROOT / "snippets" / "measuring" / "benchmark.py"
# The CSV writes numbers with %.6g (benchmark.number): each is within half a unit of its
# 6th significant digit, 5e-6 relative; a value computed from one such number and
# written again carries two of those roundings.
WRITTEN = 5e-6


def benchmark(*arguments, python=(), timeout=300, **options):
    """`python [PYTHON OPTIONS] benchmark.py ARGUMENTS` from the repository root, as a
    user runs it; its CompletedProcess, text."""
    return subprocess.run(
        [sys.executable, *python, str(BENCHMARK), *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        **options,
    )
