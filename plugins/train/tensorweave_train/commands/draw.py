"""``tensorweave draw [CONFIG] -o graph.svg``: the layer graph a config's model makes.

The model is built from the config as training builds it (no data is loaded); its summary
table is printed and its whole graph (outputs, loss, metrics, with the targets, the loss
and the metrics labelled) drawn: ``.svg`` always, ``.png`` with Graphviz.

>>> cmd_draw(["--help"])  # doctest: +ELLIPSIS
usage: tensorweave draw [CONFIG] -o graph.svg ...
...
0
"""

from __future__ import annotations

import tensorweave as tw
from tensorweave.cli.command import EXIT_OK
from tensorweave_train.commands.arguments import base_parser, parse_command_line

__all__ = ["cmd_draw"]


def cmd_draw(argv: list[str]) -> int:
    """``tensorweave draw``."""
    from tensorweave_train.loop.summary import training_graph
    from tensorweave_train.runs.job import build_model, load_config

    parser = base_parser(
        "draw",
        "[CONFIG] -o graph.svg [--section.key=VALUE ...]",
        "Draw the layer graph of a config's [model] (.svg; .png needs Graphviz).",
    )
    parser.add_argument("config", nargs="?", help="config file or built-in name")
    parser.add_argument("-o", "--output", default="graph.svg")
    args, overrides = parse_command_line(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    model = build_model(load_config(args.config, overrides))
    model.summary()
    graph, roles = training_graph(model)
    path = tw.draw(graph, args.output, roles=roles)
    print(f"wrote {path} ({len(graph.nodes)} nodes)")
    return EXIT_OK
