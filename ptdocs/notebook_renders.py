"""Where mkdocs-jupyter keeps its render of a notebook (keyed on the notebook's bytes
and its settings): the one place that computes it, for the stamp (did the notebook run
in this build?) and the notebooks hook (render ahead; keep every language's renders).
"""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path, PurePath

# The renders this build makes ahead of their pages (ptdocs/hooks/notebooks.py), by
# cache path: a cache hit for mkdocs-jupyter, but a notebook that ran for the stamp.
made_by_this_build: dict[Path, Future] = {}


def executes(notebook: Path, settings) -> bool:
    """Whether mkdocs-jupyter runs the notebook (``execute``, unless ``execute_ignore``
    matches)."""
    ignored = settings["execute_ignore"] or []
    return bool(settings["execute"]) and not any(map(PurePath(notebook).match, ignored))


def made_earlier(notebook: Path, settings) -> bool:
    """Whether the build will show a render an earlier build made (so the notebook did
    not run in this one). Raises ImportError as render_path does."""
    path = render_path(notebook, settings)
    return path.exists() and path not in made_by_this_build


def render_path(notebook: Path, settings) -> Path:
    """The cache file of the notebook's render, as it is now. ImportError: this
    mkdocs-jupyter has another cache layout (the callers then claim no fresh run)."""
    from mkdocs_jupyter.plugin import _compute_cache_key, _get_cache_path

    key = _compute_cache_key(str(notebook), settings, executes(notebook, settings))
    return _get_cache_path(settings["cache_dir"], key)
