"""Every snippet file also runs on its own, as the README promises a learner.

Pages run snippets section by section in one namespace; a learner who downloads one
file runs it top to bottom with ``python``. Both must work.

``python script`` pays ``import torch`` and what the first ``assert_close`` and
optimizer import (~3.5 s) per file, so the files run in children of one process that
imported them once (ptdocs/script_runner.py). The tests below the parametrized one
check that such a child starts as ``python script`` does, and the README's own
command still runs for real.
"""

import json
import os
import subprocess
import sys

import pytest

from ptdocs.snippets import ROOT

# Programs with command-line arguments of their own, tested by their own tests.
PROGRAMS = {
    "snippets/measuring/benchmark.py": "a command-line benchmark; "
    "tests/test_benchmark.py runs it",
}

SCRIPTS = sorted(
    p.relative_to(ROOT).as_posix() for p in (ROOT / "snippets").rglob("*.py")
)

README_COMMAND = (
    "snippets/home/first_gradient.py"  # `python snippets/home/first_gradient.py`
)

TIMEOUT = 300


def python(script, runner, cwd=ROOT, timeout=TIMEOUT):
    """The real command: a fresh interpreter, in the environment the runner gives its
    children."""
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=cwd,
        env={**os.environ, **runner.env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_every_program_left_out_exists():
    assert set(PROGRAMS) <= set(SCRIPTS)


@pytest.mark.parametrize("script", [s for s in SCRIPTS if s not in PROGRAMS])
def test_snippet_file_runs_as_a_script(script_runner, script):
    run = script_runner.run(script, timeout=TIMEOUT)
    assert run.returncode == 0, (
        f"python {script} failed (exit status {run.returncode}):\n{run.stderr[-2000:]}"
    )


def test_the_readme_command_runs(script_runner):
    run = python(README_COMMAND, script_runner)
    assert run.returncode == 0, f"python {README_COMMAND} failed:\n{run.stderr[-2000:]}"
    assert script_runner.run(README_COMMAND, timeout=TIMEOUT).stdout == run.stdout


# Everything a script can see of how it was started, and the things snippets use that a
# forked child could get wrong: torch's thread pools, subprocesses, multiprocessing, a
# sibling import.
PROBE = """\
import importlib.util, json, multiprocessing, os, subprocess, sys, warnings
import torch
from sibling import VALUE

if __name__ == "__main__":
    print(subprocess.run([sys.executable, "-c", "print('child')"], capture_output=True, text=True).stdout)
    with multiprocessing.Pool(2) as pool:
        squares = pool.map(abs, [-1, -2])
    x = torch.arange(256.0 * 256).reshape(256, 256)
    print(json.dumps({
        "__name__": __name__, "__file__": __file__, "sys.argv": sys.argv, "sys.path": sys.path,
        "cwd": os.getcwd(),
        "__main__": sys.modules["__main__"].__dict__ is globals(), "__spec__": repr(__spec__),
        "sibling": VALUE, "ptdocs importable": importlib.util.find_spec("ptdocs") is not None,
        "threads": torch.get_num_threads(), "interop threads": torch.get_num_interop_threads(),
        "matmul": (x @ x).sum().item(), "start method": multiprocessing.get_start_method(),
        "pool": squares, "warnings": [str(f) for f in warnings.filters],
        "PYTHONWARNINGS": os.environ.get("PYTHONWARNINGS"),
    }, indent=1))
    print("to stderr", file=sys.stderr)
"""


def test_a_child_starts_as_python_does(script_runner, tmp_path):
    # Run from another folder than the script's (the script's folder must be on
    # sys.path, not the working directory) and than the runner's own (as downloads are
    # run).
    folder = tmp_path / "scripts"
    folder.mkdir()
    (folder / "sibling.py").write_text("VALUE = 'sibling module'\n")
    (folder / "probe.py").write_text(PROBE)
    real = python(folder / "probe.py", script_runner, cwd=tmp_path)
    assert real.returncode == 0, real.stderr
    assert json.loads(real.stdout.split("\n", 2)[2])["sibling"] == "sibling module"
    forked = script_runner.run(folder / "probe.py", timeout=TIMEOUT, cwd=tmp_path)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        real.returncode,
        real.stdout,
        real.stderr,
    )


@pytest.mark.parametrize(
    "body",
    [
        "print('fine')",
        "print('before'); 1 / 0",
        "def f():\n    raise ValueError('deep')\nf()",
        "print('unclosed'",
        "import sys; sys.exit(3)",
        "import sys; sys.exit('a message')",
        "import sys; sys.exit(None)",
        # a thread's error: still 0
        "import threading; threading.Thread(target=lambda: 1 / 0).start()",
        "import os; print('lost', end=''); os._exit(4)",
    ],
)
def test_a_child_exits_as_python_does(script_runner, tmp_path, body):
    script = tmp_path / "script.py"
    script.write_text(body + "\n")
    real, forked = (
        python(script, script_runner),
        script_runner.run(script, timeout=TIMEOUT),
    )
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        real.returncode,
        real.stdout,
        real.stderr,
    )


def test_a_script_that_hangs_times_out(script_runner, tmp_path):
    script = tmp_path / "hangs.py"
    script.write_text("import threading\nthreading.Event().wait()\n")
    with pytest.raises(subprocess.TimeoutExpired):
        script_runner.run(script, timeout=1)


def test_the_profiler_snippet_deletes_its_trace(script_runner, tmp_path):
    """profiler.py writes its trace into a temporary folder, then deletes the folder: a
    learner's temporary directory keeps no trace (torch's own caches may stay)."""
    script = ROOT / "snippets" / "measuring" / "profiler.py"
    env = {**os.environ, **script_runner.env, "TMPDIR": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, str(script)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert list(tmp_path.glob("*/mlp_trace.json")) == []
    assert [p for p in tmp_path.iterdir() if not p.name.startswith("torch")] == []
