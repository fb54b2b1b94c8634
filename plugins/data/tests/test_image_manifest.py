"""``image_folder.v1`` from a CSV or JSON manifest of ``path,label`` rows: the same images,
labels and class names as the folder form, and each bad row named by its manifest line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tensorweave as tw
from tensorweave_data.files.errors import FileDataError
from tensorweave_data.files.image_folder import image_folder

from .test_image_folder import make_folder


def _by_path(d) -> dict[str, tuple[int, np.ndarray]]:
    """``{file name: (label, pixels)}`` of a split read in the files' order."""
    out = {}
    paths = d.train.files()
    batches = list(d.train.batches(["x", "y"], batch_size=64))
    xs = np.concatenate([b[0].numpy() for b in batches])
    ys = np.concatenate([b[1].numpy() for b in batches])
    for p, x, y in zip(paths, xs, ys, strict=True):
        out[str(Path(p).relative_to(Path(p).parents[1]))] = (int(y), x)
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_folder(tmp_path_factory.mktemp("imgs") / "imgs", per_class=3)


def test_csv_and_json_manifests_equal_the_folder_form(folder: Path) -> None:
    ref = image_folder(folder, image_size=[8, 8], validation_split=0.0)
    rows = [(str(Path(p).relative_to(folder)), Path(p).parent.name) for p in ref.train.files()]
    rows = rows[::-1]  # any order: the class names are still the sorted labels
    csv_file = folder / "labels.csv"
    csv_file.write_text("path,label,note\n" + "".join(f"{p},{c},x\n" for p, c in rows))
    json_file = folder / "labels.json"
    json_file.write_text(json.dumps([{"path": p, "label": c} for p, c in rows]))
    want = _by_path(ref)
    for manifest in (csv_file, json_file):
        d = image_folder(manifest=manifest, image_size=[8, 8], validation_split=0.0)
        assert d.info["class_names"] == ref.info["class_names"] == ["cat", "dog", "eel"]
        assert d.info["manifest"] == str(manifest)
        got = _by_path(d)
        assert sorted(got) == sorted(want)
        for name, (label, pixels) in got.items():
            assert label == want[name][0]
            np.testing.assert_array_equal(pixels, want[name][1])
    # integer labels are class ids; a validation split holds out Keras's share
    csv_file.write_text("path,label\n" + "".join(f"{p},{i % 2}\n" for i, (p, _) in enumerate(rows)))
    d = image_folder(manifest=csv_file, image_size=[8, 8], validation_split=0.25, seed=1)
    assert d.info["class_names"] == ["0", "1"] and len(d.train) + len(d.valid) == len(rows)


def test_each_bad_row_is_named_by_its_manifest_line(folder: Path, tmp_path: Path) -> None:
    first = sorted(str(p.relative_to(folder)) for p in (folder / "cat").iterdir())[0]
    bad = folder / "bad.csv"
    cases = {
        f"path,label\n{first},cat\ncat/nope.png,cat\n": r"line 3 names 'cat/nope.png', which "
        r"does not exist .*Fix: correct the path",
        f"path,lable\n{first},cat\n": r"no 'label' column \(did you mean 'lable'\?\)",
        f"path,label\n{first},cat,extra\n": r"line 2 has 3 field\(s\), the header 2",
        f"path,label\n{first},\n": r"line 2 .* has no label\. Fix",
        "path,label\nlabels.txt,cat\n": r"line 2 names 'labels.txt', which is not a JPEG",
    }
    (folder / "labels.txt").write_text("not an image")
    for text, message in cases.items():
        bad.write_text(text)
        with pytest.raises(FileDataError, match=message):
            image_folder(manifest=bad, image_size=[8, 8])
    (folder / "bad.json").write_text(json.dumps([{"path": first, "label": "cat"}, {"file": "x"}]))
    with pytest.raises(FileDataError, match=r"bad\.json' entry 1 .* needs the keys"):
        image_folder(manifest=folder / "bad.json", image_size=[8, 8])
    with pytest.raises(FileDataError, match=r"manifest .*missing\.csv' does not exist"):
        image_folder(manifest=tmp_path / "missing.csv")
    with pytest.raises(tw.ArgumentError, match=r"either directory .* or manifest .* not both"):
        image_folder(folder, manifest=bad)
