#!/usr/bin/env bash
# The publishing pipeline, on your machine: what .github/workflows/site.yml runs before it
# deploys, in the same order, so you see the site CI would publish.
#   1. every test: the run writes reports/examples.json, from which each page gets its stamp;
#   2. the benchmark's quick preset on this machine's device: results/benchmark.csv + .json,
#      which the results page shows instead of the committed sample;
#   3. the strict site build, into site/ (or the folder given as the first argument).
# A step that fails stops the pipeline, as in CI: no site is built from a failed run.
set -euo pipefail
cd "$(dirname "$0")/.."
export NO_MKDOCS_2_WARNING=1 PYTHONUNBUFFERED=1
site=${1:-site}

step() { printf '\n== %s\n' "$1"; }

step "tests (writes reports/examples.json)"
python -m pytest

step "quick benchmark on this machine (writes results/benchmark.csv and .json)"
python snippets/measuring/benchmark.py --preset quick --output results/benchmark.csv

step "strict site build into $site/"
# Notebooks rendered from mkdocs-jupyter's cache did not run in this build and are stamped
# "not verified"; CI starts without the cache, so start without it here too.
rm -rf .cache/mkdocs-jupyter
python -m mkdocs build --strict -d "$site"

step "done: open $site/index.html; the results page is $site/results/index.html"
