"""ui.shared."""
