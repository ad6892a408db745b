"""Every snippet file also runs on its own, as the README promises a learner.

Pages run snippets section by section in one namespace; a learner who downloads
one file runs it top to bottom with ``python``. Both must work.

``python script`` pays ``import torch`` (~1.4 s) per file, so the files run in children of one
process that imported torch once (ptdocs/script_runner.py). The tests below the parametrized one
check that such a child starts as ``python script`` does, and the README's own command still runs
for real.
"""

import json
import os
import subprocess
import sys

import pytest

from ptdocs.script_runner import ScriptRunner
from ptdocs.snippets import ROOT

# Programs with command-line arguments of their own, tested by their own tests.
PROGRAMS = {
    "snippets/measuring/benchmark.py": "a command-line benchmark; tests/test_benchmark.py runs it",
}

SCRIPTS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "snippets").rglob("*.py"))

README_COMMAND = "snippets/home/first_gradient.py"  # `python snippets/home/first_gradient.py`

ENV = {"PYTHONWARNINGS": "ignore"}
TIMEOUT = 300


def python(script, cwd=ROOT, timeout=TIMEOUT):
    """The real command: a fresh interpreter."""
    return subprocess.run([sys.executable, str(script)], cwd=cwd, env={**os.environ, **ENV},
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def runner():
    # Session scope: with pytest-xdist each worker starts its own server once, whichever of
    # these tests it is given, and stops it when its session ends.
    with ScriptRunner(ROOT, ENV) as started:
        yield started


def test_every_program_left_out_exists():
    assert set(PROGRAMS) <= set(SCRIPTS)


@pytest.mark.parametrize("script", [s for s in SCRIPTS if s not in PROGRAMS])
def test_snippet_file_runs_as_a_script(runner, script):
    run = runner.run(script, timeout=TIMEOUT)
    assert run.returncode == 0, \
        f"python {script} failed (exit status {run.returncode}):\n{run.stderr[-2000:]}"


def test_the_readme_command_runs(runner):
    run = python(README_COMMAND)
    assert run.returncode == 0, f"python {README_COMMAND} failed:\n{run.stderr[-2000:]}"
    assert runner.run(README_COMMAND, timeout=TIMEOUT).stdout == run.stdout


# Everything a script can see of how it was started, and the things snippets use that a forked
# child could get wrong: torch's thread pools, subprocesses, multiprocessing, a sibling import.
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
        "pool": squares, "warnings": [str(f) for f in warnings.filters[:2]],
        "PYTHONWARNINGS": os.environ.get("PYTHONWARNINGS"),
    }, indent=1))
    print("to stderr", file=sys.stderr)
"""


def test_a_child_starts_as_python_does(runner, tmp_path):
    folder = tmp_path / "scripts"  # not the repository: the script's folder must be on sys.path
    folder.mkdir()
    (folder / "sibling.py").write_text("VALUE = 'sibling module'\n")
    (folder / "probe.py").write_text(PROBE)
    real = python(folder / "probe.py")
    assert real.returncode == 0, real.stderr
    assert json.loads(real.stdout.split("\n", 2)[2])["sibling"] == "sibling module"
    forked = runner.run(folder / "probe.py", timeout=TIMEOUT)
    assert (forked.returncode, forked.stdout, forked.stderr) == (real.returncode, real.stdout, real.stderr)


@pytest.mark.parametrize("body", [
    "print('fine')",
    "print('before'); 1 / 0",
    "def f():\n    raise ValueError('deep')\nf()",
    "print('unclosed'",
    "import sys; sys.exit(3)",
    "import sys; sys.exit('a message')",
    "import sys; sys.exit(None)",
    "import threading; threading.Thread(target=lambda: 1 / 0).start()",  # a thread's error: still 0
    "import os; print('lost', end=''); os._exit(4)",
])
def test_a_child_exits_as_python_does(runner, tmp_path, body):
    script = tmp_path / "script.py"
    script.write_text(body + "\n")
    real, forked = python(script), runner.run(script, timeout=TIMEOUT)
    assert (forked.returncode, forked.stdout, forked.stderr) == (real.returncode, real.stdout, real.stderr)


def test_a_script_that_hangs_times_out(runner, tmp_path):
    script = tmp_path / "hangs.py"
    script.write_text("import threading\nthreading.Event().wait()\n")
    with pytest.raises(subprocess.TimeoutExpired):
        runner.run(script, timeout=1)
