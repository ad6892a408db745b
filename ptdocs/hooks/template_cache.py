"""Compile the theme's templates once, not in every build: Jinja's bytecode cache.

MkDocs makes a new Jinja environment for every build (one per language with i18n).
Jinja checks each cached entry against the template's source and the Python version;
the folder's name adds the rest the compiled code depends on: Jinja's version and the
environment's settings, extensions, filters and tests.
"""

import hashlib
from pathlib import Path

import jinja2
from jinja2 import FileSystemBytecodeCache

FOLDER = Path(".cache") / "jinja2"  # under the project's root
# The attributes of a jinja2.Environment that change its compiled code.
SETTINGS = (
    "block_start_string block_end_string variable_start_string variable_end_string "
    "comment_start_string comment_end_string line_statement_prefix line_comment_prefix "
    "trim_blocks lstrip_blocks newline_sequence keep_trailing_newline optimized "
    "autoescape finalize is_async undefined"
).split()


def on_env(env, config, files):
    folder = cache_folder(env, Path(config.config_file_path).parent)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        env.bytecode_cache = FileSystemBytecodeCache(str(folder))
    return env


def cache_folder(env: jinja2.Environment, root: Path) -> Path | None:
    """None when the settings cannot be named: a function's repr ("<function f at
    0x...>") differs in every process."""
    shape = repr(
        (
            jinja2.__version__,
            [(name, repr(getattr(env, name, None))) for name in SETTINGS],
            sorted(env.extensions),
            sorted(env.filters),
            sorted(env.tests),
        )
    )
    if " at 0x" in shape:
        return None
    return root / FOLDER / hashlib.sha256(shape.encode("utf-8")).hexdigest()[:16]
