"""Watch attention learn: toy tasks, a tiny transformer, its training and its NumPy forward pass.

``tasks``, ``config`` and ``forward`` are NumPy only. ``model`` and ``training``
need PyTorch and are imported only on demand
(``from attention_core.learning import training``), so ``import attention_core``
stays torch-free.
"""
