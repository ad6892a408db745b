"""What a page's verification depends on: the page, the snippet files it includes and,
for a translated page, its comment catalog. The test run records these fingerprints;
the build recomputes them, so a page edited after a run is not stamped with it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .catalog import LANGUAGES, po_path
from .includes import include_target, split_target
from .layout import language
from .snippets import ROOT

REPORT = Path("reports") / "examples.json"  # what the test run recorded, per page


def _digest(path: Path) -> str:
    """SHA-256 with CRLF read as LF (clones on either agree); "missing" for a file
    that is not there: a page cannot have passed with it."""
    if not path.is_file():
        return "missing"
    return hashlib.sha256(path.read_bytes().replace(b"\r\n", b"\n")).hexdigest()


def page_sources(page: Path, root: Path = ROOT) -> dict[str, str]:
    """The fingerprints of ``page``'s sources, by path from the repository root. A
    translated page's examples run with its language's snippets.po comments, so that
    catalog is one of them."""
    page, root = Path(page).resolve(), Path(root).resolve()
    sources = {page.relative_to(root).as_posix(): _digest(page)}
    if page.suffix != ".md":
        return sources
    for line in page.read_text(encoding="utf-8").splitlines():
        if (target := include_target(line)) is not None:
            path = split_target(target)[0]
            sources[Path(path).as_posix()] = _digest(root / path)
    try:
        translated = language(page.relative_to(root / "docs").as_posix())
    except ValueError:  # not a page under docs/<language>/
        translated = None
    if len(sources) > 1 and translated in LANGUAGES:
        catalog = po_path("snippets", translated, Path("."))
        sources[catalog.as_posix()] = _digest(root / catalog)
    return dict(sorted(sources.items()))
