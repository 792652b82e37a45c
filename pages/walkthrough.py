"""Placeholder until the page lands."""

import streamlit as st

st.title("walkthrough")
st.info("This page is being built.")
