"""A class's trainings. 30 students open the learning page, each their own seed.

"Everyone, pick your own seed": 30 headless sessions (harness.st_client)
open ``/learning?learn_task=induction&learn_induction_seed=k`` spread over
ARRIVAL_S seconds, k = 0..29 (the seeds trained ahead of time), on a fresh
server. A student's wait runs from opening the link to the script's end, when
the trained model is drawn. Meanwhile TEXT_SESSIONS other students change
the seed on the text page every ~5 s, and their p95 says whether the rest of
the app stays fast. Then the same with seeds 100..129, which nobody shipped:
every one trains live, one at a time, and waits in the queue.

    python -m benchmarks.training_storm          # both storms
    python -m benchmarks.training_storm --live   # only the live one
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from urllib.parse import urlencode

from benchmarks.capacity import THINK_S, percentile, weights_link
from benchmarks.common import Result, emit
from harness.local_server import ROOT, running_server
from harness.server import rss_mb
from harness.st_client import LostRunError, Session

#: How this benchmark measures, for BENCHMARKS.md (benchmarks/report.py).
METHOD = (
    '"Everyone, pick your own seed": on a fresh server, 30 headless sessions open the '
    "learning page's induction task, each with its own seed, spread over 10 s, while 10 other "
    "sessions change the seed on the text page every 2.5–7.5 s. A student's wait runs from "
    "opening the link to the end of the run that draws the trained model: the slowest (target "
    "at most 20 s) and the first (at most 5 s), and the text page's p95 meanwhile (at most 1 "
    "s). Twice: with seeds 0–29, which ship trained, then with seeds 100–129, which nobody "
    "shipped, so every one trains live and waits its turn."
)

STUDENTS = 30
ARRIVAL_S = 10.0
TEXT_SESSIONS = 10
TIMEOUT_S = 600.0
WAIT_TARGET_S, FIRST_TARGET_S, TEXT_P95_TARGET_S = 20.0, 5.0, 1.0


async def trainee(base: str, seed: int, delay: float, waits: list[float], errors: list) -> None:
    await asyncio.sleep(delay)
    query = urlencode({"learn_task": "induction", "learn_induction_seed": seed})
    session = Session(base, "learning", query)
    start = time.perf_counter()
    try:
        run = await session.open(TIMEOUT_S)
        waits.append(time.perf_counter() - start)
        errors.extend(run.exceptions)
        if not run.charts:
            errors.append(f"seed {seed}: no chart drawn")
    except (LostRunError, OSError) as error:
        errors.append(f"seed {seed}: {error}")
    finally:
        await session.close()


async def text_student(base: str, number: int, done: asyncio.Event, latencies: list[float]):
    rng = random.Random(number)
    session = Session(base, "text", weights_link(number))
    try:
        await session.open(TIMEOUT_S)
        seed = 0
        while not done.is_set():
            await asyncio.sleep(rng.uniform(*THINK_S))
            seed += 1 + rng.randrange(50)
            latencies.append((await session.set_widget("seed", seed, TIMEOUT_S)).seconds)
    except (LostRunError, OSError):
        latencies.append(float("inf"))
    finally:
        await session.close()


async def storm(base: str, first_seed: int) -> tuple[list[float], list, list[float]]:
    rng = random.Random(first_seed)
    waits: list[float] = []
    errors: list = []
    text_latencies: list[float] = []
    done = asyncio.Event()
    others = [
        asyncio.create_task(text_student(base, n, done, text_latencies))
        for n in range(TEXT_SESSIONS)
    ]
    await asyncio.sleep(2.0)  # the text page is in use when the class starts
    await asyncio.gather(
        *(
            trainee(base, first_seed + k, rng.uniform(0, ARRIVAL_S), waits, errors)
            for k in range(STUDENTS)
        )
    )
    done.set()
    await asyncio.gather(*others)
    return waits, errors, text_latencies


def measure(first_seed: int, label: str) -> list[Result]:
    with running_server(ROOT / "app.py") as (process, url):
        waits, errors, text = asyncio.run(storm(url, first_seed))
        rss = rss_mb(process.pid)
    waits.sort()
    return [
        Result(
            name=f"training storm ({label}): slowest student's wait for a trained model, "
            f"{STUDENTS} seeds within {ARRIVAL_S:g} s",
            figure=round(waits[-1], 2) if waits else float("inf"),
            target=WAIT_TARGET_S,
            unit="s",
            details={
                "first_s": round(waits[0], 2) if waits else None,
                "p50_s": round(percentile(waits, 50), 2),
                "p95_s": round(percentile(waits, 95), 2),
                "drawn": len(waits),
                "errors": errors[:3],
                "rss_mb": round(rss, 1),
            },
        ),
        Result(
            name=f"training storm ({label}): first student's wait",
            figure=round(waits[0], 2) if waits else float("inf"),
            target=FIRST_TARGET_S,
            unit="s",
        ),
        Result(
            name=f"training storm ({label}): text page p95 meanwhile, {TEXT_SESSIONS} sessions",
            figure=round(percentile(text, 95), 3),
            target=TEXT_P95_TARGET_S,
            unit="s",
            details={"changes": len(text), "max_s": round(max(text, default=0), 3)},
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--live", action="store_true", help="only the storm of unshipped seeds")
    args = parser.parse_args(argv)
    results = [] if args.live else measure(0, "seeds 0-29, trained ahead of time")
    results += measure(100, "seeds 100-129, trained live")
    emit(results)


if __name__ == "__main__":
    main()
