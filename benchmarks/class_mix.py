"""Memory of one server under a class spread over every page, and one student's tour.

Community Cloud restarts an app that goes over its memory limit (690 MB on the
smallest), for everybody, mid-lesson. Two loads on a fresh server each, every
session a headless client (harness.st_client):

- **class mix**: 30 students at once (arriving within 10 s): 12 open a model
  of their own on the learning page, 10 run a sentence of their own through the
  pretrained model (each on one of its views), 6 put a long text of their own
  on the text page, 2 train the time-series model (PyTorch is imported). Each
  then changes one setting three times. Twice: the learners pick seeds 0-11
  (trained ahead of time: as a lesson runs), then seeds nobody shipped (all 12
  train live).
- **tour**: one student visits every page in turn, trains all three learning
  tasks live and the time-series model.

The figure is the server's peak resident memory (``VmHWM``) plus that of any
process it started (none today), the way a container limit counts it.

    python -m benchmarks.class_mix
"""

from __future__ import annotations

import argparse
import asyncio
import random
from pathlib import Path
from urllib.parse import urlencode

from benchmarks.common import Result, emit
from harness.local_server import ROOT, running_server
from harness.st_client import TRIGGER, LostRunError, Session

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    "The server's peak resident memory (`VmHWM`, with any process it starts), the way a "
    "container limit counts it, on a fresh server per load; target at most 600 MB (Community "
    "Cloud's smallest app has 690 MB). The class mix: 30 headless students arriving within 10 "
    "s, 12 opening a model of their own on the learning page, 10 running a sentence of their "
    "own through the pretrained model, 6 putting a long text on the text page and 2 training "
    "the time-series model, each then changing one setting three times; once with the "
    "learners on shipped seeds 0–11, once with seeds nobody shipped (all 12 train live). The "
    "tour: one student visits every page, training the three learning tasks and the time- "
    "series model live."
)

PEAK_TARGET_MB = 600.0
ARRIVAL_S = 10.0
TIMEOUT_S = 600.0
SENTENCE = (
    "the students watched how every word of a long sentence attends to the others while "
    "the teacher changed the heads the mask and the positions of each token in turn"
)
WORDS = tuple(SENTENCE.split(" "))
TASKS = ("reverse", "sort", "induction")
PRETRAINED_VIEWS = ("Model view", "Head view", "Every step", "Head summary", "Rollout")
TEXT_VIEWS = ("4 Weights", "2 Scores", "5 Context", "3 Scaled & masked", "1 Q K V", "6 Heads")


def long_text(number: int, words: int) -> str:
    rng = random.Random(number)
    return " ".join(rng.choice(WORDS) for _ in range(words)) + "."


def class_links(live: bool = True) -> list[tuple[str, str, tuple[str, object]]]:
    """(page, query, (widget key, value to change)) for each of the 30 students.

    ``live``: the learners' seeds were not shipped, so each trains.
    """
    links = []
    for k in range(12):
        task = TASKS[k % 3]
        query = {"learn_task": task, f"learn_{task}_seed": 100 * live + k}
        links.append(("learning", urlencode(query), (f"learn_{task}_probe", None)))
    for k in range(10):
        query = {"text": long_text(k, 90), "view": PRETRAINED_VIEWS[k % 5]}
        links.append(("pretrained", urlencode(query), ("layer", None)))
    for k in range(6):
        query = {"text": long_text(100 + k, 120), "view": TEXT_VIEWS[k], "heads": 4}
        links.append(("text", urlencode(query), ("seed", None)))
    for _ in range(2):
        links.append(("time_series", urlencode({"ts_train": "true"}), ("ts_train_go", TRIGGER)))
    return links


def next_value(key: str, turn: int) -> object:
    if key == "layer":
        return str(1 + turn)  # a selectbox's state travels as its option's text
    if key == "seed":
        return 7 + turn
    if key == "ts_train_go":
        return TRIGGER
    return None


async def student(base: str, page: str, query: str, key: str, delay: float, errors: list):
    await asyncio.sleep(delay)
    session = Session(base, page, query)
    try:
        run = await session.open(TIMEOUT_S)
        errors.extend(run.exceptions)
        for turn in range(3 if key != "ts_train_go" else 1):
            value = next_value(key, turn)
            if value is None or key not in session.last.widget_ids:  # not on this view
                break
            await asyncio.sleep(2.0)
            errors.extend((await session.set_widget(key, value, TIMEOUT_S)).exceptions)
    except (LostRunError, OSError) as error:
        errors.append(f"{page}: {error}")
    finally:
        await session.close()


async def class_mix(base: str, only: str = "", live: bool = True) -> list:
    """The 30 students (or only those on page ``only``)."""
    rng = random.Random(30)
    errors: list = []
    await asyncio.gather(
        *(
            student(base, page, query, key, rng.uniform(0, ARRIVAL_S), errors)
            for page, query, (key, _) in class_links(live)
            if page == only or not only
        )
    )
    return errors


async def tour(base: str) -> list:
    errors: list = []
    visits = [
        ("text", "", ("seed", None)),
        ("positional_encoding", "", ("", None)),
        ("walkthrough", "", ("", None)),
        *(
            ("learning", urlencode({"learn_task": t, f"learn_{t}_seed": 200}), ("", None))
            for t in TASKS
        ),
        ("pretrained", "", ("layer", None)),
        ("time_series", urlencode({"ts_train": "true"}), ("ts_train_go", TRIGGER)),
    ]
    for page, query, (key, _) in visits:
        await student(base, page, query, key, 0.0, errors)
    return errors


def peak_mb(pid: int) -> tuple[float, float]:
    """Peak and current resident memory of ``pid`` and its children, in MB."""
    peak = current = 0.0
    for process in (pid, *children(pid)):
        status = Path(f"/proc/{process}/status").read_text().splitlines()
        values = dict(line.split(":", 1) for line in status if ":" in line)
        peak += int(values["VmHWM"].split()[0]) / 1024  # kB
        current += int(values["VmRSS"].split()[0]) / 1024
    return peak, current


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def measure(name: str, load) -> Result:
    with running_server(ROOT / "app.py") as (process, url):
        started, _ = peak_mb(process.pid)
        errors = asyncio.run(load(url))
        peak, current = peak_mb(process.pid)
    return Result(
        name=f"memory: server peak, {name}",
        figure=round(peak, 1),
        target=PEAK_TARGET_MB,
        unit="MB",
        details={
            "server_started_mb": round(started, 1),
            "rss_at_end_mb": round(current, 1),
            "errors": len(errors),
            "first": errors[:2],
        },
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only the class mix's students on this page")
    args = parser.parse_args(argv)
    if args.only:
        only = args.only
        emit([measure(f"the class mix's {only} students only", lambda u: class_mix(u, only))])
        return
    emit(
        [
            measure(
                "30 students over every page, learners on seeds 0-11 (trained ahead)",
                lambda url: class_mix(url, live=False),
            ),
            measure("30 students over every page, 12 learners training live", class_mix),
            measure("one student's tour of every page (4 live trainings)", tour),
        ]
    )


if __name__ == "__main__":
    main()
