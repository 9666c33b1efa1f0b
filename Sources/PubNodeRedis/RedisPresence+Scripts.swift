extension RedisPresence {
    /// What every writing script starts with. KEYS: the channel index, the expiry queue.
    /// ARGV[1] the key prefix, ARGV[2] `<len>:<subscribe key>`, ARGV[3] "now" in Unix milliseconds
    /// (empty: Redis `TIME`).
    ///
    /// Keys of one channel or uuid are derived here, so scripts touch keys they were not given:
    /// fine on one Redis server (or a replicated one), not on Redis Cluster.
    /// An entry is present while its expiry is after now. An entry found expired before a sweep
    /// reached it is timed out on the spot (`timeout` event), so what is announced depends on
    /// Redis's time only, never on when a sweep ran.
    static let prelude = """
        local IDX, Q = KEYS[1], KEYS[2]
        local P, S = ARGV[1], ARGV[2]
        local now
        if ARGV[3] ~= '' then now = tonumber(ARGV[3]) else
          local t = redis.call('TIME')
          now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        end
        local GRACE = 60000
        local function fmt(n) return string.format('%d', n) end
        local function k(kind, name) return P .. ':' .. kind .. ':' .. S .. ':' .. name end
        local function qm(kind, channel, uuid) return kind .. #channel .. ':' .. channel .. uuid end
        local function keep(key, at)
          local t = redis.call('PEXPIRETIME', key)
          if t == -1 or (t >= 0 and t < at + GRACE) then redis.call('PEXPIREAT', key, fmt(at + GRACE)) end
        end
        local function count(channel) return redis.call('ZCOUNT', k('p', channel), '(' .. fmt(now), '+inf') end
        local events = {}
        local function event(action, channel, uuid, state)
          events[#events + 1] = {action, channel, uuid, count(channel), state or false}
        end
        local function reply() return {fmt(math.floor(now / 1000)), events} end
        local function drop(channel, uuid)
          local pk = k('p', channel)
          redis.call('ZREM', pk, uuid)
          redis.call('ZREM', k('pu', uuid), channel)
          redis.call('HDEL', k('ps', uuid), channel)
          redis.call('ZREM', Q, qm('p', channel, uuid), qm('s', channel, uuid))
          if redis.call('ZCARD', pk) == 0 then redis.call('ZREM', IDX, channel) end
        end
        local function present(channel, uuid)
          local score = redis.call('ZSCORE', k('p', channel), uuid)
          if not score then return false end
          if tonumber(score) > now then return true end
          drop(channel, uuid)
          event('timeout', channel, uuid)
          return false
        end
        local function fits(uuid, limit, changes)
          if limit < 0 then return true end
          local sk = k('ps', uuid)
          local n = redis.call('HLEN', sk)
          for channel, set in pairs(changes) do
            local has = redis.call('HEXISTS', sk, channel) == 1
            if set and not has then n = n + 1 elseif has and not set then n = n - 1 end
          end
          return n <= limit
        end

        """

    /// ARGV[4] the timeout in ms, ARGV[5] the most channels with state (-1: any), ARGV[6] the uuid,
    /// then triples: channel, `k` (keep its state) `s` (set) or `c` (clear), state.
    /// Returns `{unix seconds, events}` or the error `TOOMANYSTATES`, changing nothing.
    static let heartbeatScript = RedisScript(prelude + """
        local expiry = now + tonumber(ARGV[4])
        local uuid = ARGV[6]
        local changes = {}
        for i = 7, #ARGV, 3 do
          if ARGV[i + 1] ~= 'k' then changes[ARGV[i]] = ARGV[i + 1] == 's' end
        end
        if not fits(uuid, tonumber(ARGV[5]), changes) then return redis.error_reply('TOOMANYSTATES') end
        local uk, sk = k('pu', uuid), k('ps', uuid)
        for i = 7, #ARGV, 3 do
          local channel, flag, state = ARGV[i], ARGV[i + 1], ARGV[i + 2]
          local pk = k('p', channel)
          if present(channel, uuid) then
            redis.call('ZADD', pk, expiry, uuid)
            if flag ~= 'k' then
              local old = redis.call('HGET', sk, channel)
              local new = flag == 's' and state
              if old ~= new then
                if new then redis.call('HSET', sk, channel, new) else redis.call('HDEL', sk, channel) end
                event('state-change', channel, uuid, new)
              end
            end
          else
            local st
            if flag == 's' then
              st = state
              redis.call('HSET', sk, channel, state)
            elseif flag == 'c' then
              st = false
              redis.call('HDEL', sk, channel)
            else
              st = redis.call('HGET', sk, channel)
            end
            redis.call('ZREM', Q, qm('s', channel, uuid))
            redis.call('ZADD', pk, expiry, uuid)
            event('join', channel, uuid, st)
          end
          redis.call('ZADD', uk, expiry, channel)
          redis.call('ZADD', Q, expiry, qm('p', channel, uuid))
          redis.call('ZADD', IDX, 'GT', expiry, channel)
          keep(pk, expiry)
        end
        for _, key in ipairs({uk, sk, IDX, Q}) do keep(key, expiry) end
        return reply()
        """)

    /// ARGV[4] the uuid, then channels. Leaving also drops state kept for a later join there.
    static let leaveScript = RedisScript(prelude + """
        local uuid = ARGV[4]
        for i = 5, #ARGV do
          local channel = ARGV[i]
          if present(channel, uuid) then
            drop(channel, uuid)
            event('leave', channel, uuid)
          else
            drop(channel, uuid)
          end
        end
        return reply()
        """)

    /// ARGV[4] the uuid, ARGV[5] how long state of a channel the uuid is not on is kept (ms),
    /// ARGV[6] the most channels with state (-1: any), ARGV[7] the state (empty: clear), then
    /// channels. Present: `state-change` when the state differs. Absent: kept for the next join.
    static let setStateScript = RedisScript(prelude + """
        local uuid, state = ARGV[4], ARGV[7]
        local expiry = now + tonumber(ARGV[5])
        local new = state ~= '' and state
        local changes = {}
        for i = 8, #ARGV do changes[ARGV[i]] = new and true or false end
        if not fits(uuid, tonumber(ARGV[6]), changes) then return redis.error_reply('TOOMANYSTATES') end
        local sk = k('ps', uuid)
        for i = 8, #ARGV do
          local channel = ARGV[i]
          local here = present(channel, uuid)
          local old = redis.call('HGET', sk, channel)
          if new then redis.call('HSET', sk, channel, new) else redis.call('HDEL', sk, channel) end
          if here then
            if new then keep(sk, math.max(expiry, tonumber(redis.call('ZSCORE', k('p', channel), uuid)))) end
            if old ~= new then event('state-change', channel, uuid, new) end
          elseif new then
            redis.call('ZADD', Q, expiry, qm('s', channel, uuid))
            keep(sk, expiry)
            keep(Q, expiry)
          else
            redis.call('ZREM', Q, qm('s', channel, uuid))
          end
        end
        return reply()
        """)

    /// ARGV[4] the most entries to expire. Removes presence entries and kept state whose expiry
    /// has passed, each by exactly one caller, and trims the channel index.
    static let sweepScript = RedisScript(prelude + """
        local limit = tonumber(ARGV[4])
        local due = redis.call('ZRANGEBYSCORE', Q, '-inf', fmt(now), 'LIMIT', 0, limit)
        for _, m in ipairs(due) do
          local colon = string.find(m, ':', 2, true)
          local len = tonumber(string.sub(m, 2, colon - 1))
          local channel = string.sub(m, colon + 1, colon + len)
          local uuid = string.sub(m, colon + len + 1)
          redis.call('ZREM', Q, m)
          local score = redis.call('ZSCORE', k('p', channel), uuid)
          if string.sub(m, 1, 1) == 'p' then
            if score and tonumber(score) <= now then
              drop(channel, uuid)
              event('timeout', channel, uuid)
            end
          elseif not score then
            redis.call('HDEL', k('ps', uuid), channel)
          end
        end
        for _, channel in ipairs(redis.call('ZRANGEBYSCORE', IDX, '-inf', fmt(now), 'LIMIT', 0, limit)) do
          redis.call('ZREM', IDX, channel)
        end
        return reply()
        """)

    /// ARGV[4] the most queue entries to delete with their keys. Returns how many remain.
    static let purgeScript = RedisScript(prelude + """
        local batch = redis.call('ZRANGE', Q, 0, tonumber(ARGV[4]) - 1)
        for _, m in ipairs(batch) do
          local colon = string.find(m, ':', 2, true)
          local len = tonumber(string.sub(m, 2, colon - 1))
          local channel = string.sub(m, colon + 1, colon + len)
          local uuid = string.sub(m, colon + len + 1)
          redis.call('DEL', k('p', channel), k('pu', uuid), k('ps', uuid))
          redis.call('ZREM', Q, m)
          redis.call('ZREM', IDX, channel)
        end
        local left = redis.call('ZCARD', Q)
        if left == 0 then
          for _, channel in ipairs(redis.call('ZRANGE', IDX, 0, -1)) do redis.call('DEL', k('p', channel)) end
          redis.call('DEL', IDX, Q)
        end
        return left
        """)

    /// KEYS: a zset. ARGV[1] now in ms (empty: Redis `TIME`), ARGV[2] `count` or `list`.
    /// The members whose score (expiry) is after now, or how many there are.
    static let liveScript = RedisScript("""
        local now
        if ARGV[1] ~= '' then now = tonumber(ARGV[1]) else
          local t = redis.call('TIME')
          now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        end
        local from = '(' .. string.format('%d', now)
        if ARGV[2] == 'count' then return redis.call('ZCOUNT', KEYS[1], from, '+inf') end
        return redis.call('ZRANGEBYSCORE', KEYS[1], from, '+inf')
        """)
}
