"""Lucene's document-length norms: the one-byte encoding ``BM25Similarity`` stores and scores.

Lucene keeps each document's length in one byte (``org.apache.lucene.util.SmallFloat``,
``intToByte4``/``byte4ToInt``) and scores with a 256-entry table of ``1 / (k1 * (1 - b + b *
length / avgdl))`` in float32 (``BM25Similarity.BM25Scorer``). Pyserini's BM25 scores are these.
"""

from __future__ import annotations

import numpy as np

_FREE = 24  # SmallFloat's NUM_FREE_VALUES = 255 - longToInt4(Integer.MAX_VALUE)


def lucene_norm_bytes(length: np.ndarray) -> np.ndarray:
    """Lucene's one-byte encoding of document lengths (``SmallFloat.intToByte4``): exact below
    24, then 4 significant bits (716 is stored as 664)."""
    length = np.asarray(length, dtype=np.int64)
    value = np.maximum(length - _FREE, 0)
    bits = np.zeros(len(value), dtype=np.int64)  # bit length of each value
    for k in range(32):
        bits += (value >> k) > 0
    shift = np.maximum(bits - 4, 0)
    normal = (((value >> shift) & 0x07) | ((shift + 1) << 3)).astype(np.int64)
    encoded = np.where(bits < 4, value, normal)
    return np.where(length < _FREE, length, _FREE + encoded).astype(np.uint8)


def lucene_norm_lengths() -> np.ndarray:
    """The length each of the 256 norm bytes stands for (``SmallFloat.byte4ToInt``)."""
    i = np.arange(256, dtype=np.int64) - _FREE
    bits, shift = i & 0x07, (i >> 3) - 1
    decoded = np.where(shift == -1, bits, (bits | 0x08) << np.maximum(shift, 0))
    return np.where(np.arange(256) < _FREE, np.arange(256), _FREE + decoded)


def norm_inverse(k1: float, b: float, avgdl: float) -> np.ndarray:
    """Lucene's ``1 / (k1 * ((1 - b) + b * length / avgdl))`` per norm byte, in float32."""
    f32 = np.float32
    lengths = lucene_norm_lengths().astype(np.float32)
    k1_, b_, avgdl_ = f32(k1), f32(b), f32(avgdl)
    return (f32(1) / (k1_ * ((f32(1) - b_) + b_ * lengths / avgdl_))).astype(np.float32)
