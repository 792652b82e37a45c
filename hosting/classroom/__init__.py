"""A class session's shared state: the teacher's view, questions, answers and who is present.

:class:`hosting.classroom.classes.Classes` is the one entry point: it checks every
request (the class code, the teacher key, sizes, replays, expiry) and then calls a
:class:`hosting.classroom.store.ClassStore`, SQLite by default and Redis when several
replicas serve one class (:mod:`hosting.classroom.settings`). Plain Python: questions
and views are opaque JSON here; the app turns them into questions and pages.
"""
