"""``tensorweave data verify CONFIG|RUN``: are the files a run read still the same?

A run of a file dataset keeps the manifest of what it read (``data_manifest.json``: each
file's path, size and sha256; ``files.manifest``). ``verify`` re-reads every file its config
names now (hashing each again, no cache) and reports the files that changed, went missing
or are new, one line each::

    tensorweave data verify runs/digits-20261128-0801      # against its data_manifest.json
    tensorweave data verify my.toml --against runs/RUN     # a config against a run's record
    tensorweave data verify my.toml -o manifest.json       # record a config's files now

Exit codes: 0 identical (or nothing to compare), 1 changed, 2 bad usage (no such config or
run, a run that recorded no manifest, a bad ``--against``).

``record_data_manifest(data, run_dir)`` is what the train pack calls when a run starts (it writes the
manifest of a file dataset, nothing for data in memory) and ``warn_if_data_changed(data,
run_dir)`` when a run resumes (a ``ChangedDataWarning`` naming each changed file).
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import tensorweave as tw
from tensorweave.cli.command import UsageError
from tensorweave_data.files.manifest import (
    MANIFEST_FILE,
    Changes,
    Manifest,
    compute,
    files_of,
    manifest_of,
)

__all__ = [
    "ChangedDataWarning",
    "record_data_manifest",
    "warn_if_data_changed",
    "verify",
    "cmd_verify",
]

EXIT_CHANGED = 1


class ChangedDataWarning(UserWarning):
    """Files a run read have changed, gone missing or appeared since it recorded them."""


def record_data_manifest(data: Any, run_dir: str | Path) -> Manifest | None:
    """Write the manifest of the files ``data`` reads to ``run_dir/data_manifest.json``
    (hashes cached by path, size and mtime); nothing for data held in memory."""
    manifest = manifest_of(data)
    if manifest is not None:
        manifest.save(Path(run_dir) / MANIFEST_FILE)
    return manifest


def warn_if_data_changed(data: Any, run_dir: str | Path) -> Changes | None:
    """Compare the files ``data`` reads now with ``run_dir``'s recorded manifest (when it
    has one) and warn (``ChangedDataWarning``) naming every changed, missing or new file.
    The hashes of files whose size and mtime are unchanged come from the cache."""
    recorded = Path(run_dir) / MANIFEST_FILE
    files = files_of(data)
    if files is None or not recorded.is_file():
        return None
    changes = Manifest.load(recorded).compare(compute(files))
    if changes:
        shown = changes.lines()
        more = f"\n  ... and {len(shown) - 10} more" if len(shown) > 10 else ""
        warnings.warn(
            f"the data of {run_dir} differs from what it was trained on so far: "
            + "; ".join(shown[:10])
            + more
            + f". The run continues on the files as they are now; `tensorweave data verify "
            f"{run_dir}` lists every difference.",
            ChangedDataWarning,
            stacklevel=2,
        )
    return changes


def _build(cfg: Mapping[str, Any], source: str) -> Any:
    """The ``[data]`` section of ``cfg`` built (its files listed, nothing trained)."""
    import tensorweave.config as twc

    if "data" not in cfg:
        raise UsageError(
            f"tensorweave data verify: {source} has no [data] section. Fix: a job config or "
            "a run directory."
        )
    return twc.resolve({"data": cfg["data"]})["data"]


def _recorded(reference: str) -> tuple[Manifest, Path]:
    """The manifest of a run directory or a manifest file."""
    path = Path(reference)
    manifest = path / MANIFEST_FILE if path.is_dir() else path
    if not manifest.is_file():
        if path.is_dir():
            raise UsageError(
                f"tensorweave data verify: the run {path} recorded no {MANIFEST_FILE} (its "
                "data is held in memory, or it was made before runs recorded their files). "
                "Fix: verify a run of a file dataset, or record a config's files with "
                "`tensorweave data verify CONFIG -o manifest.json`."
            )
        raise UsageError(
            f"tensorweave data verify: no run directory or manifest at {reference!r}. Fix: "
            "a run directory or a manifest file written by `data verify CONFIG -o FILE`."
        )
    try:
        return Manifest.load(manifest), manifest
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise UsageError(
            f"tensorweave data verify: {manifest} is not a data manifest ({err}). Fix: give a "
            f"run directory or a {MANIFEST_FILE} file."
        ) from err


def _stored_run(reference: str) -> tuple[dict[str, Any], Manifest] | None:
    """The config and data manifest of a run a plugin keeps a record of (tensorweave-store:
    a run id or name, its directory possibly gone), from the ``tensorweave_data_recorded``
    hook's answer ``{"run", "config", "manifest"}``; ``None`` when no plugin knows it."""
    from tensorweave_data.hooks import recorded_runs

    for found in recorded_runs(reference):
        if found.get("manifest") is None:
            raise UsageError(
                f"tensorweave data verify: {found['run']} recorded no data manifest (its data "
                "is held in memory, or it was recorded before runs recorded their files). "
                "Fix: verify a run of a file dataset."
            )
        return dict(found["config"]), Manifest.from_json(found["manifest"])
    return None


def verify(target: str, against: str | None = None) -> tuple[Manifest | None, Manifest, Changes]:
    """``(recorded, now, changes)`` for a run directory ``target`` (against its own
    manifest) or a config file (against ``against``, a run directory or manifest file;
    without it ``recorded`` is ``None`` and nothing differs)."""
    import tensorweave.config as twc

    path = Path(target)
    recorded: Manifest | None = None
    if path.is_dir():
        config = path / "config.json"
        if not config.is_file():
            raise UsageError(
                f"tensorweave data verify: {path} is not a run directory (no config.json). "
                "Fix: give a run directory or a config file."
            )
        recorded = _recorded(str(against or path))[0]
        cfg = json.loads(config.read_text(encoding="utf-8"))
    elif path.is_file():
        cfg = twc.load(path)
        recorded = _recorded(against)[0] if against else None
    elif (stored := _stored_run(target)) is not None:
        cfg, recorded = stored
    else:
        raise UsageError(
            f"tensorweave data verify: no config file or run directory at {target!r}. Fix: "
            "give an existing config file or run directory (or a run the store recorded)."
        )
    try:
        files = files_of(_build(cfg, str(path)))
    except tw.TensorweaveError as err:
        if recorded is None or isinstance(err, UsageError):
            raise
        # the dataset cannot be listed now (its folder is gone...): the recorded files
        print(f"cannot list the dataset's files now ({err}); checking the recorded ones")
        files = [f.path for f in recorded.files]
    if files is None:
        raise UsageError(
            f"tensorweave data verify: the data of {target} is not read from files (nothing "
            "to verify). Fix: a config or run of a file dataset (image_folder.v1, table.v1, "
            "text_folder.v1, text_lines.v1, tfrecord.v1, hf_dataset.v1)."
        )
    now = compute(files, cached=False)  # every byte read again
    if recorded is None:
        return None, now, Changes()
    return recorded, now, recorded.compare(now)


def cmd_verify(argv: Sequence[str]) -> int:
    """``tensorweave data verify CONFIG|RUN [--against RUN|MANIFEST] [-o MANIFEST]``."""
    from tensorweave.cli.command import CommandParser

    parser = CommandParser(
        prog="tensorweave data verify",
        description="Re-read a run's (or a config's) data files and report every file that "
        "changed, went missing or is new since the run recorded them.",
    )
    parser.add_argument("target", help="a run directory, or a config file")
    parser.add_argument(
        "--against", help="a run directory or manifest file to compare a config's files with"
    )
    parser.add_argument("-o", "--output", help="also write the manifest of the files now")
    args: argparse.Namespace = parser.parse_args(list(argv))
    recorded, now, changes = verify(args.target, args.against)
    if args.output:
        out = Path(args.output)
        if out.exists():
            raise UsageError(f"tensorweave data verify: {out} exists. Fix: -o a new file.")
        now.save(out)
        print(f"wrote {out}: {len(now.files)} files, {now.total_bytes} bytes")
    if recorded is None:
        print(
            f"{args.target}: {len(now.files)} files, {now.total_bytes} bytes (nothing to "
            "compare with: --against RUN|MANIFEST)"
        )
        return 0
    for line in changes.lines():
        print(line)
    if changes and changes.new and len(changes.missing) == len(recorded.files):
        print(
            f"note: none of the recorded files is read now; a config's relative paths are "
            f"read from the working directory ({Path.cwd()}): run verify where the run was "
            "trained"
        )
    if changes:
        print(
            f"{args.target}: {len(changes.changed)} changed, {len(changes.missing)} missing, "
            f"{len(changes.new)} new of {len(recorded.files)} recorded files"
        )
        return EXIT_CHANGED
    print(f"{args.target}: all {len(recorded.files)} files identical ({now.total_bytes} bytes)")
    return 0
