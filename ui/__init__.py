"""Streamlit controls, Plotly figure builders and page sections the pages share.

Importing ``ui`` also sets two process-wide defaults for the server: no plotly
template in the figure JSON, and freed memory kept for the next rerun.
Figure builders take arrays, labels and a :class:`ui.style.FigureStyle` and
return a ``plotly.graph_objects.Figure``; they can be tested without a server.
"""

import plotly.io as _plotly_io

from attention_core.memory import keep_freed_memory as _keep_freed_memory

# Streamlit's chart theme styles every figure in the browser, so plotly's own
# default template (about 3.6 kB of JSON per figure) would be sent for nothing.
_plotly_io.templates.default = None

# One server process runs every session's reruns: let it reuse the memory of
# the arrays each rerun frees instead of faulting in fresh pages every time.
_keep_freed_memory()
