"""Placeholder until the page lands."""

import streamlit as st

st.title("positional_encoding")
st.info("This page is being built.")
