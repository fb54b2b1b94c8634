"""``tensorweave datasets …``: datasets stored in the store. Every action takes ``--store
URL``::

    tensorweave datasets list | show NAME[@VERSION]

Exit codes as ``tensorweave train``: 0 success, 1 failure (a store error, with its fix),
2 usage error.

>>> sorted(ACTIONS)
['list', 'show']
"""

from __future__ import annotations

from tensorweave_store.cli.common import dispatch, open_from, parser

__all__ = ["ACTIONS", "cmd_datasets"]


def _datasets_list(argv: list[str]) -> int:
    from tensorweave_store.cli.report import table

    args = parser("datasets", "list", "Registered datasets and versions.").parse_args(argv)
    store = open_from(args)
    from tensorweave_store.datasets import versions as datasets

    rows = [
        [d.ref, d.kind, d.size, (d.content_hash or "-")[:16], d.describe()]
        for d in datasets.list_datasets(store)
    ]
    if not rows:
        print(f"no datasets in {store.display_url}")
        return 0
    print(table(rows, ["dataset", "kind", "examples", "content sha256", "what"]))
    return 0


def _datasets_show(argv: list[str]) -> int:
    import json

    p = parser("datasets", "show", "One dataset version.")
    p.add_argument("ref", help="NAME or NAME@VERSION")
    args = p.parse_args(argv)
    from tensorweave_store.datasets import versions as datasets

    d = datasets.get_dataset(open_from(args), args.ref)
    print(f"{d.ref}  {d.kind}  {d.size} examples  sha256 {d.content_hash or '-'}")
    print(f"  {d.describe()}")
    print("  info: " + json.dumps(d.info, default=str)[:400])
    return 0


ACTIONS = {"list": _datasets_list, "show": _datasets_show}


def cmd_datasets(argv: list[str]) -> int:
    """``tensorweave datasets ACTION ...``."""
    return dispatch(argv, "datasets", ACTIONS, __doc__ or "")
