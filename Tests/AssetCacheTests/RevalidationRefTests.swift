import Testing
@testable import AssetCache

/// When a 304 leaves nothing a later run reads changed, the ref is not
/// rewritten; when it changes only the freshness, state.json remembers it.
@Suite struct RevalidationRefTests {
    let old = AssetRef(
        url: "http://e.com/a.png", object: "ab", etag: "\"1\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT",
        fetchedAt: 100, maxAge: 0, bytes: 5, kind: .image)

    @Test func onlyANewFetchTimeWithoutLifetimeChangesNothing() {
        var new = old
        new.fetchedAt = 200
        #expect(new.onlyFetchTimeDiffers(from: old))
        var noLifetime = old
        noLifetime.maxAge = nil
        var newNoLifetime = noLifetime
        newNoLifetime.fetchedAt = 300
        #expect(newNoLifetime.onlyFetchTimeDiffers(from: noLifetime))
    }

    @Test func aLifetimeOrAnyOtherFieldIsWritten() {
        var fresh = old
        fresh.fetchedAt = 200
        fresh.maxAge = 60
        #expect(!fresh.onlyFetchTimeDiffers(from: old))
        var both = old
        both.maxAge = 60
        var bothNew = both
        bothNew.fetchedAt = 200
        #expect(!bothNew.onlyFetchTimeDiffers(from: both))
        var etag = old
        etag.etag = "\"2\""
        #expect(!etag.onlyFetchTimeDiffers(from: old))
    }

    @Test func aNewLifetimeAloneIsAChangeOfFreshnessOnly() {
        var fresh = old
        fresh.fetchedAt = 200
        fresh.maxAge = 60
        #expect(fresh.onlyFreshnessDiffers(from: old))
        var etag = fresh
        etag.etag = "\"2\""
        #expect(!etag.onlyFreshnessDiffers(from: old))
    }

    /// An entry applies to the copy it confirmed, when newer than its ref;
    /// a ref rewritten since (another fetched_at) is left as it is.
    @Test func aRevalidationAppliesOnlyToTheCopyItConfirmed() {
        let entry = Revalidation(copyFetchedAt: 100.0004, revalidatedAt: 500, maxAge: 60)
        let confirmed = entry.applied(to: old)
        #expect(confirmed.fetchedAt == 500 && confirmed.maxAge == 60 && confirmed.object == old.object)
        var rewritten = old
        rewritten.fetchedAt = 700
        #expect(entry.applied(to: rewritten) == rewritten)
        var clockSetBack = old
        clockSetBack.fetchedAt = 400
        #expect(entry.applied(to: clockSetBack) == clockSetBack)
        #expect(Revalidation(copyFetchedAt: 100, revalidatedAt: 50, maxAge: 60).applied(to: old) == old)
    }
}
