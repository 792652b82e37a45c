"""The page scripts: one per page, run by ``st.navigation`` from ``app.py``.

A package only so the layer contracts (import-linter) can see the pages; Streamlit
runs each file as a script, and nothing imports a page.
"""
