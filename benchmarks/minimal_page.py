"""The rerun_cost benchmark's reference page: one 16 x 16 heatmap, drawn as the pages draw."""

import numpy as np
import streamlit as st

from ui.figures.heatmap import heatmap

seed = st.number_input("Seed", 0, 1000, 0, key="seed")
matrix = np.random.default_rng(int(seed)).random((16, 16))
labels = [f"t{i}" for i in range(16)]
st.plotly_chart(heatmap(matrix, labels, labels, title="weights"))
