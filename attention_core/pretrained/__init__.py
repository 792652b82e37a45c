"""A real pretrained encoder, all-MiniLM-L6-v2, run by the project's own attention core.

``loading`` reads and checks the files (weights hash, tokenizer), ``bert`` is the
NumPy forward pass (its attention is :mod:`attention_core.maths.attention`),
``head_measures`` the per-head summaries of Clark et al. (2019) and ``rollout``
attention rollout (Abnar & Zuidema, 2020). Nothing here imports torch.
"""
