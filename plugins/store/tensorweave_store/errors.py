"""The store's errors: each says what happened and how to fix it.

>>> isinstance(ModelNotFoundError("no model 'x'"), StoreError)
True
"""

from __future__ import annotations

import tensorweave as tw

__all__ = [
    "StoreError",
    "StoreUnreachableError",
    "SchemaTooNewError",
    "RunNotFoundError",
    "ModelNotFoundError",
    "DatasetNotFoundError",
    "BlobIntegrityError",
    "BadNameError",
]


class StoreError(tw.TensorweaveError):
    """Something about the tensorweave-store database or its blobs."""


class StoreUnreachableError(StoreError):
    """The store URL cannot be opened (server down, bad host, bad path)."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer tensorweave-store (a schema this one lacks)."""


class RunNotFoundError(StoreError, LookupError):
    """No run matches the reference."""


class ModelNotFoundError(StoreError, LookupError):
    """No model name, or no such version of it."""


class DatasetNotFoundError(StoreError, LookupError):
    """No dataset name, or no such version of it."""


class BlobIntegrityError(StoreError):
    """A blob's content does not match its sha256 name (tampered or truncated)."""


class BadNameError(StoreError):
    """A name outside ``names.NAME_PATTERN``, or a stored path that would leave its folder:
    a usage error (exit 2)."""

    exit_code = 2
