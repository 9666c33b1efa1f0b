extension RedisSharedGroups {
    /// KEYS: group set, keyset's group index. ARGV: group, control channel, notice, per-group
    /// limit, per-keyset limit, channels… Returns 1, or -1 (group full) / -2 (keyset full).
    static let addScript = RedisScript("""
        local existing = redis.call('SCARD', KEYS[1])
        if existing == 0 and #ARGV > 5 and redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[5]) then return -2 end
        local new = 0
        for i = 6, #ARGV do
          if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 0 then new = new + 1 end
        end
        if existing + new > tonumber(ARGV[4]) then return -1 end
        for i = 6, #ARGV do redis.call('SADD', KEYS[1], ARGV[i]) end
        if #ARGV > 5 then redis.call('SADD', KEYS[2], ARGV[1]) end
        redis.call('PUBLISH', ARGV[2], ARGV[3])
        return 1
        """)

    /// KEYS: group set, keyset's group index. ARGV: group, control channel, notice, channels…
    static let removeScript = RedisScript("""
        for i = 4, #ARGV do redis.call('SREM', KEYS[1], ARGV[i]) end
        if redis.call('SCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) end
        redis.call('PUBLISH', ARGV[2], ARGV[3])
        return 1
        """)

    /// KEYS: group set, keyset's group index. ARGV: group, control channel, notice.
    static let deleteScript = RedisScript("""
        redis.call('DEL', KEYS[1])
        redis.call('SREM', KEYS[2], ARGV[1])
        redis.call('PUBLISH', ARGV[2], ARGV[3])
        return 1
        """)
}
