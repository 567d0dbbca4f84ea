#!/usr/bin/env python3
"""Checks the rows that examples/softmax.mlir prints against float64.

Reads mlir-runner's output on stdin, recomputes the softmax of the same
logits in float64 and prints the largest relative error per row (max |y -
ref| / max |ref|, the printed values having 6 significant digits).
"""

from __future__ import annotations

import re
import sys

import numpy as np

LOGITS = np.array(
    [
        [0.5, -1.25, 3.0, 2.0, -0.75, 1.5, 0.25, -2.0, 1.0, 0.0, 2.5],
        [1.0e4, -1.0e4, 9999.5, 1.0e4, -9999.0, 9998.0, 0.0, -1.0, 1.0, 9997.0, 10000.25],
        [-np.inf, 1.0, -np.inf, 2.0, 3.0, -np.inf, -1.0, 0.5, -np.inf, 4.0, -3.0],
        [88.0, -88.0, 1.0e-3, -1.0e-3, 40.0, 87.5, -40.0, 3.0e-7, 86.0, 0.0, 85.25],
    ],
    dtype=np.float32,
).astype(np.float64)


def main() -> int:
    text = sys.stdin.read()
    sys.stdout.write(text)
    rows = [
        [float(v) for v in re.findall(r"[-+0-9.e]+|nan|-?inf", line)]
        for line in re.findall(r"\[([^\[\]]+)\]", text.split("data =", 1)[-1])
    ]
    got = np.array(rows, dtype=np.float64)
    shifted = LOGITS - LOGITS.max(axis=1, keepdims=True)
    ref = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    worst = 0.0
    for i, (g, r) in enumerate(zip(got, ref)):
        err = float(np.max(np.abs(g - r)) / np.max(np.abs(r)))
        worst = max(worst, err)
        print(f"row {i}: max relative error vs float64 = {err:.2e}")
    # 6 printed digits bound the agreement at ~5e-6.
    ok = worst <= 1e-5
    print("demo check:", "OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
