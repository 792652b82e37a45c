r"""Quantised GGUF matrices kept as blocks, dequantised to float32 only when a layer runs.

llama.cpp stores a matrix ``W (rows, ne0)`` row by row, each row in blocks of 32 (or
256) numbers; a block keeps a few float16 scales and small integers ``q``. For the
three formats real files use most, a block's numbers are

.. math::
    \text{Q8\_0: } w = d\,q \quad (q \in [-128, 127]) \qquad
    \text{Q4\_0: } w = d\,(q - 8) \qquad
    \text{Q4\_1: } w = d\,q + m \quad (q \in [0, 15])

and byte ``j`` of a 4-bit block holds number ``j`` (low half) and ``j + 16`` (high half).

Two kinds of stored matrix, both dequantised by ``widen()`` (a new float32 array,
so at most the layer in use is ever float32) and both able to give some of their
rows still quantised (a sentence's rows of the token table, a slice of the LM head):

- :class:`Repacked`, for those three formats: at load the blocks are rearranged
  "block-major", ``(blocks per row, numbers per block, rows)``, with the scales
  beside them ``(blocks per row, scales, rows)``. Dequantising is then a handful of
  NumPy operations whose inner loop runs along a whole column of rows, and it writes
  :math:`W^\top` ``(ne0, rows)`` directly, the order ``x @ W^T`` wants. (In the file's
  order each operation would work on 16 or 32 numbers at a time, several times
  slower.) It takes the same bytes as the file.
- :class:`Quantised`, every other type the ``gguf`` package dequantises (K-quants,
  i-quants ...): the file's rows as they are, read with ``gguf.quants.dequantize``.

The tests check that both give exactly ``gguf.quants.dequantize``'s float32 numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

#: ggml type ids (``gguf.GGMLQuantizationType``).
Q4_0, Q4_1, Q8_0 = 2, 3, 8
#: Repacked types -> (bytes of a block, float16 scales at its start).
REPACKED = {Q4_0: (18, 1), Q4_1: (20, 2), Q8_0: (34, 1)}
BLOCK = 32  #: numbers per block of the repacked types

Rows = slice | np.ndarray  #: which rows to take: a slice or ids


@dataclass(frozen=True)
class Repacked:
    r"""A Q4_0, Q4_1 or Q8_0 matrix ``W (rows, ne0)``, block-major (see the module).

    ``transposed``: the matrix stands for :math:`W^\top` (GPT-2's weights, multiplied as
    ``x @ w``); rows are then never taken.
    """

    kind: int
    quants: np.ndarray  #: (nb, 16, rows) uint8 two 4-bit numbers a byte, or (nb, 32, rows) int8
    scales: np.ndarray  #: (nb, 1 or 2, rows) float16: d (and m for Q4_1)
    transposed: bool = False

    @classmethod
    def from_blocks(cls, raw: np.ndarray, kind: int) -> Repacked:
        """Repack a file's rows of blocks ``(rows, nb * block bytes)`` uint8."""
        block_bytes, n_scales = REPACKED[kind]
        blocks = raw.reshape(len(raw), -1, block_bytes)  # (rows, nb, bytes)
        head = 2 * n_scales
        scales = np.ascontiguousarray(blocks[:, :, :head]).view(np.float16)  # (rows, nb, s)
        quants = blocks[:, :, head:]  # (rows, nb, 16 or 32)
        if kind == Q8_0:
            quants = quants.view(np.int8)
        return cls(
            kind,
            np.ascontiguousarray(quants.transpose(1, 2, 0)),
            np.ascontiguousarray(scales.transpose(1, 2, 0)),
        )

    @property
    def shape(self) -> tuple[int, int]:
        rows, columns = self.quants.shape[2], self.quants.shape[0] * BLOCK
        return (columns, rows) if self.transposed else (rows, columns)

    @property
    def nbytes(self) -> int:
        return self.quants.nbytes + self.scales.nbytes

    @property
    def T(self) -> Repacked:  # noqa: N802 (NumPy's name for a transpose)
        return replace(self, transposed=not self.transposed)

    def __getitem__(self, rows: Rows) -> Repacked:
        """Some rows, still quantised."""
        if self.transposed:
            raise TypeError("rows of a transposed quantised matrix are never taken")
        return replace(self, quants=self.quants[:, :, rows], scales=self.scales[:, :, rows])

    def transpose_widened(self) -> np.ndarray:
        r""":math:`W^\top` as float32 ``(ne0, rows)``, C-contiguous: the blocks dequantised."""
        n_blocks, _, rows = self.quants.shape
        out = np.empty((n_blocks, BLOCK, rows), np.float32)  # (nb, 32, rows)
        scales = self.scales.astype(np.float32)  # (nb, s, rows)
        if self.kind == Q8_0:
            out[:] = self.quants
        else:
            half = BLOCK // 2
            np.bitwise_and(self.quants, 0x0F, out=out[:, :half], casting="unsafe")
            np.right_shift(self.quants, 4, out=out[:, half:], casting="unsafe")
            if self.kind == Q4_0:
                out -= 8.0
        out *= scales[:, :1]
        if self.kind == Q4_1:
            out += scales[:, 1:]
        return out.reshape(n_blocks * BLOCK, rows)

    def widen(self) -> np.ndarray:
        """The numbers as float32 of :attr:`shape` (a transposed view of a new array)."""
        transposed = self.transpose_widened()  # (ne0, rows)
        return transposed if self.transposed else transposed.T


@dataclass(frozen=True)
class Quantised:
    """A matrix of any other type ``gguf.quants`` dequantises: the file's ``rows`` of blocks."""

    kind: int
    rows: np.ndarray  #: (rows, row bytes) uint8, read-only
    numbers_per_row: int  #: ne0
    transposed: bool = False

    @property
    def shape(self) -> tuple[int, int]:
        rows, columns = len(self.rows), self.numbers_per_row
        return (columns, rows) if self.transposed else (rows, columns)

    @property
    def nbytes(self) -> int:
        return self.rows.nbytes

    @property
    def T(self) -> Quantised:  # noqa: N802 (NumPy's name for a transpose)
        return replace(self, transposed=not self.transposed)

    def __getitem__(self, rows: Rows) -> Quantised:
        """Some rows, still quantised."""
        if self.transposed:
            raise TypeError("rows of a transposed quantised matrix are never taken")
        return replace(self, rows=self.rows[rows])

    def widen(self) -> np.ndarray:
        """The numbers as float32 of :attr:`shape`, by ``gguf.quants.dequantize``."""
        from gguf import GGMLQuantizationType, quants

        numbers = quants.dequantize(self.rows, GGMLQuantizationType(self.kind))  # (r, ne0)
        return numbers.T if self.transposed else numbers


Blocks = Repacked | Quantised
