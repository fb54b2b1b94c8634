"""Make the test helpers importable (``import twtrain_helpers``) under importlib mode."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
