"""Run Python scripts as ``python script.py`` would, without paying ``import torch``
for each.

A multiprocessing fork server imports torch once (importing starts no OpenMP pool;
nothing is run there); each script then runs in a child forked from it, set up as a
fresh interpreter's ``__main__``: its own module, ``__file__`` the script's absolute
path (as Python 3.9+ gives it), ``sys.path[0]`` the script's folder followed by a
fresh interpreter's own ``sys.path``, the working directory given, stdout and stderr
at file-descriptor level (so subprocesses' output is kept too), and the exit status
the interpreter would give (``SystemExit`` code, 1 and a traceback for an uncaught
exception).

Known differences from a fresh interpreter, none of which changes an exit status:
``sys.argv[0]`` is the absolute path (as for ``python /abs/path/script.py``), torch
(with torch._dynamo and torch.distributed.tensor) and multiprocessing are already in
``sys.modules`` (a script still has to import them to use them; the warning filters
are those right after ``import torch``, so a filter SymPy adds when torch._dynamo
first imports it is missing), the string hash seed is the server's, and ``atexit``
handlers do not run.
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

# torch, and what the first assert_close (torch.distributed.tensor) and the first
# optimizer or torch.compile (torch._dynamo) import: ~3.5 s a script would otherwise pay
# again.
PRELOAD = ("torch", "torch.distributed.tensor", "torch._dynamo")


def preload(modules: tuple[str, ...] = PRELOAD) -> None:
    """Import ``modules`` as the fork server does: one this torch build lacks is left
    out (torch.distributed.tensor, in a build without torch.distributed)."""
    for name in modules:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


# The warning filters after `import torch`, before the other preloads: importing
# torch._dynamo adds SymPy's, which a script that never imports it would not have.
_FILTERS = list(warnings.filters)


class ScriptRunner:
    """Runs scripts in children of one fork server that has imported ``preload``."""

    def __init__(
        self, cwd: Path, env: dict[str, str], preload: tuple[str, ...] = PRELOAD
    ):
        self.cwd = Path(cwd)
        self.env = env
        # __name__ right after torch: it notes the warning filters a script that imports
        # torch has, before the other modules add theirs (and unpickling each child's
        # target is free).
        self.preload = [preload[0], __name__, *preload[1:]]
        self.context = multiprocessing.get_context("forkserver")
        self._path = None

    def start(self):
        # What follows sys.path[0] in a fresh interpreter, with this environment
        # (PYTHONPATH, .pth files): not this process's sys.path, which pytest extends
        # with the repository root.
        probe = subprocess.run(
            [sys.executable, "-c", "import json, sys; print(json.dumps(sys.path[1:]))"],
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            check=True,
        )
        self._path = json.loads(probe.stdout)
        self.context.set_forkserver_preload(self.preload)
        # The server imports the preloads from its working directory (Python 3.11's
        # forkserver ignores the sys.path it is sent): this package's parent, so that it
        # finds this module.
        with self._environment(), contextlib.chdir(Path(__file__).parents[1]):
            multiprocessing.forkserver.ensure_running()
        return self

    def _environment(self):
        # The server, and every child, inherits the environment it starts with (warning
        # filters too); multiprocessing restarts a server that died when the next child
        # starts.
        return mock.patch.dict(os.environ, self.env)

    def close(self):
        # The standard library has no public way to stop its fork server before this
        # process ends.
        multiprocessing.forkserver._forkserver._stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.close()

    def run(
        self, script: str | Path, timeout: float, cwd: Path | None = None
    ) -> subprocess.CompletedProcess:
        """As ``subprocess.run([sys.executable, script], cwd=cwd,
        capture_output=True, text=True, timeout=timeout)``, with ``script`` absolute;
        ``cwd`` is ``self.cwd`` unless given."""
        cwd = Path(cwd or self.cwd)
        script = os.path.abspath(cwd / script)
        with tempfile.TemporaryDirectory() as folder:
            stdout, stderr = Path(folder, "stdout"), Path(folder, "stderr")
            for name in (stdout, stderr):
                name.touch()  # read below even if the child dies before it opens them
            arguments = (script, str(cwd), self._path, str(stdout), str(stderr))
            child = self.context.Process(target=_run_as_main, args=arguments)
            # multiprocessing would have the child re-run this process's __main__
            # (pytest's script, or fail on '<stdin>'); a bare one stands in while the
            # child is sent.
            bare_main = {"__main__": types.ModuleType("__main__")}
            with mock.patch.dict(sys.modules, bare_main), self._environment():
                child.start()
            child.join(timeout)
            timed_out = child.exitcode is None
            if timed_out:
                child.kill()
                child.join()
            returncode = child.exitcode
            child.close()
            out, err = (
                Path(name).read_text(errors="replace") for name in (stdout, stderr)
            )
        if timed_out:
            raise subprocess.TimeoutExpired([sys.executable, script], timeout, out, err)
        return subprocess.CompletedProcess(
            [sys.executable, script], returncode, out, err
        )


def _run_as_main(script, cwd, path, stdout, stderr):
    """In the forked child: a fresh interpreter's state for ``script``, then the
    script.

    multiprocessing's child bootstrap turns SystemExit into the exit status as the
    interpreter does, joins non-daemon threads and flushes stdout and stderr.
    """
    for fd, name in ((1, stdout), (2, stderr)):
        opened = os.open(name, os.O_WRONLY)
        os.dup2(opened, fd)
        os.close(opened)
    # This module is importable only from the repository, as a script run by a reader is
    # not.
    for name in [name for name in sys.modules if name.partition(".")[0] == __package__]:
        del sys.modules[name]
    warnings.resetwarnings()  # (which tells the warning caches the filters changed)
    warnings.filters.extend(_FILTERS)
    multiprocessing.set_start_method(
        None, force=True
    )  # the bootstrap forced "forkserver" here
    os.chdir(cwd)
    sys.argv = [script]
    sys.path[:] = [
        os.path.dirname(os.path.realpath(script)),
        *path,
    ]  # links resolved, as Python does
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit:
        raise
    except BaseException as error:
        # Reported as the interpreter does: through sys.excepthook, from the script's
        # own frame (none for a syntax error), then exit status 1.
        frames = error.__traceback__
        while frames is not None and frames.tb_frame.f_code.co_filename != script:
            frames = frames.tb_next
        sys.excepthook(type(error), error.with_traceback(frames), frames)
        raise SystemExit(1) from None
