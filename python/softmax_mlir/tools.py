"""Locating the project's tools.

``softmax-opt`` is looked up, in order, at

1. the ``SOFTMAX_OPT`` environment variable (a path);
2. ``build/bin/softmax-opt`` then ``build-*/bin/softmax-opt`` in the source
   tree this package lives in (``<repo>/python/softmax_mlir``);
3. ``softmax-opt`` on ``PATH``.

LLVM/MLIR tools (``mlir-runner``, ``mlir-opt``) come from an environment
variable named after the tool (``MLIR_RUNNER``, ``MLIR_OPT``), then
``$LLVM_TOOLS_DIR``, then ``/usr/lib/llvm-22/bin``, then ``PATH``. The
runtime libraries for ``mlir-runner`` come from ``$MLIR_RUNNER_LIBS``
(comma-separated) or the LLVM library directory (``$LLVM_LIB_DIR``, by
default ``/usr/lib/llvm-22/lib``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .errors import ToolNotFoundError

__all__ = [
    "DEFAULT_LLVM_PREFIX",
    "find_llvm_tool",
    "find_softmax_opt",
    "repo_root",
    "runner_libs",
]

DEFAULT_LLVM_PREFIX = Path("/usr/lib/llvm-22")
_RUNNER_LIBS = ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so")


def repo_root() -> Path:
    """The source tree this package was loaded from (``<repo>/python/..``)."""
    return Path(__file__).resolve().parents[2]


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_softmax_opt() -> Path:
    """Path of ``softmax-opt``; raises :class:`ToolNotFoundError`."""
    env = os.environ.get("SOFTMAX_OPT")
    if env:
        p = Path(env)
        if _executable(p):
            return p
        raise ToolNotFoundError(f"SOFTMAX_OPT={env} is not an executable file")
    root = repo_root()
    candidates = [root / "build" / "bin" / "softmax-opt"]
    candidates += sorted(root.glob("build-*/bin/softmax-opt"))
    for p in candidates:
        if _executable(p):
            return p
    found = shutil.which("softmax-opt")
    if found:
        return Path(found)
    raise ToolNotFoundError(
        "softmax-opt not found: set SOFTMAX_OPT, build the project into "
        f"{root / 'build'}, or put softmax-opt on PATH"
    )


def find_llvm_tool(name: str) -> Path:
    """Path of an LLVM/MLIR tool such as ``mlir-runner`` or ``mlir-opt``."""
    env = os.environ.get(name.upper().replace("-", "_"))
    if env:
        p = Path(env)
        if _executable(p):
            return p
        raise ToolNotFoundError(f"{name.upper().replace('-', '_')}={env} is not executable")
    dirs = []
    if os.environ.get("LLVM_TOOLS_DIR"):
        dirs.append(Path(os.environ["LLVM_TOOLS_DIR"]))
    dirs.append(DEFAULT_LLVM_PREFIX / "bin")
    for d in dirs:
        if _executable(d / name):
            return d / name
    found = shutil.which(name)
    if found:
        return Path(found)
    raise ToolNotFoundError(f"{name} not found (looked in {', '.join(map(str, dirs))} and PATH)")


def runner_libs(openmp: bool = False, libdir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Shared libraries ``mlir-runner`` needs for ``printMemref*`` and friends,
    plus LLVM's OpenMP runtime with ``openmp`` (code lowered with
    ``threads != 1``). From ``libdir`` when given, else from
    ``$MLIR_RUNNER_LIBS`` or ``$LLVM_LIB_DIR``."""
    env = None if libdir is not None else os.environ.get("MLIR_RUNNER_LIBS")
    libdir = Path(libdir if libdir is not None
                  else os.environ.get("LLVM_LIB_DIR", DEFAULT_LLVM_PREFIX / "lib"))
    if env:
        libs = [Path(p) for p in env.split(",") if p]
    else:
        libs = [libdir / name for name in _RUNNER_LIBS]
    if openmp:
        libs.append(libdir / "libomp.so")
    return libs
