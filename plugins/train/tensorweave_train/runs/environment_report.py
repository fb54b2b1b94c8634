"""What people read of an environment record: a summary, the differences, a pip lock.

- ``lock_text(record)``: a pip-installable lock (``name==version``; ``--hash`` only when every
  line has one, as pip's hash-checking mode needs; editable/local installs as comments);
- ``summary_text(record)``: the system, the packs, the seeds, the others' count;
- ``differences(a, b)``: what differs between two records (the packs, other
  distributions, the system), as ``tensorweave reproduce`` and a resumed run report it;
- ``table(rows)``: aligned columns.

The record itself (collected, written into a run, read and checked) is
``runs.environment``; these work on any record, a plain mapping.

>>> differences({"python": "3.11"}, {"python": "3.12"})
[('system', 'python', '3.11', '3.12')]
>>> print(table([["name", "version"], ["numpy", "2.0"]]))
name   version
numpy  2.0
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["differences", "lock_text", "summary_text", "table"]


def _lockable(d: Mapping[str, Any]) -> bool:
    return not (d.get("editable") or d.get("local"))


def lock_text(record: Mapping[str, Any], *, source: str = "") -> str:
    """A pip-installable lock of the record's distributions (``pip install -r``)."""
    dists = list(record.get("distributions") or [])
    pinned = [d for d in dists if _lockable(d)]
    hashed = bool(pinned) and all(d.get("sha256") for d in pinned if not d.get("vcs"))
    hashed = hashed and not any(d.get("vcs") for d in pinned)
    lines = [
        f"# requirements.lock written by `tensorweave runs env`{' for ' + source if source else ''}",
        f"# Python {record.get('python')} on {record.get('platform')}",
        "# install into a fresh environment: pip install -r requirements.lock",
    ]
    if not hashed:
        known = sum(1 for d in pinned if d.get("sha256"))
        lines.append(
            f"# wheel hashes: {known} of {len(pinned)} known (as comments); pip's hash-checking "
            "mode needs one on every line, so none is enforced"
        )
    for d in pinned:
        if d.get("vcs"):
            lines.append(f"{d['name']} @ {d['vcs']}")
        elif hashed:
            lines.append(f"{d['name']}=={d['version']} --hash=sha256:{d['sha256']}")
        else:
            comment = f"  # sha256:{d['sha256']}" if d.get("sha256") else ""
            lines.append(f"{d['name']}=={d['version']}{comment}")
    for d in dists:
        if not _lockable(d):
            how = "editable" if d.get("editable") else "local"
            where = d.get("editable") or d.get("local")
            lines.append(
                f"# {d['name']}=={d['version']}: an {how} install from {where}, which cannot be "
                f"locked by version; install that source (pip install {'-e ' if how == 'editable' else ''}{where}) "
                "or a wheel of it"
            )
    return "\n".join(lines) + "\n"


def _key_facts(record: Mapping[str, Any]) -> dict[str, Any]:
    numerics = record.get("numerics") or {}
    return {
        "python": record.get("python"),
        "platform": record.get("platform"),
        "tensorflow": record.get("tensorflow"),
        "numpy": record.get("numpy"),
        "deterministic": record.get("deterministic"),
        "oneDNN": numerics.get("onednn"),
        "CPU flags": ",".join(numerics.get("cpu_flags") or []) or None,
        **{f"env {k}": v for k, v in (record.get("env") or {}).items()},
    }


def _versions(record: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {d["name"]: d for d in record.get("distributions") or []}


def differences(
    recorded: Mapping[str, Any], other: Mapping[str, Any]
) -> list[tuple[str, str, str, str]]:
    """What differs between two environment records: ``(kind, what, recorded, other)`` with
    kind ``pack`` (a tensorweave pack's version), ``distribution`` (another one's),
    ``system`` (Python, TensorFlow, numpy, oneDNN, CPU flags, numerics env)."""
    out: list[tuple[str, str, str, str]] = []
    a, b = _key_facts(recorded), _key_facts(other)
    for key in sorted(set(a) | set(b), key=list({**a, **b}).index):
        if a.get(key) != b.get(key):
            out.append(("system", key, str(a.get(key)), str(b.get(key))))
    va, vb = _versions(recorded), _versions(other)
    for name in sorted(set(va) | set(vb)):
        x, y = va.get(name), vb.get(name)
        xv = x["version"] if x else "not installed"
        yv = y["version"] if y else "not installed"
        rebuilt = bool(x and y and x.get("sha256") and y.get("sha256"))  # both known
        if xv != yv or (rebuilt and x["sha256"] != y["sha256"]):  # type: ignore[index]
            pack = bool((x and x.get("pack")) or (y and y.get("pack")))
            out.append(("pack" if pack else "distribution", name, xv, yv))
    return out


def table(rows: Iterable[Iterable[Any]]) -> str:
    """``rows`` as aligned columns (the first row is usually the header)."""
    cells = [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells)


def summary_text(record: Mapping[str, Any], *, source: str = "") -> str:
    """A readable summary of a record: the system, the packs, the seeds, the others' count."""
    facts = _key_facts(record)
    lines = [f"environment of {source or 'the run'} (recorded {record.get('recorded', '?')})"]
    lines += [f"  {k}: {v}" for k, v in facts.items()]
    config_hash = record.get("config_sha256")
    if config_hash:
        lines.append(f"  config.json sha256: {config_hash}")
    seeds = record.get("seeds") or {}
    lines.append("  seeds: " + (", ".join(f"{k}={v}" for k, v in seeds.items()) or "none"))
    dists = list(record.get("distributions") or [])
    packs = [d for d in dists if d.get("pack")]
    used = sorted(set((record.get("providers") or {}).values()))
    lines.append(f"  providers used by the config: {', '.join(used) or 'none recorded'}")
    if packs:
        lines.append("  tensorweave packs:")
        rows = [
            [
                d["name"],
                d["version"],
                "editable " + str(d["editable"])
                if d.get("editable")
                else ("sha256:" + d["sha256"][:12] if d.get("sha256") else ""),
            ]
            for d in packs
        ]
        lines += ["    " + line for line in table(rows).splitlines()]
    lines.append(
        f"  {len(dists) - len(packs)} other distributions (the full list: -o requirements.lock)"
    )
    return "\n".join(lines)
