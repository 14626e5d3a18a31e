import Dispatch
import Synchronization

/// The cached copies of a manifest's URLs, looked up while the manifest is
/// still being read: give ``lookUp(_:)`` to ``Manifest/decode(_:eachNewURL:)``
/// and the look-ups (eight system calls each, hundreds in a plan) run on a
/// queue of their own beside the reader and the builder, instead of after them.
public final class CacheLookahead: Sendable {
    private let store: CacheStore
    private let found = Mutex<[AssetURL: CachedCopy?]>([:])
    private let queue = DispatchQueue(label: "cache lookahead")

    public init(store: CacheStore) {
        self.store = store
    }

    public func lookUp(_ url: AssetURL) {
        queue.async { [self] in
            let copy = CachedCopy(store: store, url: url)
            found.withLock { $0[url] = copy }
        }
    }

    /// The copies of `urls` in their order, once every look-up asked for is
    /// done; a URL not looked up ahead is looked up now.
    func copies(of urls: [AssetURL]) -> [CachedCopy?] {
        queue.sync {}
        let known = found.withLock { $0 }
        return urls.map { url in known[url] ?? CachedCopy(store: store, url: url) }
    }
}
