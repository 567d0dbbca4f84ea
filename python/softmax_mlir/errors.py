"""Exceptions raised by :mod:`softmax_mlir`."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["SoftmaxMLIRError", "ToolNotFoundError"]


class SoftmaxMLIRError(RuntimeError):
    """A tool of the project (softmax-opt, mlir-runner, ...) failed.

    Attributes:
        message: a one-line summary.
        diagnostics: the tool's standard error (MLIR diagnostics such as
            ``<stdin>:3:8: error: ...``), possibly empty.
        returncode: the tool's exit status (``None`` if it never ran).
        command: the command line that failed.
    """

    def __init__(
        self,
        message: str,
        *,
        diagnostics: str = "",
        returncode: int | None = None,
        command: Sequence[str] = (),
    ) -> None:
        self.message = message
        self.diagnostics = diagnostics
        self.returncode = returncode
        self.command = list(command)
        text = message
        if returncode is not None:
            text += f" (exit code {returncode})"
        if diagnostics.strip():
            text += "\n" + diagnostics.rstrip()
        super().__init__(text)


class ToolNotFoundError(SoftmaxMLIRError, FileNotFoundError):
    """A tool could not be located (see :mod:`softmax_mlir.tools`)."""

    def __init__(self, message: str) -> None:
        SoftmaxMLIRError.__init__(self, message)
