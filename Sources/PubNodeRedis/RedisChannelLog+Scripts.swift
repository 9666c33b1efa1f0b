extension RedisChannelLog {
    /// KEYS: stream, channel hash, keyset clock. ARGV: record, capacity, ttl seconds, pub/sub channel.
    /// The clock is the subscribe key's, so timetokens rise in the order the script runs across
    /// every channel of the keyset: a node receives pushes in timetoken order. Records the newest
    /// id the trim drops in the channel hash's `d`; returns the timetoken as a string.
    static let appendScript = RedisScript("""
        local now = redis.call('TIME')
        local sec = tonumber(now[1])
        local low = tonumber(now[2]) * 10
        local last = redis.call('HMGET', KEYS[3], 's', 'l')
        if last[1] then
          local ls, ll = tonumber(last[1]), tonumber(last[2])
          if sec < ls or (sec == ls and low <= ll) then
            sec, low = ls, ll + 1
            if low >= 10000000 then sec, low = sec + 1, 0 end
          end
        end
        redis.call('HSET', KEYS[3], 's', string.format('%d', sec), 'l', string.format('%d', low))
        local tt = string.format('%d%07d', sec, low)
        local over = redis.call('XLEN', KEYS[1]) - tonumber(ARGV[2]) + 1
        if over > 0 then
          local dropped = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', over)
          redis.call('HSET', KEYS[2], 'd', dropped[#dropped][1])
        end
        redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], tt .. '-0', 'r', ARGV[1])
        redis.call('EXPIRE', KEYS[1], ARGV[3])
        redis.call('EXPIRE', KEYS[2], ARGV[3])
        redis.call('EXPIRE', KEYS[3], ARGV[3])
        redis.call('PUBLISH', ARGV[4], tt .. ':' .. ARGV[1])
        return tt
        """)

    /// KEYS: stream, channel hash. ARGV: exclusive start id, count.
    /// Returns `{newest dropped id, entries}` read atomically.
    static let readScript = RedisScript("""
        local dropped = redis.call('HGET', KEYS[2], 'd') or '0-0'
        return {dropped, redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])}
        """)
}
