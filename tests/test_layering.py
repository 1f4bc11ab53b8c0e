"""The engine's layers: every import points down, and no import cycle.

A reader should be able to draw the engine bottom to top. Each module is
named in one layer of ``LAYERS`` (a new module fails until it is, and the
failure says which line to add); a module-level import may name a module
of its own layer or of a layer below, never one above, and the imports
between modules must form no cycle. Imports under ``if TYPE_CHECKING:``
are for type checkers only and do not count. (``Tensor``'s methods reach
the ops above them through ``_tensor_methods.bind_ops``, which the package
calls.)
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Collection
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "slowtorch_lib"

# Bottom to top: every module of the engine, by name, in exactly one layer.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "dtypes, index maths, hook handles and random bits",
        ("_dtype", "_strides", "_hooks", "_mt19937", "_cephes32", "_sampling"),
    ),
    ("storage", ("_storage",)),
    ("kernels", ("_kernels",)),
    (
        "tensor",
        (
            "_tensor_methods",
            "_tensor_shape_methods",
            "_tensor_python",
            "_tensor_autograd",
            "_tensor_logic_methods",
            "_tensor",
            "_tensor_kernels",
            "_numpy_in",
            "_creation",
            "_ranges",
            "_legacy_constructors",
            "_printing",
        ),
    ),
    (
        "fidelity: the dtypes beyond the ten the chapters teach",
        (
            "_fidelity",
            "_fidelity.promotion",
            "_fidelity.complex_types",
            "_fidelity.complex_storage",
            "_fidelity.float8",
            "_fidelity.wide_uint",
            "_fidelity.numpy_keywords",
        ),
    ),
    (
        "autograd",
        (
            "autograd",
            "autograd.grad_mode",
            "autograd.function",
            "autograd.history",
            "autograd.engine",
            "autograd.gradcheck",
            "autograd.variable",
        ),
    ),
    (
        "ops",
        (
            "ops",
            "ops.bitwise",
            "ops.common",
            "ops.comparison",
            "ops.complex_parts",
            "ops.copying",
            "ops.diagonals",
            "ops.fused",
            "ops.gather_scatter",
            "ops.histograms",
            "ops.indexing",
            "ops.joining",
            "ops.linalg",
            "ops.logarithms",
            "ops.order_statistics",
            "ops.pointwise",
            "ops.powers",
            "ops.products",
            "ops.rearrange",
            "ops.reduction",
            "ops.reordering",
            "ops.return_types",
            "ops.rounding",
            "ops.scan",
            "ops.selecting",
            "ops.sorting",
            "ops.splitting",
            "ops.statistics",
            "ops.trigonometry",
            "ops.views",
            "ops.einsum",
            "ops.meshgrid",
            "ops.distance",
            "ops.normal",
            "ops.ranges",
            "ops.unique",
            "ops.autocast",
            "_rng",
        ),
    ),
    (
        "fidelity's loops, keyed by the ops' scalar functions",
        (
            "_fidelity.loop_names",
            "_fidelity.complex_numbers",
            "_fidelity.few_loops",
        ),
    ),
    (
        "sparse COO tensors, beside the dense core",
        ("sparse", "sparse._layout", "sparse._coo", "sparse._mm"),
    ),
    (
        "nn, optim, utils.data",
        (
            "nn",
            "nn.functional",
            "nn.functional.activation",
            "nn.functional.adaptive_pooling",
            "nn.functional.attention",
            "nn.functional.conv",
            "nn.functional.ctc",
            "nn.functional.convolution",
            "nn.functional.embedding_bag",
            "nn.functional.fold",
            "nn.functional.grid_sample",
            "nn.functional.multi_head_attention",
            "nn.functional.native",
            "nn.functional.pooling",
            "nn.functional.interpolation",
            "nn.functional.sampling",
            "nn.functional.layers",
            "nn.functional.loss",
            "nn.functional.cross_entropy",
            "nn.functional.normalization",
            "nn.init",
            "nn.modules",
            "nn.modules.activation",
            "nn.modules.attention",
            "nn.modules.fold",
            "nn.modules.lazy",
            "nn.modules.lazy_layers",
            "nn.modules.pooling",
            "nn.modules.rnn",
            "nn.modules.rnn_steps",
            "nn.modules.transformer",
            "nn.modules.transformer_decoder",
            "nn.modules.upsampling",
            "nn.modules.batchnorm",
            "nn.modules.container",
            "nn.modules.conv",
            "nn.modules.dropout",
            "nn.modules.flatten",
            "nn.modules.linear",
            "nn.modules.loss",
            "nn.modules.module",
            "nn.modules.module_tensors",
            "nn.modules.normalization",
            "nn.modules.sparse",
            "nn.parallel",
            "nn.parameter",
            "nn.utils",
            "nn.utils.clip_grad",
            "nn.utils.rnn",
            "optim",
            "optim.adadelta",
            "optim.adagrad",
            "optim.adam",
            "optim.adamw",
            "optim.lbfgs",
            "optim.line_search",
            "optim.lion",
            "optim.lr_scheduler",
            "optim.muon",
            "optim.optimizer",
            "optim.rmsprop",
            "optim.sgd",
            "utils",
            "utils.data",
            "utils.data._fetch",
            "utils.data._worker",
            "utils.data._workers",
            "utils.data.collate",
            "utils.data.dataloader",
            "utils.data.dataset",
            "utils.data.sampler",
            "amp",
            "amp.autocast_mode",
            "amp.cuda_amp",
            "amp.cpu_amp",
            "amp.grad_scaler",
            "distributions",
            "distributions.constraints",
            "distributions.utils",
            "distributions.distribution",
            "distributions.normal",
            "distributions.uniform",
            "distributions.laplace",
            "distributions.bernoulli",
            "distributions.categorical",
            "distributions.one_hot_categorical",
            "distributions.independent",
            "distributions.multivariate_normal",
            "distributions.kl",
        ),
    ),
    (
        "top",
        (
            "",  # the package itself, slowtorch_lib/__init__.py
            "viz",
            "serialization",
            "safetensors",
            "_weights_only_unpickler",
            "_full_unpickler",
            "_activation_functions",
            "cuda",
            "cpu",
            "accelerator",
            "backends",
            "backends.cuda",
            "backends.cudnn",
            "backends.mps",
            "coverage",
            "distributed",
            "onnx",
        ),
    ),
]

# The modules a reader of chapters 1 to 4 opens: none of them may import a
# module of the dtypes beyond the ten (``_fidelity``), which register
# themselves into the core's tables instead.
CORE = (
    "_dtype",
    "_strides",
    "_storage",
    "_kernels",
    "_tensor",
    "_tensor_methods",
    "_tensor_shape_methods",
    "_tensor_python",
    "_tensor_autograd",
    "_tensor_logic_methods",
    "_tensor_kernels",
    "_creation",
    "_ranges",
    "_legacy_constructors",
    "_numpy_in",
    "_printing",
    "autograd.function",
    "autograd.engine",
    "autograd.history",
    "autograd.grad_mode",
    "ops.common",
    "ops.pointwise",
    "ops.powers",
    "ops.linalg",
    "ops.reduction",
    "ops.views",
)
FIDELITY = "_fidelity"


def module_name(path: Path) -> str:
    """``slowtorch_lib.ops.views`` for ``slowtorch_lib/ops/views.py``."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def short_name(module: str, package: str = "slowtorch_lib") -> str:
    """``ops.views`` for ``slowtorch_lib.ops.views`` (``""`` for the package)."""
    return module.removeprefix(package).removeprefix(".")


Layers = list[tuple[str, tuple[str, ...]]]


def layer_index(layers: Layers) -> dict[str, int]:
    """Each module named in ``layers`` and the index of its layer."""
    return {name: i for i, (_, names) in enumerate(layers) for name in names}


LAYER_OF = layer_index(LAYERS)


def layer_of(
    module: str, layers: Layers = LAYERS, package: str = "slowtorch_lib"
) -> int:
    """The index in ``layers`` (the engine's by default) of a module."""
    name = short_name(module, package)
    index = layer_index(layers)
    if name not in index:
        raise AssertionError(missing_layer_message(name, layers, package))
    return index[name]


def listing_name(layers: Layers) -> str:
    """The name of ``layers`` in this file, for messages."""
    return "LAYERS" if layers is LAYERS else "COURSE_LAYERS"


def missing_layer_message(
    name: str, layers: Layers = LAYERS, package: str = "slowtorch_lib"
) -> str:
    """What to add to ``layers`` (the engine's ``LAYERS`` by default) for a
    module of ``package`` that is in no layer: its line, in the layer of the
    listed module that shares the longest part of its dotted name (its
    package or a sibling)."""
    index = layer_index(layers)
    listing = listing_name(layers)

    def shared(listed: str) -> int:
        common = 0
        for mine, theirs in zip(name.split("."), listed.split(".")):
            if mine != theirs:
                break
            common += 1
        return common

    nearest = max((n for n in index if n), key=shared)
    if not shared(nearest):  # a new module at the top of the package
        nearest = layers[-1][1][1]
    layer = layers[index[nearest]][0]
    return (
        f"{package}.{name} is in no layer: add the line\n"
        f'            "{name}",\n'
        f"to the layer {layer!r} of {listing} in tests/test_layering.py "
        f"(next to {nearest!r}), or to the layer its imports belong to"
    )


def is_type_checking(node: ast.stmt) -> bool:
    """Whether ``node`` is an ``if TYPE_CHECKING:`` block."""
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    )


def imported_modules(
    node: ast.Import | ast.ImportFrom,
    modules: dict[str, Path] = MODULES,
    package: str = "",
) -> list[str]:
    """The modules of ``modules`` (the engine's by default) that one import
    statement loads; ``package`` is the importing module's package, for a
    relative import."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:  # from .substitute import put
            parent = package.rsplit(".", node.level - 1)[0]
            base = f"{parent}.{base}".rstrip(".")
        if not base:
            return []
        names = []
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            names.append(submodule if submodule in modules else base)
    return [n for n in names if n in modules]


def top_level_imports(module: str, modules: dict[str, Path] = MODULES) -> list[str]:
    """The modules of ``modules`` that ``module`` imports when it is loaded."""
    path = modules[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    found: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.extend(imported_modules(node, modules, package))
    return [m for m in found if m != module]


GRAPH = {module: top_level_imports(module) for module in MODULES}


def assert_every_module_listed(
    modules: dict[str, Path], layers: Layers = LAYERS, package: str = "slowtorch_lib"
) -> None:
    """Each of ``modules`` is in a layer; the failure says which line to add."""
    index = layer_index(layers)
    names = [short_name(m, package) for m in modules]
    unlisted = [n for n in names if n not in index]
    assert not unlisted, "\n".join(
        missing_layer_message(n, layers, package) for n in unlisted
    )


def assert_every_listed_module_exists(
    modules: dict[str, Path], layers: Layers = LAYERS, package: str = "slowtorch_lib"
) -> None:
    """Each name in ``layers`` is one of ``modules``, and only once."""
    names = [name for _, layer in layers for name in layer]
    stale = [n for n in names if f"{package}.{n}".rstrip(".") not in modules]
    listing = listing_name(layers)
    assert not stale, f"{listing} lists modules that do not exist: {stale}"
    assert len(names) == len(set(names)), f"a module is listed twice in {listing}"


def test_every_module_has_a_layer() -> None:
    assert_every_module_listed(MODULES)


def test_every_listed_module_exists() -> None:
    assert_every_listed_module_exists(MODULES)


def test_a_new_module_is_told_its_line() -> None:
    message = missing_layer_message("nn.modules.unwritten")
    assert '"nn.modules.unwritten",' in message
    assert "'nn, optim, utils.data'" in message
    with pytest.raises(AssertionError, match="is in no layer"):
        layer_of("slowtorch_lib.nn.modules.unwritten")


@pytest.mark.parametrize("module", CORE)
def test_core_imports_no_fidelity_module(module: str) -> None:
    """The core never names a module of the dtypes beyond the ten, not even
    for type checkers: those modules register themselves into it."""
    tree = ast.parse(MODULES[f"slowtorch_lib.{module}"].read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names]
            if isinstance(node, ast.ImportFrom):
                names = [f"{node.module}.{n}" for n in names]
            assert not any(f".{FIDELITY}" in n for n in names), (
                f"slowtorch_lib.{module}:{node.lineno} imports a fidelity module"
            )


def assert_imports_point_down(
    module: str,
    imports: list[str],
    layers: Layers = LAYERS,
    package: str = "slowtorch_lib",
) -> None:
    """None of ``imports`` (``module``'s) is in a layer above ``module``'s."""
    mine = layer_of(module, layers, package)
    upward = [m for m in imports if layer_of(m, layers, package) > mine]
    assert not upward, (
        f"{module} (layer {layers[mine][0]!r}) imports from a higher layer: "
        + ", ".join(
            f"{m} ({layers[layer_of(m, layers, package)][0]!r})" for m in upward
        )
    )


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module: str) -> None:
    assert_imports_point_down(module, GRAPH[module])


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a list of modules, or None."""
    state: dict[str, str] = {}  # "open" while on the path, then "done"
    for start in graph:
        if start in state:
            continue
        path = [start]
        stack = [iter(graph[start])]
        state[start] = "open"
        while stack:
            following = next(stack[-1], None)
            if following is None:
                state[path.pop()] = "done"
                stack.pop()
            elif state.get(following) == "open":
                return path[path.index(following) :] + [following]
            elif following not in state:
                state[following] = "open"
                path.append(following)
                stack.append(iter(graph[following]))
    return None


def test_no_import_cycle() -> None:
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": ["b"], "b": ["c"], "c": ["a"]}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": ["b", "c"], "b": ["c"], "c": []}) is None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_come_first(module: str) -> None:
    """No module-level import below other code (the docstring and
    ``__future__`` aside)."""
    tree = ast.parse(MODULES[module].read_text())
    code_seen = None
    for node in tree.body:
        is_import = isinstance(node, (ast.Import, ast.ImportFrom))
        if is_import and code_seen is not None:
            raise AssertionError(
                f"{module}:{node.lineno}: import below code (line {code_seen})"
            )
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if not (is_import or docstring or is_type_checking(node)):
            code_seen = node.lineno


def unexplained_imports(path: Path) -> list[tuple[int, list[str]]]:
    """The imports inside a function of ``path`` with no comment on their
    line or the line above saying why: (line, the names imported)."""
    source = path.read_text()
    lines = source.splitlines()
    found: dict[int, list[str]] = {}  # by line: a nested function is walked twice
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, (ast.Import, ast.ImportFrom)):
                here = lines[inner.lineno - 1]
                above = lines[inner.lineno - 2].strip()
                if not ("#" in here or above.startswith("#")):
                    prefix = ""
                    if isinstance(inner, ast.ImportFrom):
                        prefix = f"{inner.module}."
                    found[inner.lineno] = [prefix + a.name for a in inner.names]
    return sorted(found.items())


def assert_imports_explained(
    module: str, path: Path, excused: Collection[tuple[str, str]] = ()
) -> None:
    """Every import inside a function of ``module`` says why, but those of
    ``excused`` ((module, the name imported) pairs)."""
    found = [
        line
        for line, names in unexplained_imports(path)
        if not all((module, name) in excused for name in names)
    ]
    assert not found, "\n".join(
        f"{module}:{line}: import inside a function without a comment saying why"
        for line in found
    )


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_in_functions_say_why(module: str) -> None:
    """An import inside a function has a comment on its line or above it."""
    assert_imports_explained(module, MODULES[module])


def type_checking_names(module: str) -> dict[str, str]:
    """The private names that ``module`` imports under ``TYPE_CHECKING``,
    each with the module it names: ``_pointwise`` names
    ``slowtorch_lib.ops.pointwise``."""
    tree = ast.parse(MODULES[module].read_text())
    named: dict[str, str] = {}
    for node in tree.body:
        if not is_type_checking(node):
            continue
        for inner in node.body:  # type: ignore[attr-defined]
            if isinstance(inner, ast.ImportFrom):
                for alias in inner.names:
                    name = alias.asname or alias.name
                    if name.startswith("_"):
                        named[name] = f"{inner.module}.{alias.name}"
    return named


def test_tensor_binds_the_modules_it_names_for_type_checkers() -> None:
    """``Tensor``'s methods reach the layers above through one list,
    ``_tensor_methods.OPS_MODULES``, bound into each module of
    ``BOUND_MODULES``; the imports under ``TYPE_CHECKING`` there name
    modules of that list under the same names, so mypy checks what runs."""
    from slowtorch_lib import _tensor, _tensor_methods

    listed = _tensor_methods.OPS_MODULES
    assert (
        _tensor.OPS_MODULES is listed and _tensor.bind_ops is _tensor_methods.bind_ops
    )
    named: dict[str, str] = {}
    for bound in _tensor_methods.BOUND_MODULES:
        here = type_checking_names(bound)
        assert here.items() <= listed.items(), f"{bound} names a module not listed"
        named.update(here)
        for name, module in listed.items():
            bound_module = importlib.import_module(bound)
            assert getattr(bound_module, name) is importlib.import_module(module)
    assert named == listed
    for module in listed.values():
        assert layer_of(module) >= layer_of("slowtorch_lib._tensor"), (
            f"{module} is below Tensor: import it at the top instead"
        )


# The dtypes beyond the ten the chapters teach, which only their own modules
# (``_fidelity``) and the layers above the core may name.
BEYOND_THE_TEN = {
    "complex32",
    "complex64",
    "complex128",
    "chalf",
    "cfloat",
    "cdouble",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "uint16",
    "uint32",
    "uint64",
}


@pytest.mark.parametrize("module", CORE)
def test_core_names_only_the_ten_dtypes(module: str) -> None:
    """A reader of the core never meets a branch for a dtype the book does
    not teach: no core module names one in its code."""
    tree = ast.parse(MODULES[f"slowtorch_lib.{module}"].read_text())
    for node in ast.walk(tree):
        name = node.id if isinstance(node, ast.Name) else None
        if isinstance(node, ast.Attribute):
            name = node.attr
        assert name not in BEYOND_THE_TEN, (
            f"slowtorch_lib.{module}:{node.lineno} names {name}, a dtype of "
            "slowtorch_lib._fidelity: give its family a rule there instead"
        )


# --- the course's layers -----------------------------------------------------------
#
# ``course/`` is drawn the same way, above the engine (a course module may
# import ``slowtorch_lib`` freely; the engine never imports the course).
# Names are relative to ``course`` (``""`` is the package itself); the
# chapters' sources (``course/sources/NN_name.py``) are notebooks, not modules.

COURSE = ROOT / "course"

# Bottom to top: every module of the course, by name, in exactly one layer.
COURSE_LAYERS: Layers = [
    (
        "standard-library tools: substitution, sandbox, data, notebooks read",
        (
            "substitute",
            "parsing",
            "replay",
            "sandbox",
            "datasets",
            "layout",
            "lab",
            "progress",
            "book_outputs",
            "notebook_reader",
            "messages",
        ),
    ),
    (
        "an exercise, the text of its check, the saved pieces, what it must not use",
        ("cases", "feedback", "saved_pieces", "workspace", "reference_use"),
    ),
    (
        "checking, the case programs and the notebook's check()",
        (
            "",  # the package itself, course/__init__.py
            "checking",
            "checks",
            "checks.drawn",
            "checks.gpt_parts",
            "checks.ch01",
            "checks.ch02_programs",
            "checks.ch02_graphs",
            "checks.ch02_jacobians",
            "checks.ch02",
            "checks.ch03_builds",
            "checks.ch03",
            "checks.ch04_programs",
            "checks.ch04_builds",
            "checks.ch04",
            "checks.ch05",
            "checks.ch06",
            "checks.grading_ch01",
            "checks.grading_ch02",
            "checks.grading_ch03",
            "checks.grading_ch04",
            "checks.grading_ch05",
            "checks.grading_ch06",
        ),
    ),
    (
        "built from the exercises: plan, editions, notebooks, recorded answers",
        (
            "plan",
            "edition",
            "class_site",
            "notebooks",
            "record",
            "model_runs",
            "dependencies",
        ),
    ),
    (
        "the grader: runner, judge, answer key, flags, projects",
        (
            "watch",
            "placing",
            "exercise_child",
            "runner",
            "runner_protocol",
            "trees",
            "similarity",
            "answer_key",
            "predictions",
            "integrity",
            "judge",
            "project",
            "project_child",
            "grading",
        ),
    ),
    (
        "the teacher's commands and exports",
        (
            "gradescope",
            "export",
            "course_file",
            "collect",
            "new_exercise",
            "__main__",
        ),
    ),
]


def is_module(path: Path) -> bool:
    """Whether ``path`` can be imported: every part of its name an identifier."""
    return all(part.isidentifier() for part in module_name(path).split("."))


COURSE_MODULES = {
    module_name(p): p for p in sorted(COURSE.rglob("*.py")) if is_module(p)
}
COURSE_GRAPH = {m: top_level_imports(m, COURSE_MODULES) for m in COURSE_MODULES}


def course_layer(module: str) -> int:
    """The index in ``COURSE_LAYERS`` of a course module."""
    return layer_of(module, COURSE_LAYERS, "course")


def test_every_course_module_has_a_layer() -> None:
    assert_every_module_listed(COURSE_MODULES, COURSE_LAYERS, "course")


def test_every_listed_course_module_exists() -> None:
    assert_every_listed_module_exists(COURSE_MODULES, COURSE_LAYERS, "course")


def test_a_new_course_module_is_told_its_line() -> None:
    message = missing_layer_message("checks.ch07", COURSE_LAYERS, "course")
    assert message.startswith("course.checks.ch07 is in no layer")
    assert '"checks.ch07",' in message and "of COURSE_LAYERS" in message
    assert "checking, the case programs" in message
    with pytest.raises(AssertionError, match="is in no layer"):
        course_layer("course.unwritten")


@pytest.mark.parametrize("module", sorted(COURSE_MODULES))
def test_course_imports_point_down(module: str) -> None:
    assert_imports_point_down(module, COURSE_GRAPH[module], COURSE_LAYERS, "course")


def test_no_import_cycle_in_course() -> None:
    cycle = find_cycle(COURSE_GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_engine_imports_nothing_of_the_course() -> None:
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [alias.name for alias in node.names]
                if isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                assert not any(n.split(".")[0] == "course" for n in names), (
                    f"{module}:{node.lineno} imports the course, which is above it"
                )


@pytest.mark.parametrize("module", sorted(COURSE_MODULES))
def test_course_imports_in_functions_say_why(module: str) -> None:
    """An import inside a function has a comment on its line or above it."""
    assert_imports_explained(module, COURSE_MODULES[module])


def test_relative_imports_are_followed() -> None:
    """``saved_pieces`` imports ``.substitute`` (it ships in the engine too)."""
    assert "course.substitute" in COURSE_GRAPH["course.saved_pieces"]
