"""Run Python scripts as ``python script.py`` would, without paying ``import torch``
for each: each runs in a child of a fork server that imported torch once.

Known differences from a fresh interpreter, none of which changes an exit status:
``sys.argv[0]`` is absolute, torch and multiprocessing are already in ``sys.modules``
(the warning filters are those right after ``import torch``), the string hash seed is
the server's, and ``atexit`` handlers do not run.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import multiprocessing
import multiprocessing.forkserver
import os
import runpy
import subprocess
import sys
import tempfile
import types
import warnings
from pathlib import Path
from unittest import mock

# What the first assert_close (torch.distributed.tensor) and the first optimizer or
# torch.compile (torch._dynamo) import: ~3.5 s a script would otherwise pay again.
PRELOAD = ("torch", "torch.distributed.tensor", "torch._dynamo")


def preload(modules: tuple[str, ...] = PRELOAD) -> None:
    """Import ``modules``, leaving out one this torch build lacks."""
    for name in modules:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


# The filters right after `import torch`: importing torch._dynamo adds SymPy's, which a
# script that never imports it would not have.
_FILTERS = list(warnings.filters)


class ScriptRunner:
    """Runs scripts in children of one fork server that has imported ``preload``."""

    def __init__(self, cwd: Path, env: dict[str, str], preload=PRELOAD):
        self.cwd, self.env = Path(cwd), env
        # This module right after torch, so that _FILTERS is taken before the rest.
        self.preload = [preload[0], __name__, *preload[1:]]
        self.context = multiprocessing.get_context("forkserver")
        self._path = None

    def start(self):
        # What follows sys.path[0] in a fresh interpreter with this environment, not
        # this process's sys.path (which pytest extends).
        probe = subprocess.run(
            [sys.executable, "-c", "import json, sys; print(json.dumps(sys.path[1:]))"],
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            check=True,
        )
        self._path = json.loads(probe.stdout)
        self.context.set_forkserver_preload(self.preload)
        # Python 3.11's server imports the preloads from its working directory.
        with self._environment(), contextlib.chdir(Path(__file__).parents[1]):
            multiprocessing.forkserver.ensure_running()
        return self

    def _environment(self):
        # The server and every child inherit it (a dead server restarts on next use).
        return mock.patch.dict(os.environ, self.env)

    __enter__ = start

    def __exit__(self, *exc_info):
        # No public way to stop the fork server before this process ends.
        multiprocessing.forkserver._forkserver._stop()

    def run(self, script, timeout: float, cwd=None) -> subprocess.CompletedProcess:
        """As ``subprocess.run([sys.executable, script], cwd=cwd, capture_output=True,
        text=True, timeout=timeout)``; ``cwd`` defaults to ``self.cwd``."""
        cwd = Path(cwd or self.cwd)
        script = os.path.abspath(cwd / script)
        command = [sys.executable, script]
        with tempfile.TemporaryDirectory() as folder:
            outputs = [Path(folder, "stdout"), Path(folder, "stderr")]
            for name in outputs:
                name.touch()  # read below even if the child dies before it opens them
            arguments = (script, str(cwd), self._path, *map(str, outputs))
            child = self.context.Process(target=_run_as_main, args=arguments)
            # Else the child would re-run this process's __main__ (pytest's script).
            bare_main = {"__main__": types.ModuleType("__main__")}
            with mock.patch.dict(sys.modules, bare_main), self._environment():
                child.start()
            child.join(timeout)
            if timed_out := child.exitcode is None:
                child.kill()
                child.join()
            returncode = child.exitcode
            child.close()
            out, err = (name.read_text(errors="replace") for name in outputs)
        if timed_out:
            raise subprocess.TimeoutExpired(command, timeout, out, err)
        return subprocess.CompletedProcess(command, returncode, out, err)


def _run_as_main(script, cwd, path, stdout, stderr):
    """In the forked child: a fresh interpreter's state for ``script``, then the
    script (the bootstrap turns SystemExit into the exit status and flushes)."""
    for fd, name in ((1, stdout), (2, stderr)):  # at fd level: subprocesses' too
        opened = os.open(name, os.O_WRONLY)
        os.dup2(opened, fd)
        os.close(opened)
    # A reader's script cannot import this package.
    for name in [name for name in sys.modules if name.partition(".")[0] == __package__]:
        del sys.modules[name]
    warnings.resetwarnings()  # (which tells the warning caches the filters changed)
    warnings.filters.extend(_FILTERS)
    multiprocessing.set_start_method(None, force=True)  # the bootstrap forced it
    os.chdir(cwd)
    sys.argv = [script]
    sys.path[:] = [os.path.dirname(os.path.realpath(script)), *path]
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit:
        raise
    except BaseException as error:
        # As the interpreter reports it: from the script's own frame, then status 1.
        frames = error.__traceback__
        while frames is not None and frames.tb_frame.f_code.co_filename != script:
            frames = frames.tb_next
        sys.excepthook(type(error), error.with_traceback(frames), frames)
        raise SystemExit(1) from None
