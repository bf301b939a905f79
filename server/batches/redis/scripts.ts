/**
 * The Lua scripts of the `redis` batch backend. Each runs atomically in
 * Redis, which is what makes the counters exact although BullMQ delivers a
 * job at least once (a job whose worker died is run again, in part or whole):
 *
 * - `RECORD` stores a worker's buffered results of a batch that keeps every
 *   result. A result is stored only if its deal index has none yet (HSETNX
 *   on the `idx` hash); the counters and the summary move only for the
 *   results stored, in the same script, so they always equal what the
 *   hashes hold. `seq` (the stream cursor) is `stored` after the result,
 *   so it has no gaps and no repeats, as in the SQLite store.
 * - `RECORD_RANGE` counts a whole job of a batch that keeps exceptions: its
 *   summary (census.ts, as HINCRBY increments) and its exceptions, once:
 *   only if the job's bit in the `jobs` bitmap was not set (SETBIT returns
 *   the bit it replaced), so a job run twice is counted once.
 * - `CANCEL` flips a running batch to `cancelled` and tells every worker.
 * - `PAGE` reads the state and then stored results after a cursor, in one step.
 * - `STATUS` reads the batch hash, the server's clock and the per-second
 *   result counters of the rate window.
 * - `PURGE` deletes the stored results of an ended batch.
 *
 * A batch that ends (done or cancelled) joins the `ended` sorted set, by
 * its end time, for retention. Times come from the Redis server's clock
 * (TIME), so machines with skewed clocks agree on `finishedAt` and the rate
 * buckets.
 */
import { RATE_WINDOW_S, Script } from './keys.js';

/** Fields of one result in RECORD's ARGV. */
export const RECORD_FIELDS = 10;

/** Lua: ends the batch of KEYS[1] as `done` when `done` reached its total (h: HMGET status, done, total, createdAt), and says so. */
const FINISH_IF_DONE = `
local function finishIfDone(done, h, t, running, ended, id)
  if done < tonumber(h[3]) then return end
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('HSET', KEYS[1], 'status', 'done', 'finishedAt', now, 'activeMs', now - tonumber(h[4]))
  redis.call('SREM', running, id)
  redis.call('ZADD', ended, now, id)
end
local function countRate(t, n)
  local rate = KEYS[1] .. ':rate:' .. t[1]
  redis.call('INCRBY', rate, n)
  redis.call('EXPIRE', rate, ${4 * RATE_WINDOW_S})
end
`;

/**
 * KEYS: batch, idx, res, running, ended. ARGV: events channel, batch id, n,
 * then n times (index, counter field, move count, engine ms, payload,
 * engine µs, positions, moves field, positions field, time field; the last
 * three '' unless solved: census.ts `summaryIncrements`' histogram fields).
 * Returns {stored, done}; stored = -1 when the batch is not running (nothing written).
 */
export const RECORD = new Script(`${FINISH_IF_DONE}
local h = redis.call('HMGET', KEYS[1], 'status', 'done', 'total', 'createdAt', 'stored')
if h[1] ~= 'running' then return {-1, tonumber(h[2] or '0')} end
local done = tonumber(h[2])
local before = tonumber(h[5] or h[2])
local n = tonumber(ARGV[3])
local stored, moves, elapsed, us, positions = 0, 0, 0, 0, 0
local counts = {}
for i = 0, n - 1 do
  local b = 4 + i * ${RECORD_FIELDS}
  local seq = before + stored + 1
  if redis.call('HSETNX', KEYS[2], ARGV[b], seq) == 1 then
    redis.call('HSET', KEYS[3], seq, ARGV[b + 4])
    stored = stored + 1
    counts[ARGV[b + 1]] = (counts[ARGV[b + 1]] or 0) + 1
    moves = moves + tonumber(ARGV[b + 2])
    elapsed = elapsed + tonumber(ARGV[b + 3])
    us = us + tonumber(ARGV[b + 5])
    positions = positions + tonumber(ARGV[b + 6])
    for j = 7, 9 do
      local field = ARGV[b + j]
      if field ~= '' then counts[field] = (counts[field] or 0) + 1 end
    end
  end
end
if stored == 0 then return {0, done} end
done = done + stored
redis.call('HSET', KEYS[1], 'done', done, 'stored', before + stored)
for field, c in pairs(counts) do redis.call('HINCRBY', KEYS[1], field, c) end
redis.call('HINCRBY', KEYS[1], 'sumMoves', moves)
redis.call('HINCRBYFLOAT', KEYS[1], 'sumElapsedMs', elapsed)
redis.call('HINCRBY', KEYS[1], 'sumElapsedUs', us)
redis.call('HINCRBY', KEYS[1], 'sumPositions', positions)
local t = redis.call('TIME')
countRate(t, stored)
finishIfDone(done, h, t, KEYS[4], KEYS[5], ARGV[2])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return {stored, done}
`);

/**
 * KEYS: batch, res, running, jobs, ended. ARGV: events channel, batch id,
 * job number, deals in the job, their engine ms (sum), m, then m pairs
 * (field, increment) of the job's summary (census.ts `summaryIncrements`),
 * then the payloads of its exceptions.
 * Returns {counted, done}: counted = 1 when the job was counted now, 0 when
 * it had been already, -1 when the batch is not running (nothing written).
 */
export const RECORD_RANGE = new Script(`${FINISH_IF_DONE}
local h = redis.call('HMGET', KEYS[1], 'status', 'done', 'total', 'createdAt', 'stored')
if h[1] ~= 'running' then return {-1, tonumber(h[2] or '0')} end
if redis.call('SETBIT', KEYS[4], ARGV[3], 1) == 1 then return {0, tonumber(h[2])} end
local deals = tonumber(ARGV[4])
local m = tonumber(ARGV[6])
for i = 0, m - 1 do redis.call('HINCRBY', KEYS[1], ARGV[7 + 2 * i], ARGV[8 + 2 * i]) end
redis.call('HINCRBYFLOAT', KEYS[1], 'sumElapsedMs', ARGV[5])
local stored = tonumber(h[5] or '0')
for i = 7 + 2 * m, #ARGV do
  stored = stored + 1
  redis.call('HSET', KEYS[2], stored, ARGV[i])
end
local done = tonumber(h[2]) + deals
redis.call('HSET', KEYS[1], 'done', done, 'stored', stored)
local t = redis.call('TIME')
countRate(t, deals)
finishIfDone(done, h, t, KEYS[3], KEYS[5], ARGV[2])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return {1, done}
`);

/**
 * KEYS: batch, running, ended. ARGV: events channel, control channel, batch id.
 * Returns 1 when the batch was running and is now cancelled, else 0.
 */
export const CANCEL = new Script(`
local h = redis.call('HMGET', KEYS[1], 'status', 'createdAt')
if h[1] ~= 'running' then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'finishedAt', now, 'activeMs', now - tonumber(h[2]))
redis.call('SREM', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[3], now, ARGV[3])
redis.call('PUBLISH', ARGV[2], 'cancel ' .. ARGV[3])
redis.call('PUBLISH', ARGV[1], ARGV[3])
return 1
`);

/**
 * KEYS: batch, res. ARGV: after, count.
 * Returns nil when there is no such batch, else {status, done, total,
 * stored, {the payloads of seqs after+1 .. min(stored, after+count), in seq order}}.
 */
export const PAGE = new Script(`
local h = redis.call('HMGET', KEYS[1], 'status', 'done', 'total', 'stored')
if not h[1] then return false end
local stored = h[4] or h[2]
local after = tonumber(ARGV[1])
local last = math.min(tonumber(stored), after + tonumber(ARGV[2]))
local rows = {}
if last > after then
  local seqs = {}
  for s = after + 1, last do seqs[#seqs + 1] = s end
  rows = redis.call('HMGET', KEYS[2], unpack(seqs))
end
return {h[1], h[2], h[3], stored, rows}
`);

/**
 * KEYS: batch, idx, res, jobs, ended. ARGV: batch id.
 * Deletes the stored results (and the exactly-once keys, no longer needed)
 * of an ended batch; sets `stored` 0 and `purgedAt`.
 * Returns 1 when purged now, 0 when it was already, -1 when it is running, nil when there is no such batch.
 */
export const PURGE = new Script(`
local h = redis.call('HMGET', KEYS[1], 'status', 'purgedAt')
if not h[1] then return false end
if h[1] == 'running' then return -1 end
if h[2] then return 0 end
redis.call('UNLINK', KEYS[2], KEYS[3], KEYS[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'stored', 0, 'purgedAt', now)
redis.call('ZREM', KEYS[5], ARGV[1])
return 1
`);

/**
 * KEYS: batch. Returns nil when there is no such batch, else {HGETALL of the
 * batch, server seconds, server microseconds, {results stored in each of the
 * last RATE_WINDOW_S seconds and the current one}} (the counters only while running).
 */
export const STATUS = new Script(`
local all = redis.call('HGETALL', KEYS[1])
if #all == 0 then return false end
local t = redis.call('TIME')
local counts = {}
if redis.call('HGET', KEYS[1], 'status') == 'running' then
  local keys = {}
  local now = tonumber(t[1])
  for s = now - ${RATE_WINDOW_S}, now do keys[#keys + 1] = KEYS[1] .. ':rate:' .. s end
  counts = redis.call('MGET', unpack(keys))
end
return {all, t[1], t[2], counts}
`);
