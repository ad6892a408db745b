"""The results page shows the CSV the pipeline produced (or the committed sample,
saying so), never one it invents."""

import csv
import dataclasses
import hashlib
import io
import json
from pathlib import Path

import pytest
from helpers import WRITTEN, mkdocs_build

from ptdocs import results
from ptdocs.snippets import ROOT

FIXTURE = (
    ROOT / "tests" / "fixtures" / "benchmark-tiny.csv"
)  # a real `--preset tiny` run


def _place(root: Path, csv_path: Path, *, metadata=True, rows=None, meta_changes=None):
    """The fixture (or ``rows``) as a current benchmark writes it: a timed row without
    a noisy flag is steady, its block times (4 blocks at its latency) in the metadata;
    ``meta_changes`` replace or (None) remove metadata keys."""
    rows = [
        dict(row, noisy=row.get("noisy") or ("false" if row["latency"] else ""))
        for row in (_rows() if rows is None else rows)
    ]
    (root / csv_path).parent.mkdir(parents=True, exist_ok=True)
    (root / csv_path).write_text(_csv(rows))
    if metadata:
        meta = json.loads(FIXTURE.with_suffix(".json").read_text())
        meta["cells"] = len(rows)
        meta["blocks"] = {
            row["trial"]: {
                "number_per_run": 1,
                "raw_times": [float(row["latency"])] * 4,
            }
            for row in rows
            if row["latency"]
        }
        # as the benchmark does
        meta["csv_sha256"] = hashlib.sha256((root / csv_path).read_bytes()).hexdigest()
        for key, value in (meta_changes or {}).items():
            if value is None:
                meta.pop(key, None)
            else:
                meta[key] = value
        (root / csv_path).with_suffix(".json").write_text(json.dumps(meta))


def _rows():
    return list(csv.DictReader(io.StringIO(FIXTURE.read_text())))


def _csv(rows):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def test_fresh_results_are_shown_as_fresh_without_claiming_who_made_them(tmp_path):
    """Any results/benchmark.csv is shown, one a reader made by hand included: the
    note says where, not who."""
    _place(tmp_path, results.FRESH)
    _place(tmp_path, results.SAMPLE)  # present too: the fresh run wins
    shown = results.load(tmp_path)
    assert shown.fresh and shown.csv_path == results.FRESH
    english, spanish = (
        results.source_note(shown, "en"),
        results.source_note(shown, "es"),
    )
    assert english.startswith('!!! info "Fresh results (results/benchmark.csv)"')
    assert spanish.startswith('!!! info "Resultados recientes (results/benchmark.csv)"')
    assert (
        "`results/benchmark.csv`" in english
        and "`samples/benchmark-cpu.csv`" in english
    )
    assert (
        "pipeline" not in english + spanish
        and "measurement" not in english
        and "medición" not in spanish
    )


def test_without_fresh_results_the_committed_sample_is_shown_and_labelled(tmp_path):
    _place(tmp_path, results.SAMPLE)
    shown = results.load(tmp_path)
    assert not shown.fresh and shown.csv_path == results.SAMPLE
    english, spanish = (
        results.source_note(shown, "en"),
        results.source_note(shown, "es"),
    )
    assert "Committed sample, not a measurement of this site build" in english
    assert (
        "`samples/benchmark-cpu.csv`" in english
        and "`results/benchmark.csv`" in english
    )
    assert (
        "Muestra del repositorio, no una medición de esta generación del sitio"
        in spanish
    )
    assert (
        "No `results/benchmark.csv` was present when the site was built (the "
        "pipeline writes one)" in english
    )


def test_no_results_at_all_is_an_error_not_an_empty_or_invented_page(tmp_path):
    with pytest.raises(
        results.ResultsError,
        match="neither results/benchmark.csv .* nor the committed sample",
    ):
        results.load(tmp_path)


@pytest.mark.parametrize(
    "where, place, match",
    [
        (where, {"metadata": False}, r"has no metadata beside it \(.*\.json\)")
        for where in (results.FRESH, results.SAMPLE)
    ]
    + [
        (
            results.FRESH,
            {"meta_changes": {"torch_build": None, "date": None}},
            "metadata lacks torch_build, date",
        ),
        (
            results.FRESH,
            {"meta_changes": {"csv_sha256": "0" * 64}},
            "csv_sha256 does not match results/benchmark.csv",
        ),
        (
            results.FRESH,
            {"meta_changes": {"csv_sha256": None}},
            r"records no csv_sha256 \(an older benchmark\); rerun python snippets",
        ),
        (
            results.FRESH,
            {"meta_changes": {"torch_build": "2.12.0+cpu git 0 cuda none hip none"}},
            "not the same run",
        ),
        (
            results.FRESH,
            {"rows": [{k: v for k, v in r.items() if k != "memory"} for r in _rows()]},
            r"not a benchmark CSV \(no memory column",
        ),
    ],
)
def test_untraceable_results_are_refused_in_one_clear_line(
    tmp_path, where, place, match
):
    """No metadata, metadata without torch_build or date, another run's metadata (by
    csv_sha256 or torch build), a CSV off the template."""
    _place(tmp_path, where, **place)
    with pytest.raises(results.ResultsError, match=match) as error:
        results.load(tmp_path)
    assert "\n" not in str(error.value)


def test_the_machine_torch_build_and_date_come_from_the_metadata(tmp_path):
    _place(tmp_path, results.FRESH)
    shown = results.load(tmp_path)
    meta = json.loads(FIXTURE.with_suffix(".json").read_text())
    line = results.machine(shown, "en")
    assert meta["device_name"] in line and f"`{meta['torch_build']}`" in line
    assert meta["date"][:10] in line and f"{meta['threads']} threads" in line


@pytest.mark.parametrize(
    "threads, english, spanish",
    [(1, "1 thread ·", "1 hilo ·"), (4, "4 threads ·", "4 hilos ·")],
)
def test_the_machine_line_says_thread_or_threads_as_the_count_needs(
    tmp_path, threads, english, spanish
):
    _place(tmp_path, results.FRESH, meta_changes={"threads": threads})
    shown = results.load(tmp_path)
    assert english in results.machine(shown, "en") and spanish in results.machine(
        shown, "es"
    )
    assert "1 threads" not in results.machine(
        shown, "en"
    ) and "1 hilos" not in results.machine(shown, "es")


def _table_rows(markdown):
    return [
        line for line in markdown.splitlines() if line.startswith("| ") and "`" in line
    ]


@pytest.mark.parametrize("language", ["en", "es"])
def test_cells_that_failed_the_quality_check_are_marked_and_their_latency_struck(
    tmp_path, language
):
    _place(tmp_path, results.FRESH)
    shown = results.load(tmp_path)
    table = _table_rows(results.table(shown, language))
    assert len(table) == len(shown.rows) == 12
    expected_failed = sum(row["quality_pass"] == "false" for row in _rows())
    assert expected_failed == shown.failed_quality > 0
    struck = [line for line in table if "<s>" in line]
    assert len(struck) == expected_failed
    assert all("✗" in line for line in struck)
    for line in struck:  # both speeds struck: the latency and the samples per second
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert (
            cells[3].startswith("✗ <s>")
            and cells[7].startswith("<s>")
            and cells[7].endswith("</s>")
        )
    assert all(
        "✗" not in line and "<s>" not in line for line in table if line not in struck
    )
    assert (
        f"{expected_failed} {'of' if language == 'en' else 'de'} 12"
        in results.table(shown, language)
    )


def test_a_cell_that_did_not_run_keeps_its_row_with_the_error(tmp_path):
    rows = _rows()
    empty = ("latency", "memory", "latency_iqr", "samples_per_s", "rel_error")
    rows[0].update(dict.fromkeys(empty, ""), quality_pass="false")
    rows[0]["error"] = "RuntimeError: out of memory"
    _place(tmp_path, results.FRESH, rows=rows)
    shown = results.load(tmp_path)
    line = next(
        line
        for line in _table_rows(results.table(shown, "en"))
        if "out of memory" in line
    )
    assert "✗ did not run: RuntimeError: out of memory" in line and "<s>" not in line
    # a row without latency is not plotted, and does not break it
    assert results.plot_svg(shown, "en")


def test_the_plot_draws_latency_against_batch_in_the_pages_language(tmp_path):
    _place(tmp_path, results.FRESH)
    shown = results.load(tmp_path)
    english, spanish = results.plot_svg(shown, "en"), results.plot_svg(shown, "es")
    assert english.lstrip().startswith("<?xml") and "<svg" in english
    assert "batch size" in english and "quality check failed" in english
    assert (
        "tamaño de lote" in spanish and "comprobación de calidad no superada" in spanish
    )
    for dtype in ("float32", "bfloat16"):
        assert f">{dtype}</text>" in english


def test_the_dark_plot_is_transparent_with_light_ink_and_the_same_data(tmp_path):
    _place(tmp_path, results.FRESH)
    shown = results.load(tmp_path)
    light, dark = results.plot_svg(shown, "en"), results.plot_svg(shown, "en", "dark")
    ink = results.SCHEMES["dark"]["ink"]
    assert ink in dark and ink not in light
    # no white figure behind the axes: the page's background shows
    for svg in (light, dark):
        assert "fill: #ffffff" not in svg.split('id="axes_1"')[0]
    data = [color for color in ("#1f77b4", "#ff7f0e", results.FAILED_COLOR)]
    assert all(color in light and color in dark for color in data)


def test_without_failed_cells_the_plot_has_no_failure_legend(tmp_path):
    rows = [row for row in _rows() if row["quality_pass"] == "true"]
    _place(tmp_path, results.FRESH, rows=rows)
    assert "quality check failed" not in results.plot_svg(results.load(tmp_path), "en")


def _site(root: Path, page_text: str, page: str = "results.md"):
    (root / "docs").mkdir()
    (root / "docs" / page).write_text(page_text)
    (root / "mkdocs.yml").write_text(
        "site_name: t\ndocs_dir: docs\ntheme: mkdocs\nmarkdown_extensions:\n  - "
        "admonition\n  - tables\n"
        "  - md_in_html\n"
        "plugins:\n  - ptdocs:\n      steps: [results]\n"
    )
    return mkdocs_build(root / "mkdocs.yml", root / "out")


def _built(root: Path, page_text: str, page: str = "results.md") -> Path:
    """The built page's folder; the build must succeed."""
    build = _site(root, page_text, page)
    assert build.returncode == 0, build.stderr
    return root / "out" / page.removesuffix(".md")


def _refused(root: Path, page_text: str, page: str = "results.md") -> str:
    """What a build that must fail says."""
    build = _site(root, page_text, page)
    assert build.returncode != 0
    return build.stderr


def test_a_built_results_page_has_the_table_the_plot_and_the_files(tmp_path):
    _place(tmp_path, results.SAMPLE)
    out = _built(tmp_path, "# Results\n\n<!-- results -->\n")
    html = (out / "index.html").read_text()
    # Each colour scheme's drawing, shown in its scheme by Material's #only-light /
    # #only-dark.
    assert (
        '<img alt="Latency per call against batch size, one line per dtype" '
        'src="latency.svg#only-light"' in html
    )
    assert (
        'src="latency-dark.svg#only-dark"' in html
        and (out / "latency-dark.svg").is_file()
    )
    failed = sum(row["quality_pass"] == "false" for row in _rows())
    # latency, samples/s
    assert (
        "<table>" in html and html.count("<s>") == 2 * failed == 12 and "±" not in html
    )
    assert "Committed sample, not a measurement of this site build" in html
    assert (out / "latency.svg").read_text().lstrip().startswith("<?xml")
    assert (out / "benchmark.csv").read_bytes() == (
        tmp_path / results.SAMPLE
    ).read_bytes()
    assert (out / "benchmark.json").is_file()


def test_a_build_without_results_fails_with_one_clear_line(tmp_path):
    stderr = _refused(tmp_path, "# Results\n\n<!-- results -->\n")
    assert "results page: no benchmark results: neither results/benchmark.csv" in stderr


def test_a_results_page_without_the_marker_fails_the_build(tmp_path):
    _place(tmp_path, results.SAMPLE)
    stderr = _refused(tmp_path, "# Results\n")
    assert "put exactly one '<!-- results -->' line" in stderr


def test_the_committed_sample_is_a_valid_results_pair():
    """What a build without fresh results shows must itself be a traceable run."""
    shown = results.load_pair(ROOT, results.SAMPLE, fresh=False)
    assert shown.rows and shown.metadata["torch_build"] and shown.metadata["date"]


def test_an_accelerator_run_names_its_gpu_and_device(tmp_path):
    rows = _rows()
    for row in rows:
        row["device"] = "cuda:0"
    _place(
        tmp_path,
        results.FRESH,
        rows=rows,
        meta_changes={
            "device": "cuda:0",
            "device_name": "NVIDIA H200",
            "gpu_name": "NVIDIA H200",
        },
    )
    shown = results.load(tmp_path)
    assert "**Hardware:** NVIDIA H200 (`cuda:0`)" in results.machine(shown, "en")
    assert "device `cuda:0`" in results.table(shown, "en")


# ---- labels, the noise flag, the comparison
# ---------------------------------------------------


def _noisy_rows(flags):
    """The fixture's rows with the columns a newer benchmark adds (blocks, noisy)."""
    rows = _rows()
    for row, flag in zip(rows, flags, strict=False):
        row.update(blocks="10", noisy=flag)
    return rows


@pytest.mark.parametrize(
    "language, median, iqr",
    [
        ("en", "Latency (median of block means)", "IQR of block means"),
        (
            "es",
            "Latencia (mediana de las medias por bloque)",
            "IQR de las medias por bloque",
        ),
    ],
)
def test_latency_is_labelled_a_median_of_block_means_and_its_iqr_is_no_plus_minus(
    tmp_path, language, median, iqr
):
    _place(tmp_path, results.FRESH)
    table = results.table(results.load(tmp_path), language)
    header = next(line for line in table.splitlines() if line.startswith("| "))
    assert f"| {median} | {iqr} |" in header
    assert "±" not in table
    row = next(line for line in _table_rows(table) if "`float32` | 2 |" in line)
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[3:5] == [
        "29.3 µs",
        "0",
    ]  # latency 2.92895e-05 and latency_iqr 0, each in its own column


def test_noisy_cells_are_flagged_in_the_table_with_the_criterion_from_the_metadata(
    tmp_path,
):
    flags = ["true", "false"] * 6
    _place(
        tmp_path,
        results.FRESH,
        rows=_noisy_rows(flags),
        meta_changes={
            "noise": {
                "threshold": 0.15,
                "min_blocks": 5,
                "criterion": "noisy = true when the IQR is >= 0.15 of the median",
            },
            "run": {"preset": "tiny", "reruns": 2},
        },
    )
    shown = results.load(tmp_path)
    assert [row["noisy"] for row in shown.rows] == [flag == "true" for flag in flags]
    english, spanish = results.table(shown, "en"), results.table(shown, "es")
    assert sum("⚠ noisy" in line for line in _table_rows(english)) == 6
    assert sum("not flagged" in line for line in _table_rows(english)) == 6
    assert sum("⚠ ruidosa" in line for line in _table_rows(spanish)) == 6
    assert (
        "6 of 12 cells are flagged noisy" in english
        and "6 de 12 celdas están marcadas como ruidosas" in spanish
    )
    # The criterion is built from the metadata's numbers in each language, never pasted
    # in English.
    assert (
        "A cell is flagged noisy when the IQR of its block means is at least 15% of "
        "their median, or when fewer than 5 blocks were timed. A noisy cell was timed "
        "again, up to 2 more times"
    ) in english
    assert (
        "Una celda se marca como ruidosa cuando el IQR de sus medias por bloque es al "
        "menos el 15% de su "
        "mediana, o cuando se midieron menos de 5 bloques. Una celda ruidosa se "
        "volvió a medir hasta 2 veces más"
    ) in spanish
    assert (
        "noisy = true" not in english + spanish
        and "spread widely, were too few, or their threads" in english
    )


@pytest.mark.parametrize("older", ["no noisy column", "no block times"])
def test_an_older_benchmarks_results_are_refused(tmp_path, older):
    """What the page says of noise and verdicts needs both."""
    changes = {"blocks": None} if older == "no block times" else {}
    _place(tmp_path, results.FRESH, meta_changes=changes)
    if older == "no noisy column":  # the fixture as written, its metadata matched
        (tmp_path / results.FRESH).write_text(FIXTURE.read_text())
        beside = (tmp_path / results.FRESH).with_suffix(".json")
        meta = json.loads(beside.read_text())
        meta["csv_sha256"] = hashlib.sha256(FIXTURE.read_bytes()).hexdigest()
        beside.write_text(json.dumps(meta))
    with pytest.raises(results.ResultsError, match="no noisy flag or no block times"):
        results.load(tmp_path)


def test_a_bad_noisy_value_is_refused(tmp_path):
    _place(tmp_path, results.FRESH, rows=_noisy_rows(["maybe"] * 12))
    with pytest.raises(
        results.ResultsError,
        match="line 2: noisy must be true, false or empty, not 'maybe'",
    ):
        results.load(tmp_path)


def test_the_plot_draws_noisy_medians_hollow_with_a_legend(tmp_path):
    _place(tmp_path, results.FRESH, rows=_noisy_rows(["true"] + ["false"] * 11))
    shown = results.load(tmp_path)
    assert "noisy (hollow marker)" in results.plot_svg(shown, "en")
    assert "ruidosa (marcador hueco)" in results.plot_svg(shown, "es")
    figure = results.draw(shown, "en")
    hollow = [
        line
        for axis in figure.axes
        for line in axis.lines
        if line.get_markerfacecolor() == "white" and line.get_linestyle() == "None"
    ]
    assert len(hollow) == 1 and list(hollow[0].get_xdata()) == [
        2
    ]  # the one noisy cell: inference float32 b2
    steady = dataclasses.replace(
        shown, rows=tuple(dict(row, noisy=False) for row in shown.rows)
    )
    assert "noisy (hollow marker)" not in results.plot_svg(steady, "en")


def _cells(line):
    return [cell.strip() for cell in line.strip("|").split("|")]


def _pair(root: Path, first_rows, second_rows):
    for path, rows in zip(results.COMPARISON, (first_rows, second_rows), strict=False):
        _place(root, path, rows=rows)


def _halved(rows):
    return [dict(row, latency=f"{float(row['latency']) / 2:g}") for row in rows]


def test_the_comparison_is_the_compare_commands_verdicts_as_a_table(tmp_path):
    first = _noisy_rows(["false"] * 12)
    second = _halved(_noisy_rows(["true"] + ["false"] * 11))
    _pair(tmp_path, first, second)
    comparison = results.load_comparison(tmp_path)
    english = results.comparison_table(comparison, tmp_path, "en")
    lines = _table_rows(english)
    assert len(lines) == 12
    # latency halved: faster where both rows passed and are steady (their IQRs are far
    # below 50%) ...
    steady_passed = [r for r in first[1:] if r["quality_pass"] == "true"]
    assert sum("**faster** (95% 0.500" in line for line in lines) == len(steady_passed)
    # ... never for a noisy row or a failed one, each saying why
    noisy = next(
        line for line in lines if line.startswith("| inference | `float32` | 2 |")
    )
    assert "not compared ([2] flagged noisy)" in noisy
    ratio = comparison.verdicts[comparison.keys[0], 1].ratio
    # One rounding, the written latency's: under WRITTEN (float64 adds ~1e-16); 2 x
    # is margin.
    assert ratio == pytest.approx(0.5, rel=2 * WRITTEN)  # halved, on paper ...
    # ... but no ratio is shown for it
    assert _cells(noisy)[5] == "—" and "0.50" not in noisy
    failed = [line for line in lines if "failed the quality check" in line]
    assert len(failed) == sum(r["quality_pass"] == "false" for r in first)
    assert all("✗ <s>" in line for line in failed)
    for line in failed:  # the medians stay, struck; the ratio column says nothing
        assert _cells(line)[3].startswith("✗ <s>") and _cells(line)[4].startswith(
            "✗ <s>"
        )
        assert _cells(line)[5] == "—"
    judged = [line for line in lines if "not compared" not in line]
    assert judged and all(_cells(line)[5] == "0.50" for line in judged)
    assert (
        "**[1]** `samples/benchmark-cpu-threads1.csv`" in english
        and "**faster** (95% 0.500–0.500, limit ×1.050)" in english
    )
    meta = json.loads(FIXTURE.with_suffix(".json").read_text())
    assert (
        f"`cpu` ({meta['device_name']}), 2 threads, preset `tiny`, finished "
        f"{meta['date'][:10]}" in english
    )
    spanish = results.comparison_table(comparison, tmp_path, "es")
    assert (
        "**más rápida** (95% 0.500–0.500, límite ×1.050)" in spanish
        and "por encima del límite" not in spanish
    )
    assert "no comparada ([2] marcada como ruidosa)" in spanish
    assert "[1] y [2] no superaron la comprobación de calidad" in spanish
    svg = results.plot_svg(comparison, "en")
    assert (
        "time / [1] (log scale; left of 1: faster)" in svg and ">faster</text>" in svg
    )
    assert "tiempo / [1]" in results.plot_svg(comparison, "es")


def test_the_comparison_plot_draws_no_bar_for_a_cell_not_compared(tmp_path):
    """A ratio without a verdict is a label at 1, never a bar that reads like a
    speedup."""
    from matplotlib.patches import Rectangle

    _pair(
        tmp_path,
        _noisy_rows(["false"] * 12),
        _halved(_noisy_rows(["true"] + ["false"] * 11)),
    )
    comparison = results.load_comparison(tmp_path)
    verdicts = [comparison.verdicts[key, 1] for key in comparison.keys]
    judged = [v for v in verdicts if v.kind in results.VERDICT_COLORS]
    skipped = [v for v in verdicts if v.kind == "not compared"]
    assert judged and skipped and len(judged) + len(skipped) == 12
    figure = results.draw_comparison(comparison, "en")
    (axis,) = figure.axes
    bars = [
        p
        for p in axis.patches
        if isinstance(p, Rectangle) and p.get_facecolor()[:3] != (0.9, 0.9, 0.9)
    ]
    bands = [
        p
        for p in axis.patches
        if isinstance(p, Rectangle) and p.get_facecolor()[:3] == (0.9, 0.9, 0.9)
    ]
    # one verdict bar and one noise band per judged cell
    assert len(bars) == len(bands) == len(judged)
    # the band spans 1 / (1 + t) to 1 + t: symmetric on the log axis
    for band, verdict in zip(bands, judged, strict=False):
        assert band.get_x() == pytest.approx(1 / verdict.factor)
        assert band.get_x() + band.get_width() == pytest.approx(verdict.factor)
    labels = [text.get_text() for text in axis.texts]
    assert labels == ["not compared"] * len(skipped)


def test_without_the_pair_there_is_no_comparison_and_a_half_pair_is_not_shown(tmp_path):
    assert results.load_comparison(tmp_path) is None
    _place(tmp_path, results.COMPARISON[0])
    assert results.load_comparison(tmp_path) is None


def test_a_pair_without_its_metadata_is_refused(tmp_path):
    _place(tmp_path, results.COMPARISON[0])
    _place(tmp_path, results.COMPARISON[1], metadata=False)
    with pytest.raises(results.ResultsError, match="has no metadata beside it"):
        results.load_comparison(tmp_path)


def test_the_committed_pair_is_two_real_runs_that_differ_in_threads_only():
    comparison = results.load_comparison(ROOT)
    assert comparison is not None
    first, second = comparison.runs
    assert (first.threads, second.threads) == ("1", "2")
    assert first.preset == second.preset == "quick" and comparison.warnings == ()
    assert results.compare.differences(first, second) == {"threads": ("1", "2")}
    english = " ".join(results.setting_notes(comparison, "en"))
    assert (
        "From their metadata, [2] differs from [1] in thread count (`1` → `2`); they "
        "agree in torch build, "
        "device, CPU model, preset." == english
    )
    assert (
        results.benchmark_command(comparison)
        == "python snippets/measuring/benchmark.py --preset quick"
    )
    assert first.torch_build == second.torch_build and first.device == second.device
    metas = [
        json.loads((ROOT / path).with_suffix(".json").read_text())
        for path in results.COMPARISON
    ]
    assert [m["threads"] for m in metas] == [1, 2]
    # same preset, shapes, dtypes, batches, seed
    assert metas[0]["run"] == metas[1]["run"]
    assert (
        len(comparison.keys) == metas[0]["cells"]
        and comparison.counts(1)["missing"] == 0
    )


def test_the_comparison_note_is_built_from_the_metadata_and_warns_in_each_language(
    tmp_path,
):
    """Presets, builds and start times differ here: the note says so, in English and
    in Spanish."""
    first = [dict(row, threads="1") for row in _noisy_rows(["false"] * 12)]
    _place(
        tmp_path,
        results.COMPARISON[0],
        rows=first,
        meta_changes={
            "threads": 1,
            "started": "2026-01-01T10:00:00+00:00",
            "wall_seconds": 90,
        },
    )
    second = [dict(row, threads="2") for row in _halved(_noisy_rows(["false"] * 12))]
    _place(
        tmp_path,
        results.COMPARISON[1],
        rows=second,
        meta_changes={
            "run": {"preset": "quick"},
            "threads": 2,
            "started": "2026-01-01T10:01:00+00:00",
            "wall_seconds": 90,
        },
    )
    comparison = results.load_comparison(tmp_path)
    english = results.comparison_section(comparison, tmp_path, "en", "c.svg")
    spanish = results.comparison_section(comparison, tmp_path, "es", "c.svg")
    # no common preset
    assert "Runs of `python snippets/measuring/benchmark.py` committed" in english
    assert "thread count (`1` → `2`), preset (`tiny` → `quick`)" in english
    assert (
        "More than one setting differs, so each ratio mixes their effects." in english
    )
    assert (
        "[1] and [2] ran at the same time" in english
        and "started 2026-01-01 10:00 UTC, took 90 s" in english
    )
    assert "número de hilos (`1` → `2`), preajuste (`tiny` → `quick`)" in spanish
    assert (
        "Difiere más de un ajuste" in spanish
        and "[1] y [2] se ejecutaron a la vez" in spanish
    )
    assert "empezó 2026-01-01 10:00 UTC, duró 90 s" in spanish


def test_a_built_results_page_shows_the_comparison_where_its_marker_is(tmp_path):
    _place(tmp_path, results.SAMPLE)
    _pair(tmp_path, _noisy_rows(["false"] * 12), _halved(_noisy_rows(["false"] * 12)))
    out = _built(
        tmp_path, "# Results\n\n<!-- results -->\n\n## Compare\n\n<!-- comparison -->\n"
    )
    html = (out / "index.html").read_text()
    assert 'src="comparison.svg#only-light"' in html and "Committed sample pair" in html
    assert (
        'src="comparison-dark.svg#only-dark"' in html
        and (out / "comparison-dark.svg").is_file()
    )
    assert html.count("<table>") == 2
    assert (out / "comparison.svg").read_text().lstrip().startswith("<?xml")


def test_a_comparison_marker_without_the_pair_fails_the_build(tmp_path):
    _place(tmp_path, results.SAMPLE)
    page = "# Results\n\n<!-- results -->\n\n<!-- comparison -->\n"
    assert "needs the committed pair" in _refused(tmp_path, page)


def test_a_failed_cell_says_which_criterion_failed_when_the_csv_records_it(tmp_path):
    rows = _noisy_rows(["false"] * 12)
    for row in rows:
        row["quality_failure"] = (
            "agreement 0.5 < 0.99" if row["quality_pass"] == "false" else ""
        )
    _place(tmp_path, results.FRESH, rows=rows)
    table = _table_rows(results.table(results.load(tmp_path), "en"))
    failed = [line for line in table if "<s>" in line]
    assert failed and all("| ✗ agreement 0.5 < 0.99 |" in line for line in failed)


def test_the_committed_aa_pair_is_two_runs_of_the_same_settings_at_different_times():
    comparison = results.load_comparison(ROOT, results.AA_PAIR)
    assert (
        comparison is not None
        and results.is_aa(comparison)
        and comparison.warnings == ()
    )
    first, second = comparison.runs
    assert results.compare.differences(first, second) == {}
    assert first.threads == second.threads and first.preset == second.preset
    # the page says the two pairs share their [2]
    assert results.AA_PAIR[1] == results.COMPARISON[1]
    # the threads pair is not one
    assert not results.is_aa(results.load_comparison(ROOT))
    metas = [
        json.loads((ROOT / path).with_suffix(".json").read_text())
        for path in results.AA_PAIR
    ]
    assert (
        metas[0]["run"] == metas[1]["run"]
        and metas[0]["started"] != metas[1]["started"]
    )
    (_, end), (start, _) = first.span, second.span
    gap = f"{(start - end).total_seconds():.0f}"
    english = results.comparison_section(comparison, ROOT, "en", "c.svg")
    spanish = results.comparison_section(comparison, ROOT, "es", "c.svg")
    assert (
        "differs from [1] in none of torch build, device, CPU model, thread count, "
        "preset: an A/A pair" in english
    )
    assert (
        f"[2] started {gap} s after [1] finished: the same settings at another moment."
        in english
    )
    assert (
        f"[2] empezó {gap} s después de que terminara [1]" in spanish
        and "es un par A/A" in spanish
    )
    assert (
        "compare.py samples/benchmark-cpu.csv samples/benchmark-cpu-threads2.csv`"
        in english
    )
    counts = comparison.counts(1)
    called, compared = (
        counts["faster"] + counts["slower"],
        counts["faster"] + counts["slower"] + counts["within noise"],
    )
    assert (
        results.aa_summary(comparison, "en") in english
        and results.aa_summary(comparison, "es") in spanish
    )
    if called:  # what the committed files say, whatever it is: counted, never typed
        assert f"In this A/A pair, {called} of {compared} compared cells" in english
        assert f"En este par A/A, {called} de {compared} celdas comparadas" in spanish
    elif compared:
        assert f"none of the {compared} compared cells" in english
    # every cell flagged in a run (a busy machine): the page says the pair tells nothing
    else:
        assert "In this A/A pair no cell could be compared" in english
        assert "En este par A/A no se pudo comparar ninguna celda" in spanish


def test_an_aa_summary_counts_the_cells_called_faster_or_slower_in_each_language(
    tmp_path,
):
    rows = _noisy_rows(["false"] * 12)
    later = [dict(row) for row in rows]
    later[1]["latency"] = (
        f"{float(rows[1]['latency']) * 2:g}"  # one cell moved, nothing else
    )
    _place(
        tmp_path,
        results.COMPARISON[0],
        rows=rows,
        meta_changes={"started": "2026-01-01T10:00:00+00:00", "wall_seconds": 30},
    )
    _place(
        tmp_path,
        results.COMPARISON[1],
        rows=later,
        meta_changes={"started": "2026-01-01T10:02:00+00:00", "wall_seconds": 30},
    )
    comparison = results.load_comparison(tmp_path)
    assert results.is_aa(comparison) and comparison.counts(1)["slower"] == 1
    compared = sum(
        comparison.counts(1)[kind] for kind in ("faster", "slower", "within noise")
    )
    english = results.comparison_section(comparison, tmp_path, "en", "c.svg")
    spanish = results.comparison_section(comparison, tmp_path, "es", "c.svg")
    assert "[2] started 90 s after [1] finished" in english
    assert "[2] empezó 90 s después de que terminara [1]" in spanish
    assert f"1 of {compared} compared cells is called faster or slower" in english
    assert f"1 de {compared} celdas comparadas sale más rápida o más lenta" in spanish
    steady = results.load_comparison(
        tmp_path, (results.COMPARISON[0], results.COMPARISON[0])
    )
    assert f"none of the {compared} compared cells is called" in results.aa_summary(
        steady, "en"
    )
    assert "ninguna de las" in results.aa_summary(steady, "es")
    # A pair that differs in a setting gets no A/A summary.
    other = [dict(row, threads="1") for row in rows]
    _place(tmp_path, results.COMPARISON[0], rows=other, meta_changes={"threads": 1})
    differing = results.load_comparison(tmp_path)
    assert not results.is_aa(differing)
    assert "A/A" not in results.comparison_section(differing, tmp_path, "en", "c.svg")


def test_a_built_results_page_shows_the_aa_pair_where_its_marker_is(tmp_path):
    _place(tmp_path, results.SAMPLE)
    _pair(tmp_path, _noisy_rows(["false"] * 12), _noisy_rows(["false"] * 12))
    out = _built(
        tmp_path,
        "# Results\n\n<!-- results -->\n\n## A/A\n\n<!-- comparison-aa -->\n\n"
        "## Threads\n\n<!-- comparison -->\n",
    )
    html = (out / "index.html").read_text()
    assert (
        'src="comparison-aa.svg#only-light"' in html
        and 'src="comparison.svg#only-light"' in html
    )
    assert html.count("<table>") == 3
    assert html.index("compare.py samples/benchmark-cpu.csv") < html.index(
        "compare.py samples/benchmark-cpu-threads1"
    )
    assert (out / "comparison-aa.svg").read_text().lstrip().startswith("<?xml")


def test_an_aa_marker_without_its_pair_fails_the_build(tmp_path):
    _place(tmp_path, results.SAMPLE)
    _place(tmp_path, results.COMPARISON[0])  # no samples/benchmark-cpu-threads2.csv
    stderr = _refused(
        tmp_path, "# Results\n\n<!-- results -->\n\n<!-- comparison-aa -->\n"
    )
    assert (
        "'<!-- comparison-aa -->' needs the committed pair "
        "samples/benchmark-cpu.csv and" in stderr
    )


def test_the_real_results_pages_hold_both_comparison_markers_aa_first():
    for language in ("en", "es"):
        text = (ROOT / "docs" / language / "results.md").read_text()
        assert (
            text.count("<!-- comparison-aa -->")
            == text.count("<!-- comparison -->")
            == 1
        )
        assert text.index("<!-- comparison-aa -->") < text.index("<!-- comparison -->")
        assert "conservative" not in text and "conservadora" not in text


@pytest.mark.parametrize("latency", ["0", "-1e-05", "nan", "inf"])
def test_a_latency_that_is_not_a_positive_time_is_refused(tmp_path, latency):
    rows = _rows()
    rows[0]["latency"] = latency
    _place(tmp_path, results.FRESH, rows=rows)
    with pytest.raises(
        results.ResultsError,
        match=f"line 2: latency '{latency}' is not a time in seconds",
    ):
        results.load(tmp_path)


# --- the measuring page's sample, as a table
# -----------------------------------------------


def test_the_sample_table_shows_the_files_values_as_written():
    table = results.sample_table(ROOT / results.SAMPLE)
    assert table.startswith("<div markdown data-search-exclude>")  # out of search
    lines = [line for line in table.splitlines() if line.startswith("|")]
    assert (
        lines[0].replace("<wbr>", "")
        == "| "
        + " | ".join(f"<code>{column}</code>" for column in results.SAMPLE_COLUMNS)
        + " |"
    )
    with (ROOT / results.SAMPLE).open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert len(lines) == 2 + len(rows)
    assert lines[1] == "|---|---|---:|---:|---:|---:|---|---|---|"  # numbers right
    for line, row in zip(lines[2:], rows, strict=False):
        cells = [cell.strip().strip("`") for cell in line.strip("|").split(" | ")]
        assert cells == [row[column] for column in results.SAMPLE_COLUMNS], row["trial"]


def test_a_sample_without_a_shown_column_is_a_clear_error(tmp_path):
    sample = tmp_path / "sample.csv"
    sample.write_text("task,dtype\ninference,float32\n")
    with pytest.raises(
        results.ResultsError,
        match=r"sample.csv: no column batch, latency, .*; the table of the",
    ):
        results.sample_table(sample)


def _copy_sample(root: Path):
    (root / "samples").mkdir()
    (root / results.SAMPLE).write_bytes((ROOT / results.SAMPLE).read_bytes())


def test_a_built_measuring_page_shows_the_sample_as_a_table_and_links_the_file(
    tmp_path,
):
    _copy_sample(tmp_path)
    page = "# Measuring\n\n[the file](benchmark-cpu.csv)\n\n<!-- sample-table -->\n"
    out = _built(tmp_path, page, "measuring.md")
    html = (out / "index.html").read_text()
    assert (
        "<table>" in html
        and "<code>quality_<wbr>failure</code>" in html
        and "sample-table" not in html
    )
    assert (out / "benchmark-cpu.csv").read_bytes() == (
        tmp_path / results.SAMPLE
    ).read_bytes()


def test_a_measuring_page_without_the_sample_marker_fails_the_build(tmp_path):
    _copy_sample(tmp_path)
    stderr = _refused(tmp_path, "# Measuring\n", "measuring.md")
    assert (
        "measuring.md: put exactly one '<!-- sample-table -->' line where "
        "the sample goes" in stderr
    )


def _with_blocks(root: Path, rows, factor):
    """The pair's metadata given block times: 10 blocks per cell around its latency."""
    blocks = {
        row["trial"]: {
            "number_per_run": 1,
            "raw_times": [
                float(row["latency"]) * factor * (1 + 0.01 * (i - 5)) for i in range(10)
            ],
        }
        for row in rows
        if row["latency"]
    }
    return blocks


@pytest.mark.parametrize(
    "language, rule, interval",
    [
        ("en", "The verdict rests on each cell's block times", "(95% 1.9"),
        ("es", "El veredicto se basa en los tiempos de los bloques", "(95% 1.9"),
    ],
)
def test_with_block_times_the_verdict_is_an_interval_and_the_page_says_so(
    tmp_path, language, rule, interval
):
    first, second = _noisy_rows(["false"] * 12), _noisy_rows(["false"] * 12)
    for path, rows, factor in zip(
        results.COMPARISON, (first, second), (1.0, 2.0), strict=False
    ):
        _place(
            tmp_path,
            path,
            rows=rows,
            meta_changes={"blocks": _with_blocks(tmp_path, rows, factor)},
        )
    text = results.comparison_table(
        results.load_comparison(tmp_path), tmp_path, language
    )
    assert rule in text and "rule of thumb" not in text and "regla práctica" not in text
    # Not 'conservative': the committed A/A pair shows a verdict that the spread within
    # each run cannot explain.
    assert "conservative" not in text and "conservadora" not in text
    judged = [line for line in _table_rows(text) if "**" in line]
    # twice as slow, its interval shown
    assert judged and all(interval in line for line in judged)


@pytest.mark.parametrize(
    "language, words",
    [
        (
            "en",
            "It is also flagged when it was contended: its threads waited for a core "
            "more than 10% of the wall time (the `wait_share` column, measured by "
            "Linux; elsewhere, `cpu_share` under 0.9",
        ),
        (
            "es",
            "También se marca cuando estuvo en disputa: sus hilos esperaron a un "
            "núcleo más del 10% "
            "del tiempo transcurrido (la columna `wait_share`, que mide Linux; "
            "en otros sistemas, "
            "`cpu_share` por debajo de 0.9",
        ),
    ],
)
def test_the_noise_rule_states_the_contention_threshold_from_the_metadata(
    tmp_path, language, words
):
    noise = {"threshold": 0.1, "min_blocks": 4, "contention_threshold": 0.9}
    _place(
        tmp_path,
        results.FRESH,
        rows=_noisy_rows(["true"] + ["false"] * 11),
        meta_changes={"noise": noise},
    )
    assert words in results.noise_note(results.load(tmp_path), language)


def test_with_block_times_the_rule_is_the_intervals_even_when_no_cell_is_compared(
    tmp_path,
):
    first, second = _noisy_rows(["true"] * 12), _noisy_rows(["true"] * 12)
    for path, rows in zip(results.COMPARISON, (first, second), strict=False):
        _place(
            tmp_path,
            path,
            rows=rows,
            meta_changes={"blocks": _with_blocks(tmp_path, rows, 1.0)},
        )
    text = results.comparison_table(results.load_comparison(tmp_path), tmp_path, "en")
    assert (
        "The verdict rests on each cell's block times" in text
        and "rule of thumb" not in text
    )
