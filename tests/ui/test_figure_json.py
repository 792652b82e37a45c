"""The figure JSON Streamlit sends: "/" as itself, "<" and ">" still escaped, a shared
figure's written once (ui.figures)."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from streamlit.testing.v1 import AppTest

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


def test_a_shared_figure_is_written_once_and_as_a_fresh_copy_would_be() -> None:
    weights = np.random.default_rng(0).random((12, 12)).astype(np.float32)
    labels = [f"t{i}" for i in range(12)]

    def built() -> go.Figure:
        return heatmap(weights, labels, labels, title="weights")

    shared = encode_arrays(built())
    first = pio.to_json(shared, validate=False)
    assert pio.to_json(shared, validate=False) is first  # the second draw writes nothing
    assert first == pio.to_json(encode_arrays(built()).to_dict(), validate=False)
    assert json.loads(first) == json.loads(pio.to_json(built(), validate=False))
    assert pio.to_json(shared, pretty=True) != first  # other forms are written as asked
    assert json.loads(pio.to_json(shared, pretty=True)) == json.loads(first)


def test_streamlit_sends_a_shared_figure_as_plotly_writes_it() -> None:
    def app() -> None:
        import numpy as np
        import streamlit as st

        from ui.figures.build import encode_arrays
        from ui.figures.heatmap import heatmap

        labels = ["a", "b", "c"]
        values = np.arange(9, dtype=np.float32).reshape(3, 3)
        shared = encode_arrays(heatmap(values, labels, labels, title="w"))
        for _ in range(2):
            st.plotly_chart(shared, key=f"chart_{_}")
        st.plotly_chart(heatmap(values, labels, labels, title="w"), key="fresh")

    at = AppTest.from_function(app).run()
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    assert len(specs) == 3 and specs[0] == specs[1]
    assert specs[0] == specs[2]
