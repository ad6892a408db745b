"""A verification stamp on every page with code, in the page's language, from the
real test runs.

The test suite writes ``reports/examples.json`` (see :mod:`ptdocs.report`): per page,
how many examples passed, failed or were skipped (with the reasons), the torch build,
the device, the date, and fingerprints of the page and the snippet files it includes;
``reports/versions/`` holds the committed runs on other torch releases
(:mod:`ptdocs.versions`). The lesson comes first, so the stamp is one quiet line at
the page's end, where Material puts a page's own metadata (its ``md-source-file``
facts), linking to the releases page:

* the examples passed, in this build's run or in release runs made on the page as it
  is now:
  "✓ 28 examples verified with torch 2.10–2.15 on CPU (x86_64), 2 Dec 2026." (a range
  only where
  every supported release in it passed), with the skipped examples and their reasons,
  and each
  release on which some fail;
* no run speaks for the page (no report, as under ``mkdocs serve``; a page or snippet
  changed
  since the run; a report from another torch; no example ran): a neutral note saying
  which,
  never a warning box;
* an example failed in this build's run: a failure box right under the title, where
  it cannot be
  missed, and never a passing line;
* a page without code gets no stamp.

Notebook pages get their stamp from a report entry when one exists; otherwise from
what mkdocs-jupyter proves while building: with ``execute: true`` and ``allow_errors:
false`` every code cell ran without error in this build (a cell that raises stops
it), unless the output came from mkdocs-jupyter's cache of an earlier build, which
the stamp then says.

Readers see the stamp; search does not index it (Material's ``data-search-exclude``),
so a search result shows the page's own words.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from html import escape
from pathlib import Path

import markdown as markdown_lib
from babel.dates import format_date
from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from ptdocs.catalog import CatalogError, Plural, Texts
from ptdocs.failures import STRINGS as FAILURES
from ptdocs.failures import describe as describe_failure
from ptdocs.generated import after_title
from ptdocs.notebook_renders import executes, made_earlier
from ptdocs.provenance import REPORT, page_sources
from ptdocs.versions import (
    SUPPORTED,
    Status,
    VersionsError,
    built_language,
    installed_torch,
    load_results,
    page_status,
    public,
    release_key,
    status_of,
)

# The stamp's words, in English; each other language's are in
# locale/<language>/LC_MESSAGES/interface.po (ptdocs.catalog). A Plural is gettext's
# singular and plural ({n}): each language writes its whole sentence for each of its
# forms (a verb agrees with its count).
STRINGS = Texts(
    "stamp",
    {
        "failed": "Failing examples",
        "unverified": "Not verified in this build.",
        # {releases}: the link to the releases page, "torch 2.10–2.15"; {date}: "2 Dec
        # 2026".
        "verified": Plural(
            "1 example verified with {releases} on {device}, {date}.",
            "{n} examples verified with {releases} on {device}, {date}.",
        ),
        "skipped": Plural(
            "Skipped: 1 example ({reasons}).", "Skipped: {n} examples ({reasons})."
        ),
        "no_reason": "no reason recorded",
        "failures": "Examples on this page that failed: {failed} of {total}, with "
        "torch {torch} on {device}, {date}.",
        "none_ran": "No example on this page ran with torch {torch} on {device}, "
        "{date}.",
        "no_report": (
            "No test report was found ({report}): run `python -m pytest` before "
            "building "
            "to verify the pages."
        ),
        "not_run": "The last test run ({date}) did not run the examples of this page.",
        "changed": "This page or the code it shows changed after the last test run "
        "({date}): {files}.",
        "unrecorded": "The test report ({date}) does not record which version of this "
        "page it ran.",
        "other_torch": "The last test run used torch {then}; this site was built with "
        "torch {now}.",
        "notebook_ran": Plural(
            (
                "The 1 code cell of this notebook ran without error while this page "
                "was built, "
                "with torch {torch} on {device}, {date}."
            ),
            (
                "All {n} code cells of this notebook ran without error while this "
                "page was built, "
                "with torch {torch} on {device}, {date}."
            ),
        ),
        "notebook_cached": (
            "The outputs of this notebook were reused from mkdocs-jupyter's cache of "
            "an "
            "earlier build; the notebook did not run in this build."
        ),
        "notebook_off": (
            "This build does not execute notebooks, or lets a failing cell pass "
            "(mkdocs-jupyter: execute, allow_errors)."
        ),
        "and": "and",
        # A release on which some of the page's examples fail (ptdocs.versions), after
        # the line.
        "releases_fail": Plural(
            "On torch {release}, 1 of {total} fails: {failure}.",
            "On torch {release}, {n} of {total} fail: {failure}.",
        ),
    },
)

VERIFIED, FAILED, UNVERIFIED = "verified", "failed", "unverified"
RELEASES_PAGE = (
    "compatibility.md"  # in each language's folder: every release's run, page by page
)
RELEASES = "{releases}"  # where a verified line links to the releases page


@dataclass(frozen=True)
class Stamp:
    state: str  # VERIFIED, FAILED or UNVERIFIED
    text: str  # Markdown; a verified line holds RELEASES where its link goes
    releases: str = ""  # a verified line: the releases that passed, "2.10–2.15"
    title: str = ""  # a failure: its box's title

    def markdown(self, url: str | None = None) -> str:
        """A failure: its box. Anything else: the line, its releases linked to
        ``url`` if any."""
        if self.state == FAILED:
            return f'!!! failure "{self.title}"\n\n    {self.text}\n'
        releases = f"torch {self.releases}"
        text = self.text.replace(RELEASES, f"[{releases}]({url})" if url else releases)
        return f"✓ {text}" if self.state == VERIFIED else text

    def html(self, url: str | None = None) -> str:
        """The stamp as HTML, out of the search index (Material's
        ``data-search-exclude``): a failure's box as Python-Markdown's admonition
        writes it (for under the title), or the quiet line (for the page's end:
        Material's md-source-file, a page's metadata)."""
        if self.state == FAILED:
            return (
                '<div class="admonition failure" data-search-exclude>\n<p '
                'class="admonition-title">'
                f"{escape(self.title, quote=False)}</p>\n"
                f"{markdown_lib.markdown(self.text)}\n</div>\n"
            )
        line = (
            markdown_lib.markdown(self.markdown(url))
            .removeprefix("<p>")
            .removesuffix("</p>")
        )
        return (
            '<aside class="md-source-file ptdocs-end ptdocs-stamp '
            f'ptdocs-stamp--{self.state}" '
            f"data-search-exclude>\n<p>{line}</p>\n</aside>\n"
        )


def _skips(s: dict, skipped: int, reasons) -> str:
    if not skipped:
        return ""
    return " " + s["skipped"](
        skipped, reasons="; ".join(dict.fromkeys(reasons or [])) or s["no_reason"]
    )


def _listed(s: dict, items: list[str]) -> str:
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {s['and']} {items[-1]}"


def _code(text: str) -> str:
    """Inline code that survives any text (a failure may hold backticks or Markdown)."""
    return "`` " + text.replace("`", "'") + " ``"


def _date(text: str, language: str) -> str:
    """An ISO date as the language writes it short: 2026-12-02 -> "2 Dec 2026", "2
    dic 2026"."""
    try:
        day = datetime.date.fromisoformat(text)
    except (TypeError, ValueError):
        return str(text)
    return format_date(day, "d MMM y", locale=language)


def releases_span(s: dict, releases) -> str:
    """The torch releases that passed, short: runs of consecutive supported releases
    as a range ("2.10–2.15"), each named by its minor version (one supported release
    per minor); a release outside SUPPORTED by its own number."""
    groups: list[list[str]] = []
    for release in sorted({public(release) for release in releases}, key=release_key):
        index = SUPPORTED.index(release) if release in SUPPORTED else None
        last = groups[-1][-1] if groups else None
        if (
            index is not None
            and last in SUPPORTED
            and SUPPORTED.index(last) == index - 1
        ):
            groups[-1].append(release)
        else:
            groups.append([release])

    def name(release: str) -> str:
        return ".".join(release.split(".")[:2]) if release in SUPPORTED else release

    return _listed(
        s,
        [
            name(group[0]) if len(group) == 1 else f"{name(group[0])}–{name(group[-1])}"
            for group in groups
        ],
    )


def _failing_releases(s: dict, language: str, runs) -> str:
    """A sentence for each release on which some examples fail; releases that fail
    alike (same counts, same first failure) share one."""
    failing: dict[tuple, list[str]] = {}
    for status, *_when_and_where in runs:
        if status.state == "failed":
            first = (
                describe_failure(language, status.failures[0], _code)
                if status.failures
                else s["no_reason"]
            )
            failing.setdefault((status.failed, status.total, first), []).append(
                status.release
            )
    return "".join(
        " "
        + s["releases_fail"](
            failed, release=_listed(s, releases), total=total, failure=first.rstrip(".")
        )
        for (failed, total, first), releases in failing.items()
    )


def report_stamp(
    language: str,
    page: str,
    report: dict | None,
    current_sources: dict[str, str],
    torch_now: str | None,
    has_examples: bool,
    report_name: str = REPORT.as_posix(),
    runs: list[tuple[Status, str, str]] = (),
) -> Stamp | None:
    """The stamp of one page (None: it has no code), from the test report (None:
    there is none) and the release runs (``runs``: each release's Status for the page
    as it is now, with the date and the device of its run)."""
    s = STRINGS.in_language(language)
    if not has_examples:
        return None
    runs = sorted(runs, key=lambda run: release_key(run[0].release))
    passing = [run for run in runs if run[0].state == "passed"]
    also = _failing_releases(s, language, runs)

    def verified(n: int, releases, dates, devices, skipped: int, reasons) -> Stamp:
        date, device = (
            _date(max(dates), language),
            _listed(s, list(dict.fromkeys(devices))),
        )
        return Stamp(
            VERIFIED,
            s["verified"](n, releases=RELEASES, device=device, date=date)
            + _skips(s, skipped, reasons)
            + also,
            releases_span(s, releases),
        )

    def unverified(text: str) -> Stamp:
        if passing:  # the release runs, made on the page as it is, speak for it
            newest = max(passing, key=lambda run: run[1])[0]
            return verified(
                newest.passed,
                [status.release for status, *_ in passing],
                [date for _, date, _ in passing],
                [device for *_, device in passing],
                newest.skipped,
                newest.skip_reasons,
            )
        return Stamp(UNVERIFIED, f"{s['unverified']} {text}{also}")

    if report is None:
        return unverified(s["no_report"].format(report=report_name))
    date = report.get("date", "?")
    if report.get("torch") != torch_now:
        return unverified(
            s["other_torch"].format(then=report.get("torch"), now=torch_now)
        )
    entry = (report.get("pages") or {}).get(page)
    status = status_of(
        report["torch"], entry, current_sources
    )  # as each release's run is read
    if status.state == "not_run":
        return unverified(s["not_run"].format(date=date))
    date = entry.get(
        "date", date
    )  # a page kept from an earlier run of the report: its own day
    if status.state == "outdated":
        return unverified(
            s["changed"].format(
                date=date, files=", ".join(f"`{path}`" for path in status.changed)
            )
            if status.changed
            else s["unrecorded"].format(date=date)
        )
    facts = {
        "torch": report["torch"],
        "device": report.get("device", "?"),
        "date": date,
    }
    if status.state == "failed":
        return Stamp(
            FAILED,
            s["failures"].format(failed=status.failed, total=status.total, **facts),
            title=s["failed"],
        )
    if status.state == "skipped":
        return unverified(
            s["none_ran"].format(**facts)
            + _skips(s, status.skipped, status.skip_reasons)
        )
    return verified(
        status.passed,
        [report["torch"], *(run.release for run, *_ in passing)],
        [date, *(date for _, date, _ in passing)],
        [facts["device"], *(device for *_, device in passing)],
        status.skipped,
        status.skip_reasons,
    )


def notebook_stamp(
    language: str,
    cells: int,
    executed: bool,
    cached: bool,
    torch_now: str | None,
    device: str,
    date: str,
) -> Stamp:
    """The stamp of a notebook page that no test report covers: what this build's
    execution proves."""
    s = STRINGS.in_language(language)
    if not executed:
        return Stamp(UNVERIFIED, f"{s['unverified']} {s['notebook_off']}")
    if cached:
        return Stamp(UNVERIFIED, f"{s['unverified']} {s['notebook_cached']}")
    return Stamp(
        VERIFIED,
        s["notebook_ran"](
            cells, torch=torch_now, device=device, date=_date(date, language)
        ),
    )


def load_report(path: Path) -> dict | None:
    if not path.is_file():
        return None
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise PluginError(
            f"{path}: not a readable example report ({error}); rerun python -m pytest"
        ) from error
    if not isinstance(report, dict) or not isinstance(report.get("pages"), dict):
        raise PluginError(
            f"{path}: not an example report (no 'pages'); rerun python -m pytest"
        )
    return report


def _count_examples(path: Path, root: Path) -> int:
    """The examples the test suite collects from this page: its Python blocks, as
    Sybil sees them."""
    from sybil import Document

    from ptdocs.pages import PageBlockParser

    document = Document(path.read_text(encoding="utf-8"), str(path))
    return sum(1 for _ in PageBlockParser(root)(document))


# ---- MkDocs events
# ----------------------------------------------------------------------------

_build: dict = {}


def on_pre_build(config):
    root = Path(config.config_file_path).parent
    _build.clear()
    try:
        releases = load_results(root)
        # A missing translation stops the build here, in one line.
        for language in STRINGS:
            STRINGS[language], FAILURES[language]
    except (VersionsError, CatalogError) as error:
        raise PluginError(f"stamp hook: {error}") from None
    _build.update(
        root=root,
        report=load_report(root / REPORT),
        torch=installed_torch(),
        notebooks={},
        pages={},
        releases=releases,
    )


def on_page_markdown(markdown, page, config, files):
    source = Path(page.file.abs_src_path)
    language = built_language(page.file, config, STRINGS)
    report = _build["report"]
    sources = page_sources(source, _build["root"])
    runs = [
        (page_status(result, page.file.src_uri, sources), result.date, result.device)
        for result in _build["releases"].values()
    ]
    if source.suffix == ".ipynb":
        # mkdocs-jupyter renders notebooks itself; the stamp goes into its HTML
        # (on_page_content).
        if (report or {}).get("pages", {}).get(page.file.src_uri) is not None:
            stamp = report_stamp(
                language,
                page.file.src_uri,
                report,
                sources,
                _build["torch"],
                True,
                runs=runs,
            )
        else:
            stamp = _notebook_build_stamp(source, language, config)
        _build["notebooks"][page.file.src_uri] = stamp
        return markdown
    stamp = report_stamp(
        language,
        page.file.src_uri,
        report,
        sources,
        _build["torch"],
        _count_examples(source, _build["root"]) > 0,
        runs=runs,
    )
    _build["pages"][page.file.src_uri] = stamp
    return markdown


def on_page_content(html, page, config, files):
    pages, notebooks = _build.get("pages", {}), _build.get("notebooks", {})
    stamp = pages.get(page.file.src_uri) or notebooks.get(page.file.src_uri)
    if stamp is None:
        return html
    if (
        stamp.state == FAILED
    ):  # where it cannot be missed; any other stamp at the page's end
        return after_title(html, stamp.html())
    return html + stamp.html(_releases_url(page, config, files))


def _releases_url(page, config, files) -> str | None:
    """The releases page of the page's language, relative to the page (None: the site
    has none)."""
    language = built_language(page.file, config, STRINGS)
    releases = (
        files.get_file_from_path(f"{language}/{RELEASES_PAGE}") if files else None
    )
    return get_relative_url(releases.url, page.url) if releases else None


def _notebook_build_stamp(source: Path, language: str, config) -> Stamp:
    import nbformat

    cells = sum(
        1
        for cell in nbformat.read(source, as_version=4).cells
        if cell.cell_type == "code" and cell.source.strip()
    )
    executed, cached = _jupyter_execution(source, config)
    return notebook_stamp(
        language,
        cells,
        executed,
        cached,
        _build["torch"],
        _device() if executed and not cached else "",
        datetime.date.today().isoformat(),
    )


def _device() -> str:
    # Imported only for a notebook that runs in this build: ptdocs.report imports pytest
    # and the page parser, and device_description torch (seconds), which a build that
    # reuses every render does not need.
    from ptdocs.report import device_description

    return device_description()


def _jupyter_execution(source: Path, config) -> tuple[bool, bool]:
    """(will this build execute the notebook with errors failing it, will it use a
    cached render)."""
    plugin = config.plugins.get("mkdocs-jupyter")
    if plugin is None:
        return False, False
    settings = plugin.config
    executed = executes(source, settings) and not settings["allow_errors"]
    if not executed or not settings["cache"]:
        return executed, False
    try:
        return executed, made_earlier(source, settings)
    except (
        ImportError
    ):  # the cache layout is not what we know: do not claim a fresh run
        return executed, True
