"""Real pretrained models run by the project's own attention core.

``load_checkpoint(path)`` reads a checkpoint folder (safetensors only) of a
supported family: BERT (all-MiniLM-L6-v2), GPT-2, and the Llama family (Llama,
Qwen2, Mistral). ``loading`` reads and checks all-MiniLM-L6-v2 (weights hash,
tokenizer), ``bert``, ``gpt2`` and ``llama`` are the NumPy forward passes (their
attention is :mod:`attention_core.maths.attention`), ``trace`` the names they
share, ``head_measures`` the per-head summaries of Clark et al. (2019) and
``rollout`` attention rollout (Abnar & Zuidema, 2020). Nothing here imports torch.
"""

from attention_core.pretrained.checkpoint import Checkpoint, load_checkpoint
from attention_core.pretrained.trace import BlockTrace, ModelInfo, ModelTokens, ModelTrace

__all__ = ["BlockTrace", "Checkpoint", "ModelInfo", "ModelTokens", "ModelTrace", "load_checkpoint"]
