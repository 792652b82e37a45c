"""ui.walkthrough."""
