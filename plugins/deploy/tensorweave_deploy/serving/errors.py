"""The errors of ``tensorweave serve``: ``ServeError`` before the server starts (a model that
cannot be served, a format that is not installed), ``RequestError`` for one bad request
(its HTTP status and a message saying what to send; the server answers it and stays up).

>>> err = RequestError(413, "too many instances")
>>> err.status, str(err)
(413, 'too many instances')
"""

from __future__ import annotations

import tensorweave as tw

__all__ = ["ServeError", "RequestError"]


class ServeError(tw.TensorweaveError):
    """A model ``tensorweave serve`` cannot serve as asked (exit code 2: fix the command)."""

    exit_code = 2


class RequestError(tw.TensorweaveError):
    """One request the server refuses: ``status`` (4xx) and what to send instead."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
