/**
 * The Lua scripts of the `redis` batch backend. Each runs atomically in
 * Redis, which is what makes the counters exact although BullMQ delivers a
 * job at least once (a job whose worker died is run again, in part or whole):
 *
 * - `RECORD` stores a worker's buffered results. A result is stored only if
 *   its deal index has none yet (HSETNX on the `idx` hash); the counters move
 *   only for the results stored, in the same script, so they always equal
 *   what the hashes hold. `seq` (the stream cursor) is `done` after the
 *   result, so it has no gaps and no repeats, as in the SQLite store.
 * - `CANCEL` flips a running batch to `cancelled` and tells every worker.
 * - `PAGE` reads the state and then results after a cursor, in one step.
 * - `STATUS` reads the batch hash, the server's clock and the per-second
 *   result counters of the rate window.
 *
 * Times come from the Redis server's clock (TIME), so machines with skewed
 * clocks agree on `finishedAt` and the rate buckets.
 */
import { RATE_WINDOW_S, Script } from './keys.js';

/** Fields of one result in RECORD's ARGV. */
export const RECORD_FIELDS = 5;

/**
 * KEYS: batch, idx, res, running. ARGV: events channel, batch id, n, then n
 * times (index, counter field, move count, engine ms, payload).
 * Returns {stored, done}; stored = -1 when the batch is not running (nothing written).
 */
export const RECORD = new Script(`
local h = redis.call('HMGET', KEYS[1], 'status', 'done', 'total', 'createdAt')
if h[1] ~= 'running' then return {-1, tonumber(h[2] or '0')} end
local done = tonumber(h[2])
local n = tonumber(ARGV[3])
local stored, moves, elapsed = 0, 0, 0
local counts = {}
for i = 0, n - 1 do
  local b = 4 + i * ${RECORD_FIELDS}
  local seq = done + stored + 1
  if redis.call('HSETNX', KEYS[2], ARGV[b], seq) == 1 then
    redis.call('HSET', KEYS[3], seq, ARGV[b + 4])
    stored = stored + 1
    counts[ARGV[b + 1]] = (counts[ARGV[b + 1]] or 0) + 1
    moves = moves + tonumber(ARGV[b + 2])
    elapsed = elapsed + tonumber(ARGV[b + 3])
  end
end
if stored == 0 then return {0, done} end
done = done + stored
redis.call('HSET', KEYS[1], 'done', done)
for field, c in pairs(counts) do redis.call('HINCRBY', KEYS[1], field, c) end
redis.call('HINCRBY', KEYS[1], 'sumMoves', moves)
redis.call('HINCRBYFLOAT', KEYS[1], 'sumElapsedMs', elapsed)
local t = redis.call('TIME')
local rate = KEYS[1] .. ':rate:' .. t[1]
redis.call('INCRBY', rate, stored)
redis.call('EXPIRE', rate, ${4 * RATE_WINDOW_S})
if done >= tonumber(h[3]) then
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('HSET', KEYS[1], 'status', 'done', 'finishedAt', now, 'activeMs', now - tonumber(h[4]))
  redis.call('SREM', KEYS[4], ARGV[2])
end
redis.call('PUBLISH', ARGV[1], ARGV[2])
return {stored, done}
`);

/**
 * KEYS: batch, running. ARGV: events channel, control channel, batch id.
 * Returns 1 when the batch was running and is now cancelled, else 0.
 */
export const CANCEL = new Script(`
local h = redis.call('HMGET', KEYS[1], 'status', 'createdAt')
if h[1] ~= 'running' then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'finishedAt', now, 'activeMs', now - tonumber(h[2]))
redis.call('SREM', KEYS[2], ARGV[3])
redis.call('PUBLISH', ARGV[2], 'cancel ' .. ARGV[3])
redis.call('PUBLISH', ARGV[1], ARGV[3])
return 1
`);

/**
 * KEYS: batch, res. ARGV: after, limit.
 * Returns nil when there is no such batch, else {status, done, total, {payloads with seq > after, in seq order}}.
 */
export const PAGE = new Script(`
local h = redis.call('HMGET', KEYS[1], 'status', 'done', 'total')
if not h[1] then return false end
local after = tonumber(ARGV[1])
local last = math.min(tonumber(h[2]), after + tonumber(ARGV[2]))
local rows = {}
if last > after then
  local seqs = {}
  for s = after + 1, last do seqs[#seqs + 1] = s end
  rows = redis.call('HMGET', KEYS[2], unpack(seqs))
end
return {h[1], h[2], h[3], rows}
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
