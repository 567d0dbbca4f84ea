// softmax-raise as a transform script: the raising patterns on every
// function (used by the corpus files that check the transform path too).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%module: !transform.any_op {transform.readonly}) {
    %funcs = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.softmax.raise
    } : !transform.any_op
    transform.yield
  }
}
