"""Lessons: playing a lesson over the pages, and writing one (above every page's package)."""
