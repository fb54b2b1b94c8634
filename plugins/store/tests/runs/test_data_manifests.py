"""The store records which data files a run read (its data manifest, a file set stored once)
and answers from that record: ``runs show RUN [--files]``, ``runs list --read FILE`` and
``tensorweave data verify RUN`` when the run's directory is gone.

One real ``tensorweave train`` on three CSV shards (``table.v1``), recorded in an SQLite
store, shared by the module; PostgreSQL gets the same manifest through the store's API and
its commands in this process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import sqlalchemy as sa
from twstore_helpers import store_env, tensorweave

CONFIG = """[data]
"@datasets" = "table.v1"
paths = "shards/*.csv"
label = "expensive"
columns = ["size"]
types = { size = "float32" }

[model]
inputs = ["size"]
targets = ["expensive"]
outputs = ["logits"]
loss = "loss"

[model.nodes]
size = { input = [] }
expensive = { input = [], dtype = "int64" }
size1 = { "@layers" = "Reshape.v1", inputs = ["size"], shape = [1] }
logits = { "@layers" = "Linear.v1", inputs = ["size1"], n_units = 2 }
loss = { "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["expensive", "logits"], from_logits = true }

[train]
epochs = 1
batch_size = 16
"""


def _shard(path: Path, seed: int) -> None:
    rows = [
        f"{(seed * 37 + i * 11) % 200}.5,{int((seed * 37 + i * 11) % 200 > 100)}\n"
        for i in range(20)
    ]
    path.write_text("size,expensive\n" + "".join(rows))


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = tensorweave(args, env, cwd)
    out, err = proc.communicate(timeout=300)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A real ``tensorweave train`` on three CSV shards, recorded in an SQLite store."""
    root = tmp_path_factory.mktemp("storedata")
    (root / "shards").mkdir()
    for i in range(3):
        _shard(root / "shards" / f"part{i}.csv", i)
    (root / "t.toml").write_text(CONFIG)
    env = store_env(
        f"sqlite:///{root}/store.db", root, TENSORWEAVE_MANIFEST_CACHE=str(root / "mcache")
    )
    done = _run(["train", "t.toml", "--run-dir", "run"], env, root)
    assert done.returncode == 0, done.stderr[-3000:]
    (root / "mcopy").mkdir()  # the manifest, for the PostgreSQL test (the run dir goes)
    shutil.copy(root / "run" / "data_manifest.json", root / "mcopy" / "data_manifest.json")
    return root, env


@pytest.mark.slow
def test_a_run_s_data_files_are_recorded_shown_searched_and_verified_without_its_directory(
    trained: tuple[Path, dict[str, str]],
) -> None:
    root, env = trained
    shards = [str(root / "shards" / f"part{i}.csv") for i in range(3)]
    manifest = json.loads((root / "run" / "data_manifest.json").read_text())

    # the store holds the manifest: one file set, its three files
    engine = sa.create_engine(f"sqlite:///{root}/store.db")
    with engine.connect() as conn:
        (sha, count, size) = conn.execute(
            sa.text("SELECT sha256, files, bytes FROM tw_data_manifests")
        ).one()
        paths = (
            conn.execute(sa.text("SELECT path FROM tw_manifest_files ORDER BY path"))
            .scalars()
            .all()
        )
        (run_id,) = conn.execute(sa.text("SELECT run_id FROM tw_run_data")).one()
    engine.dispose()
    assert (count, size, paths) == (3, sum(f["size"] for f in manifest["files"]), shards)

    show = _run(["runs", "show", str(run_id), "--files"], env, root)
    assert show.returncode == 0, show.stderr
    assert f"data: 3 files, {size} bytes, manifest sha256:{sha[:16]}" in show.stdout
    assert all(p in show.stdout for p in shards)

    # which runs read part1.csv? (a relative path, made absolute as manifests record files)
    read = _run(["runs", "list", "--read", "shards/part1.csv"], env, root)
    assert read.returncode == 0 and f"\n{run_id} " in "\n" + read.stdout, read.stdout
    never = _run(["runs", "list", "--read", "shards/never.csv"], env, root)
    assert never.returncode == 0
    assert f"read {root / 'shards' / 'never.csv'}" in never.stdout and "runs show" in never.stdout

    # the run directory gone, a shard changed: verify from the store's record (exit 1)
    shutil.rmtree(root / "run")
    _shard(root / "shards" / "part1.csv", 9)
    verify = _run(["data", "verify", str(run_id)], env, root)
    assert verify.returncode == 1, verify.stdout + verify.stderr[-2000:]
    assert f"changed  {shards[1]}" in verify.stdout
    assert "1 changed, 0 missing, 0 new of 3 recorded files" in verify.stdout

    # bad input: a run the store does not know
    unknown = _run(["data", "verify", "4242"], env, root)
    assert unknown.returncode == 2 and "or a run the store recorded" in unknown.stderr
    shown = _run(["runs", "show", "4242"], env, root)
    assert shown.returncode == 1 and "no run '4242' in the store" in shown.stderr


def test_postgresql_stores_a_file_set_once_and_answers_the_same(
    trained: tuple[Path, dict[str, str]], pg_url: str, tmp_path: Path, capsys
) -> None:
    from tensorweave_store.cli.runs import cmd_runs
    from tensorweave_store.db.urls import select
    from tensorweave_store.store import open_store

    root, _ = trained
    manifest = root / "mcopy"
    files = json.loads((manifest / "data_manifest.json").read_text())["files"]

    store = open_store(pg_url, blobs=str(tmp_path / "blobs"), cached=False)
    try:
        a, b, memory = (store.start_run({}, name=n, heartbeat=False) for n in ("a", "b", "mem"))
        keys = {store.record_data(r.id, manifest) for r in (a, b)}
        assert len(keys) == 1 and store.record_data(memory.id, tmp_path) is None
        with store.engine.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM tw_data_manifests")).scalar() == 1
            assert conn.execute(sa.text("SELECT count(*) FROM tw_manifest_files")).scalar() == 3
        assert store.data(memory.id) is None and store.data(a.id).count == 3
        assert [r.name for r in store.runs_reading(files[0]["path"])] == ["b", "a"]
        assert store.runs_reading(root / "nowhere.csv") == []
        assert cmd_runs(["show", "a", "--files", "--store", pg_url]) == 0
        out = capsys.readouterr().out
        assert "data: 3 files" in out and files[2]["path"] in out
        # --limit counts the runs that read the file (the newest run read none)
        assert (
            cmd_runs(["list", "--read", files[0]["path"], "--limit", "1", "--store", pg_url]) == 0
        )
        listed = capsys.readouterr().out.splitlines()
        assert [line.split()[1] for line in listed[2:]] == ["b"]
        store.delete_run(b.id)
        assert [r.name for r in store.runs_reading(files[0]["path"])] == ["a"]
    finally:
        select(None)  # the command's --store
        store.close()


def test_a_failed_run_records_the_files_it_read(store, tmp_path: Path) -> None:
    """A job that fails (or is interrupted) stores no artifacts, but its data record."""
    from types import SimpleNamespace

    from tensorweave_store import hooks

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    files = [{"path": str(tmp_path / "a.csv"), "size": 4, "sha256": "0f" * 32}]
    (run_dir / "data_manifest.json").write_text(json.dumps({"format": 1, "files": files}))
    job = SimpleNamespace(model=object())
    hooks.active[id(job.model)] = store.start_run({}, run_dir=run_dir, name="f", heartbeat=False)
    hooks.tensorweave_job_ended(job, run_dir, "train", None, RuntimeError("boom"))
    (run,) = store.runs()
    assert run.status == "failed" and store.data(run.id).files == files
    assert store.artifacts(run.id) == {}
