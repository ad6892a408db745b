"""The examples report under pytest-xdist: the controller counts from reports alone.

With ``-n`` the workers collect the pages and the controller never sees an item, only
the reports the workers send. A prose-values check or a skip directive must still not
count as an example, and only the controller writes reports/examples.json.
"""

import json
from pathlib import Path
from types import SimpleNamespace

from ptdocs.provenance import REPORT
from ptdocs.report import KIND, ExampleReport


def _report(page: Path, nodeid: str, outcome: str, kind: str | None = None):
    return SimpleNamespace(
        fspath=str(page),
        nodeid=nodeid,
        when="call",
        outcome=outcome,
        skipped=outcome == "skipped",
        user_properties=[(KIND, kind)] if kind else [],
        longrepr=(str(page), 1, "Skipped: why"),
    )


def _page(tmp_path: Path) -> Path:
    page = tmp_path / "docs" / "en" / "demo.md"
    page.parent.mkdir(parents=True)
    page.write_text("# Demo\n", encoding="utf-8")
    return page


def test_the_kind_travels_with_the_report_not_with_the_item(tmp_path):
    page = _page(tmp_path)
    controller = ExampleReport(tmp_path)  # it collected nothing
    for nodeid, outcome, kind in [
        ("a", "passed", None),
        ("b", "passed", "directive"),
        ("c", "passed", "prose-values"),
        ("d", "failed", "prose-values"),
        ("e", "skipped", None),
    ]:
        controller.pytest_runtest_logreport(_report(page, nodeid, outcome, kind))
    counts = controller.pages["en/demo.md"]
    assert (counts["passed"], counts["failed"], counts["skipped"]) == (1, 1, 1)


def test_collection_marks_each_item_with_its_kind(tmp_path):
    from ptdocs.pages import check_prose_values

    prose = SimpleNamespace(
        nodeid="p",
        user_properties=[],
        example=SimpleNamespace(
            region=SimpleNamespace(evaluator=check_prose_values), parsed=None
        ),
    )
    directive = SimpleNamespace(
        nodeid="d",
        user_properties=[],
        example=SimpleNamespace(
            region=SimpleNamespace(evaluator=None), parsed=object()
        ),
    )
    ExampleReport(tmp_path).pytest_collection_modifyitems([prose, directive])
    assert prose.user_properties == [(KIND, "prose-values")]
    assert directive.user_properties == [(KIND, "directive")]


def test_only_the_controller_writes_the_report_with_what_the_workers_ran(tmp_path):
    page = _page(tmp_path)
    worker = ExampleReport(tmp_path)
    worker.pytest_runtest_logreport(_report(page, "a", "passed"))
    config = SimpleNamespace(workerinput={"workerid": "gw0"}, workeroutput={})
    worker.pytest_sessionfinish(SimpleNamespace(config=config))
    assert not (tmp_path / REPORT).exists()
    import torch

    assert config.workeroutput[KIND]["torch"] == torch.__version__
    # execnet sends only plain types: torch.__version__ is a TorchVersion, which it
    # refuses
    assert {type(value) for value in config.workeroutput[KIND].values()} == {str}
    controller = ExampleReport(
        tmp_path
    )  # never imports torch itself under pytest-xdist
    controller.pytest_testnodedown(
        SimpleNamespace(workeroutput={KIND: {"torch": "9.9", "device": "D"}}), None
    )
    controller.pytest_runtest_logreport(_report(page, "a", "passed"))
    controller.pytest_sessionfinish(SimpleNamespace(config=SimpleNamespace()))
    written = json.loads((tmp_path / REPORT).read_text())
    assert (
        written["torch"],
        written["device"],
        written["pages"]["en/demo.md"]["passed"],
    ) == ("9.9", "D", 1)


def test_a_run_of_one_page_keeps_what_earlier_runs_said_of_the_others(tmp_path):
    """`python -m pytest docs/es/autograd.md` (the translators' guide) must not leave
    every other page "not verified" in the next build: the report keeps the other
    pages, with their day, while the torch and device are the same."""
    pages = {
        name: _page_named(tmp_path, name)
        for name in ("en/a.md", "es/a.md", "en/gone.md")
    }

    def run(names, torch="9.9"):
        controller = ExampleReport(tmp_path)
        controller.pytest_testnodedown(
            SimpleNamespace(workeroutput={KIND: {"torch": torch, "device": "D"}}), None
        )
        for name in names:
            controller.pytest_runtest_logreport(_report(pages[name], name, "passed"))
        controller.pytest_sessionfinish(SimpleNamespace(config=SimpleNamespace()))
        return json.loads((tmp_path / REPORT).read_text())

    run(["en/a.md", "en/gone.md"])
    old = json.loads((tmp_path / REPORT).read_text())
    old["date"] = "2026-01-02"
    for entry in old["pages"].values():
        del entry["date"]  # as a report written before pages had their own day
    (tmp_path / REPORT).write_text(json.dumps(old))
    pages["en/gone.md"].unlink()
    written = run(["es/a.md"])
    assert sorted(written["pages"]) == ["en/a.md", "es/a.md"], (
        "a page that is gone is dropped"
    )
    assert (
        written["pages"]["en/a.md"]["date"] == "2026-01-02"
        and written["pages"]["en/a.md"]["passed"] == 1
    )
    assert written["pages"]["es/a.md"]["date"] == written["date"] != "2026-01-02"
    # Another torch: what ran before says nothing about this one.
    assert sorted(run(["es/a.md"], torch="9.10")["pages"]) == ["es/a.md"]


def _page_named(tmp_path: Path, name: str) -> Path:
    page = tmp_path / "docs" / name
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text("# Demo\n", encoding="utf-8")
    return page


def test_a_page_whose_only_checks_are_prose_values_is_not_an_example(tmp_path):
    """Passing prose values alone leave a page out of the report (not "skipped"); a
    failing one puts it in, and the next passing run takes it out again."""
    page = _page(tmp_path)

    def run(outcome):
        controller = ExampleReport(tmp_path)
        controller.pytest_testnodedown(
            SimpleNamespace(workeroutput={KIND: {"torch": "9.9", "device": "D"}}), None
        )
        report = _report(page, "p", outcome, "prose-values")
        controller.pytest_runtest_logreport(report)
        controller.pytest_sessionfinish(SimpleNamespace(config=SimpleNamespace()))
        return json.loads((tmp_path / REPORT).read_text())["pages"]

    assert run("failed")["en/demo.md"]["failed"] == 1
    assert "en/demo.md" not in run("passed")
