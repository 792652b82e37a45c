"""The Lua scripts of :class:`hosting.classroom.redis_store.RedisStore`, and its key names.

Redis runs one script at a time, so each is atomic. Every script but RECLAIM starts with
PRELUDE, which names the class's keys and reads whether it still exists (``expires`` is
nil when it is gone), so a write racing ``end`` or expiry never leaves keys behind.
"""

from __future__ import annotations

INDEX = "attention:classes"  #: sorted set: code -> expires_at of every class not ended
PREFIX = "attention:class:"
#: Answers and counts are kept per question (``answers:<id>``, ``counts:<id>``); the
#: other keys of a class are fixed, passed to every script in this order.
PARTS = ("meta", "asked", "bodies", "presence", "requests")

# Deletes every key of the class whose keys start with ``prefix``.
DROP_CLASS = f"""
local function drop_class(prefix)
  for _, id in ipairs(redis.call('LRANGE', prefix .. 'asked', 0, -1)) do
    redis.call('DEL', prefix .. 'answers:' .. id, prefix .. 'counts:' .. id)
  end
  redis.call('DEL', {", ".join(f"prefix .. '{part}'" for part in PARTS)})
end
"""
# Every script sees KEYS = (INDEX, meta, asked, bodies, presence, requests) and ARGV[1] =
# the class's key prefix; ``expires`` is nil when the class is gone.
PRELUDE = (
    DROP_CLASS
    + """
local index, meta, asked, bodies = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local presence, requests, prefix = KEYS[5], KEYS[6], ARGV[1]
local expires = redis.call('HGET', meta, 'expires_at')
local function keep(key)
  redis.call('EXPIREAT', key, math.ceil(tonumber(expires)))
end
local function heard(now)
  if tonumber(redis.call('HGET', meta, 'heard_at') or 0) < tonumber(now) then
    redis.call('HSET', meta, 'heard_at', now)
  end
end
local function open_question()
  local body = redis.call('HGET', meta, 'question')
  if not body or body == '' then return nil end
  return cjson.decode(body).id
end
"""
)
# ARGV: prefix, code, key digest, expires_at, now, max open classes; returns a ``Created``.
# The index, once rid of the expired, counts the open classes. An expired class's code is reused.
CREATE = """
redis.call('ZREMRANGEBYSCORE', index, '-inf', ARGV[5])
if redis.call('ZCARD', index) >= tonumber(ARGV[6]) then return 2 end
if expires and tonumber(expires) > tonumber(ARGV[5]) then return 0 end
drop_class(prefix)
redis.call('HSET', meta, 'key_digest', ARGV[3], 'expires_at', ARGV[4], 'version', 0,
  'page', '', 'query', '{}', 'question', '', 'revealed', 0, 'heard_at', ARGV[5])
expires = ARGV[4]
keep(meta)
redis.call('ZADD', index, ARGV[4], ARGV[2])
return 1
"""
SET_VIEW = """
if not expires then return -1 end
redis.call('HSET', meta, 'page', ARGV[2], 'query', ARGV[3])
return redis.call('HINCRBY', meta, 'version', 1)
"""
# ARGV: prefix, question id, question, max questions. A question asked again keeps its first
# body, its place and its answers; a new one is refused (records.FULL) once the class has
# asked max questions.
ASK = """
if not expires then return -1 end
if redis.call('HEXISTS', bodies, ARGV[2]) == 0 then
  if redis.call('LLEN', asked) >= tonumber(ARGV[4]) then return -3 end
  redis.call('HSET', bodies, ARGV[2], ARGV[3])
  redis.call('RPUSH', asked, ARGV[2])
  keep(bodies)
  keep(asked)
end
redis.call('HSET', meta, 'question', redis.call('HGET', bodies, ARGV[2]), 'revealed', 0)
return redis.call('HINCRBY', meta, 'version', 1)
"""
# ARGV: prefix, question id: revealed only while it is the open question (records.NOT_OPEN).
REVEAL = """
if not expires then return -1 end
if open_question() ~= ARGV[2] then return -2 end
redis.call('HSET', meta, 'revealed', 1)
return redis.call('HINCRBY', meta, 'version', 1)
"""
QUESTIONS = """
local ids = redis.call('LRANGE', asked, 0, -1)
if #ids == 0 then return {} end
return redis.call('HMGET', bodies, unpack(ids))
"""
# ARGV: prefix, question id, student, answer, since, max answers. The first answer of a
# student present counts, while the question has room; returns an ``Answered``.
ANSWER = """
if not expires then return 0 end
if open_question() ~= ARGV[2] or redis.call('HGET', meta, 'revealed') ~= '0' then return 4 end
local answers, counts = prefix .. 'answers:' .. ARGV[2], prefix .. 'counts:' .. ARGV[2]
if redis.call('HEXISTS', answers, ARGV[3]) == 1 then return 0 end
local seen = redis.call('ZSCORE', presence, ARGV[3])
if not seen or tonumber(seen) < tonumber(ARGV[5]) then return 2 end
if redis.call('HLEN', answers) >= tonumber(ARGV[6]) then return 3 end
redis.call('HSET', answers, ARGV[3], ARGV[4])
redis.call('HINCRBY', counts, ARGV[4], 1)
keep(answers)
keep(counts)
return 1
"""
# ARGV: prefix, student, now, max students. A gone class has no one to refuse.
JOIN = """
if not expires then return 1 end
redis.call('ZREMRANGEBYSCORE', presence, '-inf', '(' .. ARGV[5])
if not redis.call('ZSCORE', presence, ARGV[2])
    and redis.call('ZCARD', presence) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('ZADD', presence, ARGV[3], ARGV[2])
keep(presence)
heard(ARGV[3])
return 1
"""
# ARGV: prefix, request id, now, max changes; returns a ``RequestUse``. A gone class
# replays nothing: the write that follows finds it gone.
FIRST_USE = """
if not expires then return 1 end
heard(ARGV[3])
if redis.call('SISMEMBER', requests, ARGV[2]) == 1 then return 0 end
if redis.call('SCARD', requests) >= tonumber(ARGV[4]) then return 2 end
redis.call('SADD', requests, ARGV[2])
keep(requests)
return 1
"""
END = """
drop_class(prefix)
redis.call('ZREM', index, ARGV[2])
return 1
"""
# KEYS: (INDEX,); ARGV: the prefix of every class, idle_since, now. Each open class's
# keys are named from its code (at most MAX_CLASSES classes are open).
RECLAIM = (
    DROP_CLASS
    + """
local ended = 0
for _, code in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[3], '+inf')) do
  local prefix = ARGV[1] .. code .. ':'
  local heard_at = redis.call('HGET', prefix .. 'meta', 'heard_at')
  if tonumber(heard_at or 0) < tonumber(ARGV[2]) then
    drop_class(prefix)
    redis.call('ZREM', KEYS[1], code)
    ended = ended + 1
  end
end
return ended
"""
)
