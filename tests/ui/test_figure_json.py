"""The figure JSON Streamlit sends: "/" as itself, "<" and ">" still escaped (ui.figures)."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio

from ui.figures.build import encode_arrays
from ui.figures.heatmap import heatmap


def test_a_causal_heatmap_is_sent_without_escaped_slashes_and_reads_back_the_same() -> None:
    size = 64
    weights = np.tril(np.full((size, size), 1 / size, dtype=np.float32))
    labels = [f"</script><b>{i}</b>" for i in range(size)]  # user text in the labels
    mask = np.triu(np.ones((size, size), dtype=bool), k=1)
    figure = encode_arrays(heatmap(weights, labels, labels, title="weights", mask=mask))
    sent = pio.to_json(figure, validate=False)  # what st.plotly_chart sends
    assert "\\u002f" not in sent
    assert "/" in sent  # the masked cells' NaNs in base64
    assert "</" not in sent and "<b>" not in sent  # "<" stays escaped: no markup, no </script>
    assert json.loads(sent) == json.loads(json.dumps(figure.to_dict()))
