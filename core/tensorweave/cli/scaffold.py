"""``tensorweave new-plugin NAME``: a new pack, made from the pack template, ready to install.

The template is ``contrib/template`` (distribution ``tensorweave-template``), shipped with
the core as package data under ``tensorweave/cli/templates/plugin/``: every file carries a
``.tmpl`` suffix (so no tool mistakes it for code) and says ``{{dist_name}}`` and
``{{package}}`` where the template says ``tensorweave-template`` and ``tensorweave_template``.
The template's component names start with its own name (``TemplateScale.v1``,
``template_log_cosh.v1``), written ``{{Prefix}}Scale.v1`` and ``{{prefix}}_log_cosh.v1``, so a
pack made as ``my-layers`` offers ``MyLayersScale.v1`` and ``my_layers_log_cosh.v1``: two packs
made from the template never offer the same name. A test keeps the shipped copy equal to
``contrib/template``; ``export_template`` re-makes it.

The new pack installs (``pip install -e DIR``), passes its own tests and resolves by name
with no edits.

>>> import tempfile
>>> from pathlib import Path
>>> pack_names("my-layers")
('tensorweave-my-layers', 'tensorweave_my_layers')
>>> component_prefixes("tensorweave-my-layers")
('MyLayers', 'my_layers')
>>> with tempfile.TemporaryDirectory() as tmp:
...     root = scaffold_plugin("my-layers", Path(tmp))
...     root.name, (root / "tensorweave_my_layers" / "scale.py").is_file()
('tensorweave-my-layers', True)
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import keyword
import re
import shutil
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from tensorweave.registries.discovery import normalize

__all__ = [
    "TEMPLATE_DIST",
    "TEMPLATE_PACKAGE",
    "pack_names",
    "component_prefixes",
    "scaffold_plugin",
    "template_files",
    "render_template",
    "export_template",
    "add_command",
]

TEMPLATE_DIST = "tensorweave-template"
TEMPLATE_PACKAGE = "tensorweave_template"
SUFFIX = ".tmpl"
_PREFIX = "tensorweave-"
_DIST_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
# What building, installing and testing a pack leaves behind: never part of the template.
_IGNORED = frozenset(
    {"__pycache__", "build", "dist", ".hypothesis", ".pytest_cache", ".ruff_cache", ".git"}
)


def pack_names(name: str, package: str | None = None) -> tuple[str, str]:
    """The distribution and import names of a new pack called ``name``.

    ``"fancy"``, ``"Fancy Layers"`` and ``"tensorweave-fancy"`` give distributions
    ``tensorweave-fancy``, ``tensorweave-fancy-layers``, ``tensorweave-fancy``: normalised,
    prefixed with ``tensorweave-`` when not already. The package defaults to the
    distribution name with ``_`` for ``-``.
    """
    dist = normalize(re.sub(r"\s+", "-", name.strip())).strip("-")
    if not dist or not _DIST_NAME.match(dist):
        raise ValueError(
            f"new-plugin: {name!r} is not a usable pack name. Fix: use letters, digits and "
            "dashes, e.g. 'my-layers' (made into the distribution 'tensorweave-my-layers')."
        )
    if dist in ("tensorweave", _PREFIX.rstrip("-")):
        raise ValueError(
            "new-plugin: 'tensorweave' is the core's name. Fix: name what your pack adds."
        )
    if not dist.startswith(_PREFIX):
        dist = _PREFIX + dist
    pkg = package if package is not None else dist.replace("-", "_")
    if not pkg.isidentifier() or keyword.iskeyword(pkg) or pkg == "tensorweave":
        raise ValueError(
            f"new-plugin: the package name {pkg!r} is not a valid Python import name. "
            "Fix: pass --package with letters, digits and underscores, e.g. 'my_layers'."
        )
    return dist, pkg


def component_prefixes(dist_name: str) -> tuple[str, str]:
    """How a pack's component names start: ``("MyLayers", "my_layers")`` for
    ``tensorweave-my-layers`` (CamelCase for classes such as layers, snake_case for
    functions such as losses)."""
    words = [w for w in dist_name.removeprefix(_PREFIX).split("-") if w]
    return "".join(w[:1].upper() + w[1:] for w in words), "_".join(words)


# Where contrib/template's component names start with its own name; written as placeholders.
_COMPONENT_NAMES = (
    (re.compile(r"\bTemplate(?=[A-Z])"), "{{Prefix}}"),
    (re.compile(r"\btemplate_(?=[a-z])"), "{{prefix}}_"),
)


def _template_root() -> Any:
    return resources.files("tensorweave.cli") / "templates" / "plugin"


def template_files() -> dict[str, str]:
    """The shipped template: relative path (placeholders kept, no ``.tmpl``) -> text."""
    out: dict[str, str] = {}

    def walk(node: Any, prefix: str) -> None:
        for child in sorted(node.iterdir(), key=lambda c: c.name):
            if child.is_dir():
                if child.name not in _IGNORED:
                    walk(child, f"{prefix}{child.name}/")
            elif child.name.endswith(SUFFIX):
                out[prefix + child.name[: -len(SUFFIX)]] = child.read_text(encoding="utf-8")

    root = _template_root()
    if not root.is_dir():
        raise FileNotFoundError(
            "the pack template is missing from this tensorweave installation "
            f"(expected {root}). Fix: reinstall tensorweave."
        )
    walk(root, "")
    return out


def render_template(dist_name: str, package: str) -> dict[str, str]:
    """The files of a pack named ``dist_name`` / ``package``: relative path -> text."""
    camel, snake = component_prefixes(dist_name)
    values = {
        "{{dist_name}}": dist_name,
        "{{package}}": package,
        "{{Prefix}}": camel,
        "{{prefix}}": snake,
    }

    def fill(text: str) -> str:
        for placeholder, value in values.items():
            text = text.replace(placeholder, value)
        return text

    return {fill(path): fill(text) for path, text in template_files().items()}


def scaffold_plugin(name: str, destination: Path, *, package: str | None = None) -> Path:
    """Write a new pack called ``name`` in ``destination`` and return its root directory.

    The root is ``destination / <distribution name>`` (``tensorweave-NAME``); it must not
    exist or must be empty, so nothing is ever overwritten. Names of installed
    distributions and importable modules are refused.

    Args:
        name: the pack's name (``"my-layers"`` or ``"tensorweave-my-layers"``).
        destination: the directory to create the pack in (made if missing).
        package: the import name (default: the distribution name with ``_`` for ``-``).
    """
    dist_name, pkg = pack_names(name, package)
    _refuse_taken(dist_name, pkg)
    root = Path(destination) / dist_name
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise FileExistsError(
            f"new-plugin: {root} already exists and is not empty; nothing was written. "
            "Fix: choose another --dir or name, or remove it."
        )
    files = render_template(dist_name, pkg)
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _refuse_taken(dist_name: str, package: str) -> None:
    """A new pack must not reuse an installed distribution's or an importable module's name."""
    try:
        importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError:
        pass
    else:
        raise ValueError(
            f"new-plugin: a distribution named {dist_name!r} is already installed; a new pack "
            "with that name would replace it. Fix: choose another name."
        )
    if importlib.util.find_spec(package) is not None:
        raise ValueError(
            f"new-plugin: a module named {package!r} can already be imported; the new pack's "
            "package would clash with it. Fix: choose another name, or pass --package."
        )


def _pack_files(source: Path) -> Iterator[Path]:
    for path in sorted(source.rglob("*")):
        parts = path.relative_to(source).parts
        if any(p in _IGNORED or p.endswith(".egg-info") for p in parts):
            continue
        if path.is_file() and path.suffix != ".pyc":
            yield path


def export_template(source: Path, target: Path | None = None) -> list[Path]:
    """Re-make the shipped template from the pack at ``source`` (``contrib/template``).

    Every file of the pack (build and test leftovers excepted) is written to ``target``
    (default: this installation's ``tensorweave/cli/templates/plugin``) with a ``.tmpl``
    suffix and the pack's names replaced by placeholders; stale files are removed.
    Returns the files written.
    """
    target = Path(target) if target is not None else Path(str(_template_root()))
    if target.exists():
        shutil.rmtree(target)
    written = []
    for path in _pack_files(Path(source)):
        relative = path.relative_to(source).as_posix()
        text = path.read_text(encoding="utf-8")
        for concrete, placeholder in (
            (TEMPLATE_PACKAGE, "{{package}}"),
            (TEMPLATE_DIST, "{{dist_name}}"),
        ):
            relative = relative.replace(concrete, placeholder)
            text = text.replace(concrete, placeholder)
        for pattern, placeholder in _COMPONENT_NAMES:
            text = pattern.sub(placeholder, text)
        out = target / (relative + SUFFIX)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        written.append(out)
    return written


def _new_plugin(args: argparse.Namespace) -> int:
    try:
        root = scaffold_plugin(args.name, Path(args.dir), package=args.package)
    except (ValueError, FileExistsError, FileNotFoundError) as err:
        print(err, file=sys.stderr)
        return 1
    dist_name, pkg = pack_names(args.name, args.package)
    camel, snake = component_prefixes(dist_name)
    count = sum(1 for p in root.rglob("*") if p.is_file())
    print(
        f"Created {dist_name} ({count} files) in {root}\n"
        "Next steps:\n"
        f"  cd {root}\n"
        '  pip install -e ".[test]"     # re-run after editing entry points\n'
        "  pytest                       # conformance kit + numeric tests, green as made\n"
        f"Then make it yours: rename {camel}Scale.v1 / {snake}_log_cosh.v1 in "
        f"pyproject.toml, {pkg}/ and tests/, and describe them in README.md."
    )
    return 0


def add_command(subparsers: Any) -> None:
    """Add ``new-plugin NAME [--dir DIR] [--package PKG]`` to an argparse sub-parsers action."""
    parser = subparsers.add_parser(
        "new-plugin",
        help="create a new plugin pack from the template",
        description=(
            "Create a tensorweave pack from the template: one layer, one loss, conformance "
            "and numeric tests; it installs, passes its tests and resolves by name as made."
        ),
    )
    parser.add_argument("name", metavar="NAME", help="pack name, e.g. my-layers")
    parser.add_argument(
        "--dir", default=".", metavar="DIR", help="where to create the pack (default: .)"
    )
    parser.add_argument(
        "--package", default=None, metavar="PKG", help="import name (default: from NAME)"
    )
    parser.set_defaults(func=_new_plugin)
