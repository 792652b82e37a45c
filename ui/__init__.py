"""Streamlit controls and page sections the pages share.

``ui.figures`` holds the Plotly figure builders (no Streamlit): they take
arrays, labels and a :class:`ui.figures.style.FigureStyle` and return a
``plotly.graph_objects.Figure``, so they can be tested without a server.
"""
