import Testing
import WebImageRedis

@Suite("RedisURL: redis:// and rediss:// as WEBIMAGE_REDIS_URL takes them")
struct RedisURLTests {
    @Test("the full form: user, percent-encoded password, host, port, database; rediss means TLS")
    func fullForm() throws {
        let url = try RedisURL("redis://cache:p%40ss:w@redis.internal:6380/2")
        #expect(url == RedisURL(host: "redis.internal", port: 6380, user: "cache", password: "p@ss:w", database: 2))
        #expect(try RedisURL("rediss://r.example:6390").usesTLS)
        #expect(try !RedisURL("redis://r.example").usesTLS)
    }

    @Test("defaults: port 6379, database 0, no login; one word before @ is the password (redis-cli's rule); IPv6 in brackets")
    func defaults() throws {
        #expect(try RedisURL("redis://localhost") == RedisURL(host: "localhost"))
        #expect(try RedisURL("redis://localhost/") == RedisURL(host: "localhost"))
        #expect(try RedisURL("redis://s3cret@h:7000/1") == RedisURL(host: "h", port: 7000, password: "s3cret", database: 1))
        #expect(try RedisURL("redis://:s3cret@h") == RedisURL(host: "h", password: "s3cret"))
        #expect(try RedisURL("redis://[::1]:7001") == RedisURL(host: "::1", port: 7001))
    }

    @Test("bad input throws a typed error whose message shows the expected form", arguments: [
        ("localhost:6379", RedisURLError.notARedisURL("localhost:6379")),
        ("http://h:6379", .unsupportedScheme("http")),
        ("redis://:6379", .missingHost("redis://:6379")),
        ("redis://h:99999", .badPort("99999")),
        ("redis://h:port", .badPort("port")),
        ("redis://h/db1", .badDatabase("db1")),
    ])
    func refusals(text: String, expected: RedisURLError) {
        #expect(throws: expected) { try RedisURL(text) }
        #expect(expected.description.contains("expected redis://[user:password@]host:port/db"))
    }

    @Test("the password never shows: not in the description, not in an error message")
    func redaction() {
        let url = RedisURL(host: "h", user: "cache", password: "s3cret")
        #expect(url.description == "redis://cache:***@h:6379/0")
        #expect(!"\(url)".contains("s3cret"))
        for bad in ["cache:s3cret@h:6379", "redis://cache:s3cret@:6379"] {
            do {
                _ = try RedisURL(bad)
                Issue.record("\(bad) was accepted")
            } catch {
                #expect(!error.description.contains("s3cret"), "\(error)")
            }
        }
    }
}
