"""``Stream.sharded``: each worker's share of an epoch, file-level when there are at least
as many files as workers (the worker opens only its own files), else data-level; the shares
are disjoint and together every example exactly once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import tensorweave as tw
from tensorweave_data.files.image_folder import image_folder
from tensorweave_data.files.table import table
from tensorweave_data.files.text import text_folder, text_lines
from tensorweave_data.files.tfrecord import tfrecord

from .test_image_folder import make_folder
from .test_table import write_rows
from .test_text import make_reviews, write_texts
from .test_tfrecord import write_shards


def _ids(stream, field: str, epoch: int = 3) -> list:
    out = []
    for batch in stream.batches([field], batch_size=4, shuffle=True, seed=7, epoch=epoch):
        values = batch[0].numpy()
        out += [v if isinstance(v, bytes) else v.tobytes() if v.ndim else int(v) for v in values]
    return out


def _restore(root: Path, moved: dict[Path, Path]) -> None:
    for src, dst in moved.items():
        shutil.move(str(dst), str(src))


@pytest.mark.parametrize("workers", [2, 3])
def test_tfrecord_file_level_shards_each_worker_reads_only_its_files(
    tmp_path: Path, workers: int
) -> None:
    root = tmp_path / "shards"
    write_shards(root, shards=8, per=5)
    d = tfrecord(root, features={"id": "int64"}, validation_split=0.0, shuffle_buffer=16)
    everything = _ids(d.train, "id")
    assert len(everything) == 40
    seen: list[int] = []
    for index in range(workers):
        shard = d.train.sharded(workers, index)
        assert shard.sharding == "file"
        mine = shard.files()
        assert mine == d.train.files()[index::workers]
        # the worker opens only its own files: hide the others, it still reads its share
        saved = tmp_path / f"away-{index}"
        saved.mkdir()
        others = [p for p in d.train.files() if p not in mine]
        for p in others:
            shutil.move(p, saved / Path(p).name)
        try:
            got = _ids(shard, "id")
        finally:
            for p in others:
                shutil.move(saved / Path(p).name, p)
        assert {i // 100 for i in got} == {
            int(Path(p).name.split("-")[1].split(".")[0]) for p in mine
        }
        assert len(got) == len(set(got)) == len(shard)
        seen += got
    assert sorted(seen) == sorted(everything)  # disjoint, and every example exactly once


def test_tfrecord_data_level_when_fewer_files_than_workers(tmp_path: Path) -> None:
    root = tmp_path / "shards"
    write_shards(root, shards=2, per=7)
    d = tfrecord(root, features={"id": "int64"}, validation_split=0.0, shuffle_buffer=16)
    seen: list[int] = []
    for index in range(3):
        shard = d.train.sharded(3, index)
        assert shard.sharding == "data" and shard.files() == d.train.files()
        got = _ids(shard, "id")
        assert len(got) in (4, 5) and len(got) == len(shard)
        seen += got
    assert sorted(seen) == sorted(_ids(d.train, "id"))
    # the same shares for the same (seed, epoch), another order next epoch
    again = _ids(d.train.sharded(3, 0), "id")
    assert again == _ids(d.train.sharded(3, 0), "id") != _ids(d.train.sharded(3, 0), "id", 4)


@pytest.mark.parametrize("workers", [2, 3])
def test_image_folder_file_level_shards(tmp_path: Path, workers: int) -> None:
    root = make_folder(tmp_path / "imgs", per_class=4)
    d = image_folder(root, image_size=[4, 4], validation_split=0.0)
    everything = _ids(d.train, "x")
    assert len(everything) == 12 == len(set(everything))
    seen: list = []
    for index in range(workers):
        shard = d.train.sharded(workers, index)
        mine = shard.files()
        assert shard.sharding == "file" and mine == d.train.files()[index::workers]
        moved = {}
        hide = tmp_path / f"away-{index}"
        hide.mkdir()
        for k, p in enumerate(d.train.files()):
            if p not in mine:
                moved[Path(p)] = hide / f"{k}{Path(p).suffix}"
                shutil.move(p, moved[Path(p)])
        try:
            got = _ids(shard, "x")
        finally:
            _restore(root, moved)
        assert len(got) == len(shard) == len(mine)
        seen += got
    assert sorted(seen) == sorted(everything)


def test_image_folder_data_level_and_bad_worker(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "imgs", per_class=1)
    d = image_folder(root, image_size=[4, 4], validation_split=0.0)
    shards = [d.train.sharded(4, i) for i in range(4)]
    assert {s.sharding for s in shards} == {"data"}
    got = [_ids(s, "x") for s in shards]
    assert [len(g) for g in got] == [len(s) for s in shards] == [1, 1, 1, 0]
    assert sorted(x for g in got for x in g) == sorted(_ids(d.train, "x"))
    assert d.train.sharded(1, 0) is d.train
    with pytest.raises(tw.ArgumentError, match="worker 2 of 2"):
        d.train.sharded(2, 2)


def _all_shares(stream, workers: int, field: str) -> tuple[set, list]:
    kinds, seen = set(), []
    for index in range(workers):
        shard = stream.sharded(workers, index)
        kinds.add(shard.sharding)
        got = _ids(shard, field)
        assert len(got) == len(shard)
        seen += got
    return kinds, seen


def test_table_text_folder_and_text_lines_shares(tmp_path: Path) -> None:
    shards = tmp_path / "rows"
    shards.mkdir()
    for k in range(4):
        write_rows(shards / f"part-{k}.csv", k * 100, 9)
    d = table(shards, validation_split=0.25, seed=3)
    for split in (d.train, d.valid):  # the held-out rows stay held out in every share
        kinds, seen = _all_shares(split, 2, "id")
        assert kinds == {"file"} and sorted(seen) == sorted(_ids(split, "id"))
    assert _all_shares(d.train, 5, "id")[0] == {"data"}

    reviews = text_folder(make_reviews(tmp_path / "reviews"), validation_split=0.0)
    kinds, seen = _all_shares(reviews.train, 3, "x")
    assert kinds == {"file"} and sorted(seen) == sorted(_ids(reviews.train, "x"))

    write_texts(tmp_path / "code")
    lines = text_lines(tmp_path / "code", seq_len=16, strides=8, validation_split=0.0)
    for workers, kind in ((3, "file"), (4, "data")):
        kinds, seen = _all_shares(lines.train, workers, "x")
        assert kinds == {kind} and sorted(seen) == sorted(_ids(lines.train, "x"))


def test_a_cache_file_per_worker(tmp_path: Path) -> None:
    root = tmp_path / "shards"
    write_shards(root, shards=4, per=3)
    cache = str(tmp_path / "cache")
    d = tfrecord(root, features={"id": "int64"}, validation_split=0.0, cache=cache)
    shares = [d.train.sharded(2, i) for i in range(2)]
    assert [s.cache for s in shares] == [f"{cache}.worker0of2", f"{cache}.worker1of2"]
    seen = [i for s in shares for i in _ids(s, "id")]
    assert sorted(seen) == sorted(_ids(d.train, "id")) and len(seen) == 12
