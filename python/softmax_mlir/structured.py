"""Attention inputs with the structure that makes key tiles skippable.

Random Gaussian queries and keys give rows whose scores all lie within a few
units of each other: no key tile is ever negligible, and a test of a skip
threshold on them passes without skipping anything. Trained models' attention
is peaked instead; this generator builds Q and K from three parts that model
what trained heads are known to do, each on its own dimensions of the head:

* **sinks**: the first ``sinks`` keys share one direction that every query
  also has, so every row puts a large score on them (the attention sinks of
  StreamingLLM, arXiv 2309.17453). They set a high running max in the first
  key tile, against which later tiles are tested.
* **band**: positions encoded on ``2 * band_freqs`` dimensions as cos/sin
  pairs of a few frequencies (as rotary embeddings do), so that
  ``<q_i, k_j>`` has a peak at ``j = i`` (bottom-right aligned) and decays
  with ``|i - j|``: a local band.
* **topics**: the keys come in contiguous segments of ``segment`` keys, each
  segment near one of ``topics`` random unit directions; each query mixes
  the topic of its own position with a random one. Rows then also attend to
  far segments of their topics.

``peak`` multiplies every part of the queries: the larger, the more peaked
the rows (the scores' spread grows with it) and the more tiles fall below a
threshold. ``noise`` is Gaussian noise on every element. Values come out in
float32; V is standard normal.

The function is deterministic in its ``rng``.
"""

from __future__ import annotations

import numpy as np


def structured_qkv(rng: np.random.Generator, b: int, h: int, hkv: int,
                   nq: int, nk: int, d: int, dv: int, *, peak: float = 1.0,
                   sinks: int = 4, band_freqs: int | None = None,
                   segment: int = 64, topics: int = 8, noise: float = 0.05):
    """Returns (q [b, h, nq, d], k [b, hkv, nk, d], v [b, hkv, nk, dv]), all
    float32. ``d`` must be at least ``2 + 2 * band_freqs + 1``; by default
    ``band_freqs`` is 16, or fewer where ``d`` leaves a quarter of it."""
    if band_freqs is None:
        band_freqs = max(1, min(16, (d - 3) // 4))
    band_dims = 2 * band_freqs
    if d < 2 + band_dims + 1:
        raise ValueError(f"head dimension {d} leaves no room for the topics "
                         f"(needs at least {3 + band_dims})")
    topic_dims = d - 2 - band_dims
    group = h // hkv
    # Key positions 0..nk-1; query i sits at nk - nq + i (bottom right).
    kpos = np.arange(nk, dtype=np.float64)
    qpos = np.arange(nq, dtype=np.float64) + (nk - nq)
    # Periods from 4 keys to twice the sequence, in geometric steps (as
    # rotary embeddings space theirs): the cosines then agree only near
    # j = i, and the band decays with |i - j|. (Periods of 4 to 32 in powers
    # of two, the first version, peak again at every multiple of 32.) The
    # sum's peak is 6 whatever the count, the same as the sinks' score.
    span = max(2.0 * max(nk, nq), 8.0)
    steps = np.arange(band_freqs) / max(band_freqs - 1, 1)
    freqs = 2 * np.pi / (4.0 * (span / 4.0) ** steps)
    amp = 6.0 / band_freqs
    q = np.zeros((b, h, nq, d))
    k = np.zeros((b, hkv, nk, d))
    for bi in range(b):
        for g in range(hkv):
            # Sinks: dimension 0 (dimension 1 is left for the noise).
            k[bi, g, :sinks, 0] = 3.0
            # Band.
            k[bi, g, :, 2:2 + band_freqs] = np.cos(np.outer(kpos, freqs))
            k[bi, g, :, 2 + band_freqs:2 + band_dims] = np.sin(np.outer(kpos, freqs))
            # Topics: one unit direction per segment.
            centers = rng.standard_normal((topics, topic_dims))
            centers /= np.linalg.norm(centers, axis=1, keepdims=True)
            seg_topic = rng.integers(topics, size=(nk + segment - 1) // segment)
            key_topic = seg_topic[np.arange(nk) // segment] if nk else seg_topic[:0]
            k[bi, g, :, 2 + band_dims:] = 2.0 * centers[key_topic]
            for r in range(group):
                hi = g * group + r
                q[bi, hi, :, 0] = 2.0
                q[bi, hi, :, 2:2 + band_freqs] = amp * np.cos(np.outer(qpos, freqs))
                q[bi, hi, :, 2 + band_freqs:2 + band_dims] = amp * np.sin(np.outer(qpos, freqs))
                own = (seg_topic[np.minimum(qpos.astype(np.int64), max(nk - 1, 0))
                                 // segment] if nk else rng.integers(topics, size=nq))
                other = rng.integers(topics, size=nq)
                q[bi, hi, :, 2 + band_dims:] = 1.5 * (centers[own] + 0.5 * centers[other])
    q = q * peak * np.sqrt(d) / 4.0
    q += noise * rng.standard_normal(q.shape)
    k += noise * rng.standard_normal(k.shape)
    v = rng.standard_normal((b, hkv, nk, dv))
    return q.astype(np.float32), k.astype(np.float32), v.astype(np.float32)
