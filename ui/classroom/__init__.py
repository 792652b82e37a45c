"""The "Teach a class" page, and the class bars app.py draws around every page."""
