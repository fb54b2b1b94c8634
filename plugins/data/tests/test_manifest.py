"""Data manifests: each file's path, size and sha256, hashed once and cached by (path, size,
mtime); which files a file dataset's splits read."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tensorweave_data.files.manifest import Manifest, compute, files_of


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TENSORWEAVE_MANIFEST_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_hashes_are_cached_by_path_size_and_mtime(tmp_path: Path, cache: Path) -> None:
    f = tmp_path / "a.csv"
    f.write_bytes(b"x,y\n1,2\n")
    first = compute([f])
    assert first.files[0].sha256 == hashlib.sha256(b"x,y\n1,2\n").hexdigest()
    assert first.files[0].path == str(f) and first.files[0].size == 8
    assert len(list(cache.rglob("*.json"))) == 1
    # same size, same mtime, other bytes: the cache answers (no byte read) ...
    stat = f.stat()
    f.write_bytes(b"x,y\n9,9\n")
    os.utime(f, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert compute([f]).files[0].sha256 == first.files[0].sha256
    # ... and re-reading (what verify does) sees the change
    assert compute([f], cached=False).files[0].sha256 == hashlib.sha256(b"x,y\n9,9\n").hexdigest()
    # a new mtime is a new key: hashed again
    os.utime(f, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert compute([f]).files[0].sha256 != first.files[0].sha256


def test_compare_names_changed_missing_and_new_files(tmp_path: Path) -> None:
    a, b, c = (tmp_path / n for n in ("a", "b", "c"))
    for p in (a, b):
        p.write_text(p.name)
    before = compute([a, b])
    saved = Manifest.load(before.save(tmp_path / "m.json"))
    assert saved == before
    a.write_text("changed")
    b.unlink()
    c.write_text("c")
    changes = saved.compare(compute([a, b, c], cached=False))
    assert (changes.changed, changes.missing, changes.new) == ([str(a)], [str(b)], [str(c)])
    assert changes.lines() == [f"changed  {a}", f"missing  {b}", f"new      {c}"]
    assert not saved.compare(saved)


def test_files_of_a_table_dataset_and_of_arrays(tmp_path: Path) -> None:
    import numpy as np

    import tensorweave as tw

    for i in range(3):
        (tmp_path / f"part{i}.csv").write_text(
            "a,b\n" + "".join(f"{j},{j % 2}\n" for j in range(10))
        )
    data = tw.registry("datasets")["table.v1"](paths=str(tmp_path / "*.csv"), label="b")
    assert files_of(data) == [str(tmp_path / f"part{i}.csv") for i in range(3)]
    assert files_of({"train": {"x": np.zeros(3)}, "valid": {"x": np.zeros(1)}}) is None
