#!/usr/bin/env python3
"""Trains a small byte-level transformer language model on a GPU and
captures its attention inputs (per-layer Q, K, V after the rotary embedding)
on long held-out sequences, for the skip-threshold tests and benchmarks.

Corpus: the Python standard library sources of Debian 12
(/usr/lib/python3.11/**/*.py from the packages libpython3.11-minimal and
libpython3.11-stdlib), packed by the caller into a .tar.xz; the files are
concatenated in sorted path order, the last 5% held out. Bytes are the
tokens (256 of them).

Model: ``layers`` pre-norm blocks (RMSNorm, causal multi-head attention
with rotary positions on every head dimension, a GELU MLP of 4x width),
tied input/output embeddings, trained with AdamW in bf16 autocast at
``train_len`` tokens for ``minutes`` minutes.

Outputs (under --out):
* ``capture_L{n}.npz`` (under --scratch, they are large): for every layer,
  q, k, v [H, n, d] float16 of one held-out sequence of n tokens (n in
  --capture-lens);
* ``samples/``: small float16 .npy slices for the tests (two heads of two
  layers, the first ``sample_len`` tokens);
* ``train.json``: the configuration, the loss curve and the held-out loss;
* ``sparsity.json``: tile sparsity and output error of the skip rule on the
  captures at a few thresholds (torch, float64 on the GPU), the reference
  numbers the kernels' benchmark is compared with.
"""

from __future__ import annotations

import argparse
import json
import os
import tarfile
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from skip_rule import emulate


def load_corpus(path: str) -> bytes:
    with tarfile.open(path, "r:xz") as tar:
        members = sorted((m for m in tar.getmembers() if m.isfile()), key=lambda m: m.name)
        return b"".join(tar.extractfile(m).read() + b"\n" for m in members)


def rotary(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """x [B, H, N, d]: rotate pairs (2i, 2i+1) by position * base^(-2i/d)."""
    n, d = x.shape[-2], x.shape[-1]
    inv = base ** (-torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d)
    ang = torch.arange(n, device=x.device, dtype=torch.float32)[:, None] * inv[None, :]
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)
    return out.flatten(-2)


class Block(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.n1 = nn.RMSNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = nn.Linear(dim, dim, bias=False)
        self.n2 = nn.RMSNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim, bias=False), nn.GELU(),
                                 nn.Linear(4 * dim, dim, bias=False))

    def qkv_of(self, x):
        b, n, dim = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, n, 3, self.heads, dim // self.heads) \
            .permute(2, 0, 3, 1, 4)
        return rotary(q), rotary(k), v

    def forward(self, x, capture=None):
        q, k, v = self.qkv_of(x)
        if capture is not None:
            capture.append((q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        b, h, n, d = a.shape
        x = x + self.proj(a.transpose(1, 2).reshape(b, n, h * d))
        return x + self.mlp(self.n2(x))


class LM(nn.Module):
    def __init__(self, dim: int, heads: int, layers: int):
        super().__init__()
        self.emb = nn.Embedding(256, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.norm = nn.RMSNorm(dim)

    def forward(self, tokens, capture=None):
        x = self.emb(tokens)
        for blk in self.blocks:
            x = blk(x, capture)
        return self.norm(x) @ self.emb.weight.T


def skip_stats(q, k, v, lam: float, qt: int, kt: int, rows: int):
    """The op's skip rule (causal, bottom-right = top-left here as Nq = Nk)
    on the last `rows` query rows of one head, float64: (live pairs,
    skipped pairs, max output error / max |dense|)."""
    dense, out, live, skipped, _ = emulate(q, k, v, True, lam, qt, kt, k.shape[0] - rows)
    return live, skipped, float((out - dense).abs().max() / dense.abs().max())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--scratch", default=None,
                    help="where the full captures go (default: --out)")
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--dim", type=int, default=512)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--train-len", type=int, default=8192)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--capture-lens", default="16384,32768,65536")
    ap.add_argument("--sample-len", type=int, default=512)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--no-stats", action="store_true",
                    help="write the captures and samples only, not sparsity.json "
                         "(for a run that benchmarks the kernels on the captures)")
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, "samples"), exist_ok=True)
    torch.manual_seed(args.seed)
    dev = "cuda"
    data = np.frombuffer(load_corpus(args.corpus), dtype=np.uint8)
    split = int(len(data) * 0.95)
    train = torch.from_numpy(data[:split].astype(np.int64)).to(dev)
    held = torch.from_numpy(data[split:].astype(np.int64)).to(dev)
    model = LM(args.dim, args.heads, args.layers).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
    gen = torch.Generator(device=dev).manual_seed(args.seed)
    losses, step, t0 = [], 0, time.time()
    while time.time() - t0 < args.minutes * 60:
        lr = 1e-3 * min(1.0, (step + 1) / 100)
        for g in opt.param_groups:
            g["lr"] = lr
        starts = torch.randint(0, len(train) - args.train_len - 1, (args.batch,),
                               device=dev, generator=gen)
        idx = starts[:, None] + torch.arange(args.train_len + 1, device=dev)[None, :]
        chunk = train[idx]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(chunk[:, :-1])
            loss = F.cross_entropy(logits.float().view(-1, 256), chunk[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 50 == 0:
            losses.append((step, round(time.time() - t0, 1), float(loss)))
            print(f"step {step} t {time.time() - t0:.0f}s loss {float(loss):.3f}", flush=True)
        step += 1
    model.eval()
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        hl = held[: args.train_len + 1][None]
        held_loss = float(F.cross_entropy(model(hl[:, :-1]).float().view(-1, 256),
                                          hl[0, 1:]))
    print(f"held-out loss {held_loss:.3f} nats/byte after {step} steps")
    json.dump({"args": vars(args), "steps": step, "losses": losses,
               "held_out_loss_nats_per_byte": held_loss,
               "params": sum(p.numel() for p in model.parameters())},
              open(os.path.join(args.out, "train.json"), "w"), indent=1)

    stats = []
    lens = [int(x) for x in args.capture_lens.split(",")]
    # Held-out text (5% of 13 MB) covers the longest capture; past it, the
    # training text continues.
    pool = torch.cat([held, train])
    scratch = args.scratch or args.out
    os.makedirs(scratch, exist_ok=True)
    for n in lens:
        cap = []
        with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
            model(pool[:n][None], capture=cap)
        arrays = {}
        for li, (q, k, v) in enumerate(cap):
            arrays[f"q{li}"] = q[0].half().cpu().numpy()
            arrays[f"k{li}"] = k[0].half().cpu().numpy()
            arrays[f"v{li}"] = v[0].half().cpu().numpy()
        np.savez(os.path.join(scratch, f"capture_L{n}.npz"), **arrays)
        if n == lens[0]:
            for li in (1, args.layers - 1):
                for name in "qkv":
                    a = arrays[f"{name}{li}"][:2, : args.sample_len]
                    np.save(os.path.join(args.out, "samples", f"{name}_layer{li}.npy"), a)
        for li, (q, k, v) in enumerate([] if args.no_stats else cap):
            for hh in range(q.shape[1]):
                for lam in (1e-4, 1e-3, 1e-2):
                    for qt, kt in ((1, 16), (64, 64)):
                        live, sk, err = skip_stats(q[0, hh].float(), k[0, hh].float(),
                                                   v[0, hh].float(), lam, qt, kt,
                                                   rows=min(n, 1024))
                        stats.append({"len": n, "layer": li, "head": hh, "lambda": lam,
                                      "tile": [qt, kt], "live": live, "skipped": sk,
                                      "sparsity": sk / max(live, 1), "rel_err": err})
        del cap
    if args.no_stats:
        return
    json.dump(stats, open(os.path.join(args.out, "sparsity.json"), "w"), indent=0)
    # The summary table: mean sparsity and worst error over heads and layers.
    print("len  tile     lambda  sparsity(mean) rel_err(max)")
    for n in lens:
        for qt, kt in ((1, 16), (64, 64)):
            for lam in (1e-4, 1e-3, 1e-2):
                sel = [s for s in stats if s["len"] == n and s["tile"] == [qt, kt]
                       and s["lambda"] == lam]
                print(f"{n:5d} [{qt},{kt}] {lam:8.0e} {np.mean([s['sparsity'] for s in sel]):.3f}"
                      f"          {max(s['rel_err'] for s in sel):.2e}")


if __name__ == "__main__":
    main()
