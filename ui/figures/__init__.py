"""Plotly figure builders: arrays and labels in, a ``go.Figure`` out; no Streamlit.

Importing this package sets one process-wide default: no plotly template in the
figure JSON. Streamlit's chart theme styles every figure in the browser, so
plotly's own default template (about 3.6 kB of JSON per figure) would be sent
for nothing.
"""

import plotly.io as _plotly_io

_plotly_io.templates.default = None
