"""The pack is light at import: its plugin and command modules load neither SQLAlchemy nor
anything of TensorFlow beyond what ``import tensorweave`` already brought."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import json, sys
import tensorweave
before = set(sys.modules)
import tensorweave_store, tensorweave_store.cli.hooks, tensorweave_store.hooks
import tensorweave_store.db.urls, tensorweave_store.errors
new = sorted(set(sys.modules) - before)
print(json.dumps(new))
"""


def test_plugin_and_command_modules_import_no_sqlalchemy_and_no_more_tensorflow():
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    new = json.loads(out.strip().splitlines()[-1])
    assert not [
        m
        for m in new
        if m.split(".")[0] in ("sqlalchemy", "alembic", "tensorflow", "fsspec", "tensorweave_train")
    ]
    assert "tensorweave_store.cli.hooks" in new


LIST_RUNS = """
import sys
from tensorweave.cli.main import main
code = main(["runs", "list"])
print("tensorflow" in sys.modules, code)
"""


def test_listing_runs_through_the_real_command_line_imports_no_tensorflow(tmp_path):
    """A store command that only reads the database answers without loading TensorFlow
    (the guard around every command imports its error classes lazily)."""
    done = subprocess.run(
        [sys.executable, "-c", LIST_RUNS],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == "False 0", done.stderr
