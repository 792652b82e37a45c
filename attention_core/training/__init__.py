"""attention_core.training."""
