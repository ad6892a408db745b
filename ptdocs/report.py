"""Count the page examples that ran, per page and language, for people and for the
site.

At the end of a test run this prints how many examples ran from each language and
writes ``reports/examples.json``, which the site's verification stamp reads, or the
file that ``PTDOCS_EXAMPLE_REPORT`` names (``python -m ptdocs.versions run`` sets it,
so that a run against another torch release leaves the pinned release's report
alone). A failed example is recorded as data (file, line, what differed or was
raised: :func:`failure_record`), in the order the page runs them;
:mod:`ptdocs.failures` says it in a page's language.
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


def device_description() -> str:
    # only when the report is written: the test process has loaded it by then
    import torch

    if torch.accelerator.is_available():
        accelerator = torch.accelerator.current_accelerator()
        if accelerator.type == "cuda":
            return torch.cuda.get_device_name()
        return accelerator.type
    return f"CPU ({platform.machine()})"


VALUE_LIMIT = (
    120  # characters of one printed line or error: a stamp's line, not a traceback
)
FAILURE = (
    "ptdocs-failure"  # user property: the failure as data (ptdocs.pages.Failure.record)
)


def _clip(text):
    """A value's first line, cut to a stamp's line."""
    if not isinstance(text, str):
        return text
    text = next(iter(text.strip().splitlines()), "")
    return text if len(text) <= VALUE_LIMIT else text[: VALUE_LIMIT - 1] + "…"


def failure_record(report) -> dict:
    """A failed test's failure as data (see :mod:`ptdocs.failures`): the record
    ptdocs.pages made when the example failed, carried with the report; for any other
    failure (a setup error), its first line."""
    record = dict(getattr(report, "user_properties", ())).get(FAILURE)
    if record is None:
        crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
        text = (
            getattr(crash, "message", None)
            or getattr(report, "longreprtext", None)
            or ""
        )
        record = {"kind": "other", "message": text or "no message"}
    return {
        key: value if key in ("file", "kind") else _clip(value)
        for key, value in record.items()
    }


# user property: "prose-values" or "directive" (neither is an example)
KIND = "ptdocs-kind"


class ExampleReport:
    def __init__(self, rootpath: Path) -> None:
        self.root = Path(rootpath)
        self.docs = self.root / "docs"
        self.pages: dict[str, dict] = defaultdict(
            lambda: {
                "passed": 0,
                "failed": 0,
                "skipped": 0,
                "skip_reasons": [],
                "failures": [],
            }
        )
        self.directives: set[str] = (
            set()
        )  # Sybil skip directives: items, but not examples
        # prose-values checks: not examples either, but a failing one fails its page
        self.prose_checks: set[str] = set()
        self.ran_with: dict[str, str] | None = (
            None  # torch and device, from pytest-xdist's workers
        )

    def pytest_collection_modifyitems(self, items) -> None:
        for item in items:
            example = getattr(item, "example", None)
            if example is None:
                continue
            if example.region.evaluator is check_prose_values:
                kind, found = "prose-values", self.prose_checks
            elif not isinstance(example.parsed, (Block, str)):
                kind, found = "directive", self.directives
            else:
                continue
            found.add(item.nodeid)
            # Under pytest-xdist the workers collect and the controller only sees
            # reports: the kind travels with each report (user_properties are sent
            # along).
            if hasattr(item, "user_properties"):
                item.user_properties.append((KIND, kind))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        """A page example's failure travels with its report as data (under
        pytest-xdist too: user properties are sent to the controller)."""
        report = (yield).get_result()
        record = getattr(
            getattr(getattr(call.excinfo, "value", None), "result", None),
            "record",
            None,
        )
        if record is not None:  # a SybilFailure whose result is a ptdocs.pages.Failure
            report.user_properties.append((FAILURE, record))

    def _page(self, report) -> str | None:
        path = Path(report.fspath) if report.fspath else None
        if path is None or path.suffix != ".md":
            return None
        path = (self.root / path) if not path.is_absolute() else path
        try:
            return path.relative_to(self.docs).as_posix()
        except ValueError:
            return None

    def pytest_runtest_logreport(self, report) -> None:
        page = self._page(report)
        kind = dict(getattr(report, "user_properties", ())).get(KIND)
        if page is None or kind == "directive" or report.nodeid in self.directives:
            return
        counts = self.pages[page]
        if kind == "prose-values" or report.nodeid in self.prose_checks:
            if report.outcome == "failed":
                counts["failed"] += 1
                counts["failures"].append(failure_record(report))
            return
        if report.outcome == "failed":
            counts["failures"].append(failure_record(report))
        if report.when == "call":
            counts[report.outcome] += 1
            if report.skipped:  # a Sybil skip directive skips the example while it runs
                counts["skip_reasons"].append(
                    str(report.longrepr[-1]).removeprefix("Skipped: ")
                )
        elif (
            report.outcome == "failed"
        ):  # setup or teardown broke: the page is not verified
            counts["failed"] += 1
        elif report.skipped:
            counts["skipped"] += 1
            counts["skip_reasons"].append(
                str(report.longrepr[-1]).removeprefix("Skipped: ")
            )

    @staticmethod
    def _is_xdist_worker(session) -> bool:
        return session is not None and hasattr(session.config, "workerinput")

    def pytest_terminal_summary(self, terminalreporter) -> None:
        totals = versions.totals(self.pages)
        if not totals:
            return
        terminalreporter.section("examples run from the pages")
        for language, counts in sorted(totals.items()):
            terminalreporter.write_line(
                f"docs/{language}: {counts['passed']} examples passed, "
                f"{counts['failed']} failed, "
                f"{counts['skipped']} skipped"
            )

    def pytest_sessionfinish(self, session) -> None:
        # A pytest-xdist worker saw only its share: it sends what it ran with to the
        # controller, which gets every worker's reports and writes the one report.
        if self._is_xdist_worker(session):
            if self.pages:
                session.config.workeroutput[KIND] = self._environment()
            return
        if not self.pages:
            return
        environment, today = (
            self.ran_with or self._environment(),
            datetime.date.today().isoformat(),
        )
        target = self.root / Path(
            os.environ.get(versions.REPORT_ENV) or self.root / REPORT
        )
        # Each page with the fingerprints of what ran, so a later edit voids its stamp,
        # and the day it ran. A run of some pages (`python -m pytest
        # docs/es/autograd.md`) keeps what the last runs said of the others, with the
        # same torch on the same device.
        ran = {
            page: {
                **counts,
                "sources": page_sources(self.docs / page, self.root),
                "date": today,
            }
            for page, counts in self.pages.items()
        }
        pages = {**self._earlier(target, environment), **ran}
        report = {**environment, "date": today, "pages": dict(sorted(pages.items()))}
        write_atomically(
            target, json.dumps(report, indent=2, ensure_ascii=False) + "\n"
        )

    def _earlier(self, target: Path, environment: dict) -> dict:
        """The pages of the report already at ``target`` that still exist, each with
        the day it ran, when that report is of the same torch and device; else none."""
        try:
            earlier = json.loads(target.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if (
            not isinstance(earlier, dict)
            or not isinstance(earlier.get("pages"), dict)
            or any(earlier.get(key) != value for key, value in environment.items())
        ):
            return {}
        return {
            page: {"date": earlier.get("date", "?"), **entry}
            for page, entry in earlier["pages"].items()
            if isinstance(entry, dict) and (self.docs / page).is_file()
        }

    @pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: a worker has finished
    def pytest_testnodedown(self, node, error) -> None:
        self.ran_with = getattr(node, "workeroutput", {}).get(KIND, self.ran_with)

    @staticmethod
    def _environment() -> dict[str, str]:
        """The torch and device the examples ran with (in the process that ran them:
        under pytest-xdist the controller never imports torch)."""
        import torch

        return {"torch": str(torch.__version__), "device": device_description()}
