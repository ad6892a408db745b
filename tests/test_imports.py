"""How the modules of ptdocs/ and tools/ import each other: no cycle, no path tricks.

Every import counts, at the top of a module or inside a function: an import moved into a
function hides a cycle from Python, not from a reader.
"""

import ast
import re

import pytest

from ptdocs.snippets import ROOT

PACKAGES = ("ptdocs", "tools")


def _module(path, root):
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root=ROOT, packages=PACKAGES):
    """{module: the project's modules it imports}, from the source (none is run)."""
    files = {
        _module(path, root): path
        for package in packages
        for path in (root / package).rglob("*.py")
    }
    graph = {}
    for name, path in files.items():
        package = (
            name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        )
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = (
                    ".".join(
                        package[: len(package) - node.level + 1] + [node.module or ""]
                    ).strip(".")
                    if node.level
                    else node.module
                )
                imported.add(base)
                imported.update(f"{base}.{alias.name}" for alias in node.names)
        # A package's __init__ runs before its modules: importing it is no edge back.
        graph[name] = {
            other
            for other in imported
            if other in files and other != name and not name.startswith(other + ".")
        }
    return graph


def cycle(graph):
    """One import cycle as a list of modules (first one repeated last), or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for other in sorted(graph[node]):
            if state.get(other) == "open":
                return stack[stack.index(other) :] + [other]
            if other not in state and (found := visit(other)):
                return found
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_project_modules_import_each_other_without_a_cycle():
    found = cycle(import_graph())
    assert found is None, "import cycle: " + " -> ".join(found)


def test_the_cycle_check_sees_a_cycle_hidden_inside_a_function(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from . import b\n")
    (tmp_path / "pkg" / "b.py").write_text("def late():\n    from .a import x\n")
    (tmp_path / "pkg" / "c.py").write_text("import pkg.a\n")
    graph = import_graph(tmp_path, ("pkg",))
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.c"] == {"pkg.a"}
    assert cycle(graph) == ["pkg.a", "pkg.b", "pkg.a"]


# script_runner runs a reader's script as `python script.py` would: with its folder
# first on sys.path.
PATH_TRICKS = re.compile(
    r"spec_from_file_location|SourceFileLoader|sys\.path\.(?:insert|append)|sys\.path\["
)


OURS = sorted(
    path
    for folder in ("ptdocs", "tools", "tests", "benchmarks")
    for path in (ROOT / folder).rglob("*.py")
    if path.name not in ("script_runner.py", "test_imports.py")  # the runner; this list
)


@pytest.mark.parametrize(
    "path", OURS, ids=lambda path: path.relative_to(ROOT).as_posix()
)
def test_no_module_of_ours_loads_a_module_by_its_path_or_edits_sys_path(path):
    found = [
        line.strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if PATH_TRICKS.search(line) and not line.lstrip().startswith("#")
    ]
    assert found == [], (
        f"{path.relative_to(ROOT)}: import it by name (pyproject.toml installs ptdocs)"
    )
