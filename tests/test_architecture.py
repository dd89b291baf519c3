"""The import boundaries, read from the source (every import, also those inside functions and
`if TYPE_CHECKING:` blocks): which libraries each package may use, the layer order, no cycles.

A lazy import inside a function is still a dependency: it only moves the cost, not the coupling.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "flue_tui"

# Low → high. A module may import its own layer and the layers below it, never one above.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("config",),
    ("context",),
    ("sandbox",),
    ("tools",),
    ("mcp",),  # MCP clients (being built): tools from servers, below the model and the runtime
    ("hooks",),  # the user's hook commands (Claude Code's contract); the policy calls them via a Protocol
    ("model",),
    ("permissions",),
    ("store",),
    ("checkpoints",),
    ("agent",),
    ("runtime",),
    ("ui",),
    ("headless", "inline", "tui", "acp"),  # the front ends: peers that never import each other
    ("cli",),
    ("__main__",),
)
RANK = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}

# Third-party libraries that only one package may import.
ONLY_IN = {
    "litellm": "model",
    "textual": "tui",
    "prompt_toolkit": "inline",
    "sqlite3": "store",
    "sqlite_utils": "store",
    "acp": "acp",  # the Agent Client Protocol SDK: only `flue --acp` pays its import
}

# Import cycles allowed between modules: none (issue 15 broke the last ones). A new cycle fails the
# test below; should one ever have to be listed here, a listed one that is gone fails it too.
KNOWN_CYCLES: set[frozenset[str]] = set()


@dataclass(frozen=True, slots=True)
class Import:
    source: str  # the importing module, dotted, without "flue_tui."
    target: str  # the imported module, dotted, in full ("flue_tui.x.y", "litellm.types")
    line: int


def _modules() -> dict[str, Path]:
    mods = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The flue_tui module a dotted import names ("flue_tui.x.y.Name" → "x.y"), or None."""
    if name != "flue_tui" and not name.startswith("flue_tui."):
        return None
    parts = name.split(".")[1:]
    while parts and ".".join(parts) not in MODULES:
        parts.pop()
    return ".".join(parts)


def _imports(module: str) -> list[Import]:
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [Import(module, a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ["flue_tui", *package[: len(package) - node.level + 1]]
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            # `from pkg import mod` depends on pkg.mod; `from mod import Name` on mod.
            out += [Import(module, f"{name}.{a.name}", node.lineno) for a in node.names]
    return out


IMPORTS = {m: _imports(m) for m in MODULES}


def _package(module: str) -> str:
    return module.split(".")[0] if module else ""


def _where(imp: Import) -> str:
    return f"flue_tui/{imp.source.replace('.', '/')} line {imp.line}: imports {imp.target}"


def test_every_package_has_a_layer():
    packages = {_package(m) for m in MODULES} - {""}
    assert packages <= set(RANK), f"put these packages in LAYERS: {sorted(packages - set(RANK))}"


@pytest.mark.parametrize("library", sorted(ONLY_IN))
def test_library_used_only_in_its_package(library):
    home = ONLY_IN[library]
    bad = [_where(i) for m in MODULES for i in IMPORTS[m] if i.target.split(".")[0] == library and _package(m) != home]
    assert not bad, f"{library} belongs in flue_tui/{home}/ only:\n" + "\n".join(bad)


def test_lower_layers_never_import_higher_ones():
    bad = []
    for module in MODULES:
        src = _package(module)
        for imp in IMPORTS[module]:
            target = _resolve(imp.target)
            if not target or not src:  # flue_tui/__init__.py is the version only
                continue
            dst = _package(target)
            if dst == src:
                continue
            if RANK[dst] > RANK[src] or (RANK[dst] == RANK[src]):  # up, or sideways between peers
                bad.append(f"{_where(imp)} ({src} may not import {dst})")
    assert not bad, "layer order broken:\n" + "\n".join(bad)


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module in MODULES:
        for imp in IMPORTS[module]:
            target = _resolve(imp.target)
            if target is not None and target != module and target in MODULES:
                # importing a.b.c also runs a/__init__ and a/b/__init__, but those hold no code
                graph[module].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _path(graph: dict[str, set[str]], component: list[str]) -> str:
    """One concrete cycle inside a component, as a → b → a, for the failure message."""
    members = set(component)
    start = component[0]
    seen = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node] & members):
            if nxt == start:
                return " → ".join([*seen[node], start])
            if nxt not in seen:
                seen[nxt] = [*seen[node], nxt]
                queue.append(nxt)
    return " ↔ ".join(component)


def test_no_new_import_cycles():
    graph = _graph()
    cycles = {frozenset(c): c for c in _cycles(graph)}
    new = [_path(graph, c) for key, c in cycles.items() if key not in KNOWN_CYCLES]
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in cycles]
    assert not new, "import cycles:\n" + "\n".join(new)
    assert not gone, f"these cycles are gone, take them out of KNOWN_CYCLES: {gone}"


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _path(graph, ["a", "b", "c"]) == "a → b → c → a"


def test_the_architecture_page_names_only_files_that_exist():
    """docs/architecture.md is the map for the next person: every module it names is there."""
    root = Path(__file__).resolve().parent.parent
    text = (root / "docs" / "architecture.md").read_text()
    named = set(re.findall(r"`([\w/]+\.py)`", text))
    missing = sorted(n for n in named if not (root / "flue_tui" / n).exists() and not (root / n).exists())
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"
