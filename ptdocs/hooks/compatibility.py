"""Fill each language's compatibility page with the page examples' results on every
torch release.

The ``<!-- compatibility -->`` line of ``docs/<language>/compatibility.md`` is
replaced, while the site is built, by what the committed runs in
``reports/versions/`` show (see :mod:`ptdocs.versions`): the supported releases and
which of them ran (torch build, device, date, totals), a table of every page with
examples by release, and each failure and each skip that only some releases show,
with its reason. A cell says "outdated" where the page or its snippets changed after
that release's run: the run no longer speaks for the page. Page titles are the
menu's, in the page's language.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from mkdocs.exceptions import PluginError

from ptdocs.catalog import CatalogError, Plural, Texts
from ptdocs.downloads import requirements
from ptdocs.failures import STRINGS as FAILURES
from ptdocs.failures import describe as describe_failure
from ptdocs.layout import language as page_language
from ptdocs.provenance import page_sources
from ptdocs.versions import (
    RESULTS,
    SUPPORTED,
    Result,
    VersionsError,
    built_language,
    load_results,
    page_status,
    release_key,
    shared_skips,
    totals,
)

MARKER = "<!-- compatibility -->"
PAGE = "compatibility.md"

# The page's words, in English; each other language's are in
# locale/<language>/LC_MESSAGES/interface.po (ptdocs.catalog). A pair is (one, many):
# the form for a count of 1, and for any other count.
STRINGS = Texts(
    "compatibility",
    {
        "supported": (
            "Supported releases: torch {first} to {last}, each run at its latest patch "
            "release ({releases}). This site is built and tested with torch {pinned}, "
            "the release `requirements.txt` pins."
        ),
        "runs_heading": "Runs",
        "release": "Release",
        "build": "torch build",
        "device": "Device",
        "date": "Date",
        "passed": "Passed",
        "failed": "Failed",
        "skipped": "Skipped",
        "not_run_yet": "not run yet",
        "pages_heading": "Page by release",
        "page": "Page",
        "cell_passed": "{passed} pass",
        "cell_skips": Plural("{passed} pass, 1 skipped", "{passed} pass, {n} skipped"),
        "cell_failed": "{failed} of {total} fail",
        "cell_none": "none ran",
        "cell_not_run": "not run",
        "cell_outdated": "outdated",
        "outdated_note": (
            "*outdated*: the page or its code changed after that release's run, so "
            "the run "
            "no longer speaks for it."
        ),
        "notes_heading": "Failures and release-specific skips",
        "failure": "**{page}**, torch {release}: {failure}",
        "skip": "**{page}**, torch {release}, skipped: {reason}",
        # Only the pages as they are now: a run's failures on a page changed since are
        # not its failures.
        "no_notes": (
            "None on the pages as they are now: every example that ran passed, and "
            "every skip is "
            "shared by all releases."
        ),
        "none": "No release has been run yet: `python -m ptdocs.versions run RELEASE` "
        "writes `{folder}/RELEASE.json`.",
    },
)

_build: dict = {}


def on_pre_build(config):
    try:
        _build["results"] = load_results(Path(config.config_file_path).parent)
        # A missing translation stops the build here, in one line.
        for language in STRINGS:
            STRINGS[language], FAILURES[language]
    except (VersionsError, CatalogError) as error:
        raise PluginError(f"compatibility page: {error}") from None


def on_nav(nav, config, files):
    # The menu's titles in the page's language, and its order.
    _build["titles"] = {page.file.src_uri: page.title for page in nav.pages}
    return nav


def _code(text: str) -> str:
    return "`` " + text.replace("`", "'").replace("|", "\\|") + " ``"


def section(
    language: str,
    page_uri: str,
    results: dict[str, Result],
    titles: dict[str, str],
    root: Path,
) -> str:
    """The Markdown that replaces the marker on the compatibility page ``page_uri``."""
    s = STRINGS[language]
    releases = sorted(set(SUPPORTED) | set(results), key=release_key)
    out = [
        s["supported"].format(
            first=".".join(SUPPORTED[0].split(".")[:2]),
            last=".".join(SUPPORTED[-1].split(".")[:2]),
            releases=", ".join(SUPPORTED),
            pinned=requirements(root).get("torch", "?"),
        ),
        "",
    ]
    if not results:
        return "\n".join(out + [s["none"].format(folder=RESULTS.as_posix()), ""])

    out += [
        f"## {s['runs_heading']}",
        "",
        f"| {s['release']} | {s['build']} | {s['device']} | {s['date']} | "
        f"{s['passed']} | {s['failed']} "
        f"| {s['skipped']} |",
        "|---|---|---|---|--:|--:|--:|",
    ]
    for release in releases:
        result = results.get(release)
        if result is None:
            out.append(f"| {release} | {s['not_run_yet']} | | | | | |")
            continue
        counts = totals(result.pages).get(
            language, {"passed": 0, "failed": 0, "skipped": 0}
        )
        out.append(
            f"| {release} | {result.torch} | {result.device} | {result.date} | "
            f"{counts['passed']} "
            f"| {counts['failed']} | {counts['skipped']} |"
        )

    pages = {
        page
        for result in results.values()
        for page in result.pages
        if page_language(page) == language
    }
    order = list(titles)
    pages = sorted(
        pages,
        key=lambda page: (order.index(page) if page in order else len(order), page),
    )
    out += [
        "",
        f"## {s['pages_heading']}",
        "",
        f"| {s['page']} | " + " | ".join(releases) + " |",
        "|---|" + "---|" * len(releases),
    ]
    notes, outdated = [], False
    for page in pages:
        path = root / "docs" / page
        current = page_sources(path, root) if path.is_file() else {}
        title = titles.get(page, page)
        link = f"[{title}]({posixpath.relpath(page, posixpath.dirname(page_uri))})"
        statuses = [
            page_status(results[release], page, current) if release in results else None
            for release in releases
        ]
        shared = shared_skips(statuses)  # as on the stamps
        cells = []
        for status in statuses:
            if status is None or status.state == "not_run":
                cells.append(s["cell_not_run"])
            elif status.state == "outdated":
                cells.append(s["cell_outdated"])
                outdated = True
            elif status.state == "failed":
                cells.append(
                    s["cell_failed"].format(failed=status.failed, total=status.total)
                )
                notes += [
                    s["failure"].format(
                        page=title,
                        release=status.release,
                        failure=describe_failure(language, failure, _code),
                    )
                    for failure in status.failures[:1]
                ]
            elif status.state == "skipped":
                cells.append(s["cell_none"])
            else:
                cells.append(
                    s["cell_skips"](status.skipped, passed=status.passed)
                    if status.skipped
                    else s["cell_passed"].format(passed=status.passed)
                )
            if status is not None and status.state == "passed":
                notes += [
                    s["skip"].format(page=title, release=status.release, reason=reason)
                    for reason in dict.fromkeys(status.skip_reasons)
                    if reason not in shared
                ]
        out.append(f"| {link} | " + " | ".join(cells) + " |")
    if outdated:
        out += ["", s["outdated_note"]]
    out += ["", f"## {s['notes_heading']}", ""]
    out += [f"- {note}" for note in notes] if notes else [s["no_notes"]]
    return "\n".join(out) + "\n"


def on_page_markdown(markdown, page, config, files):
    if posixpath.basename(page.file.src_uri) != PAGE:
        return markdown
    if markdown.count(MARKER) != 1:
        raise PluginError(
            f"{page.file.src_uri}: put exactly one '{MARKER}' line where the table goes"
        )
    root = Path(config.config_file_path).parent
    text = section(
        built_language(page.file, config, STRINGS),
        page.file.src_uri,
        _build.get("results", {}),
        _build.get("titles", {}),
        root,
    )
    return markdown.replace(MARKER, text)
