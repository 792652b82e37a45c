"""Every bound of a class session, named, with why.

A class is open to strangers: anything they can send is bounded here, so one
session can neither fill the store nor slow the others.
"""

from __future__ import annotations

from typing import Final

# Codes are read off a projector and typed on phones: no 0/O, 1/I/L, and upper case only.
CODE_ALPHABET: Final = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH: Final = 6
#: 31**6 = 887,503,681 codes. With MAX_CLASSES open at once and JOINS_PER_MINUTE per
#: session, a guesser finds some open class with chance 1 in 1.8 million per attempt.
CODE_SPACE: Final = len(CODE_ALPHABET) ** CODE_LENGTH
KEY_BYTES: Final = 24  #: the teacher key: 192 random bits, 32 URL-safe characters
MAX_KEY_CHARS: Final = 64  #: a longer "key" is refused before it is hashed
MAX_REQUEST_ID_CHARS: Final = 64

CLASS_SECONDS: Final = 12 * 3600  #: a class expires 12 h after it starts (a school day)
MAX_CLASSES: Final = 500  #: open at once per store (one server or one Redis)
#: A class whose teacher has changed nothing and that has had no student present for this
#: long is idle. When the store holds MAX_CLASSES, a new class takes the places of the
#: idle ones: classes started in a burst and left alone block new ones for half an hour
#: at most, not for their 12 h, and a class in use is never pushed out.
IDLE_SECONDS: Final = 30 * 60
MAX_STUDENTS: Final = 400  #: per class: a large lecture hall
MAX_QUESTIONS: Final = 100  #: per class: more than a lecture asks
MAX_ANSWER_CHARS: Final = 64  #: a choice or a number; longer is refused
#: Per question. Only a student present may answer, once; but a closed tab frees its place
#: after PRESENT_SECONDS and a session that opens the join link anew is a new student (a
#: reload keeps its id), so without this a script that joins, answers and leaves adds
#: answers (and rows to the teacher's results) for as long as the question is open. Twice a
#: full class leaves room for every student to come in anew once.
MAX_ANSWERS_PER_QUESTION: Final = 2 * MAX_STUDENTS
#: Teacher changes (view, question, reveal, end) per class: each keeps its request id (at most
#: MAX_REQUEST_ID_CHARS) for the class's life, to refuse it sent again. 5000 is a 12-hour
#: day at one change every 9 seconds, and at most 320 kB of ids per class.
MAX_CHANGES: Final = 5000
MAX_VIEW_PARAMS: Final = 64  #: URL parameters of one view (the largest page binds ~40)
#: A view as JSON: the text page's two longest sentences (20 000 characters each) and its
#: settings fit (tests/hosting/test_bounds.py).
MAX_VIEW_CHARS: Final = 48_000
MAX_QUESTION_CHARS: Final = 8_000  #: one question as JSON

PRESENT_SECONDS: Final = 30.0  #: a student is present if their app said so this recently
HEARTBEAT_SECONDS: Final = 10.0  #: how often a server says "still here" for a connected student
#: A student's browser that lost its connection stays enlisted this long: back within it (a
#: network blip, a phone waking up), it is rerun if the teacher moved on meanwhile.
RECONNECT_SECONDS: Final = 60.0
#: How often a server reads each class's version: one read per class and process, however
#: many students follow (ui.classroom.watch), so it can be often.
WATCH_SECONDS: Final = 0.1
POLL_SECONDS: Final = 1.0  #: how often the teacher's answers panel redraws
#: Students' apps a server reruns at once after a change (the next when one's run has ended):
#: a class of 100 rerun at the same instant holds up everybody else's runs on that server
#: (benchmarks/class_session.py times the other students' changes meanwhile).
RERUNS_AT_ONCE: Final = 1
RERUN_PATIENCE_SECONDS: Final = 2.0  #: an app that has not redrawn by then frees its place
#: An app busy with a run of its own declines a rerun and frees its place at once; it is
#: asked again this long after (its run's end asks sooner), so it never holds the class up.
RERUN_RETRY_SECONDS: Final = 0.25
#: A run the watcher opened asks whether it was the watcher's within this (even after its
#: 2 s wait for a follower's turn, on a busy server); an older opening is not taken for a
#: later run's, which would be the student's own.
OPENING_SECONDS: Final = 10.0

JOINS_PER_MINUTE: Final = 5  #: per browser session: mistyped codes, not a guessing loop
ANSWERS_PER_MINUTE: Final = 20  #: per browser session
STARTS_PER_HOUR: Final = 5  #: classes one browser session may start
