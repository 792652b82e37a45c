"""attention_core.maths."""
