import Testing
import WebImageRedis

@Suite("CircuitBreaker (Redis tier): open after consecutive failures, one probe after the cooldown")
struct RedisCircuitBreakerTests {
    let start = ContinuousClock.now

    @Test("three consecutive failures open it; calls are refused for the cooldown; a success in between resets the count")
    func opens() {
        let breaker = CircuitBreaker(failureThreshold: 3, cooldown: .seconds(5))
        breaker.recordFailure(.call, now: start)
        breaker.recordFailure(.call, now: start)
        breaker.recordSuccess()
        breaker.recordFailure(.call, now: start)
        breaker.recordFailure(.call, now: start)
        #expect(breaker.state == .closed)
        #expect(breaker.acquire(now: start) == .call)
        #expect(breaker.recordFailure(.call, now: start))
        #expect(breaker.state == .open)
        #expect(breaker.acquire(now: start + .seconds(4)) == nil)
        #expect(breaker.openCount == 1)
    }

    @Test("after the cooldown exactly one probe goes through; its failure reopens, its success closes")
    func probe() {
        let breaker = CircuitBreaker(failureThreshold: 1, cooldown: .seconds(5))
        breaker.recordFailure(.call, now: start)
        #expect(breaker.acquire(now: start + .seconds(5)) == .probe)
        #expect(breaker.state == .halfOpen)
        #expect(breaker.acquire(now: start + .seconds(5)) == nil)
        // A late failure of a call made before the breaker opened does not spend the probe.
        #expect(!breaker.recordFailure(.call, now: start + .seconds(5)))
        #expect(breaker.recordFailure(.probe, now: start + .seconds(5)))
        #expect(breaker.acquire(now: start + .seconds(9)) == nil)
        #expect(breaker.acquire(now: start + .seconds(10)) == .probe)
        breaker.recordSuccess()
        #expect(breaker.state == .closed)
        #expect(breaker.acquire(now: start + .seconds(10)) == .call)
        #expect(breaker.openCount == 2)
    }

    @Test("a probe given back unused (its caller was cancelled) lets the next caller probe")
    func releasedProbe() {
        let breaker = CircuitBreaker(failureThreshold: 1, cooldown: .seconds(1))
        breaker.recordFailure(.call, now: start)
        let permit = breaker.acquire(now: start + .seconds(1))
        #expect(permit == .probe)
        breaker.release(.probe, now: start + .seconds(1))
        #expect(breaker.acquire(now: start + .seconds(1)) == .probe)
    }
}
