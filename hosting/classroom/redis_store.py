"""The shared class store: one Redis, for several replicas serving one class.

Every replica reads and writes the same keys, so students on different replicas
follow one teacher and feed one answer count. A class's keys live under
``attention:class:<code>:`` and expire with the class (EXPIREAT), so Redis frees
them itself; ``attention:classes``, a sorted set of code -> expires_at, counts
the open classes (the script that creates one counts them first). A class's
``meta`` hash holds when it was last heard from (``heard_at``: its start, a
student's "still here", a teacher's change). Every write is a Lua script (Redis
runs one at a time, so each is atomic) that first checks the class still exists:
a write racing ``end`` or expiry never leaves keys behind. The version a server's
class watcher reads is one HMGET.
"""

from __future__ import annotations

import json

import redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.commands.core import Script
from redis.retry import Retry

from hosting.classroom.records import Answered, ClassRecord, Created, RequestUse, unavailable_on
from hosting.classroom.redis_scripts import (
    ANSWER,
    ASK,
    CREATE,
    END,
    FIRST_USE,
    INDEX,
    JOIN,
    PARTS,
    PREFIX,
    PRELUDE,
    QUESTIONS,
    RECLAIM,
    REVEAL,
    SET_VIEW,
)

SOCKET_SECONDS = 2.0  #: a read fails fast when Redis is away: the page keeps working alone
HEALTH_CHECK_SECONDS = 30  #: an idle pooled connection is pinged before reuse after this
RETRIES = 1  #: once more, for a pooled connection Redis dropped (a restart); then give up


#: Down, overloaded or failing over: no connection, no answer in time, out of memory
#: (``maxmemory``), a replica that became read-only, a primary not ready.
unavailable = unavailable_on(
    redis.ConnectionError,
    redis.TimeoutError,
    redis.exceptions.OutOfMemoryError,
    redis.exceptions.ReadOnlyError,
    redis.exceptions.MasterDownError,
    redis.exceptions.TryAgainError,
)


def _open(expires_at: object, now: float) -> bool:
    """Is a class whose stored ``expires_at`` is this open at ``now``? (None: no class.)"""
    return isinstance(expires_at, str) and float(expires_at) > now


class RedisStore:
    """A :class:`hosting.classroom.store.ClassStore` in the Redis at ``url`` (``redis://...``)."""

    def __init__(self, url: str) -> None:
        self._redis = redis.Redis.from_url(
            url,
            decode_responses=True,
            socket_timeout=SOCKET_SECONDS,
            socket_connect_timeout=SOCKET_SECONDS,
            health_check_interval=HEALTH_CHECK_SECONDS,
            retry=Retry(ExponentialWithJitterBackoff(cap=0.5, base=0.05), RETRIES),
        )
        script = self._redis.register_script
        self._create, self._set_view = script(PRELUDE + CREATE), script(PRELUDE + SET_VIEW)
        self._ask, self._reveal = script(PRELUDE + ASK), script(PRELUDE + REVEAL)
        self._questions, self._answer = script(PRELUDE + QUESTIONS), script(PRELUDE + ANSWER)
        self._join, self._first_use = script(PRELUDE + JOIN), script(PRELUDE + FIRST_USE)
        self._end, self._reclaim = script(PRELUDE + END), script(RECLAIM)

    @staticmethod
    def prefix(code: str) -> str:
        """The start of every key name of the class ``code``."""
        return f"{PREFIX}{code}:"

    def _keys(self, code: str) -> list[str]:
        return [INDEX, *(self.prefix(code) + part for part in PARTS)]

    def _run(self, script: Script, code: str, *args: str | int) -> int:
        return int(script(keys=self._keys(code), args=[self.prefix(code), *args]))

    def _field(self, code: str, name: str, now: float) -> str | None:
        """One field of an open class: one HMGET with its ``expires_at``; None if gone."""
        value, expires_at = self._redis.hmget(self.prefix(code) + "meta", name, "expires_at")
        return str(value) if _open(expires_at, now) else None

    def close(self) -> None:
        """Close the connections to Redis (a test's store; the app keeps one for its life)."""
        self._redis.close()

    @unavailable
    def create(
        self, code: str, key_digest: str, expires_at: float, now: float, max_open: int
    ) -> Created:
        args = (code, key_digest, repr(expires_at), repr(now), max_open)
        return Created(self._run(self._create, code, *args))

    @unavailable
    def open_classes(self, now: float) -> int:
        return int(self._redis.zcount(INDEX, f"({now!r}", "+inf"))

    @unavailable
    def key_digest(self, code: str, now: float) -> str | None:
        return self._field(code, "key_digest", now)

    @unavailable
    def version(self, code: str, now: float) -> int | None:
        version = self._field(code, "version", now)
        return None if version is None else int(version)

    @unavailable
    def state(self, code: str, now: float) -> ClassRecord | None:
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(self.prefix(code) + "meta")
            pipe.llen(self.prefix(code) + "asked")
            meta, asked = pipe.execute()
        if not _open(meta.get("expires_at"), now):
            return None
        return ClassRecord(
            code=code,
            version=int(meta["version"]),
            expires_at=float(meta["expires_at"]),
            page=meta["page"],
            query=json.loads(meta["query"]),
            question=json.loads(meta["question"]) if meta["question"] else None,
            revealed=meta["revealed"] == "1",
            asked=int(asked),
        )

    @unavailable
    def set_view(self, code: str, page: str, query_json: str) -> int:
        return self._run(self._set_view, code, page, query_json)

    @unavailable
    def ask(self, code: str, question_id: str, question_json: str, max_questions: int) -> int:
        return self._run(self._ask, code, question_id, question_json, max_questions)

    @unavailable
    def reveal(self, code: str, question_id: str) -> int:
        return self._run(self._reveal, code, question_id)

    @unavailable
    def questions(self, code: str) -> list[str]:
        bodies = self._questions(keys=self._keys(code), args=[self.prefix(code)])
        return [str(body) for body in bodies]

    @unavailable
    def answer(
        self,
        code: str,
        question_id: str,
        student: str,
        answer: str,
        since: float,
        max_answers: int,
    ) -> Answered:
        args = (question_id, student, answer, repr(since), max_answers)
        return Answered(self._run(self._answer, code, *args))

    @unavailable
    def counts(self, code: str, question_id: str) -> dict[str, int]:
        counts = self._redis.hgetall(f"{self.prefix(code)}counts:{question_id}")
        return {str(answer): int(count) for answer, count in counts.items()}

    @unavailable
    def answer_of(self, code: str, question_id: str, student: str) -> str | None:
        answer = self._redis.hget(f"{self.prefix(code)}answers:{question_id}", student)
        return None if answer is None else str(answer)

    @unavailable
    def join(self, code: str, student: str, now: float, max_students: int, since: float) -> bool:
        return self._run(self._join, code, student, repr(now), max_students, repr(since)) == 1

    @unavailable
    def present(self, code: str, since: float) -> int:
        return int(self._redis.zcount(self.prefix(code) + "presence", repr(since), "+inf"))

    @unavailable
    def first_use(self, code: str, request_id: str, now: float, max_changes: int) -> RequestUse:
        return RequestUse(self._run(self._first_use, code, request_id, repr(now), max_changes))

    @unavailable
    def reclaim(self, idle_since: float, now: float) -> int:
        return int(self._reclaim(keys=[INDEX], args=[PREFIX, repr(idle_since), repr(now)]))

    @unavailable
    def end(self, code: str) -> None:
        self._run(self._end, code, code)
