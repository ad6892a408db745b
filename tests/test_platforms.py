"""What the other platforms' CI jobs exercise, kept tested here: the accelerator
skips as an Apple (MPS) or CUDA machine sees them, and line endings as a Windows
clone has them.

A clone with core.autocrlf=true (Git for Windows' default) is tested end to end for
the translation records in tests/test_translations.py
(test_a_clone_with_autocrlf_sees_the_pages_as_up_to_date).
"""

import shutil
import subprocess
import unittest
from pathlib import Path

import pytest
import torch
from sybil.evaluators.skip import Skipper
from sybil.example import SybilFailure

from ptdocs.pages import Block, run_include
from ptdocs.snippets import ROOT, expand

EVENTS = "snippets/measuring/events.py:events"
MISMATCH = "snippets/tensors/devices.py:mismatch"
PAGES = {EVENTS: "measuring.md", MISMATCH: "tensors.md"}
LANGUAGES = ("en", "es")


# ---------------------------------------------------------------- accelerators


@pytest.fixture
def setup(site_conftest):
    """The root conftest.py's _setup: the names the pages' skip directives read."""
    return site_conftest._setup, site_conftest.pages


@pytest.fixture
def machine(monkeypatch):
    """Make torch report an accelerator of the given type (None: only the CPU)."""
    monkeypatch.delenv("PTDOCS_NO_ACCELERATOR", raising=False)

    def reports(kind):
        monkeypatch.setattr(torch.accelerator, "is_available", lambda: kind is not None)
        monkeypatch.setattr(
            torch.accelerator,
            "current_accelerator",
            lambda *args, **kwargs: torch.device(kind) if kind else None,
        )

    return reports


def run_on_page(setup, language: str, target: str):
    """Run the skip directive before `target`'s block on its page, then the block, as
    the page test does: the SkipTest it raises, else None once the block ran (and
    failed, on this CPU)."""
    namespace_setup, pages = setup
    document = pages.parse(ROOT / "docs" / language / PAGES[target])
    examples = list(document.examples())
    index = next(
        i
        for i, example in enumerate(examples)
        if isinstance(example.parsed, Block)
        and any(include.target == target for include in example.parsed.includes)
    )
    directive = examples[index - 1]
    assert isinstance(directive.region.evaluator, Skipper), (
        f"no skip directive before {target}"
    )
    namespace_setup(document.namespace)
    document.namespace["torch"] = torch  # imported by the page's earlier blocks
    directive.evaluate()
    try:
        examples[index].evaluate()
    except unittest.SkipTest as skipped:
        return skipped
    except SybilFailure as failure:
        # It ran: on this CPU-only build, creating the tensor on the faked device fails.
        assert "device" in str(failure) or "compiled" in str(failure), failure
        return None
    raise AssertionError(f"{target} ran on a faked accelerator without failing")


@pytest.mark.parametrize("language", LANGUAGES)
def test_on_mps_the_event_timing_example_is_skipped_and_says_why(
    setup, machine, language
):
    machine("mps")
    skipped = run_on_page(setup, language, EVENTS)
    assert skipped is not None, "the events example ran on MPS"
    assert "MPS" in str(skipped) and "pytorch/pytorch#162872" in str(skipped)


@pytest.mark.parametrize("language", LANGUAGES)
def test_on_mps_the_device_mismatch_example_runs(setup, machine, language):
    # TensorIterator takes one 0-dim CPU operand beside any non-CPU device and refuses
    # others with "Expected all tensors to be on the same device", which add on MPS
    # checks as on CUDA.
    machine("mps")
    assert run_on_page(setup, language, MISMATCH) is None


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("target", [EVENTS, MISMATCH], ids=["events", "mismatch"])
def test_on_cuda_both_accelerator_examples_run(setup, machine, language, target):
    machine("cuda")
    assert run_on_page(setup, language, target) is None


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("target", [EVENTS, MISMATCH], ids=["events", "mismatch"])
def test_with_only_a_cpu_both_are_skipped(setup, machine, language, target):
    machine(None)
    skipped = run_on_page(setup, language, target)
    assert skipped is not None and "CPU" in str(skipped)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_runner_that_hides_its_accelerator_skips_as_a_cpu_only_machine(
    setup, machine, monkeypatch, language
):
    # GitHub's macOS runners report an MPS device that they do not support; the workflow
    # hides it.
    machine("mps")
    monkeypatch.setenv("PTDOCS_NO_ACCELERATOR", "1")
    namespace = {}
    setup[0](namespace)
    assert namespace["ACCELERATOR"] is None and namespace["HAS_ACCELERATOR"] is False
    assert "CPU" in str(run_on_page(setup, language, MISMATCH))


# ---------------------------------------------------------------- line endings


def test_snippets_and_pages_check_out_with_lf_on_every_system():
    files = subprocess.run(
        ["git", "ls-files", "snippets", "docs", "notebooks", "locale", "mkdocs.yml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    text = [
        name
        for name in files
        if Path(name).suffix in {".py", ".md", ".yaml", ".yml", ".ipynb", ".po"}
    ]
    assert all(
        any(name.startswith(f"{folder}/") for name in text)
        for folder in ("snippets", "docs", "notebooks", "locale")
    )
    attributes = subprocess.run(
        ["git", "check-attr", "text", "eol", "--", *text],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    values = {}
    for line in attributes:
        name, attribute, value = line.rsplit(": ", 2)
        values.setdefault(name, {})[attribute] = value
    wrong = {
        name: found
        for name, found in values.items()
        if found != {"text": "auto", "eol": "lf"}
    }
    assert not wrong and len(values) == len(text), wrong


def test_a_snippet_with_crlf_line_endings_runs_and_shows_as_with_lf(tmp_path):
    # Without .gitattributes a Windows clone would have CRLF files: the harness reads
    # them as LF.
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    source = ROOT / "snippets" / "tensors" / "basics.py"
    copy = tmp_path / "snippets" / "tensors" / "basics.py"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(source.read_bytes().replace(b"\n", b"\r\n"))
    assert b"\r\n# > torch.int64\r\n" in copy.read_bytes()
    lf, crlf = (
        expand("snippets/tensors/basics.py:attributes"),
        expand("snippets/tensors/basics.py:attributes", tmp_path),
    )
    assert crlf.shown == lf.shown and crlf.first_line == lf.first_line
    assert run_include(crlf, {}) is None


def test_text_is_written_as_given_whatever_the_platform(tmp_path):
    from ptdocs.atomic import write_atomically

    write_atomically(tmp_path / "a.txt", "one\ntwo\r\n")
    assert (tmp_path / "a.txt").read_bytes() == b"one\ntwo\r\n"
