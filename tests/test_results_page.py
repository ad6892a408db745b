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
from markdown import Markdown

from ptdocs import generated, results
from ptdocs.snippets import ROOT

# a real `--preset tiny` run
FIXTURE = ROOT / "tests" / "fixtures" / "benchmark-tiny.csv"
META = json.loads(FIXTURE.with_suffix(".json").read_text())
RESULTS = "# Results\n\n<!-- results -->\n"


def _rows(**first):
    """The fixture's rows, the first one updated by ``first``."""
    rows = list(csv.DictReader(io.StringIO(FIXTURE.read_text())))
    rows[0].update(first)
    return rows


def _noisy_rows(*flags):
    """The fixture's rows with the columns a newer benchmark adds (blocks, noisy): the
    first rows flagged ``flags``, the others "false"."""
    rows = _rows()
    for row, flag in zip(rows, flags + ("false",) * 12, strict=False):
        row.update(blocks="10", noisy=flag)
    return rows


FAILED = sum(row["quality_pass"] == "false" for row in _rows())


def _blocks(rows, times):
    """Block times per timed row: ``times(its latency)``, one number a block."""
    return {
        row["trial"]: {"number_per_run": 1, "raw_times": times(float(row["latency"]))}
        for row in rows
        if row["latency"]
    }


def _place(root, where=results.FRESH, *, metadata=True, rows=None, drop=(), **changes):
    """The fixture (or ``rows``) as a current benchmark writes it: a timed row without
    a noisy flag is steady, its block times (4 blocks at its latency) in the metadata;
    ``drop`` removes columns; ``changes`` replace or (None) remove metadata keys."""
    rows = [dict(row) for row in rows or _rows()]
    for row in rows:
        row["noisy"] = row.get("noisy") or ("false" if row["latency"] else "")
        for column in drop:
            del row[column]
    path = root / where
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    if metadata:
        blocks = _blocks(rows, lambda latency: [latency] * 4)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()  # as the benchmark does
        meta = dict(META, cells=len(rows), blocks=blocks, csv_sha256=digest) | changes
        meta = {k: v for k, v in meta.items() if k not in changes or v is not None}
        path.with_suffix(".json").write_text(json.dumps(meta))


def _load(root, where=results.FRESH, **place):
    _place(root, where, **place)
    return results.load(root)


def _pair(root, *runs):
    """The comparison of a pair whose runs are rows or _place's keywords."""
    for path, run in zip(results.COMPARISON, runs, strict=True):
        _place(root, path, **(run if isinstance(run, dict) else {"rows": run}))
    return results.load_comparison(root, calibrated=False)


def _en_es(function, *args, **keywords):
    """``function(*args, language, **keywords)`` in English and in Spanish."""
    return function(*args, "en", **keywords), function(*args, "es", **keywords)


def _table_rows(markdown):
    return [row for row in markdown.splitlines() if row.startswith("| ") and "`" in row]


def _cells(line):
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_fresh_results_are_shown_as_fresh_without_claiming_who_made_them(tmp_path):
    """Any results/benchmark.csv is shown, one a reader made by hand included: the
    note says where, not who."""
    _place(tmp_path, results.SAMPLE)  # present too: the fresh run wins
    shown = _load(tmp_path)
    assert shown.fresh and shown.csv_path == results.FRESH
    en, es = _en_es(results.source_note, shown)
    assert en.startswith('!!! info "Fresh results (results/benchmark.csv)"')
    assert es.startswith('!!! info "Resultados recientes (results/benchmark.csv)"')
    assert "`results/benchmark.csv`" in en and "`samples/benchmark-cpu.csv`" in en
    assert "pipeline" not in en + es
    assert "measurement" not in en and "medición" not in es


def test_without_fresh_results_the_committed_sample_is_shown_and_labelled(tmp_path):
    shown = _load(tmp_path, results.SAMPLE)
    assert not shown.fresh and shown.csv_path == results.SAMPLE
    en, es = _en_es(results.source_note, shown)
    assert "Committed sample, not a measurement of this site build" in en
    assert "`samples/benchmark-cpu.csv`" in en and "`results/benchmark.csv`" in en
    assert "Muestra del repositorio, no una medición de esta generación del sitio" in es
    assert (
        "No `results/benchmark.csv` was present when the site was built (the "
        "pipeline writes one)" in en
    )


def test_no_results_at_all_is_an_error_not_an_empty_or_invented_page(tmp_path):
    match = "neither results/benchmark.csv .* nor the committed sample"
    with pytest.raises(results.ResultsError, match=match):
        results.load(tmp_path)


NO_METADATA = r"has no metadata beside it \(.*\.json\)"
OLDER = "no noisy flag or no block times"  # what the page says of noise needs both


@pytest.mark.parametrize(
    "place, match",
    [
        ({"metadata": False}, NO_METADATA),
        ({"where": results.SAMPLE, "metadata": False}, NO_METADATA),
        (dict(torch_build=None, date=None), "metadata lacks torch_build, date"),
        (dict(csv_sha256="0" * 64), "csv_sha256 does not match results/benchmark.csv"),
        (
            dict(csv_sha256=None),
            r"records no csv_sha256 \(an older benchmark\); rerun python snippets",
        ),
        (dict(torch_build="2.12.0+cpu git 0 cuda none hip none"), "not the same run"),
        (
            dict(cells=13),
            r"results/benchmark\.json describes 13 cells but results/benchmark\.csv "
            "has 12 rows: not the same run",
        ),
        ({"drop": ["memory"]}, r"not a benchmark CSV \(no memory column"),
        ({"drop": ["noisy"]}, OLDER),
        (dict(blocks=None), OLDER),
        (
            {"rows": _noisy_rows(*["maybe"] * 12)},
            "line 2: noisy must be true, false or empty, not 'maybe'",
        ),
        *[
            (
                {"rows": _rows(latency=t)},
                f"line 2: latency '{t}' is not a time in seconds",
            )
            for t in ("0", "-1e-05", "nan", "inf")
        ],
    ],
)
def test_untraceable_results_are_refused_in_one_clear_line(tmp_path, place, match):
    """No metadata, metadata without torch_build or date, another run's metadata (by
    csv_sha256, torch build or count of cells), a CSV off the template or an older
    benchmark's, a noisy flag or a latency that is no such thing."""
    _place(tmp_path, **place)
    with pytest.raises(results.ResultsError, match=match) as error:
        results.load(tmp_path)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    "threads, english, spanish",
    [
        (1, "1 thread ·", "1 hilo ·"),
        (2, "2 threads ·", "2 hilos ·"),
        (4, "4 threads ·", "4 hilos ·"),
    ],
)
def test_the_machine_line_comes_from_the_metadata_saying_thread_or_threads_as_needed(
    tmp_path, threads, english, spanish
):
    """Device, torch build, date and thread count: (2, ...) is the fixture's own."""
    en, es = _en_es(results.machine, _load(tmp_path, threads=threads))
    assert META["device_name"] in en and f"`{META['torch_build']}`" in en
    assert META["date"][:10] in en and english in en and spanish in es
    assert "1 threads" not in en and "1 hilos" not in es


@pytest.mark.parametrize("language", ["en", "es"])
def test_cells_that_failed_the_quality_check_are_marked_and_their_latency_struck(
    tmp_path, language
):
    shown = _load(tmp_path)
    markdown = results.table(shown, language)
    table = _table_rows(markdown)
    assert len(table) == len(shown.rows) == 12 and FAILED == shown.failed_quality > 0
    struck = [line for line in table if "<s>" in line]
    assert len(struck) == FAILED and all("✗" in line for line in struck)
    # both speeds struck: the latency and the samples per second
    for cells in map(_cells, struck):
        assert cells[3].startswith("✗ <s>") and cells[7].startswith("<s>")
        assert cells[7].endswith("</s>")
    assert all("✗" not in line and "<s>" not in line for line in set(table) - {*struck})
    assert f"{FAILED} {'of' if language == 'en' else 'de'} 12" in markdown


def test_a_cell_that_did_not_run_keeps_its_row_with_the_error(tmp_path):
    empty = ("latency", "memory", "latency_iqr", "samples_per_s", "rel_error")
    said = "RuntimeError: out of memory | try a smaller batch"  # | escaped once
    error = {"quality_pass": "false", "error": said}
    shown = _load(tmp_path, rows=_rows(**dict.fromkeys(empty, ""), **error))
    markdown = results.table(shown, "en")
    line = next(r for r in _table_rows(markdown) if "out of memory" in r)
    html = Markdown(extensions=["tables", "md_in_html"]).convert(markdown)
    assert f"<td>✗ did not run: {said}</td>" in html and "<s>" not in line
    # a row without latency is not plotted, and does not break it
    assert results.plot_svg(shown, "en")


def test_only_results_and_comparisons_have_a_plot():
    # The drawing is chosen by what it is given, named; anything else is refused.
    with pytest.raises(TypeError, match="no plot of a dict: results or a comparison"):
        results.plot_svg({"latency": 1.0}, "en")


def test_the_plot_draws_latency_against_batch_in_the_pages_language(tmp_path):
    en, es = _en_es(results.plot_svg, _load(tmp_path))
    assert en.lstrip().startswith("<?xml") and "<svg" in en
    assert "batch size" in en and "quality check failed" in en
    assert "tamaño de lote" in es and "comprobación de calidad no superada" in es
    assert ">float32</text>" in en and ">bfloat16</text>" in en


def test_the_dark_plot_is_transparent_with_light_ink_and_the_same_data(tmp_path):
    shown = _load(tmp_path)
    light, dark = results.plot_svg(shown, "en"), results.plot_svg(shown, "en", "dark")
    ink = results.SCHEMES["dark"]["ink"]
    assert ink in dark and ink not in light
    # no white figure behind the axes: the page's background shows
    for svg in (light, dark):
        assert "fill: #ffffff" not in svg.split('id="axes_1"')[0]
    data = ("#1f77b4", "#ff7f0e", results.FAILED_COLOR)
    assert all(color in light and color in dark for color in data)


def test_without_failed_cells_the_plot_has_no_failure_legend(tmp_path):
    shown = _load(tmp_path, rows=[r for r in _rows() if r["quality_pass"] == "true"])
    assert "quality check failed" not in results.plot_svg(shown, "en")


def _site(root: Path, page_text: str, page: str = "results.md"):
    (root / "docs").mkdir()
    (root / "docs" / page).write_text(page_text)
    (root / "mkdocs.yml").write_text(
        "site_name: t\ndocs_dir: docs\ntheme: mkdocs\nmarkdown_extensions:\n"
        "  - admonition\n  - tables\n  - md_in_html\nplugins:\n  - ptdocs:\n"
        "      steps: [results]\n"
    )
    return mkdocs_build(root / "mkdocs.yml", root / "out")


def _built(root: Path, page_text: str, page: str = "results.md"):
    """The built page's folder and its HTML; the build must succeed."""
    build = _site(root, page_text, page)
    assert build.returncode == 0, build.stderr
    out = root / "out" / page.removesuffix(".md")
    return out, (out / "index.html").read_text()


def test_a_built_results_page_has_the_table_the_plot_and_the_files(tmp_path):
    _place(tmp_path, results.SAMPLE)
    out, html = _built(tmp_path, RESULTS)
    # Each colour scheme's drawing, shown in its scheme by Material's #only-light /
    # #only-dark.
    assert (
        '<img alt="Latency per call against batch size, one line per dtype" '
        'src="latency.svg#only-light"' in html
    )
    assert 'src="latency-dark.svg#only-dark"' in html
    assert (out / "latency-dark.svg").is_file()
    assert (out / "latency.svg").read_text().lstrip().startswith("<?xml")
    # latency, samples/s
    assert (
        "<table>" in html and "±" not in html and html.count("<s>") == 2 * FAILED == 12
    )
    assert "Committed sample, not a measurement of this site build" in html
    sample = (tmp_path / results.SAMPLE).read_bytes()
    assert (out / "benchmark.csv").read_bytes() == sample
    assert (out / "benchmark.json").is_file()


@pytest.mark.parametrize(
    "page, says",
    [
        (RESULTS, "results page: no benchmark results: neither results/benchmark.csv"),
        ("# Results\n", "put exactly one '<!-- results -->' line"),
        (RESULTS + "\n<!-- comparison -->\n", "needs the committed pair"),
        (
            RESULTS + "\n<!-- comparison-aa -->\n",
            "'<!-- comparison-aa -->' needs the committed pair "
            "samples/benchmark-cpu.csv and",
        ),
        (
            "# Measuring\n",
            "measuring.md: put exactly one '<!-- sample-table -->' line where "
            "the sample goes",
        ),
    ],
    ids=["no results", "no marker", "no pair", "no aa pair", "no sample marker"],
)
def test_a_page_without_its_marker_or_its_results_fails_the_build(tmp_path, page, says):
    if page != RESULTS:  # the sample, half a pair (no benchmark-cpu-threads2.csv)
        _place(tmp_path, results.SAMPLE)
        _place(tmp_path, results.COMPARISON[0])
    name = "measuring.md" if "Measuring" in page else "results.md"
    build = _site(tmp_path, page, name)
    assert build.returncode != 0 and says in build.stderr


def test_a_thread_pair_without_its_calibrating_aa_pair_fails_the_build(tmp_path):
    _place(tmp_path)  # fresh results, the pair, but no sample: no A/A pair
    _pair(tmp_path, _noisy_rows(), _noisy_rows())
    build = _site(tmp_path, RESULTS + "\n<!-- comparison -->\n")
    assert build.returncode != 0
    assert (
        "'<!-- comparison -->' needs the committed pair "
        "samples/benchmark-cpu-threads1.csv and samples/benchmark-cpu-threads2.csv, "
        "calibrated by the A/A pair samples/benchmark-cpu.csv and "
        "samples/benchmark-cpu-threads2.csv (each with its .json)" in build.stderr
    )


def test_the_committed_sample_is_a_valid_results_pair(reads):
    """What a build without fresh results shows must itself be a traceable run; its CSV
    is read once, in any form (tests/conftest.py's spy)."""
    shown = results.load_pair(ROOT, results.SAMPLE, fresh=False)
    assert shown.rows and shown.metadata["torch_build"] and shown.metadata["date"]
    assert reads.count(ROOT / results.SAMPLE) == 1


def test_an_accelerator_run_names_its_gpu_and_device(tmp_path):
    rows = [dict(row, device="cuda:0") for row in _rows()]
    gpu = {"device": "cuda:0", "device_name": "NVIDIA H200", "gpu_name": "NVIDIA H200"}
    shown = _load(tmp_path, rows=rows, **gpu)
    assert "**Hardware:** NVIDIA H200 (`cuda:0`)" in results.machine(shown, "en")
    assert "device `cuda:0`" in results.table(shown, "en")


# ---- labels, the noise flag, the comparison ----


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
    table = results.table(_load(tmp_path), language)
    header = next(line for line in table.splitlines() if line.startswith("| "))
    assert f"| {median} | {iqr} |" in header and "±" not in table
    row = next(line for line in _table_rows(table) if "`float32` | 2 |" in line)
    # latency 2.92895e-05 and latency_iqr 0, each in its own column
    assert _cells(row)[3:5] == ["29.3 µs", "0"]


def test_noisy_cells_are_flagged_in_the_table_with_the_criterion_from_the_metadata(
    tmp_path,
):
    flags = ("true", "false") * 6
    criterion = "noisy = true when the IQR is >= 0.15 of the median"
    noise = {"threshold": 0.15, "min_blocks": 5, "criterion": criterion}
    changes = {"noise": noise, "run": {"preset": "tiny", "reruns": 2}}
    shown = _load(tmp_path, rows=_noisy_rows(*flags), **changes)
    assert [row["noisy"] for row in shown.rows] == [flag == "true" for flag in flags]
    en, es = _en_es(results.table, shown)
    assert sum("⚠ noisy" in line for line in _table_rows(en)) == 6
    assert sum("not flagged" in line for line in _table_rows(en)) == 6
    assert sum("⚠ ruidosa" in line for line in _table_rows(es)) == 6
    assert "6 of 12 cells are flagged noisy" in en
    assert "6 de 12 celdas están marcadas como ruidosas" in es
    # The criterion is built from the metadata's numbers in each language, never pasted
    # in English.
    assert (
        "A cell is flagged noisy when the IQR of its block means is at least 15% of "
        "their median, or when fewer than 5 blocks were timed. A noisy cell was timed "
        "again, up to 2 more times"
    ) in en
    assert (
        "Una celda se marca como ruidosa cuando el IQR de sus medias por bloque es al "
        "menos el 15% de su mediana, o cuando se midieron menos de 5 bloques. Una "
        "celda ruidosa se volvió a medir hasta 2 veces más"
    ) in es
    assert "noisy = true" not in en + es
    assert "spread widely, were too few, or their threads" in en


def test_the_plot_draws_noisy_medians_hollow_with_a_legend(tmp_path):
    shown = _load(tmp_path, rows=_noisy_rows("true"))
    en, es = _en_es(results.plot_svg, shown)
    assert "noisy (hollow marker)" in en and "ruidosa (marcador hueco)" in es
    lines = [line for axis in results.draw(shown, "en").axes for line in axis.lines]
    hollow = [
        line
        for line in lines
        if line.get_markerfacecolor() == "white" and line.get_linestyle() == "None"
    ]
    # the one noisy cell: inference float32 b2
    assert len(hollow) == 1 and list(hollow[0].get_xdata()) == [2]
    rows = tuple(dict(row, noisy=False) for row in shown.rows)
    steady = dataclasses.replace(shown, rows=rows)
    assert "noisy (hollow marker)" not in results.plot_svg(steady, "en")


def _halved(rows):
    return [dict(row, latency=f"{float(row['latency']) / 2:g}") for row in rows]


def _metas(pair):
    return [json.loads((ROOT / path).with_suffix(".json").read_text()) for path in pair]


def _aa_drift():
    """The committed A/A pair's drift as compare.py --calibrate computes it."""
    return results.compare.calibrate(*(ROOT / path for path in results.AA_PAIR))


def _run(rows, minute, **changes):
    """_place's keywords for a run of ``rows`` started ``minute`` minutes past 10."""
    started = f"2026-01-01T10:{minute:02}:00+00:00"
    return {"rows": rows, "started": started, **changes}


def test_the_comparison_is_the_compare_commands_verdicts_as_a_table(tmp_path):
    comparison = _pair(tmp_path, _noisy_rows(), _halved(_noisy_rows("true")))
    en, es = _en_es(results.comparison_table, comparison, tmp_path)
    lines = _table_rows(en)
    assert len(lines) == 12
    # latency halved: faster where both rows passed and are steady (their IQRs are far
    # below 50%) ...
    steady_passed = [r for r in _rows()[1:] if r["quality_pass"] == "true"]
    assert sum("**faster** (95% 0.500" in line for line in lines) == len(steady_passed)
    # ... never for a noisy row or a failed one, each saying why
    noisy = next(r for r in lines if r.startswith("| inference | `float32` | 2 |"))
    assert "not compared ([2] flagged noisy)" in noisy
    ratio = comparison.verdicts[comparison.keys[0], 1].ratio
    # One rounding, the written latency's: under WRITTEN (float64 adds ~1e-16); 2 x
    # is margin.
    assert ratio == pytest.approx(0.5, rel=2 * WRITTEN)  # halved, on paper ...
    # ... but no ratio is shown for it
    assert _cells(noisy)[5] == "—" and "0.50" not in noisy
    failed = [line for line in lines if "failed the quality check" in line]
    assert len(failed) == FAILED and all("✗ <s>" in line for line in failed)
    # the medians stay, struck; the ratio column says nothing
    for cells in map(_cells, failed):
        assert cells[3].startswith("✗ <s>") and cells[4].startswith("✗ <s>")
        assert cells[5] == "—"
    judged = [line for line in lines if "not compared" not in line]
    assert judged and all(_cells(line)[5] == "0.50" for line in judged)
    assert "**[1]** `samples/benchmark-cpu-threads1.csv`" in en
    assert "**faster** (95% 0.500–0.500, limit ×1.050)" in en
    run = f"`cpu` ({META['device_name']}), 2 threads, preset `tiny`, finished "
    assert run + META["date"][:10] in en
    assert "**más rápida** (95% 0.500–0.500, límite ×1.050)" in es
    assert "por encima del límite" not in es
    assert "no comparada ([2] marcada como ruidosa)" in es
    assert "[1] y [2] no superaron la comprobación de calidad" in es
    svg = results.plot_svg(comparison, "en")
    assert (
        "time / [1] (log scale; left of 1: faster)" in svg and ">faster</text>" in svg
    )
    assert "tiempo / [1]" in results.plot_svg(comparison, "es")


def test_the_comparison_plot_draws_no_bar_for_a_cell_not_compared(tmp_path):
    """A ratio without a verdict is a label at 1, never a bar that reads like a
    speedup."""
    from matplotlib.patches import Rectangle

    comparison = _pair(tmp_path, _noisy_rows(), _halved(_noisy_rows("true")))
    verdicts = [comparison.verdicts[key, 1] for key in comparison.keys]
    judged = [v for v in verdicts if v.kind in results.VERDICT_COLORS]
    skipped = [v for v in verdicts if v.kind == "not compared"]
    assert judged and skipped and len(judged) + len(skipped) == 12
    (axis,) = results.draw_comparison(comparison, "en").axes
    rectangles = [p for p in axis.patches if isinstance(p, Rectangle)]
    bars = [p for p in rectangles if p.get_facecolor()[:3] != (0.9, 0.9, 0.9)]
    bands = [p for p in rectangles if p.get_facecolor()[:3] == (0.9, 0.9, 0.9)]
    # one verdict bar and one noise band per judged cell
    assert len(bars) == len(bands) == len(judged)
    # the band spans 1 / (1 + t) to 1 + t: symmetric on the log axis
    for band, verdict in zip(bands, judged, strict=False):
        assert band.get_x() == pytest.approx(1 / verdict.factor)
        assert band.get_x() + band.get_width() == pytest.approx(verdict.factor)
    assert [text.get_text() for text in axis.texts] == ["not compared"] * len(skipped)


def test_without_the_pair_there_is_no_comparison_and_a_half_pair_is_not_shown(tmp_path):
    assert results.load_comparison(tmp_path) is None
    _place(tmp_path, results.COMPARISON[0])
    assert results.load_comparison(tmp_path) is None


def test_a_pair_without_its_metadata_is_refused(tmp_path):
    with pytest.raises(results.ResultsError, match="has no metadata beside it"):
        _pair(tmp_path, {}, {"metadata": False})


def test_the_committed_pair_is_two_real_runs_that_differ_in_threads_only():
    comparison = results.load_comparison(ROOT)
    assert comparison is not None
    first, second = comparison.runs
    assert (first.threads, second.threads) == ("1", "2")
    assert first.preset == second.preset == "quick" and comparison.warnings == ()
    assert results.compare.differences(first, second) == {"threads": ("1", "2")}
    assert " ".join(results.setting_notes(comparison, "en")) == (
        "From their metadata, [2] differs from [1] in thread count (`1` → `2`); they "
        "agree in torch build, device, CPU model, preset."
    )
    command = "python snippets/measuring/benchmark.py --preset quick"
    assert results.benchmark_command(comparison) == command
    assert first.torch_build == second.torch_build and first.device == second.device
    metas = _metas(results.COMPARISON)
    assert [m["threads"] for m in metas] == [1, 2]
    # same preset, shapes, dtypes, batches, seed
    assert metas[0]["run"] == metas[1]["run"]
    assert len(comparison.keys) == metas[0]["cells"]
    assert comparison.counts(1)["missing"] == 0


def test_the_comparison_note_is_built_from_the_metadata_and_warns_in_each_language(
    tmp_path,
):
    """Presets, builds and start times differ here: the note says so, in English and
    in Spanish."""
    first = [dict(row, threads="1") for row in _noisy_rows()]
    second = [dict(row, threads="2") for row in _halved(_noisy_rows())]
    comparison = _pair(
        tmp_path,
        _run(first, 0, threads=1, wall_seconds=90),
        _run(second, 1, threads=2, wall_seconds=90, run={"preset": "quick"}),
    )
    en, es = _en_es(results.comparison_section, comparison, tmp_path, plot="c.svg")
    # no common preset
    assert "Runs of `python snippets/measuring/benchmark.py` committed" in en
    assert "thread count (`1` → `2`), preset (`tiny` → `quick`)" in en
    assert "More than one setting differs, so each ratio mixes their effects." in en
    assert "[1] and [2] ran at the same time" in en
    assert "started 2026-01-01 10:00 UTC, took 90 s" in en
    assert "número de hilos (`1` → `2`), preajuste (`tiny` → `quick`)" in es
    assert "Difiere más de un ajuste" in es and "[1] y [2] se ejecutaron a la vez" in es
    assert "empezó 2026-01-01 10:00 UTC, duró 90 s" in es


def test_a_built_results_page_shows_the_comparison_where_its_marker_is(tmp_path):
    _place(tmp_path, results.SAMPLE)
    _pair(tmp_path, _noisy_rows(), _halved(_noisy_rows()))
    out, html = _built(tmp_path, RESULTS + "\n## Compare\n\n<!-- comparison -->\n")
    assert 'src="comparison.svg#only-light"' in html and "Committed sample pair" in html
    assert 'src="comparison-dark.svg#only-dark"' in html and html.count("<table>") == 2
    assert (out / "comparison-dark.svg").is_file()
    assert (out / "comparison.svg").read_text().lstrip().startswith("<?xml")


def test_a_failed_cell_says_which_criterion_failed_when_the_csv_records_it(tmp_path):
    why = "agreement 0.5 < 0.99"
    rows = [
        dict(row, quality_failure=why if row["quality_pass"] == "false" else "")
        for row in _noisy_rows()
    ]
    table = _table_rows(results.table(_load(tmp_path, rows=rows), "en"))
    failed = [line for line in table if "<s>" in line]
    assert failed and all("| ✗ agreement 0.5 < 0.99 |" in line for line in failed)


def test_the_committed_aa_pair_is_two_runs_of_the_same_settings_at_different_times():
    comparison = results.load_comparison(ROOT, results.AA_PAIR)
    assert comparison is not None and results.is_aa(comparison)
    assert comparison.warnings == ()
    first, second = comparison.runs
    assert results.compare.differences(first, second) == {}
    assert first.threads == second.threads and first.preset == second.preset
    # the page says the two pairs share their [2]
    assert results.AA_PAIR[1] == results.COMPARISON[1]
    # the threads pair is not one
    assert not results.is_aa(results.load_comparison(ROOT))
    metas = _metas(results.AA_PAIR)
    assert metas[0]["run"] == metas[1]["run"]
    assert metas[0]["started"] != metas[1]["started"]
    (_, end), (start, _) = first.span, second.span
    gap = f"{(start - end).total_seconds():.0f}"
    en, es = _en_es(results.comparison_section, comparison, ROOT, plot="c.svg")
    assert (
        "differs from [1] in none of torch build, device, CPU model, thread count, "
        "preset: an A/A pair" in en
    )
    assert (
        f"[2] started {gap} s after [1] finished: the same settings at another moment."
        in en
    )
    assert f"[2] empezó {gap} s después de que terminara [1]" in es
    assert "es un par A/A" in es
    assert (
        "compare.py samples/benchmark-cpu.csv samples/benchmark-cpu-threads2.csv`" in en
    )
    called = sum(comparison.counts(1)[kind] for kind in ("faster", "slower"))
    compared = called + comparison.counts(1)["within noise"]
    summary_en, summary_es = _en_es(results.aa_summary, comparison)
    assert summary_en in en and summary_es in es
    if called:  # what the committed files say, whatever it is: counted, never typed
        assert f"In this A/A pair, {called} of {compared} compared cells" in en
        assert f"En este par A/A, {called} de {compared} celdas comparadas" in es
        # the largest change, by --calibrate's rule: the drift the thread pair uses
        largest = f"×{1 + _aa_drift():.3f}"
        assert f"cells moved by a factor of up to {largest}: with no" in en
        assert f"se movieron por un factor de hasta {largest}: sin cambiar" in es
    elif compared:
        assert f"none of the {compared} compared cells" in en
    # every cell flagged in a run (a busy machine): the page says the pair tells nothing
    else:
        assert "In this A/A pair no cell could be compared" in en
        assert "En este par A/A no se pudo comparar ninguna celda" in es


def test_an_aa_summary_counts_the_cells_called_faster_or_slower_in_each_language(
    tmp_path,
):
    rows, later = _noisy_rows(), _noisy_rows()
    later[1]["latency"] = f"{float(rows[1]['latency']) * 2:g}"  # one cell moved
    runs = _run(rows, 0, wall_seconds=30), _run(later, 2, wall_seconds=30)
    comparison = _pair(tmp_path, *runs)
    counts = comparison.counts(1)
    assert results.is_aa(comparison) and counts["slower"] == 1
    compared = sum(counts[kind] for kind in ("faster", "slower", "within noise"))
    en, es = _en_es(results.comparison_section, comparison, tmp_path, plot="c.svg")
    assert "[2] started 90 s after [1] finished" in en
    assert "[2] empezó 90 s después de que terminara [1]" in es
    assert f"1 of {compared} compared cells is called faster or slower" in en
    assert f"1 de {compared} celdas comparadas sale más rápida o más lenta" in es
    # its latency doubled, so its blocks: the largest change, never typed on the page
    assert "cells moved by a factor of up to ×2.000: with no setting" in en
    assert "se movieron por un factor de hasta ×2.000: sin cambiar" in es
    steady = results.load_comparison(tmp_path, (results.COMPARISON[0],) * 2)
    en, es = _en_es(results.aa_summary, steady)
    assert f"none of the {compared} compared cells is called" in en
    assert "ninguna de las" in es
    # A pair that differs in a setting gets no A/A summary.
    other = [dict(row, threads="1") for row in rows]
    _place(tmp_path, results.COMPARISON[0], rows=other, threads=1)
    differing = results.load_comparison(tmp_path, calibrated=False)
    assert not results.is_aa(differing)
    assert "A/A" not in results.comparison_section(differing, tmp_path, "en", "c.svg")


def test_a_built_results_page_shows_the_aa_pair_where_its_marker_is(tmp_path):
    _place(tmp_path, results.SAMPLE)
    _pair(tmp_path, _noisy_rows(), _noisy_rows())
    page = "\n## A/A\n\n<!-- comparison-aa -->\n\n## Threads\n\n<!-- comparison -->\n"
    out, html = _built(tmp_path, RESULTS + page)
    assert 'src="comparison-aa.svg#only-light"' in html
    assert 'src="comparison.svg#only-light"' in html and html.count("<table>") == 3
    aa = html.index("compare.py samples/benchmark-cpu.csv")
    assert aa < html.index("compare.py samples/benchmark-cpu-threads1")
    calibrated = "--calibrate samples/benchmark-cpu.csv samples/benchmark-cpu-threads2"
    assert html.count(calibrated) == 1 and "A/A drift ×" in html
    assert (out / "comparison-aa.svg").read_text().lstrip().startswith("<?xml")


def test_the_thread_sections_command_is_calibrated_and_gives_the_pages_verdicts(
    monkeypatch, capsys
):
    """A reader who runs the command the page shows gets the page's verdicts."""
    assert results.CALIBRATION[results.COMPARISON] == results.AA_PAIR
    comparison = results.load_comparison(ROOT)
    assert comparison.drift == _aa_drift()
    en, es = _en_es(results.comparison_section, comparison, ROOT, "c.svg")
    command = (
        "python snippets/measuring/compare.py samples/benchmark-cpu-threads1.csv "
        "samples/benchmark-cpu-threads2.csv --calibrate samples/benchmark-cpu.csv "
        "samples/benchmark-cpu-threads2.csv"
    )
    assert f"`{command}`" in en and f"`{command}`" in es
    monkeypatch.chdir(ROOT)
    assert results.compare.main(command.split()[2:]) == 0
    printed = [
        line.split("|")[-1].strip()
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("  [2] |")
    ]
    shown = [_cells(line)[6].replace("**", "") for line in _table_rows(en)]
    assert shown == printed and len(shown) == len(comparison.keys)
    # the drift is the command's, named by each verdict it calibrated
    judged = [line for line in printed if not line.startswith(("not compared", "miss"))]
    assert judged and all(f"A/A drift ×{1 + _aa_drift():.3f})" in v for v in judged)
    # uncalibrated, the command says so: it gives the verdicts shown
    uncalibrated = results.load_comparison(ROOT, calibrated=False)
    shown = results.comparison_section(uncalibrated, ROOT, "en", "c.svg")
    assert f"{command.split(' --calibrate')[0]}`" in shown


def test_a_calibrated_verdict_criterion_and_band_name_the_aa_drift(tmp_path):
    rows = _noisy_rows()
    comparison = _pair(tmp_path, _timed(rows), _timed(rows, 2.0))
    assert comparison.drift is None
    drifted = results.compare.compare(
        [run.path for run in comparison.runs], drift=2.5 - 1
    )
    en, es = _en_es(results.comparison_table, drifted, tmp_path)
    # twice as slow: beyond --min-change, not beyond the drift
    assert "within noise (95% 1.9" in en and ", A/A drift ×2.500)" in en
    assert "dentro del ruido (95% 1.9" in es and ", deriva A/A ×2.500)" in es
    assert "**slower**" not in en
    assert (
        "Calibrated by the A/A pair (`--calibrate`), the ratio itself must also lie "
        "beyond ×2.500: the largest change of that pair's cells, leaving out those not "
        "compared for a reason other than disagreeing repeats, or the limit if that is "
        "larger." in en
    )
    assert "la propia razón debe quedar además más allá de ×2.500" in es
    for text in _en_es(results.comparison_table, comparison, tmp_path):
        assert "A/A" not in text and "**" in text  # uncalibrated: slower, no drift
    # the grey band covers the ratios that would not count: up to the drift
    (axis,) = results.draw_comparison(drifted, "en").axes
    bands = [p for p in axis.patches if p.get_facecolor()[:3] == (0.9, 0.9, 0.9)]
    assert bands
    for band in bands:
        assert band.get_x() == pytest.approx(1 / 2.5)
        assert band.get_x() + band.get_width() == pytest.approx(2.5)


def test_the_thread_section_says_every_core_only_where_the_samples_use_every_core():
    """Its prose: a run with more than one thread uses every core it may use."""
    sections = {"en": "### Two thread counts", "es": "### Con distinto número de hilos"}
    says = {
        "en": "as many threads as cores the run may use, as in the samples here with",
        "es": "tantos hilos como núcleos puede usar la ejecución, como en las muestras",
    }
    for language, heading in sections.items():
        text = (ROOT / "docs" / language / "results.md").read_text()
        section = " ".join(text[text.index(heading) :].split())
        assert "`--calibrate`" in section and says[language] in section
    for meta in _metas(dict.fromkeys((*results.AA_PAIR, *results.COMPARISON))):
        if meta["threads"] > 1:
            assert meta["threads"] == len(meta["cpus"]), meta["started"]


def test_the_real_results_pages_hold_both_comparison_markers_aa_first():
    for language in ("en", "es"):
        text = (ROOT / "docs" / language / "results.md").read_text()
        aa, threads = "<!-- comparison-aa -->", "<!-- comparison -->"
        assert text.count(aa) == text.count(threads) == 1
        assert text.index(aa) < text.index(threads)
        assert "conservative" not in text and "conservadora" not in text


# ---- the measuring page's sample, as a table ----


def test_the_sample_table_shows_the_files_values_as_written():
    table = results.sample_table(ROOT / results.SAMPLE)
    assert table.startswith("<div markdown data-search-exclude>")  # out of search
    lines = [line for line in table.splitlines() if line.startswith("|")]
    header = " | ".join(f"<code>{column}</code>" for column in results.SAMPLE_COLUMNS)
    assert lines[0].replace("<wbr>", "") == f"| {header} |"
    with (ROOT / results.SAMPLE).open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert len(lines) == 2 + len(rows)
    assert lines[1] == "|---|---|---:|---:|---:|---:|---|---|---|"  # numbers right
    for line, row in zip(lines[2:], rows, strict=False):
        cells = [cell.strip().strip("`") for cell in line.strip("|").split(" | ")]
        assert cells == [row[column] for column in results.SAMPLE_COLUMNS], row["trial"]


def test_a_bar_in_a_sample_value_shows_as_written_in_its_code(tmp_path):
    # In a code span a | ends no cell, and an escaped one would show its backslash.
    sample = tmp_path / "sample.csv"
    columns = ("task", "device")
    sample.write_text("task,device\ninference,cpu|x\n")
    table = results.sample_table(sample, columns)
    html = Markdown(extensions=["tables", "md_in_html"]).convert(table)
    assert "<td><code>inference</code></td>" in html
    assert "<td><code>cpu|x</code></td>" in html
    # An escaped backtick opens no code span: the | after it still ends nothing.
    cell = generated.markdown_table(["h"], [["a \\` b | c ` d"]])
    html = Markdown(extensions=["tables", "md_in_html"]).convert(cell)
    assert "<td>a ` b | c ` d</td>" in html


def test_a_sample_without_a_shown_column_is_a_clear_error(tmp_path):
    sample = tmp_path / "sample.csv"
    sample.write_text("task,dtype\ninference,float32\n")
    match = r"sample.csv: no column batch, latency, .*; the table of the"
    with pytest.raises(results.ResultsError, match=match):
        results.sample_table(sample)


def test_a_built_measuring_page_shows_the_sample_as_a_table_and_links_the_file(
    tmp_path,
):
    (tmp_path / "samples").mkdir()  # the committed sample, as it is
    (tmp_path / results.SAMPLE).write_bytes((ROOT / results.SAMPLE).read_bytes())
    page = "# Measuring\n\n[the file](benchmark-cpu.csv)\n\n<!-- sample-table -->\n"
    out, html = _built(tmp_path, page, "measuring.md")
    assert "<table>" in html and "<code>quality_<wbr>failure</code>" in html
    assert "sample-table" not in html
    sample = (tmp_path / results.SAMPLE).read_bytes()
    assert (out / "benchmark-cpu.csv").read_bytes() == sample


def _timed(rows, factor=1.0):
    """_place's keywords for ``rows`` with block times: 10 blocks per cell around its
    latency times ``factor``."""
    spread = [factor * (1 + 0.01 * (i - 5)) for i in range(10)]
    return {"rows": rows, "blocks": _blocks(rows, lambda t: [t * s for s in spread])}


@pytest.mark.parametrize(
    "language, rule",
    [
        ("en", "The verdict rests on each cell's block times"),
        ("es", "El veredicto se basa en los tiempos de los bloques"),
    ],
)
def test_with_block_times_the_verdict_is_an_interval_and_the_page_says_so(
    tmp_path, language, rule
):
    comparison = _pair(tmp_path, _timed(_noisy_rows()), _timed(_noisy_rows(), 2.0))
    text = results.comparison_table(comparison, tmp_path, language)
    assert rule in text and "rule of thumb" not in text and "regla práctica" not in text
    # Not 'conservative': the committed A/A pair shows a verdict that the spread within
    # each run cannot explain.
    assert "conservative" not in text and "conservadora" not in text
    judged = [line for line in _table_rows(text) if "**" in line]
    # twice as slow, its interval shown
    assert judged and all("(95% 1.9" in line for line in judged)


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
            "núcleo más del 10% del tiempo transcurrido (la columna `wait_share`, que "
            "mide Linux; en otros sistemas, `cpu_share` por debajo de 0.9",
        ),
    ],
)
def test_the_noise_rule_states_the_contention_threshold_from_the_metadata(
    tmp_path, language, words
):
    noise = {"threshold": 0.1, "min_blocks": 4, "contention_threshold": 0.9}
    shown = _load(tmp_path, rows=_noisy_rows("true"), noise=noise)
    assert words in results.noise_note(shown, language)


def test_with_block_times_the_rule_is_the_intervals_even_when_no_cell_is_compared(
    tmp_path,
):
    runs = [_timed(_noisy_rows(*["true"] * 12)) for _ in range(2)]
    text = results.comparison_table(_pair(tmp_path, *runs), tmp_path, "en")
    assert "The verdict rests on each cell's block times" in text
    assert "rule of thumb" not in text
