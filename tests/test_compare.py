"""The compare command (snippets/measuring/compare.py): cells matched, ratios and noise-aware verdicts.

Hand-made CSVs with known medians and IQRs pin every verdict exactly; two runs of
the real module check that it reads what the benchmark writes.
"""

import csv
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "snippets" / "measuring" / "compare.py"
BENCHMARK = ROOT / "snippets" / "measuring" / "benchmark.py"
TEMPLATE = ("trial", "torch_build", "device", "dtype", "shape", "batch", "latency", "memory", "quality_pass")
OLD_EXTRAS = ("workload", "task", "latency_iqr", "first_call", "runs", "threads", "samples_per_s",
              "gflop_per_s", "memory_method", "rel_error", "tolerance", "error")
NEW_EXTRAS = OLD_EXTRAS + ("blocks", "noisy")
BUILD = "2.13.0+cpu git cf30153c4c13 cuda none hip none"


def load_module():
    spec = importlib.util.spec_from_file_location("compare_under_test", MODULE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


compare = load_module()


def row(task, dtype, batch, latency, iqr, *, noisy="false", passed="true", error="", threads=1, repeat=1):
    return {"trial": f"mlp-{task}-{dtype}-b{batch}-r{repeat}", "torch_build": BUILD, "device": "cpu",
            "dtype": dtype, "shape": "8x32x8", "batch": batch, "latency": latency, "memory": 512,
            "quality_pass": passed, "workload": "mlp", "task": task, "latency_iqr": iqr, "first_call": 0.001,
            "runs": 100, "threads": threads, "samples_per_s": "", "gflop_per_s": "",
            "memory_method": "x", "rel_error": 1e-7, "tolerance": 1e-4, "error": error, "blocks": 10,
            "noisy": noisy}


def write(path: Path, rows, columns=TEMPLATE + NEW_EXTRAS):
    with path.open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


# Baseline and other run: medians and IQRs in seconds, chosen so that each verdict is known.
BASE = [
    row("inference", "float32", 8, 100e-6, 2e-6),      # other 80 (IQR 2): -20% > 5%: faster
    row("inference", "float32", 64, 100e-6, 10e-6),    # other 115 (IQR 11.5): 15% < 10% + 10%: within noise
    row("training", "float32", 8, 100e-6, 1e-6),       # other 104: 4% < the 5% floor: within noise
    row("training", "float32", 64, 100e-6, 1e-6),      # other 130: +30% > 5%: slower
    row("gradient", "float32", 8, 100e-6, 1e-6),       # other is flagged noisy: not compared
    row("gradient", "float32", 64, 100e-6, 1e-6, passed="false"),  # baseline failed quality: not compared
    row("inference", "bfloat16", 8, 100e-6, 1e-6),     # other did not run: not compared
    row("inference", "bfloat16", 64, 100e-6, 1e-6),    # absent from the other run
]
OTHER = [
    row("inference", "float32", 8, 80e-6, 2e-6, threads=2),
    row("inference", "float32", 64, 115e-6, 11.5e-6, threads=2),
    row("training", "float32", 8, 104e-6, 1e-6, threads=2),
    row("training", "float32", 64, 130e-6, 1e-6, threads=2),
    row("gradient", "float32", 8, 50e-6, 1e-6, noisy="true", threads=2),
    row("gradient", "float32", 64, 50e-6, 1e-6, threads=2),
    row("inference", "bfloat16", 8, "", "", passed="false", error="RuntimeError: boom", threads=2),
    row("training", "bfloat16", 8, 100e-6, 1e-6, threads=2),  # absent from the baseline
]
KEY = {("inference", "float32", 8): "faster", ("inference", "float32", 64): "within noise",
       ("training", "float32", 8): "within noise", ("training", "float32", 64): "slower",
       ("gradient", "float32", 8): "not compared", ("gradient", "float32", 64): "not compared",
       ("inference", "bfloat16", 8): "not compared", ("inference", "bfloat16", 64): "missing",
       ("training", "bfloat16", 8): "missing"}


@pytest.fixture
def pair(tmp_path):
    return write(tmp_path / "base.csv", BASE), write(tmp_path / "other.csv", OTHER)


def key(task, dtype, batch):
    return ("mlp", task, dtype, "8x32x8", str(batch))


def test_every_verdict_follows_from_the_medians_and_iqrs(pair):
    result = compare.compare(pair)
    assert {(k[1], k[2], k[4]): result.verdicts[k, 1].kind for k in result.keys} == {
        (t, d, str(b)): kind for (t, d, b), kind in KEY.items()}
    faster = result.verdicts[key("inference", "float32", 8), 1]
    assert faster.ratio == pytest.approx(80 / 100) and faster.threshold == pytest.approx(0.05)
    assert faster.text() == "faster (beyond 5.0%)"
    noise = result.verdicts[key("inference", "float32", 64), 1]
    assert noise.threshold == pytest.approx(10 / 100 + 11.5 / 115) and noise.text() == "within noise (limit 20.0%)"
    assert result.verdicts[key("training", "float32", 8), 1].text() == "within noise (limit 5.0%)"
    assert result.verdicts[key("training", "float32", 64), 1].text() == "slower (beyond 5.0%)"
    assert result.counts(1) == {"faster": 1, "slower": 1, "within noise": 2, "not compared": 3, "missing": 2}


def test_noisy_failed_and_crashed_rows_are_never_called_faster_and_say_why(pair):
    result = compare.compare(pair)
    noisy = result.verdicts[key("gradient", "float32", 8), 1]
    assert noisy.ratio == pytest.approx(0.5)  # twice as fast on paper, but flagged noisy
    assert noisy.text() == "not compared ([2] flagged noisy)"
    failed = result.verdicts[key("gradient", "float32", 64), 1]
    assert failed.text() == "not compared ([1] failed the quality check)"
    crashed = result.verdicts[key("inference", "bfloat16", 8), 1]
    assert crashed.ratio is None and crashed.text() == "not compared ([2] did not run)"
    assert result.verdicts[key("inference", "bfloat16", 64), 1].text() == "missing (not in [2])"
    assert result.verdicts[key("training", "bfloat16", 8), 1].text() == "missing (not in [1])"


def test_the_minimum_change_is_a_stated_floor(pair):
    assert compare.compare(pair, min_change=0.03).verdicts[key("training", "float32", 8), 1].kind == "slower"
    assert compare.compare(pair, min_change=0.35).verdicts[key("training", "float32", 64), 1].kind == "within noise"


def test_the_table_is_one_compare_style_block_per_cell(pair):
    text = compare.render(compare.compare(pair))
    assert "cpu, 1 thread\n" in text and "cpu, 2 threads\n" in text
    block = text.split("[-")[1]
    assert "mlp · inference · float32 · 8x32x8 · batch 8" in block
    lines = [line for line in block.splitlines() if line.startswith("  [")]
    assert [line.split("|")[1].strip() for line in lines] == ["100", "80"]  # one unit per table: µs
    assert "median (µs)" in block and lines[1].split("|")[3].strip() == "0.800"
    assert "✗ quality" in text and "noisy" in text and "did not run" in text
    assert "[2] against [1]: 1 faster, 1 slower, 2 within noise, 3 not compared, 2 missing" in text
    assert "noise ?" not in text  # every row has its noisy flag


def test_a_csv_made_before_the_noise_flag_loads_with_noise_unknown(tmp_path):
    old = write(tmp_path / "old.csv", BASE[:2], columns=TEMPLATE + OLD_EXTRAS)
    result = compare.compare([old, write(tmp_path / "new.csv", OTHER[:2])])
    assert all(entry.noisy is None for entry in result.runs[0].cells.values())
    assert result.verdicts[key("inference", "float32", 8), 1].kind == "faster"  # judged on the IQRs
    text = compare.render(result)
    assert "noise ?" in text and "noise ?: the CSV has no noisy column" in text


def test_repeats_of_a_cell_combine_into_one_entry_without_hiding_their_spread(tmp_path):
    rows = [row("inference", "float32", 8, 100e-6, 1e-6, repeat=1),
            row("inference", "float32", 8, 110e-6, 2e-6, repeat=2),
            row("inference", "float32", 8, 104e-6, 1e-6, repeat=3)]
    run = compare.load_run(write(tmp_path / "r.csv", rows), "[1]")
    (entry,) = run.cells.values()
    assert entry.rows == 3 and entry.latency == pytest.approx(104e-6)
    assert entry.iqr == pytest.approx(10e-6)  # the range between repeats exceeds every row's IQR


def test_the_comparison_is_written_as_csv_or_json(pair, tmp_path):
    out = tmp_path / "cmp.csv"
    assert compare.main([*map(str, pair), "--output", str(out)]) == 0
    records = list(csv.DictReader(out.open()))
    assert len(records) == 2 * 9 and {r["run"] for r in records} == {"[1]", "[2]"}
    slower = next(r for r in records if r["task"] == "training" and r["batch"] == "64" and r["run"] == "[2]")
    assert slower["verdict"] == "slower" and float(slower["ratio"]) == pytest.approx(1.3)
    out = tmp_path / "cmp.json"
    assert compare.main([*map(str, pair), "--output", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["cell"] == ["workload", "task", "dtype", "shape", "batch"] and len(data["rows"]) == 18
    assert [r["threads"] for r in data["runs"]] == ["1", "2"]


def cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, str(MODULE), *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_help_explains_the_verdicts():
    run = cli("--help")
    assert run.returncode == 0 and "baseline first" in run.stdout and "within noise" in run.stdout


@pytest.mark.parametrize("case, message", [
    ("missing", "missing.csv: no such file"),
    ("metadata", "not a benchmark CSV (no trial, torch_build"),
    ("foreign", "not a benchmark CSV (no "),
    ("one", "give at least two CSVs"),
    ("disjoint", "has no cell in common with"),
    ("bad output", "--output"),
    ("overwrite", "would overwrite an input"),
])
def test_bad_input_is_one_line_and_exit_status_2(pair, tmp_path, case, message):
    base, other = pair
    foreign = tmp_path / "foreign.csv"
    foreign.write_text("a,b\n1,2\n")
    (tmp_path / "base.json").write_text("{}")
    args = {"missing": (base, tmp_path / "missing.csv"), "metadata": (base, tmp_path / "base.json"),
            "foreign": (base, foreign), "one": (base,),
            "disjoint": (base, write(tmp_path / "d.csv", [row("inference", "float64", 3, 1e-6, 0)])),
            "bad output": (base, other, "--output", tmp_path),
            "overwrite": (base, other, "--output", other)}[case]
    run = cli(*args)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("compare.py: error: ") and message in run.stderr
    assert run.stderr.count("\n") == 1
    assert other.read_text().startswith("trial,")  # nothing overwritten


def test_without_arguments_it_compares_the_committed_pair():
    run = cli()
    assert run.returncode == 0, run.stderr
    assert "benchmark-cpu-threads1.csv" in run.stdout and "benchmark-cpu-threads2.csv" in run.stdout
    assert "[2] against [1]:" in run.stdout


def test_it_reads_what_the_real_module_writes(tmp_path):
    """Two tiny runs of the benchmark itself, at 1 and 2 threads: every cell matched, none missing."""
    for threads in (1, 2):
        made = subprocess.run([sys.executable, str(BENCHMARK), "--preset", "tiny", "--threads", str(threads),
                               "--no-progress", "--output", str(tmp_path / f"t{threads}.csv")],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert made.returncode == 0, made.stderr[-2000:]
    result = compare.compare([tmp_path / "t1.csv", tmp_path / "t2.csv"])
    assert len(result.keys) == 12 and result.counts(1)["missing"] == 0
    assert [run.threads for run in result.runs] == ["1", "2"]
    text = cli(tmp_path / "t1.csv", tmp_path / "t2.csv").stdout
    assert text.count("[---") == 12


def test_matmul_agreement_judges_against_its_aa_control_and_one_slow_round_cannot_flip_it():
    spec = importlib.util.spec_from_file_location("matmul_agreement", ROOT / "benchmarks" / "matmul_agreement.py")
    agreement = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(agreement)
    steady_aa = [0.99, 1.0, 1.01, 1.0, 0.995, 1.005]
    one_slow_round = [1.0, 1.01, 0.99, 1.055, 1.0, 1.0]  # the round that once read "DISAGREE 5.5%"
    assert agreement.verdict(one_slow_round, steady_aa)[0] == "agree"
    assert agreement.verdict([1.1] * 6, steady_aa)[0] == "DISAGREE"
    assert agreement.verdict([1.1] * 6, steady_aa + [1.2])[0] == "inconclusive"  # the Timer moves as much
    assert len(agreement.ORDERS) == 6  # every order of the three once per six rounds
