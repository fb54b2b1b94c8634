"""Property: every store function and ``tensorweave`` command that takes a name refuses a
hostile one (path separators, ``..``, NUL and control characters, look-alike letters from
other scripts, a leading dot or dash, very long) with a ``TensorweaveError`` (exit 1 or 2 on
the command line, never a crash), and nothing is written outside the store's folder."""

from __future__ import annotations

import os
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave.cli import main as cli_main
from tensorweave_store.datasets import versions as datasets
from tensorweave_store.hooks import tensorweave_resolve_run
from tensorweave_store.names import check_name
from tensorweave_store.store import open_store
from tensorweave_store.sweeps.search_space import SweepSpec

# ("@" is left out: NAME@VERSION is how a reference reads; "a@b" as a name is refused by
# test_names.py)
_SAFE = st.text(alphabet=string.ascii_letters + string.digits + "_", max_size=12)
_BAD = st.one_of(
    st.sampled_from(["/", "\\", "..", "../..", "/etc/passwd", "~", " ", ":", "*", "%2e"]),
    st.characters(max_codepoint=31),  # NUL, newline, escape…
    st.just("\x7f"),
    st.characters(min_codepoint=128, exclude_categories=("Cs",)),  # look-alikes, RTL marks…
)
HOSTILE = st.one_of(
    st.tuples(_SAFE, _BAD, _SAFE).map("".join),
    st.tuples(st.sampled_from([".", "-", "..", "./"]), _SAFE).map("".join),
    st.text(alphabet=string.ascii_letters, min_size=129, max_size=600),
    st.just(""),
)


def _snapshot(*roots: Path) -> set[str]:
    seen = set()
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            seen |= {os.path.join(dirpath, n) for n in dirnames + filenames}
    return seen


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A store whose database, blobs and cache live under ``box/store``, with one model
    (``m@1``, from a run whose checkpoint is two small files) and one dataset (``d@1``)."""
    root = tmp_path_factory.mktemp("box")
    inner = root / "store"
    run_dir = inner / "runs" / "r"
    ckpt = run_dir / "checkpoints" / "ckpt-1"
    ckpt.mkdir(parents=True)
    (ckpt / "MANIFEST.json").write_text("{}")
    (run_dir / "config.json").write_text("{}")
    url = f"sqlite:///{inner}/s.db"
    env = {
        "TENSORWEAVE_STORE": url,
        "TENSORWEAVE_STORE_BLOBS": str(inner / "blobs"),
        "TENSORWEAVE_STORE_CACHE": str(inner / "cache"),
        "TENSORWEAVE_RUNS": str(inner / "runs"),
        "TENSORWEAVE_STORE_RECORD": "0",
    }
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    cwd = os.getcwd()
    (inner / "work").mkdir()
    os.chdir(inner / "work")  # a relative path would land in the store's own folder
    store = open_store(url)
    run = store.start_run({}, name="r", run_dir=run_dir, heartbeat=False)
    run.finish("finished")
    store.register_model(run.id, "m")
    datasets.register_arrays(store, "d", {"train": {"x": np.zeros((2, 2))}})
    try:
        yield {"root": root, "store": store, "run": run.id, "run_dir": run_dir}
    finally:
        os.chdir(cwd)
        store.close()
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _calls(box: dict[str, Any], name: str) -> list[tuple[str, Any]]:
    store = box["store"]
    return [
        ("register", lambda: store.register_model(box["run"], name)),
        ("register with stage", lambda: store.register_model(box["run"], "m2", stage=name)),
        ("model_version", lambda: store.model_version(f"{name}@1")),
        ("resolve", lambda: store.resolve(f"{name}@latest")),
        ("tag", lambda: store.tag_model(f"{name}@1", ["t"])),
        ("stage", lambda: store.set_stage("m@1", name)),
        ("dataset add", lambda: datasets.register_arrays(store, name, {"t": {"x": np.ones(2)}})),
        ("dataset get", lambda: datasets.get_dataset(store, name)),
        ("start_run", lambda: store.start_run({}, name=name, heartbeat=False)),
        ("run lookup", lambda: store.run(name)),
        ("run delete", lambda: store.delete_run(name)),
        ("sweep study", lambda: SweepSpec("digits", [], study=name).study_name()),
    ]


_COMMANDS = [
    ["models", "register", "RUN", "NAME"],
    ["models", "show", "NAME"],
    ["models", "show", "NAME@1"],
    ["models", "tag", "NAME@1", "t"],
    ["models", "stage", "m@1", "NAME"],
    ["datasets", "show", "NAME"],
    ["runs", "show", "NAME"],
    ["runs", "tag", "NAME", "t"],
    ["runs", "rm", "NAME"],
    ["sweep", "--study", "NAME", "--param", "optimizer.learning_rate=uniform(0.1,0.2)"],
    ["sweep", "show", "NAME"],
]


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(name=HOSTILE)
def test_hostile_names_are_refused_everywhere_and_nothing_leaves_the_store(
    box: dict[str, Any], name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(tw.TensorweaveError):
        check_name(name)
    root: Path = box["root"]
    around = [root.parent, root]
    before = {p for p in _snapshot(*around) if not p.startswith(str(root / "store"))}
    for what, call in _calls(box, name):
        with pytest.raises(tw.TensorweaveError):
            call()
            raise AssertionError(f"{what} accepted {name!r}")
    resolved = None
    try:
        resolved = tensorweave_resolve_run(f"{name}@1")
    except tw.TensorweaveError:
        pass
    assert resolved is None  # not a reference, or refused
    if "\x00" not in name:  # a real command line cannot hold NUL
        for template in _COMMANDS:
            args = [
                str(box["run_dir"]) if a == "RUN" else a.replace("NAME", name) for a in template
            ]
            code = cli_main(args)
            assert code in (1, 2), (args, code, capsys.readouterr())
            assert "Traceback" not in capsys.readouterr().err
    after = {p for p in _snapshot(*around) if not p.startswith(str(root / "store"))}
    assert after == before
    store = box["store"]
    assert [n for n, _ in store.models()] == ["m"]
    assert {d.name for d in datasets.list_datasets(store)} == {"d"}
    assert [r.name for r in store.runs()] == ["r"]
