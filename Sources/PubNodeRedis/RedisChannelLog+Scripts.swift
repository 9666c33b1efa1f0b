extension RedisChannelLog {
    /// KEYS: stream, clock. ARGV: record, capacity, ttl seconds, pub/sub channel.
    /// Returns the timetoken as a string.
    static let appendScript = RedisScript("""
        local now = redis.call('TIME')
        local sec = tonumber(now[1])
        local low = tonumber(now[2]) * 10
        local last = redis.call('HMGET', KEYS[2], 's', 'l')
        if last[1] then
          local ls, ll = tonumber(last[1]), tonumber(last[2])
          if sec < ls or (sec == ls and low <= ll) then
            sec, low = ls, ll + 1
            if low >= 10000000 then sec, low = sec + 1, 0 end
          end
        end
        redis.call('HSET', KEYS[2], 's', string.format('%d', sec), 'l', string.format('%d', low))
        local tt = string.format('%d%07d', sec, low)
        redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], tt .. '-0', 'r', ARGV[1])
        redis.call('EXPIRE', KEYS[1], ARGV[3])
        redis.call('EXPIRE', KEYS[2], ARGV[3])
        redis.call('PUBLISH', ARGV[4], tt .. ':' .. ARGV[1])
        return tt
        """)

    /// KEYS: stream. ARGV: exclusive start id, count.
    /// Returns `{max-deleted-entry-id, entries}` read atomically.
    static let readScript = RedisScript("""
        if redis.call('EXISTS', KEYS[1]) == 0 then return {'0-0', {}} end
        local info = redis.call('XINFO', 'STREAM', KEYS[1])
        local dropped = '0-0'
        for i = 1, #info, 2 do
          if info[i] == 'max-deleted-entry-id' then dropped = info[i + 1] end
        end
        return {dropped, redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])}
        """)
}
