"""Bad files, as an attacker or a careless user gives them to real ``tensorweave`` processes:
each is refused with exit code 2 (bad input) and one line naming the file, never a traceback,
and nothing tries to allocate what a forged header declares (issue 33)."""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from twtrain_helpers import TINY, tensorweave

BadFile = Callable[[Path], Path]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny digits run, trained once by the real command."""
    where = tmp_path_factory.mktemp("bad-files") / "run"
    done = tensorweave("train", "digits", "--run-dir", str(where), *TINY)
    assert done.returncode == 0, done.stderr
    return where


def _npy_bytes(array: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def truncated_npy(folder: Path) -> Path:
    data = _npy_bytes(np.zeros((4, 64), "float32"))
    (path := folder / "truncated.npy").write_bytes(data[: len(data) - 40])
    return path


def not_a_zip_npz(folder: Path) -> Path:
    (path := folder / "not-a-zip.npz").write_bytes(b"these bytes are no zip archive at all")
    return path


def object_array_npy(folder: Path) -> Path:
    np.save(path := folder / "objects.npy", np.array([{"a": 1}, None], dtype=object))
    return path


def object_array_npz(folder: Path) -> Path:
    np.savez(path := folder / "objects.npz", x=np.array([{"a": 1}], dtype=object))
    return path


def deeply_nested_json(folder: Path) -> Path:
    (path := folder / "deep.json").write_text("[" * 200_000 + "]" * 200_000)
    return path


def invalid_json(folder: Path) -> Path:
    (path := folder / "invalid.json").write_text("[[0.1, 0.2],\n [0.3, ]]")
    return path


def not_utf8_text(folder: Path) -> Path:
    (path := folder / "latin1.txt").write_bytes("café au lait".encode("latin-1"))
    return path


def huge_header_npy(folder: Path) -> Path:
    """A 128-byte file whose header declares a 36 TiB float64 array."""
    import io

    header = io.BytesIO()
    shape = (36 * 2**40 // 8,)
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": shape}
    )
    (path := folder / "huge.npy").write_bytes(header.getvalue())
    return path


def huge_header_npz(folder: Path) -> Path:
    """A zip holding a member whose header declares 36 TiB."""
    path = huge_header_npy(folder)
    with zipfile.ZipFile(out := folder / "huge.npz", "w") as archive:
        archive.writestr("x.npy", path.read_bytes())
    return out


def missing_file(folder: Path) -> Path:
    return folder / "no-such-file.npy"


def a_directory(folder: Path) -> Path:
    (path := folder / "a-folder.npy").mkdir()
    return path


def a_pipe_nobody_writes(folder: Path) -> Path:
    """Reading it would wait forever: refused before it is opened."""
    os.mkfifo(path := folder / "pipe.npy")
    return path


def unreadable_file(folder: Path) -> Path:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    np.save(path := folder / "locked.npy", np.zeros((1, 64), "float32"))
    path.chmod(0)
    return path


@pytest.mark.parametrize(
    ("make", "what"),
    [
        pytest.param(truncated_npy, "truncated", id="truncated_npy"),
        pytest.param(not_a_zip_npz, "not an .npz archive", id="not_a_zip_npz"),
        pytest.param(object_array_npy, "Python objects", id="object_array_npy"),
        pytest.param(object_array_npz, "Python objects", id="object_array_npz"),
        pytest.param(deeply_nested_json, "nested too deep", id="deeply_nested_json"),
        pytest.param(invalid_json, "line 2, column 8", id="invalid_json"),
        pytest.param(not_utf8_text, "not UTF-8", id="not_utf8_text"),
        pytest.param(huge_header_npy, "36.0 TiB", id="huge_header_npy"),
        pytest.param(huge_header_npz, "36.0 TiB", id="huge_header_npz"),
        pytest.param(missing_file, "does not exist", id="missing_file"),
        pytest.param(a_directory, "is a directory", id="a_directory"),
        pytest.param(a_pipe_nobody_writes, "not a regular file", id="a_pipe_nobody_writes"),
        pytest.param(unreadable_file, "permission denied", id="unreadable_file"),
    ],
)
def test_predict_refuses_a_bad_input_file_with_exit_2_naming_it(
    run: Path, tmp_path: Path, make: BadFile, what: str
) -> None:
    path = make(tmp_path)
    done = tensorweave("predict", str(run), "--input", str(path))
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == "", done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and str(path) in lines[0] and what in lines[0], done.stderr
    assert "Fix:" in lines[0], done.stderr


def test_a_damaged_processors_json_names_the_file_and_the_fix(run: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(run, tmp_path / "run"))
    (copy / "processors.json").write_text('{\n  "preprocess": [\n    {"@processors": \n')
    np.save(good := tmp_path / "x.npy", np.zeros((2, 64), "float32"))
    done = tensorweave("predict", str(copy), "--input", str(good))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{copy / 'processors.json'} is damaged (" in done.stderr, done.stderr
    assert "line 4, column 1" in done.stderr and "train the run again" in done.stderr


def test_a_damaged_saved_config_names_the_file(run: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(run, tmp_path / "run"))
    text = (copy / "config.json").read_text()
    (copy / "config.json").write_text(text[: len(text) // 2])
    np.save(good := tmp_path / "x.npy", np.zeros((2, 64), "float32"))
    done = tensorweave("predict", str(copy), "--input", str(good))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert str(copy / "config.json") in done.stderr and "damaged" in done.stderr, done.stderr


def test_arrays_v1_names_a_bad_file_and_its_config_path(run: Path, tmp_path: Path) -> None:
    config = json.loads((run / "config.json").read_text())
    config["data"] = {"@datasets": "arrays.v1", "path": str(truncated_npy(tmp_path))}
    (job := tmp_path / "job.json").write_text(json.dumps(config))
    done = tensorweave("train", str(job), "--run-dir", str(tmp_path / "new"))
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert "data:" in done.stderr and f"{tmp_path / 'truncated.npy'} is truncated" in done.stderr


# -- a checkpoint that passed its checks but cannot be read --------------------------------
def _truncate_keeping_the_manifest(checkpoint: Path) -> None:
    """Truncate the variables of ``checkpoint`` and update its manifest to match: damage the
    checksums do not catch (a copy that lost its end before the manifest was written)."""
    import hashlib

    data = next(checkpoint.glob("vars.data-*"))
    data.write_bytes(data.read_bytes()[:100])
    manifest = json.loads((checkpoint / "MANIFEST.json").read_text())
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    manifest["files"][data.name] = {"size": data.stat().st_size, "sha256": digest}
    (checkpoint / "MANIFEST.json").write_text(json.dumps(manifest))


def test_a_truncated_checkpoint_is_named_with_the_one_to_fall_back_to(
    run: Path, tmp_path: Path
) -> None:
    copy = Path(shutil.copytree(run, tmp_path / "run"))
    older, newest = sorted((copy / "checkpoints").glob("ckpt-*"))[-2:]
    _truncate_keeping_the_manifest(newest)
    np.save(good := tmp_path / "x.npy", np.zeros((2, 64), "float32"))
    for argv in (["predict", str(copy), "--input", str(good)], ["evaluate", str(copy)]):
        done = tensorweave(*argv)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert f"checkpoint {newest} is damaged" in done.stderr, done.stderr
        assert f"the previous checkpoint {older} checks out" in done.stderr, done.stderr
    # what the message says to do works
    newest.rename(copy / f"damaged-{newest.name}")
    done = tensorweave("predict", str(copy), "--input", str(good))
    assert done.returncode == 0 and len(json.loads(done.stdout)) == 2, done.stderr
    # with no earlier checkpoint left: retrain or restore
    _truncate_keeping_the_manifest(older)
    done = tensorweave("resume", str(copy), "--train.epochs=3")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"checkpoint {older} is damaged" in done.stderr and "train the run again" in done.stderr


# -- a silent wrong answer: NaN in, a class id out --------------------------------------------
def test_predict_refuses_nan_input_unless_allowed(run: Path, tmp_path: Path) -> None:
    x = np.zeros((5, 64), "float32")
    x[1, :4] = np.nan
    x[3, 7] = np.inf
    np.save(path := tmp_path / "nan.npy", x)
    done = tensorweave("predict", str(run), "--input", str(path))
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert "holds 5 NaN/inf values in 2 rows (of 5)" in done.stderr, done.stderr
    assert "--allow-nan" in done.stderr
    (rows := tmp_path / "nan.json").write_text(json.dumps([[float("nan")] * 64] * 3))
    done = tensorweave("predict", str(run), "--input", str(rows))
    assert done.returncode == 2 and "holds 192 NaN/inf values in 3 rows" in done.stderr
    done = tensorweave("predict", str(run), "--input", str(path), "--allow-nan")
    assert done.returncode == 0 and len(json.loads(done.stdout)) == 5, done.stderr
    warned = [line for line in done.stderr.splitlines() if "NaN/inf" in line]
    assert len(warned) == 1 and "5 NaN/inf values" in warned[0], done.stderr


def test_every_checkpoint_failing_its_checks_is_said_with_the_fix(
    run: Path, tmp_path: Path
) -> None:
    copy = Path(shutil.copytree(run, tmp_path / "run"))
    for data in (copy / "checkpoints").glob("ckpt-*/vars.data-*"):
        data.write_bytes(data.read_bytes()[:100])  # the checksums catch it
    np.save(good := tmp_path / "x.npy", np.zeros((2, 64), "float32"))
    done = tensorweave("predict", str(copy), "--input", str(good))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"every checkpoint of {copy} is damaged" in done.stderr, done.stderr
    assert "train the run again" in done.stderr and "resume it" not in done.stderr


def test_plot_names_a_damaged_log(run: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(run, tmp_path / "run"))
    log = copy / "log.csv"
    log.write_bytes(log.read_bytes() + "1,2,café\n".encode("latin-1"))
    done = tensorweave("plot", str(copy), "-o", str(tmp_path / "c.svg"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{log} is damaged (not UTF-8 text" in done.stderr, done.stderr
    assert not (tmp_path / "c.svg").exists()
