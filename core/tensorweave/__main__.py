"""``python -m tensorweave``: the ``tensorweave`` command, for environments without its script."""

import sys

from tensorweave.cli.main import main

sys.exit(main())
