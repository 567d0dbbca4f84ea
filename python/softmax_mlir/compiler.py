"""Running ``softmax-opt`` (or another ``*-opt`` tool) on IR text."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Sequence

from .errors import SoftmaxMLIRError, ToolNotFoundError
from .tools import find_softmax_opt

__all__ = ["Pipeline", "compile", "pass_flag", "pipeline_args", "run_tool"]

#: A pipeline: a textual pass pipeline (``"builtin.module(softmax-raise)"``),
#: a string of command-line flags (``"--softmax-raise --softmax-to-cpu"``),
#: or a list of passes, each a flag (``"--softmax-to-cpu=reduction-tile-size=64"``)
#: or a bare pass name with optional options (``"softmax-raise"``,
#: ``"softmax-to-cpu=reduction-tile-size=64"``).
Pipeline = str | Sequence[str]


def pass_flag(name: str, **options: object) -> str:
    """The command-line flag running pass ``name`` with ``options``.

    Option names may use underscores for dashes; booleans print as
    ``true``/``false``; ``None`` values are left out::

        >>> pass_flag("softmax-to-cpu", reduction_tile_size=64)
        '--softmax-to-cpu=reduction-tile-size=64'
    """
    opts = []
    for key, value in options.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        opts.append(f"{key.replace('_', '-')}={value}")
    return f"--{name}" + ("=" + " ".join(opts) if opts else "")


def pipeline_args(pipeline: Pipeline) -> list[str]:
    """Command-line arguments for ``pipeline`` (see :data:`Pipeline`)."""
    if isinstance(pipeline, str):
        text = pipeline.strip()
        if not text:
            return []
        if not text.startswith("-") and "(" in text:
            return [f"--pass-pipeline={text}"]
        return [a if a.startswith("-") else f"--{a}" for a in shlex.split(text)]
    return [p if p.startswith("-") else f"--{p}" for p in pipeline if p]


def run_tool(
    command: Sequence[str | os.PathLike[str]],
    input_text: str,
    *,
    what: str,
    timeout: float | None = None,
) -> str:
    """Run ``command`` with ``input_text`` on stdin; return stdout.

    Raises :class:`SoftmaxMLIRError` with the tool's stderr when it exits
    with a non-zero status or times out, :class:`ToolNotFoundError` when it
    cannot be started.
    """
    cmd = [os.fspath(c) for c in command]
    try:
        proc = subprocess.run(
            cmd, input=input_text, capture_output=True, text=True, timeout=timeout
        )
    except FileNotFoundError as e:
        raise ToolNotFoundError(f"cannot run {cmd[0]}: {e}") from e
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        raise SoftmaxMLIRError(
            f"{what} timed out after {timeout}s", diagnostics=err, command=cmd
        ) from e
    if proc.returncode != 0:
        raise SoftmaxMLIRError(
            f"{what} failed",
            diagnostics=proc.stderr,
            returncode=proc.returncode,
            command=cmd,
        )
    return proc.stdout


def compile(  # noqa: A001 - the public name the project asked for
    ir: str,
    pipeline: Pipeline,
    tool: str | os.PathLike[str] | None = None,
    *,
    extra_args: Sequence[str] = (),
    timeout: float | None = None,
) -> str:
    """Run ``pipeline`` on the module ``ir`` and return the resulting IR text.

    Args:
        ir: MLIR module in textual (or generic) form.
        pipeline: passes to run, see :data:`Pipeline`.
        tool: the ``*-opt`` driver; default: ``softmax-opt`` as found by
            :func:`softmax_mlir.tools.find_softmax_opt`.
        extra_args: more command-line arguments (e.g. ``["--mlir-print-debuginfo"]``).
        timeout: seconds before the tool is killed.

    Raises:
        SoftmaxMLIRError: the tool failed; ``diagnostics`` holds its error
            messages, ``returncode`` its exit status.
    """
    exe = os.fspath(tool) if tool is not None else os.fspath(find_softmax_opt())
    cmd = [exe, "-", *pipeline_args(pipeline), *extra_args]
    return run_tool(cmd, ir, what=os.path.basename(exe), timeout=timeout)
