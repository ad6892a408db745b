"""Fixtures that several test files share."""

import builtins
import functools
import importlib.metadata
import os
import subprocess
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock
from helpers import benchmark

from ptdocs.script_runner import ScriptRunner

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class BenchmarkRun:
    csv: Path  # its metadata lies beside it, as .json
    stderr: str


def run_benchmark(output, *arguments):
    """The benchmark module from the shell, as a user runs it: a BenchmarkRun, or a
    failed test."""
    done = benchmark(*arguments, "--output", str(output))
    assert done.returncode == 0, (
        f"benchmark.py {' '.join(arguments)}: {done.stderr[-2000:]}"
    )
    return BenchmarkRun(output, done.stderr)


TINY_RUN = ("--preset", "tiny", "--threads", "1", "--no-progress")


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """`benchmark.py --preset tiny --threads 1 --no-progress`, once per test session.

    Only read by the tests: test_benchmark checks what it wrote, test_compare
    compares it with a run at 2 threads. Under pytest-xdist the first worker that
    needs it runs it and any other waits for it, on a lock in the folder all workers
    of this session share (pytest-xdist's documented recipe); without xdist, that
    folder is shared by every session of this user, so the run goes in this session's
    own.
    """
    if "PYTEST_XDIST_WORKER" not in os.environ:
        # A folder that does not exist yet: the benchmark creates it.
        return run_benchmark(
            tmp_path_factory.mktemp("tiny") / "out" / "benchmark.csv", *TINY_RUN
        )
    shared = tmp_path_factory.getbasetemp().parent / "tiny-run"
    output, stderr = shared / "out" / "benchmark.csv", shared / "stderr.txt"
    with FileLock(f"{shared}.lock"):
        if not stderr.exists():  # written last, and only by a run that succeeded
            shared.mkdir(exist_ok=True)
            run = run_benchmark(output, *TINY_RUN)
            stderr.write_text(run.stderr, encoding="utf-8")
            return run
    return BenchmarkRun(output, stderr.read_text(encoding="utf-8"))


# How the tests run a reader's script (a snippet file, a downloaded script), in children
# of the fork server and with `python` alike: no display for matplotlib, UTF-8 output on
# every platform, and warnings (torch.jit's deprecation among them) kept out of stderr.
SCRIPT_ENV = {
    "MPLBACKEND": "Agg",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONWARNINGS": "ignore",
}


@pytest.fixture(scope="session")
def script_runner():
    """Runs scripts as `python script` does without importing torch each time
    (ptdocs/script_runner.py). Session scope: under pytest-xdist each worker starts
    its own server once, whichever of these tests it is given, and stops it when its
    session ends."""
    with ScriptRunner(ROOT, SCRIPT_ENV) as runner:
        yield runner


@pytest.fixture
def reads(monkeypatch):
    """The files read (or opened) from here on, one entry per read however it is made:
    open, Path.open, read_text, read_bytes (pathlib's reads open the path themselves:
    only the outermost call counts)."""
    paths, depth = [], []

    def spy(owner, name):
        real = getattr(owner, name)

        def read(path, *args, **kwargs):
            if not depth and isinstance(path, str | os.PathLike):
                paths.append(Path(path))
            depth.append(name)
            try:
                return real(path, *args, **kwargs)
            finally:
                depth.pop()

        monkeypatch.setattr(owner, name, read)

    for name in ("open", "read_text", "read_bytes"):
        spy(Path, name)
    spy(builtins, "open")
    return paths


@pytest.fixture(scope="session")
def site_conftest(pytestconfig):
    """The repository's root conftest.py (the site's Sybil, its setup and hooks), as
    pytest loaded it: `import conftest` would find this file instead."""
    return pytestconfig.pluginmanager.get_plugin(str(ROOT / "conftest.py"))


@pytest.fixture(scope="session")
def fresh_python(tmp_path_factory):
    """``fresh_python(["torch==2.13.0", ...])``: ``run(script, cwd, timeout)``, which
    runs a script with the ``python`` of a new virtual environment that can import
    only those distributions and what they require, as a reader's after ``pip
    install`` of them (see :func:`fresh_run`).

    ``venv`` keeps every other site-packages out; the distributions installed here
    are linked into it, top-level entry by entry as their RECORD lists them, instead
    of installed again by pip: the same files, without a network and in a second
    instead of a minute."""
    made = {}

    def make(requirements):
        names = tuple(
            sorted(
                requirement.partition("==")[0].lower() for requirement in requirements
            )
        )
        if names not in made:
            folder = tmp_path_factory.mktemp("venv")
            venv.EnvBuilder(with_pip=False, system_site_packages=False).create(folder)
            site_packages = next(folder.glob("lib*/python*/site-packages"))
            for distribution in _with_requirements(names):
                files = distribution.files or ()
                for entry in {file.parts[0] for file in files} - {"..", "__pycache__"}:
                    if not (site_packages / entry).exists():
                        (site_packages / entry).symlink_to(
                            distribution.locate_file(entry)
                        )
                for file in files:  # outside site-packages: its commands, in bin/
                    target = Path(os.path.normpath(site_packages / file))
                    if (
                        file.parts[0] == ".."
                        and target.is_relative_to(folder)
                        and not target.exists()
                        and distribution.locate_file(file).exists()
                    ):
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.symlink_to(distribution.locate_file(file).resolve())
            made[names] = functools.partial(fresh_run, folder / "bin" / "python")
        return made[names]

    return make


def _with_requirements(names):
    """The installed distributions of ``names`` and all they require (no extras),
    once each."""
    from packaging.requirements import Requirement

    found, todo = {}, list(names)
    while todo:
        distribution = importlib.metadata.distribution(todo.pop())
        key = distribution.metadata["Name"].lower()
        if key in found:
            continue
        found[key] = distribution
        for text in distribution.requires or ():
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return list(found.values())


def fresh_run(python, script, cwd, timeout):
    """``python script`` in ``cwd``, in the environment a reader's shell gives it: no
    PYTHONPATH, no other virtual environment, the tests' SCRIPT_ENV."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
    }
    return subprocess.run(
        [str(python), str(script)],
        cwd=cwd,
        env={**env, **SCRIPT_ENV},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
