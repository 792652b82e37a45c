"""Shared Streamlit controls and Plotly figure builders used by several pages.

Figure builders take arrays, labels and a :class:`ui.style.FigureStyle` and
return a ``plotly.graph_objects.Figure``; they can be tested without a server.
"""
