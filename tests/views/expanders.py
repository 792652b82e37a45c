"""Open a page's lazily built expanders in AppTest, as a reader's click does.

"Read as a table" and "The code" build their content only while open (opening one
reruns the page). Their keys end their element ids: ``$$ID-<hash>-<key>``.
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

CODE = "The code"
TABLE = "Read as a table"


def expander_keys(at: AppTest, label: str) -> list[str]:
    """The keys of the page's expanders labelled ``label``, in page order."""
    ids = [expander.proto.id for expander in at.expander if expander.label == label]
    return [element_id.split("-", 2)[2] for element_id in ids]


def open_expanders(at: AppTest, label: str) -> AppTest:
    """Open every expander labelled ``label`` and rerun the page."""
    for key in expander_keys(at, label):
        at.session_state[key] = True
    return at.run()
