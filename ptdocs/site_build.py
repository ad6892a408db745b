"""The strict site build the tests share: started once per test run, in the
background, as soon as a collected test asks for ``built_site``; under pytest-xdist
the first worker to take the lock starts it and all read its result from the run's
shared folder.

``python -m ptdocs.site_build FOLDER [PROJECT]`` is that build: ``mkdocs build
--strict`` into ``FOLDER/site``, then ``FOLDER/result.json``. Never in quiet mode: in
MkDocs 1.6 that drops warnings before strict mode counts them (mkdocs issue 4126).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from filelock import FileLock

from .atomic import write_atomically

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 900  # seconds a test waits for the build before it gives up, saying why


class BuildFailed(Exception):
    pass


class SharedBuild:
    def __init__(self, folder: Path, command: list[str] | None = None) -> None:
        self.folder = Path(folder)
        self.site, self.result = self.folder / "site", self.folder / "result.json"
        self.pid_file = self.folder / "started"
        self.command = command or [sys.executable, "-m", "ptdocs.site_build", folder]
        self._process: subprocess.Popen | None = None

    def start(self) -> None:
        """Start the build unless a process of this run already has."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.folder / "start.lock")):
            if self.pid_file.exists():
                return
            quiet = dict.fromkeys(("stdin", "stdout", "stderr"), subprocess.DEVNULL)
            self._process = subprocess.Popen(self.command, cwd=ROOT, **quiet)
            self.pid_file.write_text(str(self._process.pid), encoding="utf-8")

    def wait(self, timeout: float = TIMEOUT) -> Path:
        """The built site's folder once the build has ended; BuildFailed with its
        output if it failed."""
        self.start()  # a run without collection (-p no:...) still works
        deadline = time.monotonic() + timeout
        while not self.result.exists():
            if not self._builder_alive() and not self.result.exists():
                raise BuildFailed(
                    "the site build process ended without writing its result"
                )
            if time.monotonic() > deadline:
                raise BuildFailed(
                    f"the site build did not finish within {timeout:.0f} s"
                )
            time.sleep(0.2)
        result = json.loads(self.result.read_text(encoding="utf-8"))
        if result["returncode"]:
            raise BuildFailed(
                f"mkdocs build --strict failed:\n{result['output']}"[-6000:]
            )
        return self.site

    def _builder_alive(self) -> bool:
        if self._process is not None:  # this process started it
            return self._process.poll() is None
        try:  # another worker did
            os.kill(int(self.pid_file.read_text(encoding="utf-8")), 0)
        except ProcessLookupError:
            return False
        except (OSError, ValueError):  # not allowed to ask: assume it is alive
            pass
        return True

    def finish(self, interrupted: bool) -> None:
        """In the process that started it: let the build end (another worker may wait
        for it), unless the run was interrupted."""
        if self._process is not None:
            if interrupted and self._process.poll() is None:
                self._process.terminate()
            self._process.wait()


class SiteBuildPlugin:
    """Starts the shared build after collection, when a collected test needs it."""

    def __init__(self, config) -> None:
        basetemp = config.getoption("basetemp", None)
        self._temporary = None
        if hasattr(config, "workerinput") and basetemp:
            # pytest-xdist gives each worker <the run's temporary folder>/popen-gwN.
            folder = Path(basetemp).parent / "shared-site"
        else:
            self._temporary = tempfile.TemporaryDirectory(prefix="ptdocs-site-")
            folder = Path(self._temporary.name)
        self.build = SharedBuild(folder)

    def pytest_collection_finish(self, session) -> None:
        if not session.config.option.collectonly and any(
            "built_site" in getattr(item, "fixturenames", ()) for item in session.items
        ):
            self.build.start()

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        self.build.finish(interrupted=exitstatus == pytest.ExitCode.INTERRUPTED)
        if self._temporary is not None:
            self._temporary.cleanup()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ptdocs.site_build",
        description="Build the site strictly into FOLDER/site, then write "
        "FOLDER/result.json (the tests' shared build).",
    )
    parser.add_argument("folder", type=Path, help="an existing folder (the run's own)")
    parser.add_argument(
        "project", type=Path, nargs="?", default=ROOT, help="the mkdocs.yml's folder"
    )
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        parser.error(f"{args.folder}: no such folder")
    if not (args.project / "mkdocs.yml").is_file():
        parser.error(f"{args.project}: no mkdocs.yml there")
    partial = args.folder / "site.partial"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", partial.resolve()],
        cwd=args.project,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
    )
    if done.returncode == 0:
        partial.rename(args.folder / "site")  # whole, or not there
    result = {"returncode": done.returncode, "output": done.stdout + done.stderr}
    write_atomically(args.folder / "result.json", json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
