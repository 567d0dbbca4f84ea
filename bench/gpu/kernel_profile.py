"""Where a call's GPU time goes: the mean time of each kernel launch a
callable makes, from torch.profiler (CUPTI), so a benchmark can report an
attention kernel, its schedule and its merge apart. The launches of one
function share a kernel name (gpu-kernel-outlining names each kernel
after its function), so they are told apart by their order in the call:
"name#0", "name#1", ..."""

from __future__ import annotations


def kernel_times(go, runs: int = 20) -> dict[str, float]:
    """Runs `go` `runs` times under the profiler after a warm-up; returns
    {kernel name#launch index: mean microseconds}, and "span": the mean
    microseconds from a call's first launch to the end of its last."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    go()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            go()
        torch.cuda.synchronize()
    kernels = sorted((e for e in prof.events()
                      if e.device_type == torch.autograd.DeviceType.CUDA),
                     key=lambda e: e.time_range.start)
    per_call = max(len(kernels) // runs, 1)
    totals: dict[str, float] = {}
    span = 0.0
    for i, e in enumerate(kernels):
        key = f"{e.name}#{i % per_call}"
        totals[key] = totals.get(key, 0.0) + e.device_time
        if i % per_call == per_call - 1:
            # First launch's start to last launch's end: the gaps between
            # the launches of one call too.
            span += e.time_range.end - kernels[i - per_call + 1].time_range.start
    out = {k: v / runs for k, v in totals.items()}
    out["span"] = span / runs
    return out
