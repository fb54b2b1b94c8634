"""What goes wrong reading a file dataset, and the small checks every file dataset shares.

>>> check_choice("table.v1", "on_error", "skip", ON_ERROR)
>>> issubclass(FileDataError, ValueError)
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import tensorweave as tw

__all__ = ["FileDataError", "SkippedRecordsWarning", "ON_ERROR", "check_choice", "tf_message"]

ON_ERROR = ("error", "skip")


class FileDataError(tw.TensorweaveError, ValueError):
    """A file of a file dataset cannot be read as declared (the message names the file)."""


class SkippedRecordsWarning(UserWarning):
    """Records of a file dataset were skipped (``on_error = "skip"``); the count is given."""


def check_choice(owner: str, name: str, value: Any, choices: Sequence[Any]) -> None:
    """Raise ``tw.ArgumentError`` when ``value`` is not one of ``choices``.

    >>> check_choice("image_folder.v1", "on_error", "skip", ON_ERROR)
    """
    if value not in choices:
        raise tw.ArgumentError(
            f"{owner}: {name} = {value!r} is not one of {list(choices)}. "
            f"Fix: {name} = {choices[0]!r}."
        )


def tf_message(err: Exception) -> str:
    """The first line of a TensorFlow error's message, without its op decorations.

    >>> tf_message(ValueError("{{function_node f}} bad value [Op:IteratorGetNext] name: "))
    'bad value'
    """
    text = str(getattr(err, "message", None) or err).splitlines()[0] if str(err) else ""
    text = re.sub(r"\{\{function_node [^}]*\}\}\s*", "", text)
    return text.split(" [Op:")[0].strip()
