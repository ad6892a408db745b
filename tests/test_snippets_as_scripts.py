"""Every snippet file also runs on its own, as the README promises a learner.

Pages run snippets section by section in one namespace; a learner who downloads
one file runs it top to bottom with ``python``. Both must work.
"""

import os
import subprocess
import sys

import pytest

from ptdocs.snippets import ROOT

# Programs with command-line arguments of their own, tested by their own tests.
PROGRAMS = {
    "snippets/measuring/benchmark.py": "a command-line benchmark; tests/test_benchmark.py runs it",
}

SCRIPTS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "snippets").rglob("*.py"))


def test_every_program_left_out_exists():
    assert set(PROGRAMS) <= set(SCRIPTS)


@pytest.mark.parametrize("script", [s for s in SCRIPTS if s not in PROGRAMS])
def test_snippet_file_runs_as_a_script(script):
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    run = subprocess.run([sys.executable, script], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"python {script} failed:\n{run.stderr[-2000:]}"
