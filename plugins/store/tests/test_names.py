"""Names cannot escape their folder: model, dataset and run names follow one pattern at every
entry point (Python and the ``tensorweave`` commands), the cache and blob paths are built
from checked names and digests only, and registering never follows a symbolic link out of
the run. Written as the attack: a model named ``../../x``, a checkpoint folder holding a link
to a file elsewhere, a database whose records were altered to point outside."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa
from twstore_helpers import store_env, tensorweave

import tensorweave as tw
from tensorweave_store.db import schema as S
from tensorweave_store.errors import BadNameError
from tensorweave_store.names import NAME_PATTERN, check_name
from tensorweave_store.store import open_store


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One tiny digits run directory (trained once, recording off)."""
    import tensorweave_train as twt

    where = tmp_path_factory.mktemp("run") / "digits"
    old = os.environ.get("TENSORWEAVE_STORE_RECORD")
    os.environ["TENSORWEAVE_STORE_RECORD"] = "0"
    try:
        cfg = twt.load_config(
            "digits", ["--train.epochs=1", "--train.limit=200", "--dims.hidden=8"]
        )
        twt.train_job(cfg, run_dir=where, out=None, progress=False)
    finally:
        if old is None:
            os.environ.pop("TENSORWEAVE_STORE_RECORD")
        else:
            os.environ["TENSORWEAVE_STORE_RECORD"] = old
    return where


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


HOSTILE = ["../../x", "..", "a/b", "/etc/passwd", "a\\b", "a\x00b", "a\nb", ".hidden", "-rf"]
HOSTILE += ["a..b", "d\u0456gits", "\uff44igits", "x" * 129, "", "a b", "a@b"]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_are_refused_with_the_pattern(name: str) -> None:
    with pytest.raises(BadNameError) as info:
        check_name(name)
    assert NAME_PATTERN in str(info.value) and isinstance(info.value, tw.TensorweaveError)


@pytest.mark.parametrize("name", ["digits", "digits-small.v2", "_x", "a=b+c", "x" * 128])
def test_plain_names_pass(name: str) -> None:
    assert check_name(name) == name


def test_register_as_dotdot_is_refused_by_the_command(trained: Path, tmp_path: Path) -> None:
    """``tensorweave models register RUN ../../x``: exit 2, the pattern shown, nothing
    recorded or written anywhere (the store root, its cache, what is around them)."""
    env = store_env(f"sqlite:///{tmp_path}/store/s.db", tmp_path)
    before = _files(tmp_path)
    proc = tensorweave(["models", "register", str(trained), "../../x"], env, tmp_path)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 2, (out, err)
    assert "model name '../../x' is not allowed" in err and NAME_PATTERN in err
    assert not (tmp_path.parent / "x").exists() and not (tmp_path.parent.parent / "x").exists()
    after = _files(tmp_path) - before
    assert not [p for p in after if not p.startswith(("store", "runs", "blobs"))], after
    store = open_store(f"sqlite:///{tmp_path}/store/s.db", blobs=str(tmp_path / "blobs"))
    try:
        assert store.models() == []
    finally:
        store.close()


@pytest.mark.parametrize("where", ["checkpoint", "config"])
def test_a_symlink_out_of_the_run_is_never_copied(
    store, trained: Path, tmp_path: Path, where: str
) -> None:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("not the run's: a private file elsewhere on disk\n")
    run_dir = tmp_path / "run"
    shutil.copytree(trained, run_dir)
    if where == "checkpoint":
        ckpt = next(p for p in (run_dir / "checkpoints").rglob("ckpt-*") if p.is_dir())
        link = ckpt / "extra.data"
    else:
        link = run_dir / "processors.json"
        link.unlink()
    link.symlink_to(secret)
    run = store.start_run(json.loads((run_dir / "config.json").read_text()), run_dir=run_dir)
    run.finish("finished")
    with pytest.raises(tw.TensorweaveError, match="is a symbolic link") as info:
        store.register_model(run.id, "digits")
    assert str(link) in str(info.value) and str(secret) in str(info.value)
    blobs = Path(store.blobs.base)
    held = [p for p in blobs.rglob("*") if p.is_file() and b"private file" in p.read_bytes()]
    assert held == [] and store.models() == []


def test_altered_records_cannot_write_outside_the_cache(
    store, trained: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database whose model name or manifest was altered to hold ``../..`` (someone else's
    store): resolving it is refused and nothing is written outside the cache."""
    cache = tmp_path / "box" / "cache"
    monkeypatch.setenv("TENSORWEAVE_STORE_CACHE", str(cache))
    run = store.start_run(json.loads((trained / "config.json").read_text()), run_dir=trained)
    run.finish("finished")
    mv = store.register_model(run.id, "digits")
    manifest = dict(mv.manifest)
    manifest["../../../escaped.txt"] = manifest["config.json"]
    with store.engine.begin() as conn:
        conn.execute(sa.update(S.model_versions).values(manifest=manifest))
    with pytest.raises(BadNameError, match="would leave its folder"):
        store.resolve("digits@1")
    manifest.pop("../../../escaped.txt")
    manifest["config.json"] = "../../../../etc/passwd"
    with store.engine.begin() as conn:
        conn.execute(sa.update(S.model_versions).values(manifest=manifest))
    with pytest.raises(BadNameError, match="not a sha256 blob name"):
        store.resolve("digits@1")
    with store.engine.begin() as conn:
        conn.execute(sa.update(S.models).values(name="../../x"))
    with pytest.raises(BadNameError, match=re.escape("model name '../../x' is not allowed")):
        store.resolve("../../x@1")
    assert not list(tmp_path.rglob("escaped.txt"))
    assert not (tmp_path / "box").exists() or not [
        p for p in (tmp_path / "box").rglob("*") if p.is_file()
    ]


def test_datasets_and_runs_take_the_same_names(store) -> None:
    import numpy as np

    from tensorweave_store.datasets import versions as datasets

    with pytest.raises(BadNameError, match=re.escape("dataset name '../d' is not allowed")):
        datasets.register_arrays(store, "../d", {"train": {"x": np.zeros((2, 2))}})
    with pytest.raises(BadNameError, match="dataset name"):
        datasets.get_dataset(store, "a/b@1")
    with pytest.raises(BadNameError, match="run name"):
        store.start_run({}, name="../r", heartbeat=False)
    with pytest.raises(BadNameError, match="model name"):
        store.set_stage("../x@1", "prod")
    assert datasets.register_arrays(store, "d.v1", {"train": {"x": np.zeros((2, 2))}}).ref
