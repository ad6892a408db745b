"""How long the live preview takes (issue 14): from starting ``mkdocs serve`` to its
first page, and from saving docs/es/tensors.md to the page served again, on a fresh
copy of each --source built once first. Builds are timed with hyperfine
(CONTRIBUTING.md): it cannot wait for a condition inside a running server.
"""

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
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
PAGE, URL = "docs/es/tensors.md", "es/tensors/"
MKDOCS = [sys.executable, "-m", "mkdocs"]
ENVIRONMENT = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONUNBUFFERED": "1"}
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", ".cache", "site", "__pycache__")
TIMEOUT = 600  # a guard against a hung server, never a wait


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read().decode("utf-8")
    except OSError:  # refused, reset, timed out
        return ""


def renders(tree: Path) -> dict[Path, int]:
    """When each notebook render in mkdocs-jupyter's cache was written."""
    cache = tree / ".cache" / "mkdocs-jupyter"
    return {path: path.stat().st_mtime_ns for path in cache.rglob("*.json")}


def preview(tree: Path) -> dict[str, float]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    url = f"http://{address}/"
    started = time.perf_counter()
    server = subprocess.Popen(
        [*MKDOCS, "serve", "-a", address],
        cwd=tree,
        env=ENVIRONMENT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    guard = threading.Timer(TIMEOUT, server.kill)
    guard.start()
    log: list[str] = []

    def wait_for(pattern: str) -> None:
        for line in server.stdout:
            log.append(line)
            if re.search(pattern, line):
                return
        sys.exit("mkdocs serve stopped:\n" + "".join(log[-40:]))

    try:
        wait_for("Serving on ")  # it listens only after its first build
        if not fetch(url):
            sys.exit(f"mkdocs serve says it serves {url}, which does not answer")
        first = time.perf_counter() - started
        page, marker = tree / PAGE, f"Párrafo de prueba {time.time_ns()}."
        written, process = renders(tree), psutil.Process(server.pid)
        cpu, start = sum(process.cpu_times()[:4]), time.perf_counter()
        page.write_text(page.read_text("utf-8") + f"\n{marker}\n", "utf-8")
        wait_for("Reloading browsers")
        numbers = {
            "serve: first page": first,
            "serve: rebuild after a Spanish page": time.perf_counter() - start,
            "serve: rebuild CPU": sum(process.cpu_times()[:4]) - cpu,
            "serve: notebooks run again": sum(
                written.get(path) != stamp for path, stamp in renders(tree).items()
            ),
        }
        if marker not in fetch(url + URL):
            sys.exit(f"the rebuild did not put the new paragraph into {URL}")
        return numbers
    finally:
        guard.cancel()
        server.send_signal(signal.SIGINT)  # mkdocs removes its temporary site
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()


def site(source: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="build-times-") as folder:
        tree = Path(folder) / "tree"
        shutil.copytree(source, tree, ignore=NOT_COPIED)
        # The preview starts from a filled cache, as a contributor's does.
        build = [*MKDOCS, "build", "--strict", "-d", Path(folder) / "site"]
        done = subprocess.run(
            build, cwd=tree, env=ENVIRONMENT, capture_output=True, text=True
        )
        if done.returncode:
            sys.exit(f"the build of {tree} failed:\n{done.stdout}{done.stderr}")
        return preview(tree)


def positive_int(text: str) -> int:
    if int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive whole number")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    about = "a checkout to measure (repeatable, measured in turn; default: this one)"
    parser.add_argument("--source", action="append", type=Path, help=about)
    parser.add_argument("--repeat", type=positive_int, default=1, help="rounds")
    args = parser.parse_args(argv)
    for source in args.source or []:
        if not (source / "mkdocs.yml").is_file():
            parser.error(
                f"--source {source}: not a checkout of the site (no mkdocs.yml)"
            )
    sources = [path.resolve() for path in args.source or [ROOT]]
    rounds: list[list[dict[str, float]]] = [[] for _ in sources]
    for number in range(1, args.repeat + 1):
        for index, source in enumerate(sources):
            rounds[index].append(numbers := site(source))
            measured = ", ".join(
                f"{name} {value:.1f}" for name, value in numbers.items()
            )
            print(f"round {number}, [{index + 1}] {source}: {measured}", flush=True)
    print("\nmedians (seconds; 'CPU' = user + system)")
    print(
        " " * 40
        + "".join(f"[{index}]".rjust(10) for index in range(1, len(sources) + 1))
    )
    for name in rounds[0][0]:
        medians = (statistics.median(r[name] for r in runs) for runs in rounds)
        print(f"{name:40}" + "".join(f"{value:10.1f}" for value in medians))
    for index, source in enumerate(sources, 1):
        print(f"[{index}] {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
