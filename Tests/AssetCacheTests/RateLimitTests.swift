import Testing

@testable import AssetCache

/// The shared `--limit-rate` budget, on a clock the test moves: no sleeping,
/// no timing.
@Suite struct RateLimitTests {
    @Test func debtIsPaidAtTheRateAndUnusedTimeIsNotBankedBeyondASixteenthOfASecond() {
        let start = ContinuousClock.now
        let limit = RateLimit(bytesPerSecond: 1000, concurrency: 8, now: start)
        #expect(!limit.isOverdrawn)
        // Eight transfers read 250 bytes each at once: 2 s of budget.
        for _ in 0..<8 { limit.spend(250) }
        #expect(limit.isOverdrawn)
        #expect(limit.millisecondsUntilSolvent == 2000)
        limit.refill(at: start + .milliseconds(1999))
        #expect(limit.isOverdrawn)
        #expect(limit.millisecondsUntilSolvent == 1)
        limit.refill(at: start + .seconds(2))
        #expect(!limit.isOverdrawn)
        // An idle minute earns 1/16 s (62.5 bytes), not 60 s of budget.
        limit.refill(at: start + .seconds(62))
        limit.spend(63)
        #expect(limit.isOverdrawn)
    }

    @Test func bytesReadNeverOutrunTheRateByMoreThanOneRound() {
        let start = ContinuousClock.now
        let rate: Int64 = 200 * 1024
        let limit = RateLimit(bytesPerSecond: rate, concurrency: 8, now: start)
        let read = RateLimit.readSize(bytesPerSecond: rate, concurrency: 8)
        #expect(read == 1600)
        // The loop: whenever solvent, each of 8 transfers reads one buffer.
        var now = start
        var total = 0
        while total < 2 * 1024 * 1024 {
            limit.refill(at: now)
            if limit.isOverdrawn {
                now += .milliseconds(limit.millisecondsUntilSolvent)
                continue
            }
            for _ in 0..<8 {
                limit.spend(read)
                total += read
            }
            let elapsed = Double(start.duration(to: now).components.seconds) + Double(start.duration(to: now).components.attoseconds) / 1e18
            #expect(Double(total) <= Double(rate) * elapsed + Double(rate) / 16 + Double(8 * read))
        }
    }
}
