"""The compare command (snippets/measuring/compare.py): cells matched, ratios and
noise-aware verdicts.

Hand-made CSVs with known medians and IQRs pin every verdict exactly; two runs of the
real module check that it reads what the benchmark writes.
"""

import csv
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import OLD_EXTRAS, TEMPLATE, benchmark

from benchmarks import matmul_agreement as agreement
from snippets.measuring import compare

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "snippets" / "measuring" / "compare.py"
NEW_EXTRAS = OLD_EXTRAS + ("blocks", "noisy")
BUILD = "2.13.0+cpu git cf30153c4c13 cuda none hip none"


def row(
    task,
    dtype,
    batch,
    latency,
    iqr,
    *,
    noisy="false",
    passed="true",
    error="",
    threads=1,
    repeat=1,
):
    return {
        "trial": f"mlp-{task}-{dtype}-b{batch}-r{repeat}",
        "torch_build": BUILD,
        "device": "cpu",
        "dtype": dtype,
        "shape": "8x32x8",
        "batch": batch,
        "latency": latency,
        "memory": 512,
        "quality_pass": passed,
        "workload": "mlp",
        "task": task,
        "latency_iqr": iqr,
        "first_call": 0.001,
        "runs": 100,
        "threads": threads,
        "samples_per_s": "",
        "gflop_per_s": "",
        "memory_method": "x",
        "rel_error": 1e-7,
        "tolerance": 1e-4,
        "error": error,
        "blocks": 10,
        "noisy": noisy,
    }


def write(path: Path, rows, columns=TEMPLATE + NEW_EXTRAS):
    with path.open("w", newline="") as file:
        writer = csv.DictWriter(
            file, fieldnames=columns, lineterminator="\n", extrasaction="ignore"
        )
        writer.writeheader()
        writer.writerows(rows)
    return path


# Baseline and other run: medians and IQRs in seconds, chosen so that each verdict is
# known.
BASE = [
    row("inference", "float32", 8, 100e-6, 2e-6),  # other 80 (IQR 2): -20% > 5%: faster
    row(
        "inference", "float32", 64, 100e-6, 10e-6
    ),  # other 115 (IQR 11.5): 15% < 10% + 10%: within noise
    row(
        "training", "float32", 8, 100e-6, 1e-6
    ),  # other 104: 4% < the 5% floor: within noise
    row("training", "float32", 64, 100e-6, 1e-6),  # other 130: +30% > 5%: slower
    row("gradient", "float32", 8, 100e-6, 1e-6),  # other is flagged noisy: not compared
    row(
        "gradient", "float32", 64, 100e-6, 1e-6, passed="false"
    ),  # baseline failed quality: not compared
    row("inference", "bfloat16", 8, 100e-6, 1e-6),  # other did not run: not compared
    row("inference", "bfloat16", 64, 100e-6, 1e-6),  # absent from the other run
]
OTHER = [
    row("inference", "float32", 8, 80e-6, 2e-6, threads=2),
    row("inference", "float32", 64, 115e-6, 11.5e-6, threads=2),
    row("training", "float32", 8, 104e-6, 1e-6, threads=2),
    row("training", "float32", 64, 130e-6, 1e-6, threads=2),
    row("gradient", "float32", 8, 50e-6, 1e-6, noisy="true", threads=2),
    row("gradient", "float32", 64, 50e-6, 1e-6, threads=2),
    row(
        "inference",
        "bfloat16",
        8,
        "",
        "",
        passed="false",
        error="RuntimeError: boom",
        threads=2,
    ),
    row("training", "bfloat16", 8, 100e-6, 1e-6, threads=2),  # absent from the baseline
]
KEY = {
    ("inference", "float32", 8): "faster",
    ("inference", "float32", 64): "within noise",
    ("training", "float32", 8): "within noise",
    ("training", "float32", 64): "slower",
    ("gradient", "float32", 8): "not compared",
    ("gradient", "float32", 64): "not compared",
    ("inference", "bfloat16", 8): "not compared",
    ("inference", "bfloat16", 64): "missing",
    ("training", "bfloat16", 8): "missing",
}


@pytest.fixture
def pair(tmp_path):
    return write(tmp_path / "base.csv", BASE), write(tmp_path / "other.csv", OTHER)


def key(task, dtype, batch):
    return ("mlp", task, dtype, "8x32x8", str(batch))


def test_every_verdict_follows_from_the_medians_and_iqrs(pair):
    result = compare.compare(pair)
    assert {(k[1], k[2], k[4]): result.verdicts[k, 1].kind for k in result.keys} == {
        (t, d, str(b)): kind for (t, d, b), kind in KEY.items()
    }
    faster = result.verdicts[key("inference", "float32", 8), 1]
    assert faster.ratio == pytest.approx(
        80 / 100
    ) and faster.threshold == pytest.approx(0.05)
    assert faster.text() == "faster (beyond ×1.050)"
    noise = result.verdicts[key("inference", "float32", 64), 1]
    assert (
        noise.threshold == pytest.approx(10 / 100 + 11.5 / 115)
        and noise.text() == "within noise (limit ×1.200)"
    )
    assert (
        result.verdicts[key("training", "float32", 8), 1].text()
        == "within noise (limit ×1.050)"
    )
    assert (
        result.verdicts[key("training", "float32", 64), 1].text()
        == "slower (beyond ×1.050)"
    )
    assert result.counts(1) == {
        "faster": 1,
        "slower": 1,
        "within noise": 2,
        "not compared": 3,
        "missing": 2,
    }


def test_noisy_failed_and_crashed_rows_are_never_called_faster_and_say_why(pair):
    result = compare.compare(pair)
    noisy = result.verdicts[key("gradient", "float32", 8), 1]
    assert noisy.ratio == pytest.approx(
        0.5
    )  # twice as fast on paper, but flagged noisy
    assert noisy.text() == "not compared ([2] flagged noisy)"
    failed = result.verdicts[key("gradient", "float32", 64), 1]
    assert failed.text() == "not compared ([1] failed the quality check)"
    crashed = result.verdicts[key("inference", "bfloat16", 8), 1]
    assert crashed.ratio is None and crashed.text() == "not compared ([2] did not run)"
    assert (
        result.verdicts[key("inference", "bfloat16", 64), 1].text()
        == "missing (not in [2])"
    )
    assert (
        result.verdicts[key("training", "bfloat16", 8), 1].text()
        == "missing (not in [1])"
    )


def entry(latency, iqr):
    return compare.Entry(latency, iqr, False, True, "", 1)


def test_the_verdict_does_not_depend_on_which_run_is_the_baseline():
    """100 µs against 95.2 µs: a factor of 1.0504 either way, so faster one way and
    slower the other.

    Judged on |ratio - 1|, 95.2 / 100 is off by 4.8% (within 5%) but 100 / 95.2 by
    5.04%.
    """
    a, b = entry(100e-6, 0.1e-6), entry(95.2e-6, 0.1e-6)
    assert compare.judge(a, b).kind == "faster" and compare.judge(b, a).kind == "slower"
    assert compare.judge(a, b).threshold == compare.judge(b, a).threshold
    c = entry(95.3e-6, 0.1e-6)  # a factor of 1.0493: within noise both ways
    assert compare.judge(a, c).kind == compare.judge(c, a).kind == "within noise"
    mirror = {"faster": "slower", "slower": "faster", "within noise": "within noise"}
    rng = random.Random(0)
    for _ in range(2000):
        x = entry(rng.uniform(50e-6, 150e-6), rng.uniform(0, 10e-6))
        y = entry(rng.uniform(50e-6, 150e-6), rng.uniform(0, 10e-6))
        assert compare.judge(x, y).kind == mirror[compare.judge(y, x).kind]


def test_the_minimum_change_is_a_stated_floor(pair):
    assert (
        compare.compare(pair, min_change=0.03)
        .verdicts[key("training", "float32", 8), 1]
        .kind
        == "slower"
    )
    assert (
        compare.compare(pair, min_change=0.35)
        .verdicts[key("training", "float32", 64), 1]
        .kind
        == "within noise"
    )


def test_the_table_is_one_compare_style_block_per_cell(pair):
    text = compare.render(compare.compare(pair))
    assert "cpu, 1 thread\n" in text and "cpu, 2 threads\n" in text
    block = text.split("[-")[1]
    assert "mlp · inference · float32 · 8x32x8 · batch 8" in block
    lines = [line for line in block.splitlines() if line.startswith("  [")]
    assert [line.split("|")[1].strip() for line in lines] == [
        "100",
        "80",
    ]  # one unit per table: µs
    assert "median (µs)" in block and lines[1].split("|")[3].strip() == "0.800"
    assert "✗ quality" in text and "noisy" in text and "did not run" in text
    assert (
        "[2] against [1]: 1 faster, 1 slower, 2 within noise, 3 not compared, 2 missing"
        in text
    )
    assert "noise ?" not in text  # every row has its noisy flag
    assert "not a significance test" in text and "chosen default" in text
    assert "conservative" not in text and "drift between runs is not in it" in text
    for reason in compare.REASONS:  # every reason a cell can go uncompared is listed
        assert (
            reason.replace("a repeat failed", "had a repeat that failed")
            .replace("no IQR", "has no IQR")
            .replace("flagged noisy", "is flagged noisy")
            .replace("repeats disagree", "had repeats that disagree")
            in text
        )


def test_a_csv_made_before_the_noise_flag_loads_with_noise_unknown(tmp_path):
    old = write(tmp_path / "old.csv", BASE[:2], columns=TEMPLATE + OLD_EXTRAS)
    result = compare.compare([old, write(tmp_path / "new.csv", OTHER[:2])])
    assert all(entry.noisy is None for entry in result.runs[0].cells.values())
    assert (
        result.verdicts[key("inference", "float32", 8), 1].kind == "faster"
    )  # judged on the IQRs
    text = compare.render(result)
    assert "noise ?" in text and "noise ?: the CSV has no noisy column" in text


def test_repeats_of_a_cell_combine_into_one_entry_without_hiding_their_spread(tmp_path):
    rows = [
        row("inference", "float32", 8, 100e-6, 1e-6, repeat=1),
        row("inference", "float32", 8, 110e-6, 2e-6, repeat=2),
        row("inference", "float32", 8, 104e-6, 1e-6, repeat=3),
    ]
    run = compare.load_run(write(tmp_path / "r.csv", rows), "[1]")
    (entry,) = run.cells.values()
    assert entry.rows == 3 and entry.latency == pytest.approx(104e-6)
    assert entry.iqr == pytest.approx(
        10e-6
    )  # the range between repeats exceeds every row's IQR


def test_a_cell_with_a_failed_repeat_says_so_and_is_not_compared(tmp_path):
    """The repeats that ran give a median, but the one that crashed must not be
    hidden behind it."""
    base = write(tmp_path / "b.csv", [row("inference", "float32", 8, 100e-6, 1e-6)])
    rows = [
        row("inference", "float32", 8, 50e-6, 1e-6, repeat=1),
        row(
            "inference",
            "float32",
            8,
            "",
            "",
            passed="false",
            error="RuntimeError: boom",
            repeat=2,
        ),
        row("inference", "float32", 8, 52e-6, 1e-6, repeat=3),
    ]
    result = compare.compare([base, write(tmp_path / "o.csv", rows)])
    (entry,) = result.runs[1].cells.values()
    assert (
        entry.latency == pytest.approx(51e-6)
        and entry.failed_repeats == 1
        and entry.passed
    )
    verdict = result.verdicts[key("inference", "float32", 8), 1]
    assert (
        verdict.kind == "not compared"
        and verdict.text() == "not compared ([2] a repeat failed)"
    )
    assert (
        "1 of 3 repeats failed" in compare.render(result)
        and "did not run" not in verdict.text()
    )


def test_the_comparison_is_written_as_csv_or_json(pair, tmp_path):
    out = tmp_path / "cmp.csv"
    assert compare.main([*map(str, pair), "--output", str(out)]) == 0
    records = list(csv.DictReader(out.open()))
    assert len(records) == 2 * 9 and {r["run"] for r in records} == {"[1]", "[2]"}
    slower = next(
        r
        for r in records
        if r["task"] == "training" and r["batch"] == "64" and r["run"] == "[2]"
    )
    assert slower["verdict"] == "slower" and float(slower["ratio"]) == pytest.approx(
        1.3
    )
    assert float(slower["limit_factor"]) == pytest.approx(1.05)
    out = tmp_path / "cmp.json"
    assert compare.main([*map(str, pair), "--output", str(out)]) == 0
    data = json.loads(out.read_text())
    assert (
        data["cell"] == ["workload", "task", "dtype", "shape", "batch"]
        and len(data["rows"]) == 18
    )
    assert [r["threads"] for r in data["runs"]] == ["1", "2"]


def cli(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, str(MODULE), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_help_explains_the_verdicts():
    run = cli("--help")
    assert (
        run.returncode == 0
        and "baseline first" in run.stdout
        and "within noise" in run.stdout
    )
    help_text = " ".join(run.stdout.split())
    assert "bootstrap interval" in help_text and "no ratio shown" in help_text
    assert "conservative" not in help_text


def test_an_iqr_of_zero_is_a_steady_row_but_a_latency_of_zero_is_refused(tmp_path):
    """A latency of 0 once passed as 'did not run' while the table showed a median of
    0 with no mark."""
    steady = write(tmp_path / "s.csv", [row("inference", "float32", 8, 80e-6, 0)])
    result = compare.compare(
        [write(tmp_path / "b.csv", [row("inference", "float32", 8, 100e-6, 0)]), steady]
    )
    assert (
        result.verdicts[key("inference", "float32", 8), 1].text()
        == "faster (beyond ×1.050)"
    )
    with pytest.raises(
        compare.CompareError,
        match=r"z.csv, line 2: latency '0' is not a time in seconds",
    ):
        compare.read_csv(
            write(tmp_path / "z.csv", [row("inference", "float32", 8, 0, 0)])
        )


def test_a_cell_not_compared_shows_its_medians_but_no_ratio(pair, tmp_path):
    """0.50 beside 'not compared' reads as a speedup: the table and --output leave
    the ratio out."""
    result = compare.compare(pair)
    noisy, failed = key("gradient", "float32", 8), key("gradient", "float32", 64)
    assert result.verdicts[noisy, 1].ratio == pytest.approx(
        0.5
    )  # computed and kept in the Verdict
    for cell in (noisy, failed):
        lines = [
            line
            for line in compare.cell_table(result, cell).splitlines()
            if line.startswith("  [")
        ]
        cells = [part.strip() for part in lines[1].split("|")]
        assert (
            cells[1] == "50" and cells[3] == "—" and cells[5].startswith("not compared")
        )  # median kept
    judged = [
        line
        for line in compare.cell_table(
            result, key("training", "float32", 64)
        ).splitlines()
        if line.startswith("  [2]")
    ]
    assert judged[0].split("|")[3].strip() == "1.300"
    out = tmp_path / "cmp.csv"
    assert compare.main([*map(str, pair), "--output", str(out)]) == 0
    written = {
        (r["task"], r["dtype"], r["batch"]): r
        for r in csv.DictReader(out.open())
        if r["run"] == "[2]"
    }
    assert (
        written["gradient", "float32", "8"]["ratio"] == ""
        and written["gradient", "float32", "8"]["latency"]
    )
    assert written["gradient", "float32", "64"]["ratio"] == ""
    assert float(written["training", "float32", "64"]["ratio"]) == pytest.approx(1.3)


@pytest.mark.parametrize(
    "case, message",
    [
        ("missing", "missing.csv: no such file"),
        ("metadata", "not a benchmark CSV (no trial, torch_build"),
        ("foreign", "not a benchmark CSV (no "),
        ("one", "give at least two CSVs"),
        ("disjoint", "has no cell in common with"),
        ("bad output", "--output"),
        ("overwrite", "would overwrite an input"),
        (
            "zero latency",
            "line 2: latency '0' is not a time in seconds (a latency must be above 0)",
        ),
        ("negative latency", "line 2: latency '-1e-05' is not a time in seconds"),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(pair, tmp_path, case, message):
    base, other = pair
    foreign = tmp_path / "foreign.csv"
    foreign.write_text("a,b\n1,2\n")
    (tmp_path / "base.json").write_text("{}")
    args = {
        "missing": (base, tmp_path / "missing.csv"),
        "metadata": (base, tmp_path / "base.json"),
        "foreign": (base, foreign),
        "one": (base,),
        "disjoint": (
            base,
            write(tmp_path / "d.csv", [row("inference", "float64", 3, 1e-6, 0)]),
        ),
        "bad output": (base, other, "--output", tmp_path),
        "overwrite": (base, other, "--output", other),
        "zero latency": (
            base,
            write(tmp_path / "z.csv", [row("inference", "float32", 8, 0, 0)]),
        ),
        "negative latency": (
            base,
            write(tmp_path / "n.csv", [row("inference", "float32", 8, -1e-5, 0)]),
        ),
    }[case]
    run = cli(*args)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("compare.py: error: ") and message in run.stderr
    assert run.stderr.count("\n") == 1
    assert other.read_text().startswith("trial,")  # nothing overwritten


def test_without_arguments_it_compares_the_committed_pair():
    run = cli()
    assert run.returncode == 0, run.stderr
    assert (
        "benchmark-cpu-threads1.csv" in run.stdout
        and "benchmark-cpu-threads2.csv" in run.stdout
    )
    assert "[2] against [1]:" in run.stdout


def test_it_reads_what_the_real_module_writes(tiny_run, tmp_path):
    """Two tiny runs of the benchmark itself, at 1 thread (tests/conftest.py's) and
    at 2: every cell matched."""
    made = benchmark(
        "--preset",
        "tiny",
        "--threads",
        "2",
        "--no-progress",
        "--output",
        str(tmp_path / "t2.csv"),
    )
    assert made.returncode == 0, made.stderr[-2000:]
    pair = [tiny_run.csv, tmp_path / "t2.csv"]
    result = compare.compare(pair)
    assert len(result.keys) == 12 and result.counts(1)["missing"] == 0
    assert [run.threads for run in result.runs] == ["1", "2"]
    # Each metadata file is its CSV's (csv_sha256), only the threads differ, and they
    # ran one after the other.
    assert result.warnings == () and all(run.metadata for run in result.runs)
    text = cli(*pair).stdout
    assert text.count("[---") == 12


def with_metadata(csv_path: Path, **fields):
    """Metadata beside a hand-made CSV, its csv_sha256 that of the CSV unless given."""
    meta = {
        "csv_sha256": hashlib.sha256(csv_path.read_bytes()).hexdigest(),
        "cpu_model": "Test CPU",
        "device_name": "Test CPU",
        "date": "2026-01-01T10:00:30+00:00",
        "run": {"preset": "quick"},
    }
    meta.update(fields)
    csv_path.with_suffix(".json").write_text(
        json.dumps({k: v for k, v in meta.items() if v is not None})
    )
    return csv_path


def test_metadata_names_the_hardware_preset_and_when_the_run_took_place(pair):
    base, other = pair
    with_metadata(base, started="2026-01-01T10:00:00+00:00", wall_seconds=30.0)
    with_metadata(other)
    result = compare.compare(pair)
    assert (
        result.warnings == ()
    )  # only the thread count differs, and [2] records no start
    text = compare.render(result)
    assert (
        "cpu (Test CPU), 1 thread, preset quick, started "
        "2026-01-01T10:00:00+00:00, took 30 s" in text
    )
    assert (
        "cpu (Test CPU), 2 threads, preset quick, finished 2026-01-01T10:00:30+00:00"
        in text
    )
    assert compare.differences(*result.runs) == {"threads": ("1", "2")}


def test_metadata_of_another_csv_is_ignored_with_a_one_line_warning(pair, tmp_path):
    base, other = pair
    with_metadata(
        base, csv_sha256="0" * 64, cpu_model="Other CPU", device_name="Other CPU"
    )
    with_metadata(other)
    result = compare.compare(pair)
    assert result.runs[0].metadata is None and result.runs[0].device_name is None
    assert result.runs[1].device_name == "Test CPU"
    (warning,) = result.warnings
    assert (
        "base.json: its csv_sha256 does not match base.csv" in warning
        and "ignored" in warning
    )
    run = cli(base, other)
    assert run.returncode == 0 and run.stderr.count("compare.py: warning: ") == 1
    assert "Other CPU" not in run.stdout
    with_metadata(
        base, csv_sha256=None
    )  # an older benchmark's metadata: used, but said to be unchecked
    result = compare.compare(pair)
    assert (
        result.runs[0].device_name == "Test CPU"
        and "used unchecked" in result.warnings[0]
    )


def test_runs_that_differ_in_more_than_one_setting_or_overlap_in_time_are_warned(
    tmp_path,
):
    base = with_metadata(
        write(tmp_path / "b.csv", BASE),
        started="2026-01-01T10:00:00+00:00",
        wall_seconds=60,
    )
    rows = [dict(r, torch_build="2.12.0+cpu git 0 cuda none hip none") for r in OTHER]
    other = with_metadata(
        write(tmp_path / "o.csv", rows),
        started="2026-01-01T10:00:59+00:00",
        wall_seconds=60,
    )
    warnings = compare.compare([base, other]).warnings
    assert len(warnings) == 2
    assert warnings[0].startswith(
        "[2] differs from [1] in more than one setting (torch build: "
    )
    assert "threads: 1 vs 2" in warnings[0]
    assert "[1] and [2] ran at the same time" in warnings[1]
    with_metadata(
        other, started="2026-01-01T10:01:00+00:00", wall_seconds=60
    )  # starts as [1] ends
    assert not any("same time" in w for w in compare.compare([base, other]).warnings)


def test_matmul_agreement_judges_against_its_aa_control_one_slow_round_cannot_flip():
    steady_aa = [0.99, 1.0, 1.01, 1.0, 0.995, 1.005, 1.0]
    one_slow_round = [
        1.0,
        1.01,
        0.99,
        1.055,
        1.0,
        1.0,
        1.0,
    ]  # the round that once read "DISAGREE 5.5%"
    assert agreement.verdict(one_slow_round, steady_aa)[0] == "agree"
    assert agreement.verdict([1.1] * 7, steady_aa)[0] == "DISAGREE"
    assert (
        agreement.verdict([1.1] * 7, steady_aa[:-2] + [1.2, 1.15])[0] == "inconclusive"
    )  # the Timer moves too
    # Near the limit: two clean rounds already past 5% and one slowed round. With six
    # rounds the median averaged 1.045 and 1.07 (1.0575: DISAGREE); with seven it is a
    # clean round's ratio.
    near = [1.0, 1.0, 1.0, 1.045, 1.07, 1.07]
    assert agreement.verdict(near + [1.5], steady_aa) == (
        "agree",
        1.045,
        (0.995, 1.005),
    )
    for slow in (
        1.06,
        1.5,
        10.0,
    ):  # however slow the round, wherever it falls among the seven
        for where in range(7):
            assert (
                agreement.verdict(near[:where] + [slow] + near[where:], steady_aa)[0]
                == "agree"
            )
    # It flips only when half of the clean rounds (3 of 6) are already past the limit.
    assert (
        agreement.verdict([1.0, 1.0, 1.045, 1.06, 1.07, 1.07, 1.5], steady_aa)[0]
        == "DISAGREE"
    )
    # One slowed A/A round is dropped from the A/A range as well.
    assert agreement.verdict(one_slow_round, steady_aa[:-1] + [1.5])[0] == "agree"
    with pytest.raises(ValueError, match="odd number"):
        agreement.verdict([1.0] * 6, [1.0] * 6)


def test_matmul_agreement_needs_a_steady_aa_control_to_say_agree():
    """A module within 5% of a Timer that disagrees with itself by 20-30% has not
    been shown to agree."""
    wide_aa = [0.7, 0.8, 1.0, 1.0, 1.0, 1.3, 1.4]
    assert agreement.verdict([1.03] * 7, wide_aa) == ("inconclusive", 1.03, (0.8, 1.3))
    assert (
        agreement.verdict([1.5] * 7, wide_aa)[0] == "DISAGREE"
    )  # outside even the wide A/A range
    assert agreement.verdict([1.2] * 7, wide_aa)[0] == "inconclusive"


def test_matmul_agreement_runs_end_to_end_on_a_small_matmul(capsys):
    """Exit status and printed verdict agree; an even --rounds is refused."""
    # The fewest rounds it accepts, and run times so short that start-up is most of the
    # run.
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "matmul_agreement.py"),
            "--n",
            "64",
            "--rounds",
            "5",
            "--min-run-time",
            "0.001",
            "--threads",
            "1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    kind = {0: "agree", 1: "DISAGREE", 2: "inconclusive"}[run.returncode]
    assert (
        run.stdout.rstrip().endswith(f"limit 5%: {kind}") and "5 rounds" in run.stdout
    ), run.stderr
    with pytest.raises(
        SystemExit
    ) as refused:  # argparse's refusal, before anything is timed
        agreement.main(["--rounds", "6"])
    assert refused.value.code == 2 and "--rounds must be odd" in capsys.readouterr().err


# ---- verdicts from the block times (issue 30)
# ----------------------------------------------------

CELLS = [
    (task, dtype, batch)
    for task in ("inference", "training", "gradient")
    for dtype in ("float32", "bfloat16")
    for batch in (8, 64)
]


def simulated_run(
    path: Path,
    draw: random.Random,
    *,
    factor=1.0,
    repeats=2,
    blocks=20,
    drift=0.03,
    noisy=(),
    **metadata,
):
    """A run whose blocks vary as a busy machine's do: each repeat drifts (3%), each
    block scatters (5%), a block now and then is slow; the metadata keeps the block
    times. Cells (task, dtype, batch) in `noisy` are flagged as benchmark.py flags a
    noisy or contended one."""
    rows, kept, spread = [], {}, drift
    for repeat in range(1, repeats + 1):
        for task, dtype, batch in CELLS:
            drift = draw.lognormvariate(0, spread)
            times = [
                100e-6
                * batch
                * factor
                * drift
                * draw.lognormvariate(0, 0.05)
                * (1.5 if draw.random() < 0.05 else 1.0)
                for _ in range(blocks)
            ]
            times.sort()
            median = times[blocks // 2]
            made = row(
                task,
                dtype,
                batch,
                median,
                times[3 * blocks // 4] - times[blocks // 4],
                repeat=repeat,
                noisy="true" if (task, dtype, batch) in noisy else "false",
            )
            rows.append(made)
            kept[made["trial"]] = {
                "number_per_run": 10,
                "raw_times": [t * 10 for t in times],
            }
    write(path, rows)
    return with_metadata(path, blocks=kept, **metadata)


def test_a_verdict_from_the_blocks_is_a_bootstrap_interval_on_the_ratio(tmp_path):
    draw = random.Random(1)
    base = simulated_run(tmp_path / "a.csv", draw)
    slow = simulated_run(tmp_path / "b.csv", draw, factor=1.5)
    result = compare.compare([base, slow])
    for key in result.keys:
        verdict = result.verdicts[key, 1]
        low, high = verdict.interval
        assert verdict.kind == "slower" and low <= verdict.ratio <= high and low > 1.05
        assert verdict.reason == f"95% {low:.3f}–{high:.3f}, limit ×1.050"
    assert (
        result.verdicts == compare.compare([base, slow]).verdicts
    )  # seeded: repeatable


@pytest.mark.parametrize("drift", [0.03, 0.10])
def test_aa_pairs_are_never_called_different_and_a_planted_slowdown_always_is(
    tmp_path, drift
):
    """Eight simulated A/A pairs of four repeats, each judged with the minimum change
    calibrated from the others (tools/aa_check.py does the same on real runs): none
    called different, and a 1.5x slowdown called slower in every cell judged; when
    the repeats drift by 10%, a cell whose repeats disagree is not judged. One cell is
    flagged in every run: never judged, never calibrated on."""
    draw = random.Random(30)
    flagged = {CELLS[0]}

    def run(name, **kwargs):
        return simulated_run(
            tmp_path / name, draw, repeats=4, drift=drift, noisy=flagged, **kwargs
        )

    pairs = [(run(f"{i}a.csv"), run(f"{i}b.csv")) for i in range(8)]
    called = planted_missed = judged = disagree = 0
    for index, (first, second) in enumerate(pairs):
        others = [path for pair in pairs[:index] + pairs[index + 1 :] for path in pair]
        limit = compare.calibrate(*others)
        assert 0.05 <= limit < 0.3
        aa = compare.compare([first, second], drift=limit)
        called += sum(
            aa.verdicts[key, 1].kind in ("faster", "slower") for key in aa.keys
        )
        planted = compare.compare(
            [first, run(f"{index}s.csv", factor=1.5)], drift=limit
        )
        for key in planted.keys:
            kind = planted.verdicts[key, 1].kind
            if (key[1], key[2], key[4]) == (
                "inference",
                "float32",
                "8",
            ):  # the flagged cell
                assert kind == "not compared"
            elif "repeats disagree" in planted.verdicts[key, 1].reason:
                disagree += 1
            else:
                planted_missed += kind != "slower"
                judged += 1
    assert (called, planted_missed) == (0, 0) and judged > 0, (judged, disagree)
    assert judged + disagree == 8 * (len(CELLS) - 1)
    assert disagree == 0 if drift == 0.03 else disagree > 0


def blocks_of(*medians, spread=0.02):
    """Repeats of 20 blocks around each median: a run's block times as compare reads
    them."""
    return tuple(
        tuple(m * (1 + spread * (i - 10) / 10) for i in range(20)) for m in medians
    )


def repeated(*medians, spread=0.02):
    blocks = blocks_of(*medians, spread=spread)
    median = sorted(medians)[len(medians) // 2]
    return compare.Entry(
        median, median * spread, False, True, "", len(medians), blocks=blocks
    )


@pytest.mark.parametrize(
    "other, drift, kind",
    [
        ((1.5, 1.5, 1.5, 1.5), None, "slower"),  # a 1.5x shift: interval beyond x1.05
        ((1.5, 1.5, 1.5, 1.5), 0.2, "slower"),  # ... and beyond the A/A drift of x1.2
        (
            (1.15, 1.15, 1.15, 1.15),
            0.2,
            "within noise",
        ),  # clear of the spread, not of the drift
        ((1.0, 1.02, 0.98, 1.01), None, "within noise"),  # an A/A sample
        ((0.6, 0.6, 0.6, 0.6), 0.2, "faster"),
        (
            (0.9, 1.3, 1.9, 2.6),
            0.2,
            "not compared",
        ),  # repeats that disagree: the run cannot say which to believe
    ],
)
def test_a_change_clears_the_spread_within_runs_and_the_drift_between_them(
    other, drift, kind
):
    base = repeated(1.0, 1.0, 1.0, 1.0)
    verdict = compare.judge(base, repeated(*other), drift=drift)
    assert verdict.kind == kind, verdict
    if kind != "not compared":
        low, high = verdict.interval
        assert low <= verdict.ratio <= high and verdict.drift == drift


def test_a_cell_whose_repeats_disagree_is_not_compared():
    # Medians 1.0, 1.0, 1.1, 1.1: quartiles 1.0 and 1.1, median 1.05, so the IQR is
    # 0.1 / 1.05 = 9.5% of the median, under 10%: compared.
    close = repeated(1.0, 1.0, 1.1, 1.1)
    assert close.repeat_spread == pytest.approx(0.1 / 1.05)
    assert compare.judge(close, close).kind == "within noise"
    # Medians 0.9, 1.0, 1.2, 1.3: quartiles 0.975 and 1.225, median 1.1: 22.7%.
    apart = repeated(1.0, 1.3, 0.9, 1.2)
    assert apart.repeat_spread == pytest.approx(0.25 / 1.1)
    verdict = compare.judge(repeated(1.0, 1.0, 1.0, 1.0), apart)
    assert verdict.text() == "not compared ([2] repeats disagree)"
    assert repeated(1.0).repeat_spread == 0.0  # one repeat: nothing to disagree with


def test_a_noisy_repeat_is_left_out_while_most_repeats_are_not(tmp_path):
    rows = [
        row(
            "inference",
            "float32",
            8,
            100e-6,
            1e-6,
            repeat=r,
            noisy="true" if r == 4 else "false",
        )
        for r in range(1, 5)
    ]
    blocks = {made["trial"]: [100e-6] * 8 for made in rows}
    blocks["mlp-inference-float32-b8-r4"] = [900e-6] * 8  # contended: far slower
    found = compare.combine(compare.read_csv(write(tmp_path / "a.csv", rows)), blocks)
    assert (
        found.noisy,
        found.noisy_repeats,
        len(found.blocks),
        found.failed_repeats,
    ) == (False, 1, 3, 0)
    assert compare.marks(found) == "1 of 4 repeats noisy, left out"
    rows[2]["noisy"] = (
        "true"  # two of four: not most of them clean, the cell stays flagged
    )
    found = compare.combine(compare.read_csv(write(tmp_path / "a.csv", rows)), blocks)
    assert (found.noisy, found.noisy_repeats, len(found.blocks)) == (True, 0, 4)
    assert compare.judge(found, found).kind == "not compared"
    # Without block times a flagged repeat flags the cell, as before.
    assert compare.combine(compare.read_csv(tmp_path / "a.csv")).noisy is True


def test_calibration_takes_the_aa_ratio_not_the_far_end_of_its_interval(tmp_path):
    """Issue 30: a limit taken from the far end of each A/A cell's interval counted
    the spread within the runs twice (it is in the interval judged later too), and
    reached x1.2-x2.1 on a shared machine: a planted 1.5x slowdown was missed."""
    draw = random.Random(7)
    first, second = (
        simulated_run(tmp_path / f"{n}.csv", draw, repeats=4, drift=0.12) for n in "ab"
    )
    pair = compare.compare([first, second])
    # Every cell's ratio counts, one whose repeats disagree too (judged or not).
    base, other = (compare.load_run(path, "") for path in (first, second))
    ratios = [
        compare.typical(other.cells[key].blocks) / compare.typical(entry.blocks)
        for key, entry in base.cells.items()
    ]
    verdicts = [pair.verdicts[key, 1] for key in pair.keys]
    far = max(max(v.interval[1], 1 / v.interval[0]) for v in verdicts if v.interval)
    assert compare.calibrate(first, second) == pytest.approx(
        max(max(ratios), 1 / min(ratios)) - 1
    )
    assert (
        compare.calibrate(first, second) < far - 1
    )  # the interval's end is further out
    slow = simulated_run(tmp_path / "s.csv", draw, repeats=4, drift=0.12, factor=1.5)
    planted = compare.compare([first, slow], drift=compare.calibrate(first, second))
    kinds = [planted.verdicts[key, 1].kind for key in planted.keys]
    assert "slower" in kinds and set(kinds) <= {"slower", "not compared"}


def test_calibrate_ignores_flagged_cells_and_takes_several_pairs(tmp_path):
    draw = random.Random(3)
    first = simulated_run(tmp_path / "a.csv", draw, repeats=4)
    # A flagged cell twice as slow in the second run: not judged, so not calibrated on.
    second = simulated_run(tmp_path / "b.csv", draw, repeats=4, noisy={CELLS[0]})
    rows = list(csv.DictReader(second.open()))
    for made in rows:
        if made["noisy"] == "true":
            made["latency"] = float(made["latency"]) * 2
    write(second, rows)
    with_metadata(
        second, blocks=json.loads(second.with_suffix(".json").read_text())["blocks"]
    )
    steady = compare.calibrate(first, second)
    assert steady < 0.2
    drifted = simulated_run(tmp_path / "c.csv", draw, repeats=4, factor=1.3)
    both = compare.calibrate(
        first, second, first, drifted
    )  # two pairs: the larger drift
    assert both == max(steady, compare.calibrate(first, drifted)) and both > 0.2
    done = cli(
        str(first), str(second), "--calibrate", str(first), str(second), str(first)
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "compare.py: error: --calibrate takes A/A pairs: an even number of CSVs, "
        "two runs of the same settings each\n"
    )


def test_calibrate_takes_the_largest_change_of_an_aa_pair(tmp_path):
    draw = random.Random(2)
    first = simulated_run(tmp_path / "a.csv", draw)
    second = simulated_run(
        tmp_path / "b.csv", draw, factor=1.2
    )  # a drift of 20% between runs
    limit = compare.calibrate(first, second)
    assert limit >= 0.2
    done = cli(str(first), str(second), "--calibrate", str(first), str(second))
    assert done.returncode == 0, done.stderr
    assert (
        f"calibrated from the A/A pair: a change counts beyond ×{1 + limit:.3f}"
        in done.stderr
    )
    assert (
        "slower" not in done.stdout.split("against [1]:")[-1]
    )  # judged by its own drift


def test_a_contended_row_is_not_compared(tmp_path):
    # benchmark.py sets noisy = true for a contended cell: its steady blocks are not a
    # verdict.
    base = write(tmp_path / "a.csv", [row("inference", "float32", 8, 100e-6, 0.0)])
    other = write(
        tmp_path / "b.csv", [row("inference", "float32", 8, 300e-6, 0.0, noisy="true")]
    )
    verdict = compare.compare([base, other]).verdicts[
        ("mlp", "inference", "float32", "8x32x8", "8"), 1
    ]
    assert verdict.kind == "not compared" and verdict.causes == (
        ("flagged noisy", ("[2]",)),
    )


def alternating(tmp_path, factors, start=0):
    """Runs made one after another, 60 s each, a factor on each one's times."""
    paths = []
    for index, factor in enumerate(factors):
        minute = start + index
        path = simulated_run(
            tmp_path / f"run{minute}.csv",
            random.Random(index),
            factor=factor,
            drift=0.0,
            started=f"2026-01-01T10:{minute:02d}:00+00:00",
            wall_seconds=59,
        )
        paths.append(path)
    return paths


def test_runs_joined_by_commas_are_merged_as_repeats_of_one_side(tmp_path):
    a1, b1, a2, b2 = alternating(tmp_path, (1.0, 1.0, 1.0, 1.0))
    side = compare.load_run(f"{a1},{a2}", "[1]")
    singles = [compare.load_run(path, "") for path in (a1, a2)]
    key = next(iter(side.cells))
    assert side.cells[key].blocks == sum((s.cells[key].blocks for s in singles), ())
    assert (
        side.cells[key].rows == 4
        and len(side.parts) == 2
        and side.date == singles[1].date
    )
    assert side.describe().endswith("preset quick, 2 runs merged as repeats")
    assert side.span == (singles[0].span[0], singles[1].span[1])
    # Made in turn, the sides' spans overlap but no two runs do.
    assert compare.compare([f"{a1},{a2}", f"{b1},{b2}"]).warnings == ()
    named = tmp_path / "a,b.csv"  # a file whose name has a comma is one run
    named.write_bytes(a1.read_bytes())
    assert compare.runs_of(named) == [named]


def test_drift_in_one_run_of_a_side_is_not_called_a_change(tmp_path):
    """B's first run is 30% slow throughout (the machine, not the code): alone, A1
    against B1 calls every cell slower; with the runs alternated and merged, B's
    repeats disagree and no cell is called different. A real 1.5x change on both of
    B's runs is still called slower."""
    a1, b1, a2, b2 = alternating(tmp_path, (1.0, 1.3, 1.0, 1.0))
    alone = compare.compare([a1, b1])
    assert {alone.verdicts[key, 1].kind for key in alone.keys} == {"slower"}
    merged = compare.compare([f"{a1},{a2}", f"{b1},{b2}"])
    kinds = {merged.verdicts[key, 1].kind for key in merged.keys}
    assert kinds == {"not compared"}, kinds
    assert all("[2] repeats disagree" in v.reason for v in merged.verdicts.values())
    _, s1, _, s2 = alternating(tmp_path, (1.0, 1.5, 1.0, 1.5), start=4)
    slow = compare.compare([f"{a1},{a2}", f"{s1},{s2}"])
    assert {slow.verdicts[key, 1].kind for key in slow.keys} == {"slower"}


def test_a_side_whose_runs_differ_or_overlap_says_so(tmp_path):
    a1, a2 = alternating(tmp_path, (1.0, 1.0))
    rows = [dict(r, threads=2) for r in compare.read_csv(a2)]
    write(a2, rows)
    with_metadata(a2)
    with pytest.raises(compare.CompareError) as error:
        compare.load_run(f"{a1},{a2}", "[1]")
    assert str(error.value) == f"{a2} is not a repeat of {a1}: they differ in threads"
    write(a2, compare.read_csv(a1))
    with_metadata(a2, started="2026-01-01T10:00:30+00:00", wall_seconds=59)
    warnings = []
    compare.load_run(f"{a1},{a2}", "[1]", warnings)
    assert warnings == [f"{a1} and {a2} ran at the same time: each slowed the other"]
    done = subprocess.run(
        [sys.executable, MODULE, f"{a1},{tmp_path / 'none.csv'}", str(a1)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr == f"compare.py: error: {tmp_path / 'none.csv'}: no such file\n"


def test_aa_check_makes_each_sides_runs_sit_alike_in_time():
    from tools.aa_check import abba

    order = abba(["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"])
    assert order == "a1 b1 b2 a2 a3 b3 b4 a4".split()
    # A steady drift over the pair: both sides' mean positions are the same.
    position = {run: index for index, run in enumerate(order)}
    assert sum(position[f"a{i}"] for i in range(1, 5)) == sum(
        position[f"b{i}"] for i in range(1, 5)
    )
