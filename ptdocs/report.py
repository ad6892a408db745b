"""Count the page examples that ran, per page and language, for people and for the site.

At the end of a test run this prints how many examples ran from each language
and writes ``reports/examples.json``, which the site's verification stamp reads, or the file
that ``PTDOCS_EXAMPLE_REPORT`` names (``python -m ptdocs.versions run`` sets it, so that a run
against another torch release leaves the pinned release's report alone). A failed example is
recorded with its first line (file, line and error), in the order the page runs them.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
from collections import defaultdict
from pathlib import Path

import pytest


from .atomic import write_atomically
from .pages import Block, check_prose_values
from .provenance import REPORT, page_sources


def device_description() -> str:
    import torch  # only when the report is written: the test process has loaded it by then

    if torch.accelerator.is_available():
        accelerator = torch.accelerator.current_accelerator()
        if accelerator.type == "cuda":
            return torch.cuda.get_device_name()
        return accelerator.type
    return f"CPU ({platform.machine()})"


# Where the report goes instead of REPORT (see the module's docstring).
REPORT_ENV = "PTDOCS_EXAMPLE_REPORT"
# Sybil's heading of a failure, which names the page and is the same for every example.
SYBIL_HEADING = re.compile(r"^Example at .*? did not evaluate as expected:\s*$")
# pytest-xdist's first line of a worker's failure: "[gw0] linux -- Python 3.11.7 /path/python".
XDIST_HEADING = re.compile(r"^\[gw\d+\] .* -- Python ")
SHOWN_ON = re.compile(r" \(shown on [^)]*\)")
FAILURE_LIMIT = 240  # characters: one line of a stamp or a table, not a traceback


def failure_line(text: str) -> str:
    """The first line of a page example's failure: where (snippet file and line) and what.

    An exception gives its last line (``AttributeError: ...``); a difference in printed output
    gives the first line shown on the page and the one printed instead."""
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and XDIST_HEADING.match(lines[0]):
        lines = lines[1:]
    if lines and SYBIL_HEADING.match(lines[0]):
        lines = lines[1:]
    if not lines:
        return "no message"
    first = SHOWN_ON.sub("", lines[0]).strip()
    if first.endswith(":") and len(lines) > 1:  # a prose-values check says what differs below
        first = f"{first} {lines[1].strip()}"
    if "what this prints differs" in first and "--- shown on the page" in lines:
        at = lines.index("--- shown on the page")
        printed = lines.index("+++ printed when run") if "+++ printed when run" in lines else len(lines)
        shown, got = lines[at + 1:printed], lines[printed + 1:]
        pairs = [(a.strip(), b.strip()) for a, b in zip(shown, got) if a != b]
        if not pairs and len(shown) != len(got):
            longer = shown if len(shown) > len(got) else got
            pairs = [((shown[len(got)] if longer is shown else "(nothing)").strip(),
                      (got[len(shown)] if longer is got else "(nothing)").strip())]
        if pairs:
            first = f"{first}: shown {pairs[0][0]!r}, printed {pairs[0][1]!r}"
    elif re.search(r": \w+(Error|Exception|Warning|Interrupt|Exit)$", first) or first.endswith(": SkipTest"):
        first = f"{first.rsplit(': ', 1)[0]}: {lines[-1].strip()}"
    return first if len(first) <= FAILURE_LIMIT else first[:FAILURE_LIMIT - 1] + "…"


def _failure_text(report) -> str:
    text = getattr(report, "longreprtext", None)
    return text if text is not None else str(getattr(report, "longrepr", "") or "")


KIND = "ptdocs-kind"  # user property: "prose-values" or "directive" (neither is an example)


class ExampleReport:
    def __init__(self, rootpath: Path) -> None:
        self.root = Path(rootpath)
        self.docs = self.root / "docs"
        self.pages: dict[str, dict] = defaultdict(
            lambda: {"passed": 0, "failed": 0, "skipped": 0, "skip_reasons": [], "failures": []})
        self.directives: set[str] = set()  # Sybil skip directives: items, but not examples
        # prose-values checks: not examples either, but a failing one fails its page
        self.prose_checks: set[str] = set()
        self.ran_with: dict[str, str] | None = None  # torch and device, from pytest-xdist's workers

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
            # Under pytest-xdist the workers collect and the controller only sees reports:
            # the kind travels with each report (user_properties are sent along).
            if hasattr(item, "user_properties"):
                item.user_properties.append((KIND, kind))

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
                counts["failures"].append(failure_line(_failure_text(report)))
            return
        if report.outcome == "failed":
            counts["failures"].append(failure_line(_failure_text(report)))
        if report.when == "call":
            counts[report.outcome] += 1
            if report.skipped:  # a Sybil skip directive skips the example while it runs
                counts["skip_reasons"].append(str(report.longrepr[-1]).removeprefix("Skipped: "))
        elif report.outcome == "failed":  # setup or teardown broke: the page is not verified
            counts["failed"] += 1
        elif report.skipped:
            counts["skipped"] += 1
            counts["skip_reasons"].append(str(report.longrepr[-1]).removeprefix("Skipped: "))

    def totals(self) -> dict[str, dict[str, int]]:
        totals: dict[str, dict[str, int]] = {}
        for page, counts in self.pages.items():
            language = page.split("/", 1)[0]
            mine = totals.setdefault(language, {"passed": 0, "failed": 0, "skipped": 0})
            for key in mine:
                mine[key] += counts[key]
        return totals

    @staticmethod
    def _is_xdist_worker(session) -> bool:
        return session is not None and hasattr(session.config, "workerinput")

    def pytest_terminal_summary(self, terminalreporter) -> None:
        totals = self.totals()
        if not totals:
            return
        terminalreporter.section("examples run from the pages")
        for language, counts in sorted(totals.items()):
            terminalreporter.write_line(
                f"docs/{language}: {counts['passed']} examples passed, {counts['failed']} failed, "
                f"{counts['skipped']} skipped")

    def pytest_sessionfinish(self, session) -> None:
        # A pytest-xdist worker saw only its share: it sends what it ran with to the controller,
        # which gets every worker's reports and writes the one report.
        if self._is_xdist_worker(session):
            if self.pages:
                session.config.workeroutput[KIND] = self._environment()
            return
        if not self.pages:
            return
        report = {
            **(self.ran_with or self._environment()),
            "date": datetime.date.today().isoformat(),
            # Each page with the fingerprints of what ran, so a later edit voids its stamp.
            "pages": {page: {**counts, "sources": page_sources(self.docs / page, self.root)}
                      for page, counts in sorted(self.pages.items())},
        }
        target = Path(os.environ.get(REPORT_ENV) or self.root / REPORT)
        write_atomically(self.root / target, json.dumps(report, indent=2, ensure_ascii=False) + "\n")

    @pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: a worker has finished
    def pytest_testnodedown(self, node, error) -> None:
        self.ran_with = getattr(node, "workeroutput", {}).get(KIND, self.ran_with)

    @staticmethod
    def _environment() -> dict[str, str]:
        """The torch and device the examples ran with (in the process that ran them: under
        pytest-xdist the controller never imports torch)."""
        import torch

        return {"torch": str(torch.__version__), "device": device_description()}
