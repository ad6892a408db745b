"""Where mkdocs-jupyter keeps its render of a notebook, as the stamp and notebooks
hooks need it.

mkdocs-jupyter caches each rendered notebook under a key made from the notebook's
bytes and its settings. The verification stamp asks whether a build will reuse a
cached render (then the notebook did not run); the notebooks hook keeps every
language's renders from being evicted. Both must compute the same path as
mkdocs-jupyter itself: this is the one place that does.
"""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path, PurePath

# The renders this build is making itself, ahead of their pages
# (ptdocs/hooks/notebooks.py), by cache path: a cache hit for mkdocs-jupyter when the
# page is built, but a notebook that ran in this build for the stamp. Emptied when the
# next build starts.
made_by_this_build: dict[Path, Future] = {}


def executes(notebook: Path, settings) -> bool:
    """Whether mkdocs-jupyter runs the notebook (``execute``, unless
    ``execute_ignore`` matches)."""
    return bool(settings["execute"]) and not any(
        PurePath(notebook).match(pattern)
        for pattern in settings["execute_ignore"] or []
    )


def made_earlier(notebook: Path, settings) -> bool:
    """Whether the build will show a render an earlier build made (the notebook did
    not run in this one). Raises ImportError as render_path does."""
    path = render_path(notebook, settings)
    return path.exists() and path not in made_by_this_build


def render_path(notebook: Path, settings) -> Path:
    """The cache file of the notebook's render, as it is now. Raises ImportError when
    this mkdocs-jupyter has another cache layout (the callers then claim no fresh
    run)."""
    from mkdocs_jupyter.plugin import _compute_cache_key, _get_cache_path

    key = _compute_cache_key(str(notebook), settings, executes(notebook, settings))
    return _get_cache_path(settings["cache_dir"], key)
