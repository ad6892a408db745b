"""The ``<!-- compatibility -->`` line of each language's compatibility.md becomes
what reports/versions/ shows (ptdocs.versions): the runs, every page by release, and
each failure or skip that only some releases show. "outdated": the page or its
snippets changed after that release's run, which then no longer speaks for it.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from mkdocs.exceptions import PluginError

from ptdocs.catalog import CatalogError, Plural, Texts
from ptdocs.downloads import requirements
from ptdocs.failures import STRINGS as FAILURES
from ptdocs.failures import describe as describe_failure
from ptdocs.generated import markdown_table
from ptdocs.layout import language as page_language
from ptdocs.versions import (
    COUNTS,
    RESULTS,
    SUPPORTED,
    Result,
    VersionsError,
    built_language,
    load_results,
    page_statuses,
    release_key,
    totals,
)

MARKER = "<!-- compatibility -->"
PAGE = "compatibility.md"

# In English; each other language's are in locale/<language>/LC_MESSAGES/interface.po.
STRINGS = Texts(
    "compatibility",
    {
        "supported": (
            "Supported releases: torch {first} to {last}, each run at its latest patch "
            "release ({releases}). This site is built and tested with torch {pinned}, "
            "the release `requirements.txt` pins."
        ),
        "runs_heading": "Runs",
        # The runs table's column names, one entry each: a translation cannot add or
        # lose a column.
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
        "cell_skipped": "none ran",  # none of the page's examples ran
        "cell_not_run": "not run",
        "cell_outdated": "outdated",
        "outdated_note": (
            "*outdated*: the page or its code changed after that release's run, so "
            "the run no longer speaks for it."
        ),
        "notes_heading": "Failures and release-specific skips",
        "failure": "**{page}**, torch {release}: {failure}",
        "skip": "**{page}**, torch {release}, skipped: {reason}",
        # Only the pages as they are now: a changed page's old failures are not its own.
        "no_notes": (
            "None on the pages as they are now: every example that ran passed, and "
            "every skip is shared by all releases."
        ),
        "none": "No release has been run yet: `python -m ptdocs.versions run RELEASE` "
        "writes `{folder}/RELEASE.json`.",
    },
)

_build: dict = {}


def check_catalogs(strings: Texts, root: Path, what: str) -> dict[str, Result]:
    """The committed results, with every language's strings: a missing translation
    or a broken result stops the build here, in one line."""
    try:
        for language in strings:
            strings[language], FAILURES[language]
        return load_results(root)
    except (VersionsError, CatalogError) as error:
        raise PluginError(f"{what}: {error}") from None


def on_pre_build(config):
    root = Path(config.config_file_path).parent
    _build["results"] = check_catalogs(STRINGS, root, "compatibility page")


def on_nav(nav, config, files):
    _build["titles"] = {page.file.src_uri: page.title for page in nav.pages}
    return nav


def section(
    language: str,
    page_uri: str,
    results: dict[str, Result],
    titles: dict[str, str],
    root: Path,
) -> str:
    """The Markdown that replaces the marker on the compatibility page ``page_uri``."""
    s = STRINGS[language]
    minor = [".".join(release.split(".")[:2]) for release in SUPPORTED]
    out = [
        s["supported"].format(
            first=minor[0],
            last=minor[-1],
            releases=", ".join(SUPPORTED),
            pinned=requirements(root).get("torch", "?"),
        ),
        "",
    ]
    if not results:
        return "\n".join(out + [s["none"].format(folder=RESULTS.as_posix()), ""])

    releases = sorted(set(SUPPORTED) | set(results), key=release_key)
    heads = [s[key] for key in ("release", "build", "device", "date", *COUNTS)]
    runs = []
    for release in releases:
        if (result := results.get(release)) is None:
            runs.append((release, s["not_run_yet"], *[""] * (len(heads) - 2)))
            continue
        counts = totals(result.pages).get(language, dict.fromkeys(COUNTS, 0))
        facts = (result.torch, result.device, result.date)
        runs.append((release, *facts, *(counts[k] for k in COUNTS)))
    align = ["---|"] * 4 + ["---:|"] * len(COUNTS)
    out += [f"## {s['runs_heading']}", "", markdown_table(heads, runs, align)]

    order = list(titles)
    pages = sorted(
        {p for r in results.values() for p in r.pages if page_language(p) == language},
        key=lambda page: (order.index(page) if page in order else len(order), page),
    )
    notes, outdated, rows = [], False, []
    for page in pages:
        title = titles.get(page, page)
        link = f"[{title}]({posixpath.relpath(page, posixpath.dirname(page_uri))})"
        statuses = page_statuses([results.get(r) for r in releases], page, root)
        passing = [st for st in statuses if st and st.state == "passed"]
        # Skips every passing release shares (no accelerator here) are not repeated.
        shared = set.intersection(*[set(st.skip_reasons) for st in passing] or [set()])
        cells = []
        for st in statuses:
            state = st.state if st else "not_run"
            outdated |= state == "outdated"
            if state == "passed" and st.skipped:
                cells.append(s["cell_skips"](st.skipped, passed=st.passed))
            else:
                fields = st.fields if st else {}
                cells.append(s[f"cell_{state}"].format(**fields))
            if state == "failed" and st.failures:
                said = describe_failure(language, st.failures[0])
                notes.append(
                    s["failure"].format(page=title, release=st.release, failure=said)
                )
            elif state == "passed":
                notes += [
                    s["skip"].format(page=title, release=st.release, reason=reason)
                    for reason in dict.fromkeys(st.skip_reasons)
                    if reason not in shared
                ]
        rows.append((link, *cells))
    out += ["", f"## {s['pages_heading']}", ""]
    out.append(markdown_table((s["page"], *releases), rows))
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
    text = section(
        built_language(page.file, config, STRINGS),
        page.file.src_uri,
        _build.get("results", {}),
        _build.get("titles", {}),
        Path(config.config_file_path).parent,
    )
    return markdown.replace(MARKER, text)
