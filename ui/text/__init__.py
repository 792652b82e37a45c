"""ui.text."""
