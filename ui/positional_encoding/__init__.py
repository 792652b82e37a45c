"""ui.positional_encoding."""
