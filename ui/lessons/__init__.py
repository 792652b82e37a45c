"""Lessons: what plays a lesson's steps over the pages (above every page's package)."""
