"""Placeholder until the page lands."""

import streamlit as st

st.title("time_series")
st.info("This page is being built.")
