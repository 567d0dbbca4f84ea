#!/usr/bin/env python3
"""Where one linear cross-entropy backward spends its time: each kernel's
start, end and the gaps between them (torch.profiler), beside the call's
wall time from CUDA events.

    python3 bench/gpu/probe/ceg_timeline.py --lib-dir build-gpu/cem2 \
        --name g_8192_2048_128256_sm90a [--inputs flat|zipf] [--calls 3]

The library comes from `bench_cross_entropy_grad.py build`. Prints one
line per kernel of the last profiled call (us from the call's first
kernel), then each call's kernel time, gap time and event time.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import aot  # noqa: E402
from bench_cross_entropy_grad import SHAPES, base_name, make_inputs, ours  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--inputs", default="flat")
    ap.add_argument("--calls", type=int, default=3)
    args = ap.parse_args()
    import torch
    from torch.profiler import ProfilerActivity, profile
    lib = aot.Library(Path(args.lib_dir), "softmax_ceg")
    n, d, v, _ = SHAPES[base_name(args.name)]
    h, w, t, _ = make_inputs(args.inputs, n, d, v, 11)
    fwd, bwd, _ = ours(lib, args.name, h, w, t)
    fwd()
    bwd()
    torch.cuda.synchronize()
    lib.check_error()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for call in range(args.calls):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            start.record()
            bwd()
            end.record()
            torch.cuda.synchronize()
        events = sorted((e for e in prof.events() if e.device_type.name == "CUDA"),
                        key=lambda e: e.time_range.start)
        t0 = events[0].time_range.start
        busy, gaps, last = 0.0, 0.0, None
        for e in events:
            s, f = e.time_range.start, e.time_range.end
            if last is not None and s > last:
                gaps += s - last
            busy += f - s
            last = f if last is None else max(last, f)
            if call == args.calls - 1:
                print(f"{s - t0:10.1f} {f - t0:10.1f} {f - s:9.1f}  {e.name[-40:]}")
        print(f"call {call}: kernels {busy / 1e3:.2f} ms, gaps {gaps / 1e3:.2f} ms, "
              f"events {start.elapsed_time(end):.2f} ms, {len(events)} launches", flush=True)
    lib.check_error()
    return 0


if __name__ == "__main__":
    sys.exit(main())
