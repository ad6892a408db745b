"""The GitHub workflows validate, lint clean and keep to least privilege."""

import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

# tests/ is on the path, as for helpers (spylls ships a "tests" package).
from test_repository import TEST

from ptdocs.snippets import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
SITE = ROOT / ".github" / "workflows" / "site.yml"
# owner/repo[/path]@<40 hex> # <tag>
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")
TAG_COMMENT = re.compile(r"uses:\s*(?P<ref>\S+)\s+#\s*v\d+(\.\d+)*\s*$")
# Write access any job may hold, and why: Pages deployment only.
ALLOWED_WRITE = {"pages", "id-token"}
CPU_WHEELS = "https://download.pytorch.org/whl/cpu"
each_workflow = pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)


def _run(*command) -> subprocess.CompletedProcess:
    result = subprocess.run(list(map(str, command)), capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def _schema(schema: str, *paths: Path) -> None:
    _run(sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *paths)


def _load(path: Path = SITE) -> dict:
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as True.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def _steps(workflow: dict):
    for name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield name, step


def _runs(steps) -> list[str]:
    return [step.get("run", "") for step in steps]


def test_there_is_a_workflow():
    assert WORKFLOWS, "no workflow in .github/workflows"


def test_workflows_match_githubs_schema():
    _schema("vendor.github-workflows", *WORKFLOWS)


def test_zizmor_reports_nothing_over_the_whole_repository():
    """The workflows and Dependabot's configuration alike (.ci/run runs the same)."""
    zizmor = Path(sysconfig.get_path("scripts")) / "zizmor"
    result = _run(zizmor, "--offline", "--no-progress", ROOT)
    assert "No findings to report" in result.stdout
    audited = "dependabot.yml" in result.stderr
    assert audited, "zizmor did not audit .github/dependabot.yml"


@each_workflow
def test_every_job_has_a_timeout(path):
    """GitHub's default is 360 minutes: a hung job would hold a runner for six hours."""
    jobs = _load(path)["jobs"]
    timeouts = {name: job.get("timeout-minutes") for name, job in jobs.items()}
    missing = [name for name, t in timeouts.items() if not isinstance(t, int)]
    assert not missing, f"{path.name}: jobs without timeout-minutes: {missing}"
    assert all(0 < t <= 90 for t in timeouts.values())


def test_the_site_is_published_only_after_every_example_job():
    """macOS and Windows included: a failing example anywhere stops the deployment."""
    jobs = _load()["jobs"]
    examples = ("pytest", "benchmark.py", "ptdocs.versions run")
    running_examples = {
        name
        for name, step in _steps({"jobs": jobs})
        if any(command in step.get("run", "") for command in examples)
    }
    assert {"test", "examples", "releases", "measure"} <= running_examples
    assert running_examples <= set(jobs["site"]["needs"]), set(jobs["site"]["needs"])
    assert jobs["deploy"]["needs"] == "site"


@each_workflow
def test_every_action_is_pinned_to_a_full_commit_sha_with_its_tag(path):
    uses = [step["uses"] for _, step in _steps(_load(path)) if "uses" in step]
    assert uses
    for ref in uses:
        assert PINNED.match(ref), f"{ref}: pin actions to a full 40-hex commit SHA"
    lines = path.read_text().splitlines()
    commented = {m["ref"] for m in map(TAG_COMMENT.search, lines) if m}
    untagged = set(uses) - commented
    assert not untagged, f"say which release tag each SHA is: {untagged}"


@each_workflow
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


@each_workflow
def test_no_privileged_triggers_no_secrets_no_persisted_credentials(path):
    text, workflow = path.read_text(encoding="utf-8"), _load(path)
    assert "pull_request_target" not in workflow["on"]
    assert "workflow_run" not in workflow["on"]
    assert "secrets." not in text and "secrets:" not in text
    for name, step in _steps(workflow):
        if step.get("uses", "").startswith("actions/checkout@"):
            persisted = step.get("with", {}).get("persist-credentials")
            assert persisted is False, f"job {name}"


def test_ci_runs_the_readme_test_command_and_deploys_only_from_main():
    workflow = _load()
    jobs = workflow["jobs"]
    runs = _runs(step for _, step in _steps(workflow))
    assert TEST in runs
    assert "python -m mkdocs build --strict" in runs
    assert any("--preset quick" in run for run in runs)
    # Hosted runners install the CPU-only torch wheel, not the multi-GB default.
    assert jobs["test"]["env"]["PIP_EXTRA_INDEX_URL"] == CPU_WHEELS
    assert "refs/heads/main" in jobs["site"]["if"]
    assert jobs["deploy"]["needs"] == "site"
    deploy = {step["uses"].split("@")[0] for step in jobs["deploy"]["steps"]}
    assert deploy >= {"actions/deploy-pages"}
    uses = [step.get("uses", "") for step in jobs["site"]["steps"]]
    assert any(use.startswith("actions/upload-pages-artifact@") for use in uses)
    # The GPU entry exists only when a repository variable names a runner label, never
    # for a pull request: its code (a fork's too) must not reach the self-hosted runner.
    target = jobs["measure"]["strategy"]["matrix"]["target"]
    assert "vars.GPU_RUNNER_LABEL != ''" in target
    assert "github.event_name != 'pull_request'" in target
    assert set(workflow["on"]) == {"pull_request", "push", "workflow_dispatch"}
    assert workflow["on"]["push"] == {"branches": ["main"]}


def test_dependabot_updates_the_actions_and_the_python_lock_but_not_torch():
    path = ROOT / ".github" / "dependabot.yml"
    _schema("vendor.dependabot", path)
    updates = yaml.safe_load(path.read_text())["updates"]
    updates = {update["package-ecosystem"]: update for update in updates}
    assert set(updates) == {"github-actions", "pip"}
    assert {"dependency-name": "torch"} in updates["pip"]["ignore"]


def test_the_local_pipeline_runs_what_ci_runs_in_the_same_order():
    script = (ROOT / "tools" / "pipeline.sh").read_text(encoding="utf-8")
    lines = [line.strip() for line in script.splitlines()]
    commands = [line for line in lines if line.startswith("python ")]
    assert len(commands) == 3
    tests, benchmark, build = commands
    assert TEST.endswith(tests)
    assert benchmark in _runs(step for _, step in _steps(_load()))
    assert build.startswith("python -m mkdocs build --strict")
    # The benchmark command names a module that exists.
    assert (ROOT / benchmark.split()[1]).is_file()


def test_the_page_examples_run_on_linux_macos_on_apple_silicon_and_windows():
    job = _load()["jobs"]["examples"]
    entries = {entry["os"]: entry for entry in job["strategy"]["matrix"]["include"]}
    assert job["runs-on"] == "${{ matrix.os }}"
    assert job["strategy"]["fail-fast"] is False
    systems = {os.split("-")[0]: os for os in entries}
    assert set(systems) == {"ubuntu", "macos", "windows"} and len(entries) == 3
    ubuntu, macos, windows = (
        entries[systems[n]] for n in ("ubuntu", "macos", "windows")
    )
    # GitHub's macos-14 and later are arm64 (Apple silicon); -13 and "-intel" x86-64.
    name = systems["macos"]
    assert re.fullmatch(r"macos-\d+", name) and int(name.split("-")[1]) >= 14, name
    # torch as requirements.txt pins it, from the index with each system's CPU build:
    # PyTorch's on Linux (PyPI's Linux wheel is the CUDA build), PyPI alone elsewhere.
    assert job["env"]["PIP_EXTRA_INDEX_URL"] == "${{ matrix.extra-index }}"
    assert ubuntu["extra-index"] == CPU_WHEELS
    assert macos["extra-index"] == windows["extra-index"] == ""
    # Only the macOS runner, whose MPS GitHub does not support, hides its accelerator.
    assert job["env"]["PTDOCS_NO_ACCELERATOR"] == "${{ matrix.hide-accelerator }}"
    hidden = [entry["hide-accelerator"] for entry in (ubuntu, macos, windows)]
    assert hidden == ["", "1", ""]
    assert job["defaults"]["run"]["shell"] == "bash"
    runs = [step["run"] for step in job["steps"] if "run" in step]
    install = "python -m pip install -r requirements.txt"
    assert runs == [install, "python -m pytest docs"]
    # Windows runs in its code page, as a reader's Python does.
    assert "PYTHONUTF8" not in job["env"]


def test_every_supported_release_runs_the_examples_and_the_site_merges_them():
    from ptdocs.versions import SUPPORTED

    jobs = _load()["jobs"]
    job = jobs["releases"]
    assert tuple(job["strategy"]["matrix"]["torch"]) == SUPPORTED
    assert job["strategy"]["fail-fast"] is False
    # CPU wheels: PyPI's Linux torch is the multi-GB CUDA build.
    assert job["env"]["PIP_EXTRA_INDEX_URL"] == CPU_WHEELS
    run = next(step for step in job["steps"] if "run" in step)
    # The release reaches the shell through the environment, never spliced in.
    assert run["run"] == 'python -m ptdocs.versions run "$TORCH_RELEASE"'
    assert run["env"]["TORCH_RELEASE"] == "${{ matrix.torch }}"
    upload = "actions/upload-artifact@"
    upload = next(s for s in job["steps"] if s.get("uses", "").startswith(upload))
    assert upload["with"]["path"] == "reports/versions/${{ matrix.torch }}.json"
    site = jobs["site"]
    assert "releases" in site["needs"]
    runs = _runs(site["steps"])
    merge = "python -m ptdocs.versions merge downloaded-versions --expect-supported"
    assert runs.index(merge) < runs.index("python -m mkdocs build --strict")
    patterns = [step.get("with", {}).get("pattern") for step in site["steps"]]
    assert "versions-*" in patterns
