""" "Report a problem with this page": a new issue of the project's repository, already
 filled in.

The link opens the issue form ``.github/ISSUE_TEMPLATE/page-problem.yml`` with the
page, its language, the commit the site was built from and the torch release its
examples are verified on filled in (GitHub fills a form's fields from the link's
query: ``?template=...&<field id>=...``); the reader adds what they expected, what
they saw, and their torch and OS. A downloaded page's check prints the same link with
the outputs that differ filled in as well (:func:`ptdocs.output_check.finish`); both
build it with :func:`ptdocs.output_check.issue_url`.

The repository is mkdocs.yml's ``repo_url``, its one setting, so a fork's site
reports to the fork. The hook ``ptdocs/hooks/report_link.py`` puts the link at the
end of every page.
"""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path

from .catalog import Texts

TEXTS = Texts(
    "report",
    {
        "link": "Report a problem with this page",
    },
)

# The form's fields that a link fills in (their ids in
# .github/ISSUE_TEMPLATE/page-problem.yml).
PAGE_FIELDS = ("page", "language", "commit", "torch")
READER_FIELDS = (
    "expected",
    "saw",
    "environment",
)  # the download's check fills these in


def repository(config) -> str:
    """The repository a report goes to: mkdocs.yml's ``repo_url``, without a trailing
    slash."""
    return (config.get("repo_url") or "").rstrip("/")


@functools.cache
def built_commit(root: Path) -> str:
    """The commit checked out at ``root`` (``-dirty`` where tracked files differ from
    it); in a GitHub workflow without the repository's history, GITHUB_SHA; otherwise
    ``unknown``."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return os.environ.get("GITHUB_SHA", "unknown")
    return head + ("-dirty" if changed.strip() else "")


def fields(page_url: str, language: str, commit: str, torch: str) -> dict[str, str]:
    """What a report of a page says before the reader writes anything."""
    return {
        "title": f"[{language}] {page_url}",
        "page": page_url,
        "language": language,
        "commit": commit,
        "torch": torch,
    }
