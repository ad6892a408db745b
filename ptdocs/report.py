"""Count the page examples that ran, per page, and write ``reports/examples.json``.

The site's stamp reads the file (or the one ``PTDOCS_EXAMPLE_REPORT`` names, which
``python -m ptdocs.versions run`` sets). A failure is kept as the data ptdocs.pages
made (ptdocs.failures says it in a page's language).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
from collections import defaultdict
from pathlib import Path

import pytest

from . import versions
from .atomic import write_atomically
from .pages import Block, check_prose_values
from .provenance import REPORT, page_sources

VALUE_LIMIT = 120  # characters of a printed line or error: a stamp's line
FAILURE = "ptdocs-failure"  # user property: the failure as data (Failure.record)
KIND = "ptdocs-kind"  # user property: "prose-values" or "directive", not examples


def device_description() -> str:
    import torch  # only when the report is written: the test process has it by then

    if not torch.accelerator.is_available():
        return f"CPU ({platform.machine()})"
    accelerator = torch.accelerator.current_accelerator()
    return (
        torch.cuda.get_device_name() if accelerator.type == "cuda" else accelerator.type
    )


def _clip(text):
    """A value's first line, cut to a stamp's line."""
    if not isinstance(text, str):
        return text
    text = next(iter(text.strip().splitlines()), "")
    return text if len(text) <= VALUE_LIMIT else text[: VALUE_LIMIT - 1] + "…"


def failure_record(report) -> dict:
    """A failed test's failure as data: the record ptdocs.pages made, carried with
    the report; for any other failure (a setup error), its first line."""
    record = dict(getattr(report, "user_properties", ())).get(FAILURE)
    if record is None:
        crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
        text = getattr(crash, "message", None) or getattr(report, "longreprtext", None)
        record = {"kind": "other", "message": text or "no message"}
    return {k: v if k in ("file", "kind") else _clip(v) for k, v in record.items()}


class ExampleReport:
    """The pytest plugin (conftest.py) that counts each page's examples."""

    def __init__(self, rootpath: Path) -> None:
        self.root = Path(rootpath)
        self.docs = self.root / "docs"
        self.pages: dict[str, dict] = defaultdict(
            lambda: {
                **dict.fromkeys(versions.COUNTS, 0),
                "skip_reasons": [],
                "failures": [],
            }
        )
        self.ran_with: dict[str, str] | None = None  # from pytest-xdist's workers

    def pytest_collection_modifyitems(self, items) -> None:
        """Mark what is no example: pytest copies an item's user properties to its
        reports, so the mark reaches pytest-xdist's controller, which sees no item."""
        for item in items:
            example = getattr(item, "example", None)
            if example is None:
                continue
            if example.region.evaluator is check_prose_values:
                item.user_properties.append((KIND, "prose-values"))
            elif not isinstance(example.parsed, (Block, str)):
                item.user_properties.append((KIND, "directive"))  # a Sybil skip

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        """A page example's failure travels with its report as data."""
        report = (yield).get_result()
        failure = getattr(call.excinfo, "value", None)
        record = getattr(getattr(failure, "result", None), "record", None)
        if record is not None:  # a SybilFailure whose result is a ptdocs.pages.Failure
            report.user_properties.append((FAILURE, record))

    def _page(self, report) -> str | None:
        path = self.root / (report.fspath or "")
        if path.suffix == ".md" and path.is_relative_to(self.docs):
            return path.relative_to(self.docs).as_posix()
        return None

    def pytest_runtest_logreport(self, report) -> None:
        page = self._page(report)
        kind = dict(getattr(report, "user_properties", ())).get(KIND)
        if page is None or kind == "directive":
            return
        counts, failed = self.pages[page], report.outcome == "failed"
        if failed:
            counts["failures"].append(failure_record(report))
        if kind == "prose-values":  # a check, not an example: only a failure counts
            counts["failed"] += failed
        # A failed setup or teardown leaves the page unverified; a Sybil skip
        # directive skips the example while it runs.
        elif report.when == "call" or failed or report.skipped:
            counts[report.outcome] += 1
            if report.skipped:
                reason = str(report.longrepr[-1]).removeprefix("Skipped: ")
                counts["skip_reasons"].append(reason)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.pages:
            terminalreporter.section("examples run from the pages")
        for line in versions.counted(self.pages):
            terminalreporter.write_line(line)

    def pytest_sessionfinish(self, session) -> None:
        # A pytest-xdist worker saw only its share: it sends what it ran with to the
        # controller, which gets every worker's reports and writes the one report.
        if session is not None and hasattr(session.config, "workerinput"):
            if self.pages:
                session.config.workeroutput[KIND] = self._environment()
            return
        if not self.pages:
            return
        environment = self.ran_with or self._environment()
        today = datetime.date.today().isoformat()
        target = self.root / (os.environ.get(versions.REPORT_ENV) or REPORT)
        # Each page with the fingerprints of what ran (a later edit voids its stamp)
        # and its day; the others kept from the last run with the same torch and
        # device. A page whose only checks are passing prose values ran no example.
        ran = {
            page: {
                **counts,
                "sources": page_sources(self.docs / page, self.root),
                "date": today,
            }
            for page, counts in self.pages.items()
            if any(counts[key] for key in versions.COUNTS)
        }
        earlier = self._earlier(target, environment).items()
        pages = {**{p: e for p, e in earlier if p not in self.pages}, **ran}
        report = {**environment, "date": today, "pages": dict(sorted(pages.items()))}
        text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
        write_atomically(target, text)

    def _earlier(self, target: Path, environment: dict) -> dict:
        """The pages of the report at ``target`` that still exist, each with its day,
        if that report is of the same torch and device."""
        try:
            earlier = versions.load_result(target, named=False)
        except versions.VersionsError:
            return {}
        if {"torch": earlier.torch, "device": earlier.device} != environment:
            return {}
        return {
            page: {"date": earlier.date, **entry}
            for page, entry in earlier.pages.items()
            if (self.docs / page).is_file()
        }

    @pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: a worker has finished
    def pytest_testnodedown(self, node, error) -> None:
        self.ran_with = getattr(node, "workeroutput", {}).get(KIND, self.ran_with)

    @staticmethod
    def _environment() -> dict[str, str]:
        """The torch and device the examples ran with (in a process that ran them)."""
        import torch

        return {"torch": str(torch.__version__), "device": device_description()}
