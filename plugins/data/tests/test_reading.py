"""The readers of ``tensorweave_data.reading`` and ``array_files``: every way a file can be bad is one
``BadFileError`` naming the file, and nothing a forged header declares is allocated."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tensorweave_data.array_files import read_input, read_npy, read_npz
from tensorweave_data.reading import BadFileError, read_csv, read_json, read_text


def _header(shape: tuple[int, ...], descr: str = "<f8") -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array_header_2_0(
        out, {"descr": descr, "fortran_order": False, "shape": shape}
    )
    return out.getvalue()


def test_good_files_read_back(tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.arange(6).reshape(2, 3))
    np.savez_compressed(tmp_path / "d.npz", x=np.ones((2, 2)), s=np.array(["a", "b"]))
    (tmp_path / "t.txt").write_text("héllo", encoding="utf-8")
    (tmp_path / "r.json").write_text("[[1, 2]]")
    assert read_npy(tmp_path / "x.npy").tolist() == [[0, 1, 2], [3, 4, 5]]
    assert read_npz(tmp_path / "d.npz")["s"].tolist() == ["a", "b"]
    assert read_text(tmp_path / "t.txt") == "héllo"
    assert read_input(tmp_path / "r.json") == [[1, 2]]


def test_a_forged_header_is_refused_before_anything_is_allocated(tmp_path: Path) -> None:
    (tmp_path / "huge.npy").write_bytes(b"\x93NUMPY\x02\x00" + _header((2**50,))[8:])
    with pytest.raises(BadFileError, match=r"huge\.npy is truncated.*8192\.0 TiB"):
        read_npy(tmp_path / "huge.npy")
    # a zip member that claims more than deflate can give
    info = zipfile.ZipInfo("x.npy")
    with zipfile.ZipFile(tmp_path / "bomb.npz", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(info, _header((10,)) + b"\0" * 80, compress_type=zipfile.ZIP_DEFLATED)
    with pytest.raises(BadFileError, match="more than compression can give"):
        raw = bytearray((tmp_path / "bomb.npz").read_bytes())
        # forge the uncompressed size in the central directory (offset 24 of its record)
        at = raw.rfind(b"PK\x01\x02")
        raw[at + 24 : at + 28] = (2**31).to_bytes(4, "little")
        (tmp_path / "bomb.npz").write_bytes(bytes(raw))
        read_npz(tmp_path / "bomb.npz")


@pytest.mark.parametrize(
    ("content", "suffix", "message"),
    [
        (b"\x93NUMPY\x01\x00", ".npy", "not an .npy array"),
        (b"PK\x03\x04 broken", ".npz", "not an .npz archive"),
        (b'{"a": ', ".json", r"not valid JSON \(line 1, column 7"),
        (b"\xc3\x28", ".txt", r"not UTF-8 text \(byte 0"),
        (b"[" * 100_000, ".json", "nested too deep"),
        (b"", ".npy", "not an .npy array"),
    ],
    ids=["npy-header", "npz-zip", "json", "utf8", "deep-json", "empty-npy"],
)
def test_every_bad_file_is_one_error_naming_it(
    tmp_path: Path, content: bytes, suffix: str, message: str
) -> None:
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(content)
    with pytest.raises(BadFileError, match=message) as caught:
        read_input(path, owner="test")
    assert caught.value.path == str(path) and str(path) in str(caught.value)
    assert str(caught.value).startswith("test: ") and "Fix: " in str(caught.value)
    assert isinstance(caught.value, ValueError) and BadFileError.exit_code == 2


def test_a_file_tensorweave_wrote_is_called_damaged(tmp_path: Path) -> None:
    (path := tmp_path / "processors.json").write_text('{\n  "a": [\n    1,\n    ]\n}')
    with pytest.raises(BadFileError) as caught:
        read_json(path, fix="train the run again")
    assert str(caught.value) == (
        f"{path} is damaged (not valid JSON (line 4, column 5: Expecting value)): "
        "train the run again."
    )


def test_missing_files_and_folders_are_named(tmp_path: Path) -> None:
    with pytest.raises(BadFileError, match=r"nope\.npy does not exist"):
        read_npy(tmp_path / "nope.npy")
    with pytest.raises(BadFileError, match="is a directory"):
        read_json(tmp_path)
    with pytest.raises(BadFileError, match="not a regular file"):
        read_text("/dev/zero")  # would never end


def test_csv_rows_and_bad_csv(tmp_path: Path) -> None:
    (good := tmp_path / "log.csv").write_text("epoch,loss\n1,0.5\n2,0.25\n")
    assert [r["loss"] for r in read_csv(good)] == ["0.5", "0.25"]
    (extra := tmp_path / "extra.csv").write_text("epoch,loss\n1,0.5,9\n")
    with pytest.raises(BadFileError, match=r"extra\.csv is not CSV \(line 2 has more cells"):
        read_csv(extra)
    (quoted := tmp_path / "quoted.csv").write_text('a,b\n"1,2\n')
    with pytest.raises(BadFileError, match=r"quoted\.csv is not CSV"):
        read_csv(quoted)


def test_a_zip_member_larger_than_the_file_is_refused(tmp_path: Path) -> None:
    with zipfile.ZipFile(path := tmp_path / "forged.npz", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("x.npy", _header((2**42,)))
    raw = bytearray(path.read_bytes())
    at = raw.rfind(b"PK\x01\x02")  # the central directory: compressed size at offset 20
    raw[at + 20 : at + 28] = (2**31).to_bytes(4, "little") + (2**32 - 2).to_bytes(4, "little")
    path.write_bytes(bytes(raw))
    with pytest.raises(BadFileError, match="more than the whole file"):
        read_npz(path)


def test_json_numbers_python_cannot_convert_are_a_bad_file(tmp_path: Path) -> None:
    (path := tmp_path / "big.json").write_text("[" + "9" * 10_000 + "]")
    with pytest.raises(BadFileError, match=r"big\.json is not valid JSON"):
        read_json(path)


def _mutations() -> st.SearchStrategy[bytes]:
    """Valid files of each format, cut short, with bytes flipped or appended."""
    buffer = io.BytesIO()
    np.save(buffer, np.arange(12, dtype="float32").reshape(3, 4))
    npy = buffer.getvalue()
    buffer = io.BytesIO()
    np.savez_compressed(buffer, x=np.ones((3, 2)), y=np.arange(3))
    npz = buffer.getvalue()
    seeds = st.sampled_from([npy, npz, b'{"x": [[1.0, 2.0]]}', "naïve text".encode()])

    @st.composite
    def mutated(draw: st.DrawFn) -> bytes:
        data = bytearray(draw(seeds))
        cut = draw(st.integers(0, len(data)))
        data = data[:cut] if draw(st.booleans()) else data
        for _ in range(draw(st.integers(0, 4))):
            if data:
                data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        return bytes(data) + draw(st.binary(max_size=16))

    return mutated()


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(content=_mutations(), suffix=st.sampled_from([".npy", ".npz", ".json", ".txt"]))
def test_any_damaged_file_is_read_or_refused_never_a_crash(
    tmp_path: Path, content: bytes, suffix: str
) -> None:
    path = tmp_path / f"fuzz{suffix}"
    path.write_bytes(content)
    try:
        read_input(path)
    except BadFileError as err:
        assert err.path == str(path) and "Fix: " in str(err)
