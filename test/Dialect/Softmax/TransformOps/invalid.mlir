// RUN: softmax-opt %s -split-input-file -verify-diagnostics
// Attribute values the ops cannot honour are verifier errors that name them.

module attributes {transform.with_named_sequence} {
  transform.named_sequence @bad_target(%ops: !transform.any_op {transform.readonly}) {
    // expected-error @below {{'transform.softmax.select_algorithm' op attribute 'target' failed to satisfy constraint: string attribute whose value is one of cpu, gpu}}
    transform.softmax.select_algorithm %ops {target = "tpu"} : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @bad_force(%ops: !transform.any_op {transform.readonly}) {
    // expected-error @below {{attribute 'force' failed to satisfy constraint: string attribute whose value is one of three_pass, online, exp_pair}}
    transform.softmax.select_algorithm %ops {force = "auto"} : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @l2_gpu(%ops: !transform.any_op {transform.readonly}) {
    // expected-error @below {{'transform.softmax.select_algorithm' op l2_bytes is a parameter of the CPU cost model; it has no effect with target = "gpu" or with force}}
    transform.softmax.select_algorithm %ops {target = "gpu", l2_bytes = 65536} : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @l2_force(%ops: !transform.any_op {transform.readonly}) {
    // expected-error @below {{l2_bytes is a parameter of the CPU cost model}}
    transform.softmax.select_algorithm %ops {force = "online", l2_bytes = 65536} : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @l2_zero(%ops: !transform.any_op {transform.readonly}) {
    // expected-error @below {{attribute 'l2_bytes' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    transform.softmax.select_algorithm %ops {l2_bytes = 0} : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @cpu_width(%ops: !transform.any_op {transform.consumed}) {
    // expected-error @below {{'transform.softmax.map_to_cpu' op attribute 'vector_width' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    %0 = transform.softmax.map_to_cpu %ops {vector_width = 0} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @cpu_unroll(%ops: !transform.any_op {transform.consumed}) {
    // expected-error @below {{attribute 'unroll' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    %0 = transform.softmax.map_to_cpu %ops {unroll = -2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @cpu_l1(%ops: !transform.any_op {transform.consumed}) {
    // expected-error @below {{attribute 'l1_bytes' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    %0 = transform.softmax.map_to_cpu %ops {l1_bytes = -1} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @cpu_three_pass(%ops: !transform.any_op {transform.consumed}) {
    // expected-error @below {{attribute 'three_pass' failed to satisfy constraint: string attribute whose value is one of auto, recompute, reload, tiled}}
    %0 = transform.softmax.map_to_cpu %ops {three_pass = "sometimes"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @cpu_exp(%ops: !transform.any_op {transform.consumed}) {
    // expected-error @below {{attribute 'exp' failed to satisfy constraint: string attribute whose value is one of fast, polynomial}}
    %0 = transform.softmax.map_to_cpu %ops {exp = "libm"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @cpu_width_type(%ops: !transform.any_op {transform.consumed}) {
    // expected-error @below {{attribute 'vector_width' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    %0 = transform.softmax.map_to_cpu %ops {vector_width = "wide"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @gpu_chip(%ops: !transform.any_op {transform.consumed}) {
    // expected-error @below {{'transform.softmax.map_to_gpu' op unknown chip 'sm_70' (expected sm_80, sm_90, sm_90a, gfx90a or gfx942)}}
    %0 = transform.softmax.map_to_gpu %ops {chip = "sm_70"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @gpu_tf32_cdna(%ops: !transform.any_op {transform.consumed}) {
    // expected-error @below {{'transform.softmax.map_to_gpu' op attention-f32-precision=tf32 needs NVIDIA tf32 tensor cores (sm_80, sm_90), not gfx942}}
    %0 = transform.softmax.map_to_gpu %ops {chip = "gfx942", attention_f32_precision = "tf32"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @gpu_precision(%ops: !transform.any_op {transform.consumed}) {
    // expected-error @below {{attribute 'attention_f32_precision' failed to satisfy constraint: string attribute whose value is one of exact, tf32}}
    %0 = transform.softmax.map_to_gpu %ops {attention_f32_precision = "fast"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @gpu_threads(%ops: !transform.any_op {transform.consumed}) {
    // expected-error @below {{attribute 'threads_per_row' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    %0 = transform.softmax.map_to_gpu %ops {threads_per_row = 0} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @gpu_splits(%ops: !transform.any_op {transform.consumed}) {
    // expected-error @below {{attribute 'splits' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    %0 = transform.softmax.map_to_gpu %ops {splits = -1} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @gpu_strategy(%ops: !transform.any_op {transform.consumed}) {
    // expected-error @below {{'transform.softmax.map_to_gpu' op strategy must be a #softmax.gpu_strategy or a #softmax.attention_gpu_strategy, as softmax.strategy takes, not 256 : i64}}
    %0 = transform.softmax.map_to_gpu %ops {strategy = 256} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
