"""The core's full multi-head trace against PyTorch's fused attention.

Subject: ``ac.multi_head_attention`` keeping every intermediate (Q, K, V,
scores, scaled, masked, weights, context, concat, output). Reference: the same
projections in PyTorch with ``torch.nn.functional.scaled_dot_product_attention``
computing only the output. Same shapes (T in {64, 256, 1024}, d_model 256,
8 heads, causal mask), float32, one thread each (a Streamlit session is one
thread). Target: at most 1.25x at every size.

The process reuses freed memory as the app's server does
(:func:`hosting.memory.keep_freed_memory`, called once by ``app.py``); PyTorch
does the same with its caching allocator.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
import torch

import attention_core as ac
from benchmarks.common import Result, emit, interleaved_ratio
from hosting.memory import keep_freed_memory

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "`ac.multi_head_attention` keeping every intermediate (Q, K, V, scores, scaled, masked, "
    "weights, context, concat, output) against the same projections in PyTorch, where "
    "`torch.nn.functional.scaled_dot_product_attention` computes only the output; T in {64, "
    "256, 1024}, d_model 256, 8 heads, causal mask, float32, one thread each (a Streamlit "
    "session is one thread), freed memory reused as the app's server reuses it. The two run "
    "alternately; the figure is the median of the per-pair time ratios, with their min–max. "
    "Target: at most 1.25x at every size."
)

D_MODEL, HEADS, TARGET = 256, 8, 1.25


def _case(length: int) -> Result:
    rng = np.random.default_rng(length)
    x = rng.standard_normal((length, D_MODEL)).astype(np.float32)
    w_q, w_k, w_v, w_o = (
        (rng.standard_normal((D_MODEL, D_MODEL)) / np.sqrt(D_MODEL)).astype(np.float32)
        for _ in range(4)
    )
    mask = ac.causal_mask(length)
    x_t, mask_t = torch.from_numpy(x), torch.from_numpy(mask)
    wq_t, wk_t, wv_t, wo_t = (torch.from_numpy(w) for w in (w_q, w_k, w_v, w_o))
    d_head = D_MODEL // HEADS

    def core() -> object:
        return ac.multi_head_attention(x, w_q, w_k, w_v, w_o=w_o, n_heads=HEADS, mask=mask)

    def heads(t: torch.Tensor) -> torch.Tensor:
        return t.view(length, HEADS, d_head).transpose(0, 1)

    @torch.inference_mode()
    def fused() -> object:
        q, k, v = heads(x_t @ wq_t), heads(x_t @ wk_t), heads(x_t @ wv_t)
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask_t)
        return out.transpose(0, 1).reshape(length, D_MODEL) @ wo_t

    repeats = 40 if length <= 256 else 12
    ratio, spread, core_s, torch_s = interleaved_ratio(core, fused, repeats)
    return Result(
        name=f"core trace / torch SDPA, T={length}",
        figure=round(ratio, 3),
        target=TARGET,
        unit="x",
        spread=(round(spread[0], 3), round(spread[1], 3)),
        details={"core_ms": round(core_s * 1e3, 3), "torch_ms": round(torch_s * 1e3, 3)},
    )


def main() -> None:
    keep_freed_memory()
    torch.set_num_threads(1)
    emit([_case(length) for length in (64, 256, 1024)])


if __name__ == "__main__":
    main()
