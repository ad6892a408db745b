"""Write files whole or not at all; without torch (unlike ptdocs.report)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# .gitignore ignores it: a run killed mid-write leaves nothing git offers to commit.
TEMPORARY_SUFFIX = ".tmp"


def write_atomically(path: Path, text: str) -> None:
    """Through a temporary file in the same folder, then a rename; the line endings as
    given (no CRLF on Windows)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        umask = os.umask(0)  # mkstemp makes the file 0600: give the usual permissions
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
