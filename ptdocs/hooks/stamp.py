"""A verification stamp under every page's title, in the page's language, from the real test run.

The test suite writes ``reports/examples.json`` (see :mod:`ptdocs.report`): per
page, how many examples passed, failed or were skipped (with the reasons), the
torch build, the device, the date, and fingerprints of the page and the snippet
files it includes. This hook turns that into one admonition per page:

* every example passed: "N examples on this page ran and passed with torch X
  on <device>, <date>", skips named with their reasons;
* any example failed: a failure stamp, never a passing one;
* no report, no entry for the page, a page or snippet changed since the run
  (fingerprints differ), or a report from another torch than the one building
  the site: "not verified in this build", saying which;
* a page without code says so.

Under that, a second paragraph says on which other torch releases the page's examples hold,
from the committed runs in ``reports/versions/`` (:mod:`ptdocs.versions`): "Examples pass on
torch 2.14.1 and 2.15.0; on 2.10.0, 2 of 30 fail: ...". Only releases that ran this version of
the page are claimed; a run made before the page or its snippets changed is named as not counted.

Notebook pages get their stamp from a report entry when one exists; otherwise
from what mkdocs-jupyter proves while building: with ``execute: true`` and
``allow_errors: false`` every code cell ran without error in this build (a cell
that raises stops it), unless the output came from mkdocs-jupyter's cache of an
earlier build, which the stamp then says.

Readers see the stamp; search does not index it (Material's ``data-search-exclude``), so a
search result shows the page's own words, not "N examples on this page ran...".
"""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass, replace
from html import escape
from pathlib import Path

import sys

import markdown as markdown_lib
from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `mkdocs` run as a command does not put the root on the path
    sys.path.insert(0, str(ROOT))

from ptdocs.catalog import CatalogError, Texts  # noqa: E402
from ptdocs.downloads import lines_with_prose_flag  # noqa: E402
from ptdocs.failures import STRINGS as FAILURES, describe as describe_failure  # noqa: E402
from ptdocs.provenance import REPORT, changed_sources, page_sources  # noqa: E402
from ptdocs.notebook_renders import executes, made_earlier  # noqa: E402
from ptdocs.versions import (Status, VersionsError, installed_torch, load_results, page_status,  # noqa: E402
                             release_key, shared_skips)

# The stamp's words, in English; each other language's are in locale/<language>/LC_MESSAGES/interface.po
# (ptdocs.catalog). A pair is (one, many): the form for a count of 1, and for any other count {n},
# so that each language writes its whole sentence for each (a verb agrees with its count).
STRINGS = Texts("stamp", {
    "verified": "Verified",
    "failed": "Failing examples",
    "unverified": "Not verified in this build",
    "no_code": "No code examples",
    "passed": ("1 example on this page ran and passed with torch {torch} on {device}, {date}.",
               "{n} examples on this page ran and passed with torch {torch} on {device}, {date}."),
    "skipped": ("Skipped: 1 example ({reasons}).", "Skipped: {n} examples ({reasons})."),
    "no_reason": "no reason recorded",
    "failures": "Examples on this page that failed: {failed} of {total}, with torch {torch} on {device}, {date}.",
    "none_ran": "No example on this page ran with torch {torch} on {device}, {date}.",
    "no_report": ("No test report was found ({report}): run `python -m pytest` before building "
                  "to verify the pages."),
    "not_run": "The last test run ({date}) did not run the examples of this page.",
    "changed": "This page or the code it shows changed after the last test run ({date}): {files}.",
    "unrecorded": "The test report ({date}) does not record which version of this page it ran.",
    "other_torch": "The last test run used torch {then}; this site was built with torch {now}.",
    "no_code_text": "This page has no code examples to run.",
    "notebook_ran": (("The 1 code cell of this notebook ran without error while this page was built, "
                      "with torch {torch} on {device}, {date}."),
                     ("All {n} code cells of this notebook ran without error while this page was built, "
                      "with torch {torch} on {device}, {date}.")),
    "notebook_cached": ("The outputs of this notebook were reused from mkdocs-jupyter's cache of an "
                        "earlier build; the notebook did not run in this build."),
    "notebook_off": ("This build does not execute notebooks, or lets a failing cell pass "
                     "(mkdocs-jupyter: execute, allow_errors)."),
    # The line on other torch releases (ptdocs.versions): clauses joined by "; ".
    "and": "and",
    "releases_pass": "examples pass on torch {releases}",
    "releases_fail": "on {release}, {failed} of {total} fail: {failure}",
    "releases_skip": ("on {release}, 1 is skipped: {reasons}", "on {release}, {n} are skipped: {reasons}"),
    "releases_none": "on {release}, none ran: {reasons}",
    "releases_outdated": ("Not counted: the run on torch {releases}, made before this page or its code changed.",
                          "Not counted: the runs on torch {releases}, made before this page or its code "
                          "changed."),
})


@dataclass(frozen=True)
class Stamp:
    kind: str  # a Material admonition type: success, failure, warning, info
    title: str
    text: str
    releases: str = ""  # the other torch releases' word on the page (release_line), if any

    def markdown(self) -> str:
        more = f"\n    {self.releases}\n" if self.releases else ""
        return f'!!! {self.kind} "{self.title}"\n\n    {self.text}\n{more}'

    def html(self) -> str:
        return excluded_from_search(markdown_lib.markdown(self.markdown(), extensions=["admonition"]), self)


def excluded_from_search(html: str, stamp: Stamp) -> str:
    """``html`` with the stamp's admonition marked ``data-search-exclude``: Material's search
    plugin then leaves the whole block out of the index (the page shows it unchanged)."""
    opening = f'<div class="admonition {stamp.kind}">'
    title = f'<p class="admonition-title">{escape(stamp.title, quote=False)}</p>'
    at = html.find(f"{opening}\n{title}")
    if at < 0:
        raise PluginError(f"stamp hook: the stamp {stamp.title!r} is not in the page as "
                          "Python-Markdown's admonition writes it; did the admonition markup change?")
    return f'{html[:at]}<div class="admonition {stamp.kind}" data-search-exclude>{html[at + len(opening):]}'


def _form(pair: tuple[str, str], n: int, **values) -> str:
    """The (one, many) sentence for the count ``n``, filled in."""
    return pair[0 if n == 1 else 1].format(n=n, **values)


def _skips(s: dict, counts: dict) -> str:
    skipped = counts.get("skipped", 0)
    if not skipped:
        return ""
    reasons = "; ".join(dict.fromkeys(counts.get("skip_reasons") or [])) or s["no_reason"]
    return " " + _form(s["skipped"], skipped, reasons=reasons)


def report_stamp(language: str, page: str, report: dict | None, current_sources: dict[str, str],
                 torch_now: str | None, has_examples: bool, report_name: str = REPORT.as_posix()) -> Stamp:
    """The stamp of one page, from the test report (None: there is none)."""
    s = STRINGS.in_language(language)

    def unverified(text: str) -> Stamp:
        return Stamp("warning", s["unverified"], text)

    if not has_examples:
        return Stamp("info", s["no_code"], s["no_code_text"])
    if report is None:
        return unverified(s["no_report"].format(report=report_name))
    date = report.get("date", "?")
    if report.get("torch") != torch_now:
        return unverified(s["other_torch"].format(then=report.get("torch"), now=torch_now))
    entry = (report.get("pages") or {}).get(page)
    if entry is None:
        return unverified(s["not_run"].format(date=date))
    date = entry.get("date", date)  # a page kept from an earlier run of the report: its own day
    if "sources" not in entry:
        return unverified(s["unrecorded"].format(date=date))
    changed = changed_sources(entry["sources"], current_sources)
    if changed:
        return unverified(s["changed"].format(date=date, files=", ".join(f"`{path}`" for path in changed)))
    facts = {"torch": report["torch"], "device": report.get("device", "?"), "date": date}
    passed, failed, skipped = (entry.get(key, 0) for key in ("passed", "failed", "skipped"))
    if failed:
        return Stamp("failure", s["failed"],
                     s["failures"].format(failed=failed, total=passed + failed + skipped, **facts))
    if not passed:
        return unverified(s["none_ran"].format(**facts) + _skips(s, entry))
    return Stamp("success", s["verified"], _form(s["passed"], passed, **facts) + _skips(s, entry))


def _listed(s: dict, items: list[str]) -> str:
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {s['and']} {items[-1]}"


def _code(text: str) -> str:
    """Inline code that survives any text (a failure may hold backticks or Markdown)."""
    return "`` " + text.replace("`", "'") + " ``"


def release_line(language: str, statuses: list[Status]) -> str:
    """One sentence on the page from every release that ran it (``Status`` per release)."""
    s = STRINGS.in_language(language)
    ran = sorted((status for status in statuses if status.state in ("passed", "failed", "skipped")),
                 key=lambda status: release_key(status.release))
    shared = shared_skips(ran)  # the main stamp's to name
    clauses = []
    passing = [status.release for status in ran if status.state == "passed"]
    if passing:
        clauses.append(s["releases_pass"].format(releases=_listed(s, passing)))
    # Releases that fail alike (same counts, same first failure) share one clause.
    failing: dict[tuple, list[str]] = {}
    for status in ran:
        if status.state == "failed":
            first = (describe_failure(language, status.failures[0], _code) if status.failures
                     else s["no_reason"])
            failing.setdefault((status.failed, status.total, first), []).append(status.release)
    for (failed, total, first), releases in failing.items():
        clauses.append(s["releases_fail"].format(release=_listed(s, releases), failed=failed,
                                                 total=total, failure=first))
    for status in ran:
        own = [reason for reason in status.skip_reasons if reason not in shared]
        if status.state == "failed":
            continue
        elif status.state == "skipped":
            clauses.append(s["releases_none"].format(
                release=status.release, reasons="; ".join(dict.fromkeys(status.skip_reasons)) or s["no_reason"]))
        elif own:
            clauses.append(_form(s["releases_skip"], len(own), release=status.release,
                                 reasons="; ".join(dict.fromkeys(own))))
    line = "; ".join(clauses)
    line = line[:1].upper() + line[1:] + "." if line else ""
    outdated = [status.release for status in statuses if status.state == "outdated"]
    if outdated:
        line = f"{line} {_form(s['releases_outdated'], len(outdated), releases=_listed(s, outdated))}"
    return line.strip()


def notebook_stamp(language: str, cells: int, executed: bool, cached: bool, torch_now: str | None,
                   device: str, date: str) -> Stamp:
    """The stamp of a notebook page that no test report covers: what this build's execution proves."""
    s = STRINGS.in_language(language)
    if not executed:
        return Stamp("warning", s["unverified"], s["notebook_off"])
    if cached:
        return Stamp("warning", s["unverified"], s["notebook_cached"])
    return Stamp("success", s["verified"],
                 _form(s["notebook_ran"], cells, torch=torch_now, device=device, date=date))


def insert_under_title(markdown: str, stamp: Stamp) -> str:
    """Put the stamp right after the page's first level-1 heading (at the top if it has none)."""
    lines = markdown.split("\n")
    for index, (line, prose) in enumerate(lines_with_prose_flag(markdown)):
        if prose and re.match(r"^#\s+\S", line):
            return "\n".join(lines[: index + 1] + ["", stamp.markdown()] + lines[index + 1 :])
    return stamp.markdown() + "\n" + markdown


def load_report(path: Path) -> dict | None:
    if not path.is_file():
        return None
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise PluginError(f"{path}: not a readable example report ({error}); rerun python -m pytest") from error
    if not isinstance(report, dict) or not isinstance(report.get("pages"), dict):
        raise PluginError(f"{path}: not an example report (no 'pages'); rerun python -m pytest")
    return report


def _count_examples(path: Path, root: Path) -> int:
    """The examples the test suite collects from this page: its Python blocks, as Sybil sees them."""
    from sybil import Document

    from ptdocs.pages import PageBlockParser

    document = Document(path.read_text(encoding="utf-8"), str(path))
    return sum(1 for _ in PageBlockParser(root)(document))


# ---- MkDocs events ----------------------------------------------------------------------------

_build: dict = {}


def on_pre_build(config):
    root = Path(config.config_file_path).parent
    _build.clear()
    try:
        releases = load_results(root)
        for language in STRINGS:  # a missing translation stops the build here, in one line
            STRINGS[language], FAILURES[language]
    except (VersionsError, CatalogError) as error:
        raise PluginError(f"stamp hook: {error}") from None
    _build.update(root=root, report=load_report(root / REPORT), torch=installed_torch(), notebooks={},
                  pages={}, releases=releases)


def _page_language(page, config) -> str:
    first = page.file.src_uri.split("/", 1)[0]
    return first if first in STRINGS else config.theme.get("language", "en")


def on_page_markdown(markdown, page, config, files):
    source = Path(page.file.abs_src_path)
    language = _page_language(page, config)
    report = _build["report"]
    entry = (report or {}).get("pages", {}).get(page.file.src_uri)
    if source.suffix == ".ipynb":
        # mkdocs-jupyter renders notebooks itself; the stamp goes into its HTML (on_page_content).
        if entry is not None:
            stamp = report_stamp(language, page.file.src_uri, report, page_sources(source, _build["root"]),
                                 _build["torch"], True)
        else:
            stamp = _notebook_build_stamp(source, language, config)
        _build["notebooks"][page.file.src_uri] = stamp
        return markdown
    sources = page_sources(source, _build["root"])
    stamp = report_stamp(language, page.file.src_uri, report, sources,
                         _build["torch"], _count_examples(source, _build["root"]) > 0)
    statuses = [page_status(result, page.file.src_uri, sources) for result in _build["releases"].values()]
    stamp = replace(stamp, releases=release_line(language, statuses))
    _build["pages"][page.file.src_uri] = stamp
    return insert_under_title(markdown, stamp)


def on_page_content(html, page, config, files):
    stamp = _build.get("pages", {}).get(page.file.src_uri)
    if stamp is not None:  # rendered from the page's Markdown, with the site's extensions
        return excluded_from_search(html, stamp)
    stamp = _build.get("notebooks", {}).get(page.file.src_uri)
    if stamp is None:
        return html
    end = html.find("</h1>")
    at = end + len("</h1>") if end >= 0 else 0
    return html[:at] + stamp.html() + html[at:]


def _notebook_build_stamp(source: Path, language: str, config) -> Stamp:
    import nbformat

    cells = sum(1 for cell in nbformat.read(source, as_version=4).cells
                if cell.cell_type == "code" and cell.source.strip())
    executed, cached = _jupyter_execution(source, config)
    return notebook_stamp(language, cells, executed, cached, _build["torch"],
                          _device() if executed and not cached else "",
                          datetime.date.today().isoformat())


def _device() -> str:
    # Imported only for a notebook that runs in this build: ptdocs.report imports pytest and the
    # page parser, and device_description torch (seconds), which a build that reuses every
    # render does not need.
    from ptdocs.report import device_description

    return device_description()


def _jupyter_execution(source: Path, config) -> tuple[bool, bool]:
    """(will this build execute the notebook with errors failing it, will it use a cached render)."""
    plugin = config.plugins.get("mkdocs-jupyter")
    if plugin is None:
        return False, False
    settings = plugin.config
    executed = executes(source, settings) and not settings["allow_errors"]
    if not executed or not settings["cache"]:
        return executed, False
    try:
        return executed, made_earlier(source, settings)
    except ImportError:  # the cache layout is not what we know: do not claim a fresh run
        return executed, True

