import Testing
@testable import AssetCache

/// When a 304 leaves nothing a later run reads changed, the ref is not rewritten.
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
}
