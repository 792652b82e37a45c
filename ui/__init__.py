"""Shared Streamlit controls and Plotly figure builders used by several pages.

Figure builders take arrays, labels and a :class:`ui.style.FigureStyle` and
return a ``plotly.graph_objects.Figure``; they can be tested without a server.
"""

import plotly.io as _plotly_io

# Streamlit's chart theme styles every figure in the browser, so plotly's own
# default template (about 3.6 kB of JSON per figure) would be sent for nothing.
_plotly_io.templates.default = None
