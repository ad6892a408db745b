"""A stamp on every page with code, in its language, from the real test runs
(ptdocs.versions' Status of the page in reports/examples.json and reports/versions/):
a quiet line at the page's end when its examples passed on the page as it is now, a
neutral note when no run speaks for it, a box under the title when one failed here.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from html import escape
from pathlib import Path

import markdown as markdown_lib
from babel.dates import format_date
from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from ptdocs.catalog import Plural, Texts, listed
from ptdocs.downloads import guide_pages
from ptdocs.failures import describe as describe_failure
from ptdocs.generated import after_title
from ptdocs.hooks import compatibility
from ptdocs.notebook_renders import executes, made_earlier
from ptdocs.provenance import REPORT
from ptdocs.versions import (
    SUPPORTED,
    Status,
    VersionsError,
    built_language,
    installed_torch,
    load_result,
    page_statuses,
    public,
    release_key,
)

# In English; each other language's are in locale/<language>/LC_MESSAGES/interface.po.
# A Plural: each language writes its whole sentence for each count (a verb agrees).
STRINGS = Texts(
    "stamp",
    {
        "failed": "Failing examples",
        "unverified": "Not verified in this build.",
        # {releases}: the link to the releases page, "torch 2.10–2.15".
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
            "building to verify the pages."
        ),
        "not_run": "The last test run ({date}) did not run the examples of this page.",
        "changed": "This page or the code it shows changed after the last test run "
        "({date}): {files}.",
        "other_torch": "The last test run used torch {then}; this site was built with "
        "torch {now}.",
        "notebook_ran": Plural(
            "The 1 code cell of this notebook ran without error while this page was "
            "built, with torch {torch} on {device}, {date}.",
            "All {n} code cells of this notebook ran without error while this page "
            "was built, with torch {torch} on {device}, {date}.",
        ),
        # The mkdocs-jupyter settings that make a build not prove the notebook runs.
        "notebook_not_run": (
            "This build did not run this notebook, or ran it without failing on an "
            "error (mkdocs-jupyter: `execute` off or the notebook in `execute_ignore`, "
            "`allow_errors` on, or outputs reused from its cache)."
        ),
        # A release on which some of the page's examples fail, after the line.
        "releases_fail": Plural(
            "On torch {release}, 1 of {total} fails: {failure}.",
            "On torch {release}, {n} of {total} fail: {failure}.",
        ),
    },
)

VERIFIED, FAILED, UNVERIFIED = "verified", "failed", "unverified"
RELEASES = "{releases}"  # where a verified line links to the releases page


@dataclass(frozen=True)
class Stamp:
    state: str  # VERIFIED, FAILED or UNVERIFIED
    text: str  # Markdown; a verified line holds RELEASES where its link goes
    releases: str = ""  # a verified line: the releases that passed, "2.10–2.15"
    title: str = ""  # a failure: its box's title

    def markdown(self, url: str | None = None) -> str:
        """The line, its releases linked to ``url`` if any."""
        releases = f"torch {self.releases}"
        text = self.text.replace(RELEASES, f"[{releases}]({url})" if url else releases)
        return f"✓ {text}" if self.state == VERIFIED else text

    def html(self, url: str | None = None) -> str:
        """A failure's box as Python-Markdown's admonition writes it (for under the
        title), or the quiet line as Material's md-source-file (for the page's end)."""
        if self.state == FAILED:
            return (
                '<div class="admonition failure" data-search-exclude>\n'
                f'<p class="admonition-title">{escape(self.title, quote=False)}</p>\n'
                f"{markdown_lib.markdown(self.text)}\n</div>\n"
            )
        line = markdown_lib.markdown(self.markdown(url))
        return (
            '<aside class="md-source-file ptdocs-end ptdocs-stamp '
            f'ptdocs-stamp--{self.state}" data-search-exclude>\n'
            f"{line}\n</aside>\n"
        )


def _skips(s: dict, status: Status) -> str:
    if not status.skipped:
        return ""
    reasons = "; ".join(dict.fromkeys(status.skip_reasons)) or s["no_reason"]
    return " " + s["skipped"](status.skipped, reasons=reasons)


def _date(text: str, language: str) -> str:
    """2026-12-02 -> "2 Dec 2026", "2 dic 2026"."""
    try:
        return format_date(
            datetime.date.fromisoformat(text), "d MMM y", locale=language
        )
    except (TypeError, ValueError):
        return str(text)


def releases_span(language: str, releases) -> str:
    """The releases that passed, short: consecutive supported ones as a range by
    minor version ("2.10–2.15"); any other release by its own number."""
    groups: list[list[str]] = []
    for release in sorted({public(release) for release in releases}, key=release_key):
        last = groups[-1][-1] if groups else None
        if release in SUPPORTED and last in SUPPORTED:
            if SUPPORTED.index(last) == SUPPORTED.index(release) - 1:
                groups[-1].append(release)
                continue
        groups.append([release])

    def name(release: str) -> str:
        return ".".join(release.split(".")[:2]) if release in SUPPORTED else release

    spans = [name(g[0]) + (f"–{name(g[-1])}" if len(g) > 1 else "") for g in groups]
    return listed(spans, language)


def _failing_releases(s: dict, language: str, runs: list[Status]) -> str:
    """A sentence per release with failing examples; alike ones share it."""
    failing: dict[tuple, list[str]] = {}
    for status in runs:
        if status.state == "failed":
            first = s["no_reason"]
            if status.failures:
                first = describe_failure(language, status.failures[0])
            key = (status.failed, status.total, first)
            failing.setdefault(key, []).append(status.release)
    return "".join(
        " "
        + s["releases_fail"](
            n,
            release=listed(rs, language),
            total=total,
            failure=first.rstrip("."),
        )
        for (n, total, first), rs in failing.items()
    )


WHY = {"not_run": "not_run", "outdated": "changed", "skipped": "none_ran"}


def report_stamp(
    language: str, now: Status | None, torch_now: str | None, runs: list[Status] = ()
) -> Stamp:
    """A page's stamp from what the test report says of it (None: there is none) and
    what each release's run says of it."""
    s = STRINGS.in_language(language)
    runs = sorted(runs, key=lambda status: release_key(status.release))
    passing = [status for status in runs if status.state == "passed"]
    also = _failing_releases(s, language, runs)

    def verified(status: Status, proofs: list[Status]) -> Stamp:
        device = listed(dict.fromkeys(p.device for p in proofs), language)
        when = _date(max(proof.date for proof in proofs), language)
        line = s["verified"](status.passed, releases=RELEASES, device=device, date=when)
        span = releases_span(language, [proof.release for proof in proofs])
        return Stamp(VERIFIED, line + _skips(s, status) + also, span)

    if now is None:
        why = s["no_report"].format(report=REPORT.as_posix())
    elif now.torch != torch_now:
        why = s["other_torch"].format(then=now.torch, now=torch_now)
    elif now.state == "passed":
        return verified(now, [now, *passing])
    else:
        files = ", ".join(f"`{path}`" for path in now.changed)
        facts = {**now.fields, "files": files}
        if now.state == "failed":
            return Stamp(FAILED, s["failures"].format(**facts), title=s["failed"])
        why = s[WHY[now.state]].format(**facts) + _skips(s, now)
    if passing:  # the release runs, made on the page as it is, speak for it
        return verified(max(passing, key=lambda status: status.date), passing)
    return Stamp(UNVERIFIED, f"{s['unverified']} {why}{also}")


def notebook_stamp(
    language: str, cells: int, ran: bool, torch: str | None, device: str, date: str
) -> Stamp | None:
    """A notebook page no test report covers: what this build's execution proves;
    None for one without code, which gets no stamp, as a page without code."""
    s = STRINGS.in_language(language)
    if not cells:
        return None
    if not ran:
        return Stamp(UNVERIFIED, f"{s['unverified']} {s['notebook_not_run']}")
    text = s["notebook_ran"](
        cells, torch=torch, device=device, date=_date(date, language)
    )
    return Stamp(VERIFIED, text)


def load_report(path: Path):
    """reports/examples.json as a versions.Result; None where no test run wrote it."""
    try:
        return load_result(path, named=False) if path.is_file() else None
    except VersionsError as error:
        raise PluginError(str(error)) from None


_build: dict = {}


def on_pre_build(config):
    root = Path(config.config_file_path).parent
    _build.update(
        root=root,
        releases=compatibility.check_catalogs(STRINGS, root, "stamp hook"),
        report=load_report(root / REPORT),
        torch=installed_torch(),
        # The pages with examples, as the test suite collects them.
        guides={page.resolve() for page in guide_pages(root)},
        stamps={},
    )


def on_page_markdown(markdown, page, config, files):
    source, uri = Path(page.file.abs_src_path), page.file.src_uri
    language = built_language(page.file, config, STRINGS)
    report, stamps = _build["report"], _build["stamps"]
    # A notebook (mkdocs-jupyter renders it; on_page_content adds the stamp) gets what
    # this build proves: pytest collects *.md only, so no test report covers one.
    if source.suffix == ".ipynb":
        stamps[uri] = _notebook_build_stamp(source, language, config)
    elif source.resolve() in _build["guides"]:
        results = [report, *_build["releases"].values()]
        now, *runs = page_statuses(results, uri, _build["root"], source)
        stamps[uri] = report_stamp(language, now, _build["torch"], runs)
    return markdown


def on_page_content(html, page, config, files):
    stamp = _build.get("stamps", {}).get(page.file.src_uri)
    if stamp is None:
        return html
    if stamp.state == FAILED:  # where it cannot be missed
        return after_title(html, stamp.html())
    language = built_language(page.file, config, STRINGS)
    releases = (
        files.get_file_from_path(f"{language}/{compatibility.PAGE}") if files else None
    )
    return html + stamp.html(
        get_relative_url(releases.url, page.url) if releases else None
    )


def _notebook_build_stamp(source: Path, language: str, config) -> Stamp | None:
    import nbformat

    cells = nbformat.read(source, as_version=4).cells
    code = sum(1 for c in cells if c.cell_type == "code" and c.source.strip())
    device, ran = "", bool(code) and _runs_here(source, config)  # no code: no stamp
    if ran:
        # Only for a notebook that runs here: ptdocs.report imports pytest, and its
        # device_description torch (seconds), which a build reusing renders skips.
        from ptdocs.report import device_description

        device = device_description()
    today = datetime.date.today().isoformat()
    return notebook_stamp(language, code, ran, _build["torch"], device, today)


def _runs_here(source: Path, config) -> bool:
    """Whether this build executes the notebook, a failing cell failing the build, and
    not merely reuses a cached render."""
    plugin = config.plugins.get("mkdocs-jupyter")
    settings = plugin.config if plugin else {}
    if not plugin or not executes(source, settings) or settings["allow_errors"]:
        return False
    try:
        return not (settings["cache"] and made_earlier(source, settings))
    except ImportError:  # an unknown cache layout: claim no fresh run
        return False
