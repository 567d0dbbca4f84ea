"""compile(): success, diagnostics as exceptions, pipeline spelling."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

import softmax_mlir as sm
from softmax_mlir import SoftmaxMLIRError

LINALG_SOFTMAX = """
func.func @f(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %e = tensor.empty() : tensor<2x16xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<2x16xf32>)
                                   outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}
"""

DIALECT_SOFTMAX = """
func.func @f(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %e = tensor.empty() : tensor<4x128xf32>
  %y = softmax.softmax ins(%x : tensor<4x128xf32>) outs(%e : tensor<4x128xf32>)
                       dimension(1) masked(zero)
  return %y : tensor<4x128xf32>
}
"""

DIALECT_ATTENTION = """
func.func @f(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x20x16xf32>,
             %v: tensor<1x2x20x16xf32>) -> tensor<1x2x8x16xf32> {
  %e = tensor.empty() : tensor<1x2x8x16xf32>
  %o = softmax.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x20x16xf32>,
                             tensor<1x2x20x16xf32>)
                         outs(%e : tensor<1x2x8x16xf32>) masked(zero) causal
  return %o : tensor<1x2x8x16xf32>
}
"""


def test_compile_roundtrip(softmax_opt: Path) -> None:
    out = sm.compile(DIALECT_SOFTMAX, [])
    assert "softmax.softmax" in out
    assert "masked(zero)" in out


def test_compile_select_algorithm(softmax_opt: Path) -> None:
    out = sm.compile(DIALECT_SOFTMAX, "--softmax-select-algorithm=force=online")
    assert "algorithm(online)" in out
    # The same as a list of bare pass names, and through the named helper.
    assert sm.compile(DIALECT_SOFTMAX, ["softmax-select-algorithm=force=online"]) == out
    assert sm.select_algorithm(DIALECT_SOFTMAX, force="online") == out


def test_compile_textual_pipeline(softmax_opt: Path) -> None:
    out = sm.compile(DIALECT_SOFTMAX, "builtin.module(softmax-select-algorithm{force=exp_pair})")
    assert "algorithm(exp_pair)" in out


def test_raise_linalg(softmax_opt: Path) -> None:
    out = sm.raise_linalg(LINALG_SOFTMAX)
    assert "linalg.softmax" not in out
    assert "softmax.softmax" in out
    assert "masked(nan)" in out


def test_to_cpu_reaches_llvm(softmax_opt: Path) -> None:
    out = sm.to_cpu(DIALECT_SOFTMAX, reduction_tile_size=64)
    assert "llvm.func @f" in out
    assert "softmax." not in out


def test_decompose_attention_along_keys(softmax_opt: Path) -> None:
    out = sm.decompose(DIALECT_ATTENTION, to_state=True, attention_key_tile_size=8)
    assert "softmax.attention" not in out
    assert "scf.for" in out
    assert "softmax.merge" in out
    untiled = sm.decompose(DIALECT_ATTENTION, to_state=True)
    assert "softmax.partial" in untiled
    assert "softmax.merge" not in untiled


def test_three_pass_values_are_the_pipelines(softmax_opt: Path) -> None:
    # Every value the type allows is one softmax-to-cpu accepts, "tiled"
    # included, and the pipeline's own list is the same.
    values = typing.get_args(sm.pipelines.ThreePass)
    assert values == ("auto", "recompute", "reload", "tiled")
    assert sm.pipelines.to_cpu_args(three_pass="tiled") == [
        "--softmax-to-cpu=three-pass=tiled"
    ]
    for value in values:
        out = sm.to_cpu(DIALECT_SOFTMAX, vector_width=4, three_pass=value)
        assert "llvm.func @f" in out, value
    with pytest.raises(
        SoftmaxMLIRError, match="three-pass must be auto, recompute, reload or tiled"
    ):
        sm.to_cpu(DIALECT_SOFTMAX, vector_width=4, three_pass="bogus")  # type: ignore[arg-type]


def test_diagnostic_becomes_exception(softmax_opt: Path) -> None:
    bad = DIALECT_SOFTMAX.replace("dimension(1)", "dimension(5)")
    with pytest.raises(SoftmaxMLIRError) as info:
        sm.compile(bad, [])
    err = info.value
    assert err.returncode not in (None, 0)
    assert "error:" in err.diagnostics
    assert "<stdin>:4:" in err.diagnostics  # the location of the bad op
    assert err.diagnostics.strip() in str(err)


def test_parse_error_becomes_exception(softmax_opt: Path) -> None:
    with pytest.raises(SoftmaxMLIRError, match="custom op 'softmax.nope' is unknown"):
        sm.compile("func.func @f() {\n  softmax.nope\n  return\n}\n", [])


def test_unknown_pass_becomes_exception(softmax_opt: Path) -> None:
    with pytest.raises(SoftmaxMLIRError) as info:
        sm.compile(DIALECT_SOFTMAX, ["--no-such-pass"])
    assert "no-such-pass" in info.value.diagnostics


def test_missing_tool(tmp_path: Path) -> None:
    with pytest.raises(sm.ToolNotFoundError):
        sm.compile(DIALECT_SOFTMAX, [], tool=tmp_path / "nonexistent-opt")


def test_softmax_opt_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SOFTMAX_OPT", str(tmp_path / "missing"))
    with pytest.raises(sm.ToolNotFoundError, match="SOFTMAX_OPT"):
        sm.find_softmax_opt()


def test_pass_flag() -> None:
    assert sm.pass_flag("softmax-to-cpu") == "--softmax-to-cpu"
    assert (
        sm.pass_flag("softmax-decompose", reduction_tile_size=8, to_state=True)
        == "--softmax-decompose=reduction-tile-size=8 to-state=true"
    )
    assert sm.pipeline_args("--a --b=c") == ["--a", "--b=c"]
    assert sm.pipeline_args(["a", "--b"]) == ["--a", "--b"]
    assert sm.pipeline_args("builtin.module(a,b)") == ["--pass-pipeline=builtin.module(a,b)"]


TRANSFORM_TO_CPU = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%m: !transform.any_op {transform.consumed}) {
    %b = transform.apply_registered_pass "softmax-bufferize" to %m
        : (!transform.any_op) -> !transform.any_op
    %ops = transform.structured.match ops{["softmax.softmax"]} in %b
        : (!transform.any_op) -> !transform.any_op
    %loops = transform.softmax.map_to_cpu %ops {vector_width = 4}
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
"""


def test_compile_transform_script(softmax_opt: Path, tmp_path: Path) -> None:
    # The transform ops through softmax-opt: a script maps the op at 4
    # lanes, softmax-to-cpu-after-mapping takes it to LLVM.
    script = tmp_path / "lower.mlir"
    script.write_text(TRANSFORM_TO_CPU)
    mapped = sm.compile(DIALECT_SOFTMAX, [
        f"--transform-preload-library=transform-library-paths={script}",
        "--transform-interpreter"])
    assert "softmax.softmax" not in mapped
    assert "vector_width = 4" in mapped
    out = sm.compile(DIALECT_SOFTMAX, [
        f"--transform-preload-library=transform-library-paths={script}",
        "--transform-interpreter", "--softmax-to-cpu-after-mapping"])
    assert "llvm.func @f" in out
    assert out == sm.compile(DIALECT_SOFTMAX, "--softmax-to-cpu=vector-width=4")
