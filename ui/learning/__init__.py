"""ui.learning."""
