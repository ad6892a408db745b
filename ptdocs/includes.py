"""The ``--8<--`` include syntax: an include line's target, and the lines of a snippet
file it shows (apart from :mod:`ptdocs.snippets`, which :mod:`ptdocs.catalog` cannot
import)."""

from __future__ import annotations

import re
from pathlib import Path

# An include line as pymdownx.snippets accepts it: dashes, 8<, dashes, a quoted path.
INCLUDE = re.compile(
    r"""^[ \t]*-+8<-+[ \t]+(?P<quote>["'])(?P<target>.+?)(?P=quote)[ \t]*$"""
)
NAME = r"[a-z][-_0-9a-z]*"
# A section marker: `# --8<-- [start:name]` or `# --8<-- [end:name]`.
SECTION = re.compile(
    rf"-+8<-+[ \t]+\[[ \t]*(?P<kind>start|end)[ \t]*:[ \t]*(?P<name>{NAME})[ \t]*\]",
    re.I,
)


class IncludeError(ValueError):
    """An include line that cannot be expanded, with a message for the page's author."""


def include_target(line: str) -> str | None:
    """The target of an include line (``path`` or ``path:section``), else None."""
    match = INCLUDE.match(line)
    return match["target"] if match else None


def split_target(target: str) -> tuple[str, str | None]:
    path, sep, section = target.rpartition(":")
    if sep and re.fullmatch(NAME, section, re.I):
        return path, section
    return target, None


def snippet_file(target: str, root: Path) -> tuple[str, Path]:
    """The target's file, relative to ``root`` and as a path; IncludeError if none."""
    rel = split_target(target)[0]
    if not (Path(root) / rel).is_file():
        raise IncludeError(f'--8<-- "{target}": there is no file {rel}')
    return rel, Path(root) / rel


def cut(target: str, lines: list[str]) -> tuple[int, list[str]]:
    """The 1-based number of the first line the target shows, and the lines shown:
    its section (or the whole file), with other sections' markers blanked so that the
    line numbers still match the file."""
    rel, section = split_target(target)
    first, body = 1, lines
    if section is not None:
        markers = [_marker(line) for line in lines]
        starts = [i for i, m in enumerate(markers) if m == ("start", section)]
        ends = [i for i, m in enumerate(markers) if m == ("end", section)]
        if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
            raise IncludeError(
                f'--8<-- "{target}": {rel} needs exactly one '
                f"'# --8<-- [start:{section}]' and one "
                f"'# --8<-- [end:{section}]' after it"
            )
        first, body = starts[0] + 2, lines[starts[0] + 1 : ends[0]]
    return first, ["" if SECTION.search(line) else line for line in body]


def _marker(line: str) -> tuple[str, str] | None:
    match = SECTION.search(line)
    return (match["kind"].lower(), match["name"]) if match else None
