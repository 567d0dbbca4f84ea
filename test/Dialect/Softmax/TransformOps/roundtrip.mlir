// RUN: softmax-opt %s | softmax-opt | FileCheck %s
// Every op of the extension parses and prints back; attributes left out keep
// their defaults and are not printed.

// CHECK-LABEL: transform.named_sequence @all
// CHECK: transform.softmax.select_algorithm %{{.*}} : !transform.any_op
// CHECK: transform.softmax.select_algorithm %{{.*}} {l2_bytes = 65536 : i64} : !transform.any_op
// CHECK: transform.softmax.select_algorithm %{{.*}} {target = "gpu"} : !transform.any_op
// CHECK: transform.softmax.select_algorithm %{{.*}} {force = "exp_pair"} : !transform.any_op
// CHECK: transform.softmax.map_to_cpu %{{.*}} : (!transform.any_op) -> !transform.any_op
// CHECK: transform.softmax.map_to_cpu %{{.*}} {block = 4 : i64, exp = "polynomial", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, three_pass = "reload", unroll = 2 : i64, vector_width = 8 : i64} : (!transform.any_op) -> !transform.op<"scf.parallel">
// CHECK: transform.softmax.map_to_gpu %{{.*}} : (!transform.any_op) -> !transform.any_op
// CHECK: transform.softmax.map_to_gpu %{{.*}} {attention_buffers = 2 : i64, attention_f32_precision = "tf32", attention_rows_per_warp = 32 : i64, cached_vectors = 2 : i64, chip = "sm_80", rows_per_block = 1 : i64, splits = 1 : i64, strategy = #softmax.gpu_strategy<threads_per_row = 512>, threads_per_row = 256 : i64, vector_width = 4 : i64} : (!transform.any_op) -> !transform.op<"gpu.launch">
// CHECK: transform.softmax.split_attention_keys %{{.*}} : (!transform.any_op) -> !transform.any_op
// CHECK: transform.softmax.split_attention_keys %{{.*}} {min_keys_per_split = 64 : i64, parallel_units = 16 : i64, rows_per_block = 16 : i64, splits = 4 : i64} : (!transform.any_op) -> !transform.op<"softmax.attention">
// CHECK: transform.apply_patterns to %{{.*}} {
// CHECK-NEXT:   transform.apply_patterns.softmax.raise
// CHECK-NEXT:   transform.apply_patterns.softmax.decompose
// CHECK-NEXT:   transform.apply_patterns.softmax.state_to_linalg
// CHECK-NEXT: } : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @all(%root: !transform.any_op {transform.consumed}) {
    %ops = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.softmax.select_algorithm %ops {target = "cpu"} : !transform.any_op
    transform.softmax.select_algorithm %ops {l2_bytes = 65536} : !transform.any_op
    transform.softmax.select_algorithm %ops {target = "gpu"} : !transform.any_op
    transform.softmax.select_algorithm %ops {force = "exp_pair"} : !transform.any_op
    %a = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %0 = transform.softmax.map_to_cpu %a : (!transform.any_op) -> !transform.any_op
    %b = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %1 = transform.softmax.map_to_cpu %b {vector_width = 8, unroll = 2, block = 4,
        three_pass = "reload", l1_bytes = 32768, l2_bytes = 1048576,
        exp = "polynomial"} : (!transform.any_op) -> !transform.op<"scf.parallel">
    %c = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %2 = transform.softmax.map_to_gpu %c : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %3 = transform.softmax.map_to_gpu %d {chip = "sm_80", threads_per_row = 256,
        rows_per_block = 1, vector_width = 4, cached_vectors = 2, splits = 1,
        attention_rows_per_warp = 32, attention_buffers = 2,
        attention_f32_precision = "tf32",
        strategy = #softmax.gpu_strategy<threads_per_row = 512>} : (!transform.any_op) -> !transform.op<"gpu.launch">
    %g = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %4 = transform.softmax.split_attention_keys %g : (!transform.any_op) -> !transform.any_op
    %h = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %5 = transform.softmax.split_attention_keys %h {splits = 4, parallel_units = 16,
        rows_per_block = 16, min_keys_per_split = 64} : (!transform.any_op) -> !transform.op<"softmax.attention">
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.softmax.raise
      transform.apply_patterns.softmax.decompose
      transform.apply_patterns.softmax.state_to_linalg
    } : !transform.any_op
    transform.yield
  }
}
