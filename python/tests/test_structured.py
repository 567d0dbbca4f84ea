"""softmax_mlir.structured: shapes, determinism, and the structure it is
for (peaked rows: the max score stands far above most tiles' maxima)."""

from __future__ import annotations

import numpy as np
import pytest

from softmax_mlir.structured import structured_qkv


def test_shapes_and_determinism():
    a = structured_qkv(np.random.default_rng(7), 2, 4, 2, 33, 100, 32, 16)
    b = structured_qkv(np.random.default_rng(7), 2, 4, 2, 33, 100, 32, 16)
    assert [x.shape for x in a] == [(2, 4, 33, 32), (2, 2, 100, 32), (2, 2, 100, 16)]
    assert all(x.dtype == np.float32 for x in a)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_peak_spreads_the_scores():
    def tile_gap(peak):
        q, k, _ = structured_qkv(np.random.default_rng(1), 1, 1, 1, 64, 1024, 32, 16, peak=peak)
        s = q[0, 0] @ k[0, 0].T / np.sqrt(32)
        tiles = s.reshape(64, 64, 16).max(axis=-1)  # 64 key tiles of 16
        # How far the median tile's max sits below the row max.
        return float(np.median(s.max(axis=-1, keepdims=True) - tiles))
    assert tile_gap(8.0) > 4 * tile_gap(1.0)
    assert tile_gap(8.0) > 6.9  # below ln(1e-3): such tiles skip at lambda 1e-3


def test_head_dim_too_small():
    with pytest.raises(ValueError, match="head dimension 8"):
        structured_qkv(np.random.default_rng(0), 1, 1, 1, 4, 4, 8, 8, band_freqs=4)


def test_band_is_local():
    # The band's scores peak at j = i and stay well below the peak away from
    # it (the first version's periods of 4-32 keys peaked again every 32).
    n, f = 1024, 16
    q, k, _ = structured_qkv(np.random.default_rng(3), 1, 1, 1, n, n, 128, 16,
                             noise=0.0)
    band = slice(2, 2 + 2 * f)
    s = q[0, 0][:, band].astype(np.float64) @ k[0, 0][:, band].T.astype(np.float64)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    diag = s[i == j]
    far = np.where(np.abs(i - j) > 64, s, -np.inf).max(axis=1)
    assert np.all(far < 0.6 * diag)
