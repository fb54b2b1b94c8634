"""``python -m tensorweave.cli``: the same as the ``tensorweave`` command."""

import sys

from tensorweave.cli.main import main

sys.exit(main())
