"""Placeholder until the page lands."""

import streamlit as st

st.title("text")
st.info("This page is being built.")
