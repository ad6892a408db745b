"""What a page's verification depends on: the page file and the snippet files it
includes.

The test run records these fingerprints in ``reports/examples.json``; the
verification stamp recomputes them at build time, so a page edited after the tests
ran is never stamped with that older run's result.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .catalog import LANGUAGES, po_path
from .includes import include_target, split_target
from .layout import language
from .snippets import ROOT

# Where the test run records, per page, what ran and these fingerprints; the stamp reads
# it.
REPORT = Path("reports") / "examples.json"


def _digest(path: Path) -> str:
    # Line endings normalized, as for translation records: CRLF and LF clones agree.
    return hashlib.sha256(path.read_bytes().replace(b"\r\n", b"\n")).hexdigest()


def page_sources(page: Path, root: Path = ROOT) -> dict[str, str]:
    """SHA-256 of the page and of each snippet file it includes, by path from the
    repository root.

    A page in a translated language (``docs/es/...``) that includes snippets also
    depends on that language's comment catalog
    (``locale/es/LC_MESSAGES/snippets.po``): its examples run with those comments
    (ptdocs.catalog), so a change there is a change of what ran.

    A missing snippet file is recorded as ``"missing"``: the page cannot have passed
    with it, and its fingerprint must still differ from one that exists.
    """
    page = Path(page).resolve()
    root = Path(root).resolve()
    sources = {page.relative_to(root).as_posix(): _digest(page)}
    if page.suffix == ".md":
        for line in page.read_text(encoding="utf-8").splitlines():
            target = include_target(line)
            if target is None:
                continue
            path, _ = split_target(target)
            file = root / path
            sources[Path(path).as_posix()] = (
                _digest(file) if file.is_file() else "missing"
            )
        try:
            translated = language(page.relative_to(root / "docs").as_posix())
        except ValueError:  # not a page under docs/<language>/
            translated = None
        if len(sources) > 1 and translated in LANGUAGES:
            catalog = po_path("snippets", translated, Path("."))
            file = root / catalog
            sources[catalog.as_posix()] = _digest(file) if file.is_file() else "missing"
    return dict(sorted(sources.items()))
