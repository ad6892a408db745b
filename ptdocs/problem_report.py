""" "Report a problem with this page": a new issue of ``repo_url``, filled in.

The page's link (ptdocs/hooks/report_link.py) and a downloaded page's check
(ptdocs.output_check.issue_url) open .github/ISSUE_TEMPLATE/page-problem.yml with
these fields filled in from the link's query; the reader adds what they saw.
"""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path

from .catalog import Texts

TEXTS = Texts("report", {"link": "Report a problem with this page"})


def repository(config) -> str:
    """Where a report goes: ``repo_url``, so that a fork's site reports to the fork."""
    return (config.get("repo_url") or "").rstrip("/")


@functools.cache
def built_commit(root: Path) -> str:
    """The commit checked out at ``root``, ``-dirty`` where tracked files differ; in
    a workflow without the repository's history GITHUB_SHA, else ``unknown``."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    try:
        head = git("rev-parse", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return os.environ.get("GITHUB_SHA", "unknown")
    return head + ("-dirty" if changed else "")


def fields(page_url: str, language: str, commit: str, torch: str) -> dict[str, str]:
    """What a report of a page says before the reader writes anything (by field id)."""
    return {
        "title": f"[{language}] {page_url}",
        "page": page_url,
        "language": language,
        "commit": commit,
        "torch": torch,
    }
