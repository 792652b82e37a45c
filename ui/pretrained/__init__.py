"""ui.pretrained."""
