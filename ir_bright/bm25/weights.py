"""Document-side BM25 weights: exact lengths in float64 (gensim's ``LuceneBM25Model``, the
paper's code) or Lucene's ``BM25Similarity`` (one-byte lengths, float32, as Pyserini).

Both use Lucene's idf, ln(1 + (N - df + 0.5) / (df + 0.5)), and the term weight
idf * tf / (tf + k1 * (1 - b + b * dl / avgdl)).
"""

from __future__ import annotations

import numpy as np

from .lucene import lucene_norm_bytes, norm_inverse
from .params import BM25Params


class DocumentWeights:
    """The weight of each posting, given every document's length."""

    def __init__(self, params: BM25Params, length: np.ndarray) -> None:
        self.params = params
        self.length = length
        if params.lucene_norms:
            self.num_docs = int(np.count_nonzero(length))  # Lucene's docCount: non-empty ones
            self.avgdl = float(np.float32(length.sum() / max(self.num_docs, 1)))
            self.norm_byte = lucene_norm_bytes(length)
            self.norm_inverse = norm_inverse(params.k1, params.b, self.avgdl)
        else:
            self.num_docs = len(length)
            self.avgdl = float(length.sum() / self.num_docs) or 1.0
            k1, b = params.k1, params.b
            self.norm = k1 * (1 - b + b * length.astype(np.float64) / self.avgdl)

    def idf(self, df: np.ndarray) -> np.ndarray:
        """ln(1 + (N - df + 0.5) / (df + 0.5)); as float32 values with Lucene's norms."""
        n = self.num_docs
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        return idf.astype(np.float32).astype(np.float64) if self.params.lucene_norms else idf

    def weights(
        self, idf: np.ndarray, tf: np.ndarray, docs: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """(float32 weight of each posting, Lucene's ``1 + tf / norm`` or None)."""
        if not self.params.lucene_norms:
            tf = tf.astype(np.float64)
            return (idf * tf / (tf + self.norm[docs])).astype(np.float32), None
        saturation = np.float32(1) + tf.astype(np.float32) * self.norm_inverse[self.norm_byte[docs]]
        weight = idf.astype(np.float32)
        return weight - weight / saturation, saturation
