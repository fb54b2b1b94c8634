"""What a run records about the environment it ran in: ``environment.json``.

Every run directory holds, beside its filled config, ``ENVIRONMENT_FILE``: Python and the
platform, TensorFlow and numpy, every installed distribution with its version (the wheel's
sha256 when pip's ``direct_url.json`` has it; editable and local installs marked as such),
the provider of every component the config used (its ``@provider`` records), the seeds, whether
TensorFlow's op determinism was on, the CPU features and settings that change numerics
(oneDNN, ``TF_ENABLE_ONEDNN_OPTS``, AMX and AVX512-BF16) and the sha256 of ``config.json``,
so that a run edited afterwards is detected (``check_config``).

- ``record_environment(config)``: the record (a JSON-able dict) of this process;
- ``write_environment(run_dir, config)``: written into a run (``write_run_directory`` does);
- ``read_environment(run_dir)``: the record, or ``None`` for an older run without one;
- ``check_config(run_dir, record)``: ``TamperedRunError`` (exit 2) when ``config.json``
  changed since it was recorded;
- ``note_resumed(run_dir)``: a resumed run's new config hash, and what differed.

What people read of a record (a summary, the differences between two, a pip lock) is
``runs.environment_report``: this module collects, writes, reads and checks the record.

>>> import tempfile
>>> run = Path(tempfile.mkdtemp())
>>> _ = (run / "config.json").write_text('{"train": {"seed": 0}}')
>>> record = write_environment(run, {"train": {"seed": 0}})
>>> record["seeds"], check_config(run, read_environment(run))
({'train.seed': 0}, None)
>>> _ = (run / "config.json").write_text('{"train": {"seed": 1}}')
>>> check_config(run, read_environment(run))
Traceback (most recent call last):
...
tensorweave_train.runs.environment.TamperedRunError: ... config.json was changed after the run recorded it ...
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import time
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import tensorweave as tw
from tensorweave_train.runs.environment_report import differences
from tensorweave_train.runs.marker import CONFIG_FILE

__all__ = [
    "ENVIRONMENT_FILE",
    "NUMERIC_ENV",
    "EnvironmentRecordError",
    "TamperedRunError",
    "check_config",
    "config_sha256",
    "cpu_numerics",
    "distributions",
    "note_resumed",
    "providers_of",
    "read_environment",
    "record_environment",
    "seeds_of",
    "write_environment",
]

ENVIRONMENT_FILE = "environment.json"
SCHEMA = 1
# environment variables that change what TensorFlow computes (or how it orders it)
NUMERIC_ENV = (
    "TF_ENABLE_ONEDNN_OPTS",
    "TF_DETERMINISTIC_OPS",
    "TF_CUDNN_DETERMINISTIC",
    "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS",
    "OMP_NUM_THREADS",
    "PYTHONHASHSEED",
    "CUDA_VISIBLE_DEVICES",
    "TF_XLA_FLAGS",
)
_CPU_FLAGS = ("amx_bf16", "amx_tile", "amx_int8", "avx512_bf16", "avx512f", "avx2", "fma")


class EnvironmentRecordError(tw.TensorweaveError):
    """A run's ``environment.json`` is missing or unreadable: a usage error (exit 2)."""

    exit_code = 2


class TamperedRunError(tw.TensorweaveError):
    """A run's ``config.json`` no longer matches the hash it recorded (exit 2)."""

    exit_code = 2


def _normalize(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _direct_url(dist: metadata.Distribution) -> dict[str, Any]:
    try:
        text = dist.read_text("direct_url.json")
        found = json.loads(text) if text else {}
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _is_pack(dist: metadata.Distribution) -> bool:
    name = _normalize(dist.metadata["Name"] or "")
    return name == "tensorweave" or any(
        ep.group.startswith("tensorweave.") for ep in dist.entry_points
    )


def distributions() -> list[dict[str, Any]]:
    """Every installed distribution, first on ``sys.path`` wins, sorted by name: ``name``,
    ``version``, ``pack`` (it offers tensorweave components), and where pip recorded it
    ``sha256`` (the wheel's), ``editable``/``local`` (the source path) or ``vcs``."""
    seen: dict[str, dict[str, Any]] = {}
    for dist in metadata.distributions():
        raw = dist.metadata["Name"]
        if not raw or _normalize(raw) in seen:
            continue
        entry: dict[str, Any] = {"name": _normalize(raw), "version": dist.version}
        try:
            entry["pack"] = _is_pack(dist)
        except Exception:  # a broken entry_points.txt: still recorded, by name and version
            entry["pack"] = False
        direct = _direct_url(dist)
        url = str(direct.get("url", ""))
        archive = direct.get("archive_info") or {}
        hashes = archive.get("hashes") or {}
        legacy = str(archive.get("hash", ""))
        if "sha256" in hashes:
            entry["sha256"] = str(hashes["sha256"])
        elif legacy.startswith("sha256="):
            entry["sha256"] = legacy.split("=", 1)[1]
        if "dir_info" in direct:
            where = url.removeprefix("file://")
            entry["editable" if direct["dir_info"].get("editable") else "local"] = where
        elif "vcs_info" in direct:
            vcs = direct["vcs_info"]
            entry["vcs"] = f"{vcs.get('vcs', 'git')}+{url}@{vcs.get('commit_id', '')}"
        seen[entry["name"]] = entry
    return [seen[k] for k in sorted(seen)]


def cpu_numerics(cpuinfo: str | os.PathLike[str] = "/proc/cpuinfo") -> dict[str, Any]:
    """The CPU features and settings that change numerics: oneDNN on or off
    (``TF_ENABLE_ONEDNN_OPTS``; on by default on x86-64 Linux), and the ``_CPU_FLAGS`` the
    CPU has (AMX, AVX512-BF16...; ``None`` when ``cpuinfo`` cannot be read)."""
    flags: list[str] | None = None
    model = None
    try:
        text = Path(cpuinfo).read_text(errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags" and flags is None:
            have = set(value.split())
            flags = [f for f in _CPU_FLAGS if f in have]
        elif key.strip() == "model name" and model is None:
            model = value.strip()
    setting = os.environ.get("TF_ENABLE_ONEDNN_OPTS")
    default_on = platform.machine().lower() in ("x86_64", "amd64") and sys.platform == "linux"
    onednn = setting not in ("0", "false", "False") if setting is not None else default_on
    return {"onednn": onednn, "onednn_setting": setting, "cpu": model, "cpu_flags": flags}


def seeds_of(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every ``seed`` (and ``*_seed``) value of ``config``, by dotted path."""
    found: dict[str, Any] = {}
    for key, value in config.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            found.update(seeds_of(value, path + "."))
        elif isinstance(key, str) and (key == "seed" or key.endswith("_seed")):
            found[path] = value
    return found


def providers_of(config: Mapping[str, Any]) -> dict[str, str]:
    """The distributions (``"name version"``) whose components the filled ``config`` uses,
    by dotted path (its ``@provider`` records)."""
    found: dict[str, str] = {}

    def walk(node: Any, path: str) -> None:
        if isinstance(node, Mapping):
            if isinstance(node.get("@provider"), str):
                found[path or "."] = node["@provider"]
            for key, value in node.items():
                walk(value, f"{path}.{key}" if path else str(key))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}.{i}")

    walk(config, "")
    return found


def _determinism() -> bool | None:
    tf = sys.modules.get("tensorflow")
    if tf is None:
        return None
    try:
        return bool(tf.config.experimental.is_op_determinism_enabled())
    except Exception:  # an older or stripped TensorFlow
        return None


def record_environment(config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The environment record of this process (for the filled ``config``, if given)."""
    dists = distributions()
    by_name = {d["name"]: d["version"] for d in dists}
    tf = next((by_name[n] for n in ("tensorflow", "tensorflow-cpu") if n in by_name), None)
    train = (config or {}).get("train") or {}
    deterministic = train.get("deterministic") if isinstance(train, Mapping) else None
    return {
        "schema": SCHEMA,
        "recorded": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "tensorflow": tf,
        "numpy": by_name.get("numpy"),
        "deterministic": deterministic if deterministic is not None else _determinism(),
        "op_determinism": _determinism(),
        "numerics": cpu_numerics(),
        "env": {k: os.environ[k] for k in NUMERIC_ENV if k in os.environ},
        "seeds": seeds_of(config or {}),
        "providers": providers_of(config or {}),
        "distributions": dists,
    }


def config_sha256(run_dir: str | os.PathLike[str]) -> str:
    """The sha256 of the run's ``config.json`` as it is on disk."""
    return hashlib.sha256((Path(run_dir) / CONFIG_FILE).read_bytes()).hexdigest()


def _write(run_dir: Path, record: Mapping[str, Any]) -> None:
    tmp = run_dir / f"{ENVIRONMENT_FILE}.tmp-{os.getpid()}"
    tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, run_dir / ENVIRONMENT_FILE)


def write_environment(
    run_dir: str | os.PathLike[str], config: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Record this process's environment in ``run_dir`` (with the sha256 of its
    ``config.json``, written before); returns the record."""
    record = record_environment(config)
    if (Path(run_dir) / CONFIG_FILE).is_file():
        record["config_sha256"] = config_sha256(run_dir)
    _write(Path(run_dir), record)
    return record


def note_resumed(run_dir: str | os.PathLike[str]) -> None:
    """A run continued (``tensorweave resume``, maybe with overrides that rewrote its
    config): the config's new hash, and what differed in the environment it continued in."""
    record = read_environment(run_dir)
    if record is None:
        return
    now = record_environment()
    changed = [list(d) for d in differences(record, now)]
    record.setdefault("resumed", []).append({"at": now["recorded"], "differences": changed})
    record["config_sha256"] = config_sha256(run_dir)
    _write(Path(run_dir), record)


def read_environment(run_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The run's environment record, or ``None`` for a run without one (an older run);
    ``EnvironmentRecordError`` when the file is there but unreadable."""
    path = Path(run_dir) / ENVIRONMENT_FILE
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise EnvironmentRecordError(
            f"{path} cannot be read ({err}): the run's environment record is damaged. Fix: "
            "restore it from a copy of the run; without it the run cannot be reproduced."
        ) from err
    if not isinstance(record, dict) or "distributions" not in record:
        raise EnvironmentRecordError(
            f"{path} is not an environment record (no 'distributions'). Fix: restore it from "
            "a copy of the run."
        )
    return record


def check_config(run_dir: str | os.PathLike[str], record: Mapping[str, Any]) -> None:
    """``TamperedRunError`` when the run's ``config.json`` is not the one it recorded."""
    expected = record.get("config_sha256")
    if not expected:
        return
    actual = config_sha256(run_dir)
    if actual != expected:
        raise TamperedRunError(
            f"{Path(run_dir) / CONFIG_FILE} was changed after the run recorded it (sha256 "
            f"{actual[:12]}..., recorded {str(expected)[:12]}...): its figures do not come from "
            "this config, so reproducing it would compare the wrong things. Fix: restore the "
            "run's original config.json, or train the edited config as a new run."
        )
