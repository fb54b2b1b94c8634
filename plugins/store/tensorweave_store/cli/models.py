"""``tensorweave models …``: model versions made from runs. Every action takes ``--store
URL``::

    tensorweave models register RUN NAME [--stage S] [--tag T]
    tensorweave models list [--built-with "tensorweave-layers<0.2"]
    tensorweave models show NAME[@VERSION] | stage NAME@VERSION STAGE | tag NAME@VERSION T

Exit codes as ``tensorweave train``: 0 success, 1 failure (a store error, with its fix),
2 usage error.

>>> sorted(ACTIONS)
['list', 'register', 'show', 'stage', 'tag']
"""

from __future__ import annotations

from typing import Any

from tensorweave_store.cli.common import dispatch, open_from, parser

__all__ = ["ACTIONS", "cmd_models"]


def _models_register(argv: list[str]) -> int:
    p = parser("models", "register", "Store a run's model as the next version of NAME.")
    p.add_argument("run", help="run id, run directory or name")
    p.add_argument("name", help="the model's name")
    p.add_argument("--stage", help="put the new version in this stage (e.g. production)")
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--description")
    args = p.parse_args(argv)
    mv = open_from(args).register_model(
        args.run, args.name, stage=args.stage, tags=args.tag, description=args.description
    )
    print(
        f"registered {mv.ref} from run {mv.run_id} ({len(mv.manifest)} files)"
        + (f", stage {mv.stage}" if mv.stage else "")
        + f"\n  next: tensorweave predict {mv.ref} --input FILE"
    )
    return 0


def _models_list(argv: list[str]) -> int:
    from tensorweave_store.cli.report import table
    from tensorweave_store.runs.filters import parse_built_with

    p = parser("models", "list", "Every model name and its versions.")
    p.add_argument(
        "--built-with",
        metavar="DIST SPECIFIER",
        help="only the models built with these versions of a pack (a component it "
        'provided), e.g. "tensorweave-layers<0.2"',
    )
    args = p.parse_args(argv)
    built = parse_built_with(args.built_with) if args.built_with else None  # before the store
    store = open_from(args)
    if built is not None:
        return _models_built_with(store, built)
    rows = []
    for name, versions in store.models():
        stages = ", ".join(f"{v.stage}={v.version}" for v in versions if v.stage) or "-"
        last = versions[-1] if versions else None
        figs = (last.provenance.get("figures") or {}) if last else {}
        acc = next((figs[k] for k in ("val_accuracy", "val_loss") if k in figs), None)
        rows.append(
            [
                name,
                len(versions),
                last.version if last else "-",
                stages,
                last.provenance.get("run_id") if last else "-",
                acc,
            ]
        )
    if not rows:
        print(
            f"no models in {store.display_url}; register one: tensorweave models register RUN NAME"
        )
        return 0
    print(
        table(
            rows,
            [
                "name",
                "versions",
                "latest",
                "stages",
                "latest from run",
                "latest val_accuracy/val_loss",
            ],
        )
    )
    return 0


def _models_built_with(store: Any, built: Any) -> int:
    """``models list --built-with``: every version built with the range, one per row."""
    from tensorweave_store.cli.report import table
    from tensorweave_store.versions.models import versions_built_with

    found = versions_built_with(store, built)
    if not found:
        print(f"no model version in {store.display_url} was built with {built}")
        return 0
    rows = [
        [mv.ref, mv.stage or "-", mv.run_id if mv.run_id is not None else "-", ", ".join(m)]
        for mv, m in found
    ]
    print(table(rows, ["model", "stage", "from run", "built with"]))
    return 0


def _models_show(argv: list[str]) -> int:
    from tensorweave_store.cli.report import fmt, table, utc_text

    p = parser("models", "show", "A model's versions, or one version in full.")
    p.add_argument("ref", help="NAME or NAME@VERSION")
    args = p.parse_args(argv)
    store = open_from(args)
    if "@" not in args.ref:
        store.model_version(f"{args.ref}@latest")  # ModelNotFoundError with the fix
        versions = dict(store.models())[args.ref]
        print(
            table(
                [
                    [
                        v.version,
                        v.stage or "-",
                        ",".join(v.tags) or "-",
                        v.run_id,
                        utc_text(v.created_at),
                    ]
                    for v in versions
                ],
                ["version", "stage", "tags", "run", "registered (UTC)"],
            )
        )
        return 0
    mv = store.model_version(args.ref)
    prov = mv.provenance
    print(f"{mv.ref}  stage {mv.stage or '-'}  tags {', '.join(mv.tags) or '-'}")
    print(
        f"  from run {prov.get('run_id')} ({prov.get('run_name')}, {prov.get('run_status')}) "
        f"in {prov.get('run_dir')}"
    )
    print(f"  registered {utc_text(mv.created_at)} UTC by {prov.get('registered_by')}")
    figs = prov.get("figures") or {}
    print("  figures: " + "  ".join(f"{k} {fmt(v)}" for k, v in sorted(figs.items())))
    for path, sha in sorted(mv.manifest.items()):
        print(f"  {path}  sha256:{sha[:16]}…")
    return 0


def _models_stage(argv: list[str]) -> int:
    p = parser("models", "stage", "Put a version in a stage (production, staging…).")
    p.add_argument("ref", help="NAME@VERSION")
    p.add_argument("stage", help="the stage, or 'none' to clear")
    args = p.parse_args(argv)
    mv = open_from(args).set_stage(args.ref, None if args.stage == "none" else args.stage)
    print(f"{mv.ref}: stage {mv.stage or '-'}")
    return 0


def _models_tag(argv: list[str]) -> int:
    p = parser("models", "tag", "Add tags to a model version.")
    p.add_argument("ref", help="NAME@VERSION")
    p.add_argument("tags", nargs="+")
    args = p.parse_args(argv)
    mv = open_from(args).tag_model(args.ref, args.tags)
    print(f"{mv.ref}: tags {', '.join(mv.tags)}")
    return 0


ACTIONS = {
    "register": _models_register,
    "list": _models_list,
    "show": _models_show,
    "stage": _models_stage,
    "tag": _models_tag,
}


def cmd_models(argv: list[str]) -> int:
    """``tensorweave models ACTION ...``."""
    return dispatch(argv, "models", ACTIONS, __doc__ or "")
