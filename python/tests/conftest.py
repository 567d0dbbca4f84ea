"""Make ``softmax_mlir`` importable from the source tree and skip the tool
tests when softmax-opt has not been built."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from softmax_mlir import ToolNotFoundError, find_llvm_tool, find_softmax_opt  # noqa: E402


@pytest.fixture(scope="session")
def softmax_opt() -> Path:
    try:
        return find_softmax_opt()
    except ToolNotFoundError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="session")
def mlir_runner() -> Path:
    try:
        return find_llvm_tool("mlir-runner")
    except ToolNotFoundError as e:
        pytest.skip(str(e))
