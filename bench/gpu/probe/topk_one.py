"""Calls one softmax.topk kernel a few times on Gaussian bf16 rows, for
ncu (bench/gpu/probe/topk_ncu.sh):

    python3 bench/gpu/probe/topk_one.py --lib-dir build-gpu/topk --rows 256 --k 50
"""

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_topk import Ours  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib-dir", default="build-gpu/topk")
    ap.add_argument("--rows", type=int, default=256)
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--vocab", type=int, default=128256)
    ap.add_argument("--calls", type=int, default=5)
    args = ap.parse_args()
    ours = Ours(Path(args.lib_dir))
    gen = torch.Generator(device="cuda").manual_seed(1)
    x = (torch.randn(args.rows, args.vocab, device="cuda", generator=gen) * 3.0).to(torch.bfloat16)
    p = torch.empty(args.rows, args.k, device="cuda")
    i = torch.empty(args.rows, args.k, dtype=torch.int64, device="cuda")
    run, _ = ours.call(f"topk_bf16_{args.vocab}_k{args.k}", x, p, i)
    for _ in range(args.calls):
        run()
    torch.cuda.synchronize()
    ours.check_error()
    return 0


if __name__ == "__main__":
    sys.exit(main())
