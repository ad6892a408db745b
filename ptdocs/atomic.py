"""Write files whole or not at all: a reader or a failed run never sees half a file.

Kept apart from :mod:`ptdocs.report` (which imports torch) so that the translators'
command, the notebook generator and the build hooks can write files without it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# The temporary file's name ends in TEMPORARY_SUFFIX, which .gitignore ignores: a run
# killed mid-write leaves nothing that git offers to commit.
TEMPORARY_SUFFIX = ".tmp"


def write_atomically(path: Path, text: str) -> None:
    """Write through a temporary file in the same folder, then rename: never half a
    file. The text is written as given, line endings included (no translation to CRLF
    on Windows)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        # mkstemp makes the file private (0600); give it the usual permissions.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
