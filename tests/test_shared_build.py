"""The site build the tests share (ptdocs/site_build.py), with a stand-in for mkdocs.

Under pytest-xdist every worker has a SharedBuild on the same folder: one starts the
builder, every one waits for its result, and the one that started it lets it end even
when its own tests are done, since another worker may still be waiting.
"""

import sys
from types import SimpleNamespace

import pytest

from ptdocs.site_build import BuildFailed, SharedBuild, SiteBuildPlugin

# A stand-in builder: some work, then the site and the result, as ptdocs.site_build.main
# writes them.
BUILDER = """
import json, sys, time
from pathlib import Path
folder = Path(sys.argv[1])
time.sleep(float(sys.argv[2]))  # a build takes a while: the worker that started it must not cut it short
if sys.argv[3] == "ok":
    (folder / "site").mkdir()
    (folder / "result.json").write_text(json.dumps({"returncode": 0, "output": ""}))
elif sys.argv[3] == "fail":
    (folder / "result.json").write_text(json.dumps({"returncode": 1, "output": "WARNING - broken link"}))
"""


def builds(folder, outcome, seconds=0.0):
    command = [sys.executable, "-c", BUILDER, str(folder), str(seconds), outcome]
    return SharedBuild(folder, command), SharedBuild(folder, command)


def test_one_worker_starts_the_build_and_every_worker_gets_the_site(tmp_path):
    first, second = builds(tmp_path, "ok")
    first.start()
    second.start()  # finds the build started: starts nothing
    assert second._process is None and first._process is not None
    assert second.wait(timeout=60) == first.wait(timeout=60) == tmp_path / "site"
    first.finish(interrupted=False)


def test_the_worker_that_started_it_lets_it_end(tmp_path):
    first, second = builds(tmp_path, "ok", seconds=1.0)
    first.start()
    first.finish(
        interrupted=False
    )  # its own tests are done; another worker still needs the site
    assert second.wait(timeout=60) == tmp_path / "site"


def test_an_interrupted_run_stops_the_build(tmp_path):
    first, _ = builds(tmp_path, "ok", seconds=60.0)
    first.start()
    first.finish(interrupted=True)
    assert first._process.returncode != 0 and not (tmp_path / "result.json").exists()


def test_a_failed_build_fails_every_worker_with_its_output(tmp_path):
    first, second = builds(tmp_path, "fail")
    first.start()
    for build in (first, second):
        with pytest.raises(
            BuildFailed, match="mkdocs build --strict failed:\nWARNING - broken link"
        ):
            build.wait(timeout=60)
    first.finish(interrupted=False)


def test_a_builder_that_dies_without_a_result_is_noticed_by_the_others(tmp_path):
    first, second = builds(tmp_path, "die")
    first.start()
    first.finish(interrupted=False)  # ended, and reaped, without writing a result
    with pytest.raises(BuildFailed, match="ended without writing its result"):
        second.wait(timeout=60)


@pytest.mark.parametrize("collect_only, started", [(False, True), (True, False)])
def test_the_build_starts_when_a_collected_test_needs_the_site_and_will_run(
    pytestconfig, monkeypatch, collect_only, started
):
    plugin = SiteBuildPlugin(pytestconfig)
    calls = []
    monkeypatch.setattr(plugin.build, "start", lambda: calls.append("start"))
    config = SimpleNamespace(option=SimpleNamespace(collectonly=collect_only))
    needs_it = SimpleNamespace(fixturenames=["built_site"])
    plugin.pytest_collection_finish(SimpleNamespace(config=config, items=[needs_it]))
    plugin.pytest_collection_finish(
        SimpleNamespace(config=config, items=[SimpleNamespace()])
    )
    assert calls == (["start"] if started else [])


# ---- the real builder: strict means strict
# ----------------------------------------------------

TINY_CONFIG = """\
site_name: Tiny
docs_dir: docs
theme:
  name: mkdocs
plugins:
  - i18n:
      docs_structure: folder
      languages:
        - {{locale: en, default: true, name: English, build: true}}
        - locale: es
          name: Español
          build: true
          nav_translations: {{Home: Inicio{label}}}
  - ptdocs:
      steps: [translations]
validation:
  anchors: warn
nav:
  - Home: index.md
  - Second: second.md
"""


@pytest.mark.parametrize(
    "planted, warning",
    [
        (None, None),
        ("label", "the menu title «Second» has no Spanish label"),
        ("anchor", "contains a link '#nowhere', but there is no such anchor"),
    ],
)
def test_the_suites_build_fails_on_a_planted_warning(tmp_path, planted, warning):
    """ptdocs.site_build's own command (not a stand-in) on a small two-language site:
    clean, it builds; with one warning planted, a menu title without its Spanish
    label (the translations hook's warning) or a link to a missing anchor (MkDocs'
    own), the build fails and says why. Under `--quiet` both built with exit 0
    (MkDocs 1.6 drops the warnings before --strict counts them)."""
    project = tmp_path / "project"
    (project / "docs" / "en").mkdir(parents=True)
    (project / "docs" / "es").mkdir()
    for language, words in [
        ("en", ("Home", "Second", "Text")),
        ("es", ("Inicio", "Segunda", "Texto")),
    ]:
        anchor = "nowhere" if planted == "anchor" else words[2].lower()
        (project / "docs" / language / "index.md").write_text(
            f"# {words[0]}\n\n{words[2]}.\n"
        )
        (project / "docs" / language / "second.md").write_text(
            f"# {words[1]}\n\n## {words[2]}\n\n[{words[2]}](#{anchor})\n"
        )
    label = "" if planted == "label" else ", Second: Segunda"
    (project / "mkdocs.yml").write_text(TINY_CONFIG.format(label=label))
    folder = tmp_path / "build"
    build = SharedBuild(
        folder, [sys.executable, "-m", "ptdocs.site_build", str(folder), str(project)]
    )
    if warning is None:
        assert (build.wait(timeout=120) / "es" / "second" / "index.html").is_file()
        return
    with pytest.raises(BuildFailed) as failed:
        build.wait(timeout=120)
    assert warning in str(failed.value)
    assert not (folder / "site").exists()
