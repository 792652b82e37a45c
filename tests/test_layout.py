"""The layout docs/architecture.md's "Where things go" describes, checked: shared folders hold only
what two pages use, no module grows past 300 lines without saying why, every class has
a name of its own, and app.py, like the packages (import contracts), imports no test support.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(path.stem for path in (ROOT / "views").glob("*.py") if path.stem != "__init__")
SHARED_FOLDERS = ("ui.shared", "ui.figures")
MAX_LINES = 300
#: Every folder of Python the project holds: the app's, the test support's, the tests', the
#: benchmarks'.
CODE = ("app.py", "views", "ui", "attention_core", "hosting", "harness", "tests", "benchmarks")
#: The opening comment of a longer module must say why, in these words.
LONG_FILE_REASON = "longer than 300 lines because"


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("views", "ui", "attention_core", "hosting")


def _page_of(module: str) -> str | None:
    """``views.text`` and ``ui.text.cache`` belong to the text page; shared modules to none."""
    parts = module.split(".")
    if parts[0] == "views" and len(parts) == 2:
        return parts[1]
    if parts[0] == "ui" and len(parts) > 2 and parts[1] in PAGES:
        return parts[1]
    return None


def test_every_page_has_a_package_named_like_its_script() -> None:
    for page in PAGES:
        assert (ROOT / "ui" / page / "__init__.py").exists(), page


def test_shared_folders_hold_only_what_two_pages_use() -> None:
    graph = _graph()
    shared = sorted(
        module
        for module in graph.modules
        if module.startswith(SHARED_FOLDERS) and module.count(".") == 2
    )
    assert shared
    single_page = {}
    for module in shared:
        pages = {_page_of(user) for user in graph.find_downstream_modules(module)} - {None}
        if len(pages) < 2:
            single_page[module] = sorted(pages)
    assert not single_page, f"used by fewer than two pages (move to ui/<page>/): {single_page}"


#: Lessons show every page's views: ui.lessons stands above the page packages (the import
#: contract "ui: lessons over the pages" in pyproject.toml), the one package that may
#: import them.
OVER_THE_PAGES = ("lessons",)


def test_page_packages_do_not_import_each_other() -> None:
    graph = _graph()
    for page in PAGES:
        for other in PAGES:
            if other != page and page not in OVER_THE_PAGES:
                chain = graph.find_shortest_chain(f"ui.{page}", f"ui.{other}", as_packages=True)
                assert chain is None, f"ui.{page} imports ui.{other}: {chain}"


@pytest.mark.parametrize("folder", ["views", "ui", "attention_core", "hosting"])
def test_no_module_is_over_300_lines_without_a_reason(folder: str) -> None:
    long_files = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        lines = path.read_text().splitlines()
        opening = "\n".join(lines[:30]).lower()
        if len(lines) > MAX_LINES and LONG_FILE_REASON not in opening:
            long_files.append(f"{path.relative_to(ROOT)}: {len(lines)} lines")
    assert not long_files, long_files


#: Names each page's cache for every session once had; one name now, ``cache``.
OLD_CACHE_NAMES = ("runs", "cached", "shared", "shared_views", "shared_figures")


def test_a_pages_cache_for_every_session_is_called_cache() -> None:
    graph = _graph()
    for page in PAGES:
        package = ROOT / "ui" / page
        modules = {path.stem for path in package.glob("*.py")}
        assert not modules & set(OLD_CACHE_NAMES), (page, modules & set(OLD_CACHE_NAMES))
        users = graph.find_modules_that_directly_import("ui.shared.figure_cache")
        if any(user.startswith(f"ui.{page}.") for user in users):
            assert "cache" in modules, f"ui/{page} caches figures for every session: cache.py"


def _python_files(names: tuple[str, ...]) -> list[Path]:
    paths = [ROOT / name for name in names]
    return sorted(
        file for path in paths for file in ([path] if path.is_file() else path.rglob("*.py"))
    )


def test_no_two_classes_share_a_name() -> None:
    defined: dict[str, list[str]] = defaultdict(list)
    for path in _python_files(CODE):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                defined[node.name].append(f"{path.relative_to(ROOT)}:{node.lineno}")
    duplicates = {name: places for name, places in defined.items() if len(places) > 1}
    assert not duplicates, f"one name, several classes: {duplicates}"


def test_app_py_imports_no_test_support_tests_or_benchmarks() -> None:
    imported = set()
    for node in ast.walk(ast.parse((ROOT / "app.py").read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert not imported & {"harness", "tests", "benchmarks"}, sorted(imported)
