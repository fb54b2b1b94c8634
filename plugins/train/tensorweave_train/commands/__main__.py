"""``python -m tensorweave_train.commands ...``: the CLI with this pack's commands registered."""

from tensorweave_train.commands import main

raise SystemExit(main())
