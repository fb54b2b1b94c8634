"""File datasets on fsspec URLs: ``file://`` read in place, ``memory://`` (any fsspec file
system tf.data cannot read) copied once into the local cache, and a clear error without
fsspec."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tensorweave_data.files.errors import FileDataError
from tensorweave_data.files.image_folder import image_folder
from tensorweave_data.files.table import table

from .test_image_folder import make_folder
from .test_table import rows, write_rows

fsspec = pytest.importorskip("fsspec")


def test_file_urls_are_read_in_place(tmp_path: Path) -> None:
    write_rows(tmp_path / "a.csv", 0, 5)
    write_rows(tmp_path / "b.csv", 5, 4)
    local = rows(table(str(tmp_path / "*.csv"), validation_split=0.0).train, ["id", "city"])
    url = table(f"file://{tmp_path}/*.csv", validation_split=0.0)
    assert url.train.files() == [str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]
    assert rows(url.train, ["id", "city"]) == local
    folder = make_folder(tmp_path / "imgs", per_class=2)
    d = image_folder(f"file://{folder}", image_size=[4, 4], validation_split=0.0)
    assert d.info["class_names"] == ["cat", "dog", "eel"] and len(d.train) == 6


def test_other_fsspec_urls_are_copied_once_then_streamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    mem = fsspec.filesystem("memory")
    for name, start, n in (("a.csv", 0, 5), ("b.csv", 5, 4)):
        mem.pipe(f"/tw-test/shards/{name}", write_rows(tmp_path / name, start, n).read_bytes())
    folder = make_folder(tmp_path / "imgs", per_class=2)
    for p in folder.rglob("*.*"):
        mem.pipe(f"/tw-test/imgs/{p.relative_to(folder)}", p.read_bytes())
    try:
        d = table("memory://tw-test/shards/*.csv", validation_split=0.0)
        want = rows(table(str(tmp_path / "*.csv"), validation_split=0.0).train, ["id", "price"])
        assert rows(d.train, ["id", "price"]) == want
        copies = [Path(p) for p in d.train.files()]
        assert all(p.is_relative_to(tmp_path / "cache" / "tensorweave-data") for p in copies)
        before = [p.stat().st_mtime_ns for p in copies]
        table("memory://tw-test/shards/*.csv", validation_split=0.0)  # already copied
        assert [p.stat().st_mtime_ns for p in copies] == before
        imgs = image_folder("memory://tw-test/imgs", image_size=[4, 4], validation_split=0.0)
        assert imgs.info["class_names"] == ["cat", "dog", "eel"] and len(imgs.train) == 6
        with pytest.raises(FileDataError, match=r"'memory://tw-test/none/\*\.csv' matches no"):
            table("memory://tw-test/none/*.csv")
    finally:
        mem.rm("/tw-test", recursive=True)


def test_without_fsspec_the_error_says_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "fsspec", None)  # import fsspec raises ImportError
    with pytest.raises(FileDataError, match=r"'s3://bucket/a\.csv' is an fsspec URL.*pip install"):
        table("s3://bucket/a.csv")
