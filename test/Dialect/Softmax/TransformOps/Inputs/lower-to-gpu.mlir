// The stages of softmax-to-nvvm and softmax-to-rocdl up to the mapping,
// as a transform script (gpu-end-to-end-nvvm.mlir, gpu-end-to-end-rocdl.mlir):
// raise, choose the algorithms with the GPU cost model, bufferize
// (@prepare), then map onto kernels for sm_90 (entry point @nvvm) or
// gfx942 (@rocdl).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @prepare(%module: !transform.any_op {transform.consumed})
      -> !transform.any_op {
    %funcs = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.softmax.raise
    } : !transform.any_op
    %semantic = transform.structured.match
        ops{["softmax.softmax", "softmax.log_softmax", "softmax.logsumexp"]}
        in %module : (!transform.any_op) -> !transform.any_op
    transform.softmax.select_algorithm %semantic {target = "gpu"}
        : !transform.any_op
    %bufferized = transform.apply_registered_pass "softmax-bufferize"
        to %module : (!transform.any_op) -> !transform.any_op
    %ops = transform.structured.match
        ops{["softmax.softmax", "softmax.log_softmax", "softmax.logsumexp",
             "softmax.attention"]}
        in %bufferized : (!transform.any_op) -> !transform.any_op
    transform.yield %ops : !transform.any_op
  }

  transform.named_sequence @nvvm(%module: !transform.any_op {transform.consumed}) {
    %ops = transform.include @prepare failures(propagate) (%module)
        : (!transform.any_op) -> !transform.any_op
    %launches = transform.softmax.map_to_gpu %ops {chip = "sm_90"}
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }

  transform.named_sequence @rocdl(%module: !transform.any_op {transform.consumed}) {
    %ops = transform.include @prepare failures(propagate) (%module)
        : (!transform.any_op) -> !transform.any_op
    %launches = transform.softmax.map_to_gpu %ops {chip = "gfx942"}
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
