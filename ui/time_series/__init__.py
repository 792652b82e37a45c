"""ui.time_series."""
