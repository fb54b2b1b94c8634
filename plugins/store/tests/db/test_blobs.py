"""The content-addressed blob directory, locally and through an fsspec URL."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tensorweave_store.db.blobs import BlobStore
from tensorweave_store.errors import BlobIntegrityError, StoreError


@given(st.binary(max_size=2000))
def test_a_blob_is_named_by_its_sha256_and_read_back_whole(data):
    blobs = BlobStore("memory://tw-blobs-prop")
    sha = blobs.put_bytes(data)
    assert sha == hashlib.sha256(data).hexdigest()
    assert blobs.get(sha) == data
    assert blobs.put_bytes(data) == sha  # stored once


def test_a_local_blob_directory_with_files(tmp_path):
    src = tmp_path / "w.bin"
    src.write_bytes(b"weights" * 1000)
    blobs = BlobStore(tmp_path / "blobs")
    sha = blobs.put_file(src)
    assert (tmp_path / "blobs" / sha[:2] / sha).is_file()
    out = blobs.fetch(sha, tmp_path / "copy" / "w.bin")
    assert out.read_bytes() == src.read_bytes()
    assert not list((tmp_path / "blobs").rglob("*.tmp-*"))


def test_a_tampered_blob_is_refused_and_left_for_inspection(tmp_path):
    blobs = BlobStore(f"file://{tmp_path}/blobs")
    sha = blobs.put_bytes(b"original")
    path = tmp_path / "blobs" / sha[:2] / sha
    path.write_bytes(b"tampered")
    with pytest.raises(BlobIntegrityError, match="corrupt") as err:
        blobs.get(sha)
    assert "Fix:" in str(err.value)
    with pytest.raises(BlobIntegrityError):
        blobs.fetch(sha, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert path.read_bytes() == b"tampered"


def test_a_missing_blob_names_the_directory(tmp_path):
    with pytest.raises(StoreError, match="TENSORWEAVE_STORE_BLOBS"):
        BlobStore(tmp_path).get("0" * 64)
