#!/usr/bin/env python3
"""Where one linear cross-entropy backward's time goes (H200).

    python3 bench/gpu/probe/ceg_kernels.py --lib-dir build-gpu/ceg2 NAME...

For each kernel name of bench_cross_entropy_grad.py's library: the host
wall time of one backward call (it returns after its last kernel), and
each launch's device time in order (torch.profiler), on the benchmark's
realistic inputs.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import aot  # noqa: E402
from bench_cross_entropy import inputs  # noqa: E402
from bench_cross_entropy_grad import SHAPES, base_name, ours, spec_of  # noqa: E402


def main() -> int:
    import torch
    from torch.profiler import ProfilerActivity, profile
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib-dir", default="build-gpu/ceg")
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    lib = aot.Library(Path(args.lib_dir), "softmax_ceg")
    for name in args.names:
        n, d, v, _ = SHAPES[base_name(name)]
        h, w, t, _ = inputs(spec_of(n, d, v), n, 11, "cuda")
        fwd, bwd, _ = ours(lib, name, h, w, t)
        fwd()
        for _ in range(3):
            bwd()
        torch.cuda.synchronize()
        walls = []
        for _ in range(5):
            t0 = time.perf_counter()
            bwd()
            walls.append((time.perf_counter() - t0) * 1e3)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            bwd()
            torch.cuda.synchronize()
        launches = [(e.name, e.device_time) for e in prof.events()
                    if e.device_type.name == "CUDA"]
        print(f"{name}: host wall ms {', '.join(f'{x:.2f}' for x in walls)}; "
              f"{len(launches)} launches, device sum {sum(x for _, x in launches) / 1e3:.2f} ms")
        print("  us in order:", ", ".join(f"{x:.0f}" for _, x in launches))
        lib.check_error()
    return 0


if __name__ == "__main__":
    sys.exit(main())
