"""How long the site takes to build and to preview, as issue 14 measures it.

    python tools/build_times.py                    # this working tree, once
    python tools/build_times.py --repeat 3         # three rounds, then the medians
    python tools/build_times.py --source /tmp/old --source .   # before and after,
    alternating

Each round works on a fresh copy of a source tree (the repository, without .git,
.venv, .cache and site), so the repository's own cache and site are left alone, and
measures:

* cold: ``mkdocs build --strict`` without mkdocs-jupyter's cache (every notebook runs);
* warm: the same build again, nothing changed;
* serve, first page: from starting ``mkdocs serve`` to the home page being served;
* serve, rebuild: from saving docs/es/tensors.md (a new paragraph) to the server's
  "Reloading browsers" with the paragraph in the served page; and how many notebook
  renders
  the rebuild wrote (0: no notebook ran again).

The test commands are timed with hyperfine, which does that job (wall and CPU time,
mean and spread over --runs, before and after side by side); CONTRIBUTING.md shows
the command. What it cannot time is a condition inside a long-running process (the
server's first page, its rebuild after a save): that is what stays here.

Wall seconds and CPU seconds (user + system, the build's child processes, such as
notebook kernels, included) are printed: on a shared machine the CPU time is the
steadier of the two. Giving the same --source twice is an A/A control: the spread
between the two is the noise.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIPPED = {
    ".git",
    ".venv",
    ".cache",
    "site",
    "__pycache__",
    ".pytest_cache",
    "build",
    ".gl",
    ".whl",
}
SPANISH_PAGE = Path("docs/es/tensors.md")
SPANISH_URL = "es/tensors/"
RENDERS = Path(".cache/mkdocs-jupyter")
ENVIRONMENT = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONUNBUFFERED": "1"}
# a guard against a hung server, never a wait: every wait below is for a condition
TIMEOUT = 600


def copy_tree(source: Path, into: Path) -> Path:
    target = into / "tree"
    shutil.copytree(
        source,
        target,
        ignore=lambda folder, names: [
            name
            for name in names
            if name in SKIPPED and Path(folder) == source or name == "__pycache__"
        ],
    )
    return target


def children_cpu() -> float:
    """CPU seconds of the waited-for child processes (and theirs) so far; 0 where
    unknown."""
    try:
        import resource
    except ImportError:  # Windows
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid: int) -> float:
    """CPU seconds of a running process (Linux /proc); 0 where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15]) / os.sysconf(
        "SC_CLK_TCK"
    )  # utime..cstime


def build(tree: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one strict build of the tree."""
    cpu, start = children_cpu(), time.perf_counter()
    # No --quiet: MkDocs 1.6 drops warnings before --strict counts them (mkdocs issue
    # 4126).
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-d",
            str(tree.parent / "site"),
        ],
        cwd=tree,
        env=ENVIRONMENT,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    if result.returncode:
        sys.exit(f"the build of {tree} failed:\n{result.stdout}{result.stderr}")
    return wall, children_cpu() - cpu


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read().decode("utf-8")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


class Server:
    """``mkdocs serve`` on the tree, its log collected line by line."""

    def __init__(self, tree: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{self.port}"],
            cwd=tree,
            env=ENVIRONMENT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_for_line(self, pattern: str, after: int) -> int:
        """The index of the first log line after ``after`` matching ``pattern``."""

        def found():
            if self.process.poll() is not None:
                sys.exit("mkdocs serve stopped:\n" + "\n".join(self.lines[-40:]))
            return next(
                (
                    index
                    for index in range(after, len(self.lines))
                    if re.search(pattern, self.lines[index])
                ),
                None,
            )

        with self.changed:
            index = self.changed.wait_for(lambda: found() is not None, timeout=TIMEOUT)
            if index is None:
                sys.exit(
                    f"no {pattern!r} in the log of mkdocs serve:\n"
                    + "\n".join(self.lines[-40:])
                )
            return found()

    def first_page(self) -> float:
        """Seconds from the start to the home page being served."""
        self.wait_for_line(
            r"Serving on ", 0
        )  # the server listens only after its first build
        if fetch(self.url) is None:
            sys.exit(f"mkdocs serve says it serves {self.url}, which does not answer")
        return time.perf_counter() - self.started

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(
                signal.SIGINT if os.name != "nt" else signal.CTRL_C_EVENT
            )
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def renders_written(tree: Path, before: dict[str, int]) -> int:
    return sum(
        1 for path, stamp in render_files(tree).items() if before.get(path) != stamp
    )


def render_files(tree: Path) -> dict[str, int]:
    folder = tree / RENDERS
    return (
        {path.name: path.stat().st_mtime_ns for path in folder.rglob("*.json")}
        if folder.is_dir()
        else {}
    )


def serve(tree: Path) -> dict[str, float]:
    server = Server(tree)
    try:
        first = server.first_page()
        page = tree / SPANISH_PAGE
        marker = f"Párrafo de prueba {time.time_ns()}."
        renders, log_size = render_files(tree), len(server.lines)
        cpu, start = process_cpu(server.process.pid), time.perf_counter()
        page.write_text(
            page.read_text(encoding="utf-8") + f"\n{marker}\n", encoding="utf-8"
        )
        server.wait_for_line(r"Reloading browsers", log_size)
        rebuild = time.perf_counter() - start
        rebuild_cpu = process_cpu(server.process.pid) - cpu
        if marker not in (fetch(server.url + SPANISH_URL) or ""):
            sys.exit(f"the rebuild did not put the new paragraph into {SPANISH_URL}")
        return {
            "serve: first page": first,
            "serve: rebuild after a Spanish page": rebuild,
            "serve: rebuild CPU": rebuild_cpu,
            "serve: notebooks run again": renders_written(tree, renders),
        }
    finally:
        server.stop()


def site(source: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="build-times-") as folder:
        tree = copy_tree(source, Path(folder))
        cold, cold_cpu = build(tree)
        warm, warm_cpu = build(tree)
        return {
            "cold build": cold,
            "cold build CPU": cold_cpu,
            "warm build": warm,
            "warm build CPU": warm_cpu,
            **serve(tree),
        }


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive whole number")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--source",
        action="append",
        type=Path,
        help="a tree to measure (repeatable: measured in turn); default: this "
        "repository",
    )
    parser.add_argument(
        "--repeat", type=positive_int, default=1, help="rounds over all sources"
    )
    args = parser.parse_args(argv)
    for source in args.source or []:
        if not (source / "mkdocs.yml").is_file():
            parser.error(
                f"--source {source}: not a checkout of the site (no mkdocs.yml in it)"
            )
    sources = [path.resolve() for path in args.source or [ROOT]]
    results: dict[int, list[dict[str, float]]] = {
        index: [] for index in range(len(sources))
    }
    for round_ in range(args.repeat):
        for index, source in enumerate(sources):
            numbers = site(source)
            results[index].append(numbers)
            print(
                f"round {round_ + 1}, [{index + 1}] {source}: "
                + ", ".join(f"{name} {value:.1f}" for name, value in numbers.items()),
                flush=True,
            )
    print("\nmedians (seconds; 'CPU' = user + system)")
    names = list(results[0][0])
    print(f"{'':40}" + "".join(f"[{index + 1}]".rjust(10) for index in results))
    for name in names:
        print(
            f"{name:40}"
            + "".join(
                f"{statistics.median(r[name] for r in rounds):10.1f}"
                for rounds in results.values()
            )
        )
    for index, source in enumerate(sources):
        print(f"[{index + 1}] {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
