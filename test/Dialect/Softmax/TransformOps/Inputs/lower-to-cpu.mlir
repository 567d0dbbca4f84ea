// The stages of softmax-to-cpu{vector-width=8} up to the mapping, as a
// transform script (cpu-end-to-end.mlir): raise, decompose what the vector
// mapping does not take (here the f64 softmax), choose the algorithms with
// the CPU cost model, bufferize, cse, map onto vector loops.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%module: !transform.any_op {transform.consumed}) {
    %funcs = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.softmax.raise
    } : !transform.any_op
    %f64 = transform.structured.match ops{["func.func"]}
        attributes{sym_name = "softmax_f64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f64 {
      transform.apply_patterns.softmax.decompose
      transform.apply_patterns.softmax.state_to_linalg
    } : !transform.any_op
    %semantic = transform.structured.match
        ops{["softmax.softmax", "softmax.log_softmax", "softmax.logsumexp"]}
        in %module : (!transform.any_op) -> !transform.any_op
    transform.softmax.select_algorithm %semantic {target = "cpu"}
        : !transform.any_op
    %bufferized = transform.apply_registered_pass "softmax-bufferize"
        to %module : (!transform.any_op) -> !transform.any_op
    %cleaned = transform.apply_registered_pass "cse" to %bufferized
        : (!transform.any_op) -> !transform.any_op
    %ops = transform.structured.match
        ops{["softmax.softmax", "softmax.log_softmax", "softmax.logsumexp",
             "softmax.attention"]}
        in %cleaned : (!transform.any_op) -> !transform.any_op
    %loops = transform.softmax.map_to_cpu %ops {vector_width = 8}
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
