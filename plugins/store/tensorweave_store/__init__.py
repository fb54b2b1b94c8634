"""tensorweave-store: runs, model versions, datasets and tagged samples in a SQL database.

With this pack installed every ``tensorweave train``/``resume`` is recorded in a store: an
SQLite file under the runs root by default (``runs/tensorweave-store.db``, zero set-up), or
the database ``TENSORWEAVE_STORE`` (or ``--store URL``) names, e.g.
``postgresql+psycopg://user@host/db`` for a team. Blobs (checkpoints, model files) live in a
content-addressed directory beside the database (``runs/tensorweave-store.blobs``) or at
``TENSORWEAVE_STORE_BLOBS`` (any ``fsspec`` URL).

The public API (other packs and scripts build on these names)::

    import tensorweave_store as tws

    store = tws.open_store()                  # or open_store("postgresql+psycopg://…")
    run = store.start_run(config, run_dir="runs/a", name="a", tags=["baseline"])
    run.log_epoch(0, {"loss": 0.5, "val_accuracy": 0.9})   # also beats the heartbeat
    run.finish("finished", summary={"val_accuracy": 0.93})  # or "failed"/"interrupted"
    store.runs(where=["val_accuracy>0.9"], tags=["baseline"])   # -> list[RunRecord]
    store.run("7")                            # by id, run name or run directory
    store.sync("runs/a")                      # what a run kept while the store was away
    mv = store.register_model("7", "digits", stage="production")   # -> ModelVersion
    store.resolve("digits@latest")            # -> a local model directory (run-dir layout)
    model = tws.load_model("digits@1")        # a trained tensorweave_train.Model

The pack's functions that take a store (model and dataset versions, a run's handle) type it
as ``StoreLike``, the protocol ``Store`` implements.

``NAME@VERSION`` takes a number, ``latest``, or a stage (``digits@production``). Errors are
``StoreError`` subclasses naming the fix: ``StoreUnreachableError``, ``SchemaTooNewError``,
``RunNotFoundError``, ``ModelNotFoundError``, ``BlobIntegrityError``. A store lost while a
run records is not an error: ``StoreOutageWarning`` says where the records wait.

Nothing heavy is imported until used (no SQLAlchemy, no TensorFlow at ``import``):

>>> import tensorweave_store as tws
>>> tws.__version__
'0.1.0'
>>> tws.default_url(runs_root="runs", env={})
'sqlite:///runs/tensorweave-store.db'
"""

from __future__ import annotations

import tensorweave as tw

__version__ = "0.1.0"

_LAZY = {
    "open_store": "tensorweave_store.store",
    "Store": "tensorweave_store.store",
    "StoreLike": "tensorweave_store.protocol",
    "RunHandle": "tensorweave_store.runs.handle",
    "RunRecord": "tensorweave_store.runs.records",
    "ModelVersion": "tensorweave_store.versions.models",
    "load_model": "tensorweave_store.store",
    "default_url": "tensorweave_store.db.urls",
    "parse_ref": "tensorweave_store.db.urls",
    "BlobStore": "tensorweave_store.db.blobs",
    "RecordRun": "tensorweave_store.runs.callback",
    "StoreError": "tensorweave_store.errors",
    "StoreUnreachableError": "tensorweave_store.errors",
    "SchemaTooNewError": "tensorweave_store.errors",
    "RunNotFoundError": "tensorweave_store.errors",
    "ModelNotFoundError": "tensorweave_store.errors",
    "BlobIntegrityError": "tensorweave_store.errors",
    "DatasetNotFoundError": "tensorweave_store.errors",
    "BadNameError": "tensorweave_store.errors",
    "check_name": "tensorweave_store.names",
    "NAME_PATTERN": "tensorweave_store.names",
    "redact": "tensorweave_store.db.urls",
    "StoreOutageWarning": "tensorweave_store.db.outage",
}

__all__ = ["__version__", *_LAZY]


__getattr__, __dir__ = tw.lazy_exports(__name__, _LAZY, base="")
