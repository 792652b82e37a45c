"""The "Teach a class" page, the class bars app.py draws around every page, and the class's
page mode (the one way a class reaches a page: :mod:`ui.shared.page_mode`)."""
