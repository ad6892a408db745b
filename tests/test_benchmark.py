"""The benchmark module (snippets/measuring/benchmark.py): its CSV, its failures, its command line.

Tiny shapes only: these check what the module writes, never how fast anything is.
"""

import csv
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "snippets" / "measuring" / "benchmark.py"
SAMPLE = ROOT / "samples" / "benchmark-cpu.csv"
TEMPLATE = ("trial", "torch_build", "device", "dtype", "shape", "batch",
            "latency", "memory", "quality_pass")
COMMAND = "python snippets/measuring/benchmark.py --preset quick --output results/benchmark.csv"
TINY = ["--preset", "tiny", "--threads", "1", "--no-progress"]


def load_module():
    spec = importlib.util.spec_from_file_location("benchmark_under_test", MODULE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


bench = load_module()
CPU = torch.device("cpu")


def tiny_cell(**changes):
    fields = {"trial": "t", "workload": "mlp", "task": "inference", "dtype": torch.float32,
              "size": 4, "hidden": 8, "batch": 2}
    fields.update(changes)
    return bench.Cell(**fields)


def measure(cell):
    return bench.measure_cell(cell, CPU, 1, 0.01)


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as file:
        reader = csv.reader(file)
        header = next(reader)
        rows = [dict(zip(header, values, strict=True)) for values in reader]
    return tuple(header), rows


def positive_float(text):
    value = float(text)
    assert value > 0 and math.isfinite(value), text
    return value


def check_row(row, build=bench.torch_build()):
    """Every value of a row parses as what its column promises."""
    assert row["trial"] and row["torch_build"] == build
    torch.device(row["device"])
    assert isinstance(getattr(torch, row["dtype"]), torch.dtype)
    assert re.fullmatch(r"\d+(x\d+)+", row["shape"]), row["shape"]
    assert int(row["batch"]) > 0
    assert row["quality_pass"] in ("true", "false")
    assert row["workload"] in bench.WORKLOADS and row["task"] in bench.TASKS
    assert int(row["threads"]) > 0
    assert float(row["tolerance"]) == bench.TOLERANCE
    if row["error"]:  # a failed cell: nothing measured, nothing passed
        assert row["quality_pass"] == "false"
        for column in ("latency", "memory", "latency_iqr", "first_call", "runs",
                       "samples_per_s", "gflop_per_s", "memory_method", "rel_error"):
            assert row[column] == "", column
        return
    positive_float(row["latency"])
    assert int(row["memory"]) > 0  # measured, never a placeholder zero
    assert row["memory_method"] in bench.MEMORY_METHODS
    assert float(row["latency_iqr"]) >= 0
    positive_float(row["first_call"])
    assert int(row["runs"]) > 0
    positive_float(row["samples_per_s"])
    positive_float(row["gflop_per_s"])
    error = float(row["rel_error"])  # may be nan or inf: then the quality check failed
    assert (row["quality_pass"] == "true") == (math.isfinite(error) and error <= bench.TOLERANCE)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    output = tmp_path_factory.mktemp("run") / "out" / "benchmark.csv"
    done = subprocess.run([sys.executable, str(MODULE), *TINY, "--output", str(output)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return output


def test_header_is_the_template_then_appended_columns(tiny_run):
    header, _ = read_csv(tiny_run)
    assert header[:9] == TEMPLATE
    assert header == bench.COLUMNS + bench.EXTRA_COLUMNS
    assert set(header[9:]) >= {"task", "latency_iqr", "first_call", "threads", "error"}


def test_every_cell_has_a_row_whose_values_parse(tiny_run):
    _, rows = read_csv(tiny_run)
    cells = {(row["task"], row["dtype"], row["batch"]) for row in rows}
    assert cells == {(task, dtype, batch) for task in bench.TASKS
                     for dtype in ("float32", "bfloat16") for batch in ("2", "4")}
    assert len(rows) == len(cells)
    for row in rows:
        check_row(row)
        assert row["error"] == "" and row["threads"] == "1" and row["device"] == "cpu"


def test_float32_passes_and_bfloat16_honestly_fails_the_tolerance(tiny_run):
    _, rows = read_csv(tiny_run)
    verdicts = {(row["task"], row["dtype"], row["batch"]): row["quality_pass"] for row in rows}
    for (task, dtype, batch), verdict in verdicts.items():
        assert verdict == ("true" if dtype == "float32" else "false"), (task, dtype, batch)


def test_metadata_beside_the_csv(tiny_run):
    meta = json.loads(tiny_run.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["torch_build"] == bench.torch_build()
    assert meta["torch_git_version"] == torch.version.git_version
    for key in ("cpu_model", "gpu_name", "threads", "python", "date", "matmul_precision",
                "device", "tolerance", "memory_method", "units", "columns"):
        assert key in meta, key
    assert meta["threads"] == 1 and meta["tolerance"]["value"] == bench.TOLERANCE
    assert "float32_matmul_precision" in meta["matmul_precision"]
    assert "cuda_matmul_allow_tf32" in meta["matmul_precision"]
    assert meta["columns"] == list(read_csv(tiny_run)[0])


def test_torch_build_names_version_git_hash_and_cuda_hip():
    build = bench.torch_build()
    assert build.startswith(torch.__version__ + " git " + torch.version.git_version[:12])
    assert f"cuda {torch.version.cuda or 'none'}" in build and f"hip {torch.version.hip or 'none'}" in build


# ------------------------------------------------------------ quality


def test_a_perturbed_workload_fails_quality(monkeypatch):
    honest = measure(tiny_cell())
    assert honest["quality_pass"] == "true"  # the control: unperturbed, it passes

    forward = bench.forward

    def perturbed(workload, params, x):  # off by 0.1% outside the float64 reference
        out = forward(workload, params, x)
        return out if out.dtype == torch.float64 else out * 1.001

    monkeypatch.setattr(bench, "forward", perturbed)
    for task in bench.TASKS:
        row = measure(tiny_cell(task=task))
        check_row(row)
        assert row["error"] == "" and row["latency"] != ""  # still measured ...
        assert row["quality_pass"] == "false", task  # ... and reported as failing


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_output_fails_quality(monkeypatch, bad):
    forward = bench.forward
    monkeypatch.setattr(bench, "forward", lambda w, p, x: forward(w, p, x) * bad)
    row = measure(tiny_cell())
    assert row["quality_pass"] == "false" and not math.isfinite(float(row["rel_error"]))


def test_relative_error():
    one = (torch.tensor([3.0, 4.0]),)
    assert bench.relative_error(one, one) == 0
    assert bench.relative_error((torch.tensor([3.0, 4.5]),), one) == pytest.approx(0.1)
    assert math.isnan(bench.relative_error((torch.tensor([math.nan, 4.0]),), one))
    assert not bench.quality_pass(math.nan) and not bench.quality_pass(math.inf)
    assert bench.quality_pass(bench.TOLERANCE) and not bench.quality_pass(2 * bench.TOLERANCE)


# ------------------------------------------------------------ failures


@pytest.mark.parametrize("failure", [RuntimeError("forced failure"),
                                     torch.OutOfMemoryError("out of memory (forced)")])
def test_a_failing_cell_gets_a_row_and_the_run_goes_on(monkeypatch, failure):
    forward = bench.forward

    def broken(workload, params, x):
        if x.dtype == torch.bfloat16:
            raise failure
        return forward(workload, params, x)

    monkeypatch.setattr(bench, "forward", broken)
    cells = [tiny_cell(trial=f"{dtype}-{task}", task=task, dtype=dtype)
             for task in ("inference", "training") for dtype in (torch.bfloat16, torch.float32)]
    rows = bench.run(cells, CPU, threads=1, min_run_time=0.01)
    assert [row["trial"] for row in rows] == [cell.trial for cell in cells]
    for row in rows:
        check_row(row)
        if row["dtype"] == "bfloat16":
            assert row["error"] == f"{type(failure).__name__}: {failure}"
            assert row["latency"] == row["memory"] == "" and row["quality_pass"] == "false"
        else:  # measured after the failures
            assert row["error"] == "" and row["quality_pass"] == "true"


def test_an_unsupported_dtype_is_a_failure_row():
    row = measure(tiny_cell(task="training", dtype=torch.int64))
    check_row(row)
    assert row["error"].startswith("RuntimeError: ") and "require gradients" in row["error"]


# ------------------------------------------------------------ command line


@pytest.mark.parametrize("arguments, message", [
    (["--device", "tpu"], "unknown device 'tpu'"),
    (["--device", "xla"], "device 'xla' is not available"),
    (["--dtypes", "float32,float13"], "unknown dtype 'float13'"),
    (["--tasks", "inference,sleeping"], "unknown task 'sleeping'"),
    (["--batch-sizes", "8,0"], "positive integers"),
    (["--size", "-3"], "positive integer"),
    (["--size", "big"], "positive integer"),
    (["--repeats", "0"], "positive integer"),
    (["--min-run-time", "0"], "positive number"),
    (["--workload", "resnet"], "invalid choice"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, arguments, message):
    output = tmp_path / "benchmark.csv"
    assert bench.main([*TINY, "--output", str(output), *arguments]) != 0
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("benchmark.py: error: "), error
    assert message in error
    assert list(tmp_path.iterdir()) == []


def test_an_absent_device_exits_non_zero_from_the_shell(tmp_path):
    absent = "xla"  # a device type torch knows, which no test machine has
    done = subprocess.run([sys.executable, str(MODULE), *TINY, "--device", absent,
                           "--output", str(tmp_path / "b.csv")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == [f"benchmark.py: error: device '{absent}' is not available: "
                     f"torch {torch.__version__} sees only "
                     + (f"cpu and {torch.accelerator.current_accelerator().type} here"
                        if torch.accelerator.is_available() else "the cpu here")]
    assert list(tmp_path.iterdir()) == []


def test_default_device_is_the_accelerator_else_the_cpu():
    expected = (torch.accelerator.current_accelerator() if torch.accelerator.is_available()
                else torch.device("cpu"))
    assert bench.resolve_device(None) == expected
    assert bench.resolve_device("cpu") == torch.device("cpu")


# ------------------------------------------------------------ atomic writes


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "benchmark.csv"
    bench.write_atomically(target, "old,complete\n")
    with pytest.raises(UnicodeEncodeError):
        bench.write_atomically(target, "new," + "x" * 100_000 + "\ud800")  # fails while writing
    assert target.read_text(encoding="utf-8") == "old,complete\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["benchmark.csv"]


def test_an_interrupted_run_writes_no_file(tmp_path, monkeypatch):
    measure_cell, calls = bench.measure_cell, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return measure_cell(*args, **kwargs)

    monkeypatch.setattr(bench, "measure_cell", interrupted)
    output = tmp_path / "results" / "benchmark.csv"
    with pytest.raises(KeyboardInterrupt):
        bench.main([*TINY, "--output", str(output)])
    assert not output.exists() and not output.with_suffix(".json").exists()
    assert not output.parent.exists() or list(output.parent.iterdir()) == []


def test_the_csv_is_replaced_whole(tmp_path, monkeypatch):
    replaced = []
    monkeypatch.setattr(bench.os, "replace", lambda src, dst: replaced.append((src, dst))
                        or os.rename(src, dst))
    output = tmp_path / "benchmark.csv"
    assert bench.main([*TINY, "--tasks", "inference", "--dtypes", "float32",
                       "--output", str(output)]) == 0
    assert [Path(dst).name for _, dst in replaced] == ["benchmark.json", "benchmark.csv"]
    assert all(Path(src).parent == tmp_path and Path(src).name.startswith(".")
               for src, _ in replaced)  # a temporary file in the same folder, then a rename
    assert read_csv(output)[0] == bench.COLUMNS + bench.EXTRA_COLUMNS


# ------------------------------------------------------------ the published sample


def test_the_sample_on_the_page_was_written_by_the_module():
    header, rows = read_csv(SAMPLE)
    assert header == bench.COLUMNS + bench.EXTRA_COLUMNS
    meta = json.loads(SAMPLE.with_suffix(".json").read_text(encoding="utf-8"))
    build = meta["torch_build"]
    assert re.fullmatch(r"\S+ git [0-9a-f]{12} cuda \S+ hip \S+", build), build
    assert build.startswith(f"{meta['torch_version']} git {meta['torch_git_version'][:12]} ")
    assert re.fullmatch(r"[0-9a-f]{40}", meta["torch_git_version"])
    assert meta["columns"] == list(header) and meta["cells"] == len(rows)
    assert meta["run"]["preset"] == "quick" and meta["cpu_model"] and meta["date"]
    for row in rows:
        check_row(row, build)
        assert row["device"] == meta["device"] and row["threads"] == str(meta["threads"])
    # Every task, dtype and batch size of the run, and the honest bfloat16 failures.
    run = meta["run"]
    assert {(r["task"], r["dtype"], int(r["batch"])) for r in rows} == {
        (task, dtype, batch) for task in run["tasks"] for dtype in run["dtypes"]
        for batch in run["batch_sizes"]}
    assert any(r["dtype"] == "bfloat16" and r["quality_pass"] == "false" for r in rows)
    assert all(r["quality_pass"] == "true" for r in rows if r["dtype"] == "float32")


def test_the_measuring_pages_show_the_sample_and_the_readme_the_command():
    for language in ("en", "es"):
        page = (ROOT / "docs" / language / "measuring.md").read_text(encoding="utf-8")
        assert '```csv\n--8<-- "samples/benchmark-cpu.csv"\n```' in page
        assert COMMAND in page
    assert COMMAND in (ROOT / "README.md").read_text(encoding="utf-8")
