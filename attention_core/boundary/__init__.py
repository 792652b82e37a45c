"""attention_core.boundary."""
