"""The GitHub workflows validate, lint clean and keep to least privilege."""

import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

from ptdocs.snippets import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
# owner/repo[/path]@<40 hex> # <tag>
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")
TAG_COMMENT = re.compile(r"uses:\s*(?P<ref>\S+)\s+#\s*v\d+(\.\d+)*\s*$")
# Write access any job may hold, and why: Pages deployment only.
ALLOWED_WRITE = {"pages", "id-token"}


def _tool(name: str) -> str:
    return str(Path(sysconfig.get_path("scripts")) / name)


def _load(path: Path) -> dict:
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as True.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def _steps(workflow: dict):
    for name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield name, step


def test_there_is_a_workflow():
    assert WORKFLOWS, "no workflow in .github/workflows"


def test_workflows_match_githubs_schema():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            *map(str, WORKFLOWS),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_reports_nothing_over_the_whole_repository():
    """The workflows and Dependabot's configuration alike (.ci/run runs the same)."""
    result = subprocess.run(
        [_tool("zizmor"), "--offline", "--no-progress", str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No findings to report" in result.stdout
    assert "dependabot.yml" in result.stderr, (
        "zizmor did not audit .github/dependabot.yml"
    )


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_job_has_a_timeout(path):
    """GitHub's default is 360 minutes: a hung job would hold a runner for six hours."""
    jobs = _load(path)["jobs"]
    missing = [
        name
        for name, job in jobs.items()
        if not isinstance(job.get("timeout-minutes"), int)
    ]
    assert not missing, f"{path.name}: jobs without timeout-minutes: {missing}"
    assert all(0 < job["timeout-minutes"] <= 90 for job in jobs.values())


def test_the_site_is_published_only_after_every_example_job():
    """macOS and Windows included: a failing example anywhere stops the deployment."""
    jobs = _load(ROOT / ".github" / "workflows" / "site.yml")["jobs"]
    running_examples = {
        name
        for name, job in jobs.items()
        if any(
            "pytest" in step.get("run", "")
            or "benchmark.py" in step.get("run", "")
            or "ptdocs.versions run" in step.get("run", "")
            for step in job.get("steps", [])
        )
    }
    assert {"test", "examples", "releases", "measure"} <= running_examples
    assert running_examples <= set(jobs["site"]["needs"]), set(jobs["site"]["needs"])
    assert jobs["deploy"]["needs"] == "site"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_full_commit_sha_with_its_tag(path):
    workflow = _load(path)
    uses = [step["uses"] for _, step in _steps(workflow) if "uses" in step]
    assert uses
    for ref in uses:
        assert PINNED.match(ref), f"{ref}: pin actions to a full 40-hex commit SHA"
    commented = {
        m["ref"] for m in map(TAG_COMMENT.search, path.read_text().splitlines()) if m
    }
    assert set(uses) <= commented, (
        f"say which release tag each SHA is: {set(uses) - commented}"
    )


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_least_privilege_on_every_job(path):
    workflow = _load(path)
    top = workflow.get("permissions")
    assert top in ({}, "read-all") or (
        isinstance(top, dict) and set(top.values()) <= {"read", "none"}
    ), "top-level permissions: {} (or read), write only on the job that needs it"
    for name, job in workflow["jobs"].items():
        assert "permissions" in job, f"job {name} has no permissions:"
        granted = job["permissions"]
        assert isinstance(granted, dict), f"job {name}: list each permission"
        writes = {scope for scope, level in granted.items() if level == "write"}
        assert writes <= ALLOWED_WRITE, f"job {name} writes {writes - ALLOWED_WRITE}"
        if writes:
            assert "steps" in job and all("run" not in step for step in job["steps"]), (
                f"job {name} holds write access: it runs only the Pages actions, no "
                "code of ours"
            )


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_privileged_triggers_no_secrets_no_persisted_credentials(path):
    text = path.read_text(encoding="utf-8")
    workflow = _load(path)
    assert "pull_request_target" not in workflow["on"]
    assert "workflow_run" not in workflow["on"]
    assert "secrets." not in text and "secrets:" not in text
    for name, step in _steps(workflow):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, (
                f"job {name}"
            )


def test_ci_runs_the_readme_test_command_and_deploys_only_from_main():
    from test_repository import (
        TEST,
    )  # tests/ is on the path, as for helpers (spylls ships a "tests" package)

    workflow = _load(ROOT / ".github" / "workflows" / "site.yml")
    jobs = workflow["jobs"]
    runs = [step.get("run", "") for _, step in _steps(workflow)]
    assert TEST in runs
    assert "python -m mkdocs build --strict" in runs
    assert any("--preset quick" in run for run in runs)
    # Hosted runners install the CPU-only torch wheel, not the multi-GB default.
    assert (
        jobs["test"]["env"]["PIP_EXTRA_INDEX_URL"]
        == "https://download.pytorch.org/whl/cpu"
    )
    assert "refs/heads/main" in jobs["site"]["if"]
    assert jobs["deploy"]["needs"] == "site"
    assert {step["uses"].split("@")[0] for step in jobs["deploy"]["steps"]} >= {
        "actions/deploy-pages"
    }
    assert any(
        step.get("uses", "").startswith("actions/upload-pages-artifact@")
        for step in jobs["site"]["steps"]
    )
    # The GPU entry exists only when a repository variable names a runner label, and
    # never for a pull request: its code (a fork's too) must not reach the self-hosted
    # runner.
    target = jobs["measure"]["strategy"]["matrix"]["target"]
    assert (
        "vars.GPU_RUNNER_LABEL != ''" in target
        and "github.event_name != 'pull_request'" in target
    )
    assert set(workflow["on"]) == {"pull_request", "push", "workflow_dispatch"}
    assert workflow["on"]["push"] == {"branches": ["main"]}


def test_dependabot_updates_the_actions_and_the_python_lock_but_not_torch():
    path = ROOT / ".github" / "dependabot.yml"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.dependabot",
            str(path),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    updates = {
        update["package-ecosystem"]: update
        for update in yaml.safe_load(path.read_text())["updates"]
    }
    assert set(updates) == {"github-actions", "pip"}
    assert {"dependency-name": "torch"} in updates["pip"]["ignore"]


def test_the_local_pipeline_runs_what_ci_runs_in_the_same_order():
    from test_repository import (
        TEST,
    )  # tests/ is on the path, as for helpers (spylls ships a "tests" package)

    script = (ROOT / "tools" / "pipeline.sh").read_text(encoding="utf-8")
    commands = [
        line.strip()
        for line in script.splitlines()
        if line.strip().startswith("python ")
    ]
    runs = [
        step.get("run", "")
        for _, step in _steps(_load(ROOT / ".github" / "workflows" / "site.yml"))
    ]
    assert len(commands) == 3
    tests, benchmark, build = commands
    assert TEST.endswith(tests)
    assert benchmark in runs
    assert build.startswith("python -m mkdocs build --strict")
    # The benchmark command names a module that exists.
    assert (ROOT / benchmark.split()[1]).is_file()


def test_the_page_examples_run_on_linux_macos_on_apple_silicon_and_windows():
    job = _load(ROOT / ".github" / "workflows" / "site.yml")["jobs"]["examples"]
    entries = {entry["os"]: entry for entry in job["strategy"]["matrix"]["include"]}
    assert (
        job["runs-on"] == "${{ matrix.os }}" and job["strategy"]["fail-fast"] is False
    )
    systems = {os.split("-")[0]: os for os in entries}
    assert set(systems) == {"ubuntu", "macos", "windows"} and len(entries) == 3
    # GitHub's macos-14 and later images are arm64 (Apple silicon); -13 and "-intel"
    # ones are x86-64.
    macos = systems["macos"]
    assert re.fullmatch(r"macos-\d+", macos) and int(macos.split("-")[1]) >= 14, macos
    # torch as requirements.txt pins it, from the index that has the CPU build for each
    # system: PyTorch's CPU index on Linux (PyPI's Linux wheel is the CUDA build), PyPI
    # alone elsewhere.
    assert job["env"]["PIP_EXTRA_INDEX_URL"] == "${{ matrix.extra-index }}"
    assert (
        entries[systems["ubuntu"]]["extra-index"]
        == "https://download.pytorch.org/whl/cpu"
    )
    assert (
        entries[macos]["extra-index"]
        == entries[systems["windows"]]["extra-index"]
        == ""
    )
    # Only the macOS runner, whose MPS GitHub does not support, hides its accelerator.
    assert job["env"]["PTDOCS_NO_ACCELERATOR"] == "${{ matrix.hide-accelerator }}"
    assert {os: entry["hide-accelerator"] for os, entry in entries.items()} == {
        systems["ubuntu"]: "",
        macos: "1",
        systems["windows"]: "",
    }
    assert job["defaults"]["run"]["shell"] == "bash"
    runs = [step["run"] for step in job["steps"] if "run" in step]
    assert runs == [
        "python -m pip install -r requirements.txt",
        "python -m pytest docs",
    ]
    assert (
        "PYTHONUTF8" not in job["env"]
    )  # Windows runs in its code page, as a reader's Python does


def test_every_supported_release_runs_the_examples_and_the_site_merges_them():
    from ptdocs.versions import SUPPORTED

    workflow = _load(ROOT / ".github" / "workflows" / "site.yml")
    job = workflow["jobs"]["releases"]
    assert tuple(job["strategy"]["matrix"]["torch"]) == SUPPORTED
    assert job["strategy"]["fail-fast"] is False
    # CPU wheels: PyPI's Linux torch is the multi-GB CUDA build.
    assert job["env"]["PIP_EXTRA_INDEX_URL"] == "https://download.pytorch.org/whl/cpu"
    run = next(step for step in job["steps"] if "run" in step)
    # The release reaches the shell through the environment, never spliced into the
    # command.
    assert run["run"] == 'python -m ptdocs.versions run "$TORCH_RELEASE"'
    assert run["env"]["TORCH_RELEASE"] == "${{ matrix.torch }}"
    upload = next(
        step
        for step in job["steps"]
        if step.get("uses", "").startswith("actions/upload-artifact@")
    )
    assert upload["with"]["path"] == "reports/versions/${{ matrix.torch }}.json"
    site = workflow["jobs"]["site"]
    assert "releases" in site["needs"]
    runs = [step.get("run", "") for step in site["steps"]]
    merge = runs.index(
        "python -m ptdocs.versions merge downloaded-versions --expect-supported"
    )
    assert merge < runs.index("python -m mkdocs build --strict")
    assert any(
        step.get("with", {}).get("pattern") == "versions-*" for step in site["steps"]
    )
