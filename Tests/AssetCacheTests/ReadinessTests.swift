import Testing
@testable import AssetCache

/// The discard rule of docs/report.md, one test per rule.
@Suite struct ReadinessTests {
    static let image = try! AssetURL(parsing: "http://cdn.test/a.png")
    static let zip = try! AssetURL(parsing: "http://cdn.test/b.zip")

    func action(
        _ type: MessageType, style: ImageStyle = .top, image: AssetURL? = nil, zip: AssetURL? = nil,
        control: Bool = false, prefetch: Bool = true, endTime: Double? = nil
    ) -> TriggeredAction {
        TriggeredAction(
            id: "m", priority: 0, startTime: nil, endTime: endTime, delay: 0, timeout: 30,
            minSecondsSinceLastTrigger: nil, prefetch: prefetch, conditions: [],
            message: InAppMessage(
                type: type, imageStyle: style, orientation: .any, text: nil, isControl: control,
                imageURL: image, zippedAssetsURL: zip, assetURLs: [], extras: [:]))
    }

    func verdict(_ action: TriggeredAction, _ states: [AssetURL: AssetState] = [:], now: Double = 100) -> MessageVerdict {
        Readiness.verdict(for: action, at: now) { url, _ in states[url] }
    }

    @Test func unknownMessageTypeIsDiscardedAsUnsupported() {
        let result = verdict(action(.unsupported("CAROUSEL"), image: Self.image))
        #expect(result.status == .discarded)
        #expect(result.reason == .unsupportedMessageType)
    }

    @Test func pastEndTimeIsExpired() {
        #expect(verdict(action(.slideup, endTime: 50), now: 100).status == .expired)
        #expect(verdict(action(.slideup, endTime: 150), now: 100).status == .ready)
    }

    @Test func controlMessageIsReadyWithNoAssets() {
        let result = verdict(action(.full, control: true))
        #expect(result.status == .ready)
        #expect(result.assets.isEmpty)
    }

    @Test func fullWithoutImageIsDiscarded() {
        #expect(verdict(action(.full)).reason == .fullWithoutImage)
    }

    @Test func imageOnlyModalWithoutImageIsDiscarded() {
        #expect(verdict(action(.modal, style: .graphic)).reason == .imageOnlyModalWithoutImage)
        #expect(verdict(action(.modal, style: .top)).status == .ready)
    }

    @Test func messageNotPrefetchedIsDeferred() {
        let result = verdict(action(.modal, image: Self.image, prefetch: false), [Self.image: .available(path: "/x")])
        #expect(result.status == .deferred && result.reason == .notPrefetched)
    }

    @Test func cacheFalseURLIsDeferred() throws {
        let url = try AssetURL(parsing: "http://cdn.test/a.png?cache=false")
        #expect(verdict(action(.modal, image: url)).status == .deferred)
        #expect(verdict(action(.modal, image: url)).reason == .notPrefetched)
    }

    @Test func downloadFailureIsAssetDownloadFailed() {
        let failure = AssetFailure(.httpStatus, "HTTP 404")
        let result = verdict(action(.modal, image: Self.image), [Self.image: .failed(failure)])
        #expect(result.reason == .assetDownloadFailed)
        #expect(result.detail == "http_status: HTTP 404")
        #expect(result.failingURL == Self.image)
    }

    @Test func invalidContentIsAssetInvalid() {
        let failure = AssetFailure(.unsafeArchive, "entry '../x' escapes the archive root")
        let result = verdict(action(.htmlFull, zip: Self.zip), [Self.zip: .failed(failure)])
        #expect(result.reason == .assetInvalid)
        #expect(result.detail == "unsafe_archive: entry '../x' escapes the archive root")
    }

    @Test func missingFromCacheIsAssetDownloadFailed() {
        let result = verdict(action(.modal, image: Self.image))
        #expect(result.reason == .assetDownloadFailed)
        #expect(result.detail?.hasPrefix("offline_miss") == true)
    }

    @Test func allAssetsPresentIsReadyWithTheirPaths() {
        let result = verdict(action(.htmlFull, zip: Self.zip), [Self.zip: .available(path: "/cache/trees/ab/cd")])
        #expect(result.status == .ready)
        #expect(result.assets == [.init(url: Self.zip, kind: .archive, path: "/cache/trees/ab/cd")])
    }

    @Test func unsupportedTypeWinsOverExpiry() {
        #expect(verdict(action(.unsupported("X"), endTime: 1), now: 100).reason == .unsupportedMessageType)
    }

    @Test func expiryWinsOverMissingImage() {
        #expect(verdict(action(.full, endTime: 1), now: 100).status == .expired)
    }
}
