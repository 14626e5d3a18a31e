import Synchronization

/// The contents (SHA-256, hex) that passed a full image decode in this run, so
/// that a second URL serving the same bytes is not decoded again: the decode
/// depends on the bytes and the run's limits alone, and both are the same.
/// Only a finished decode counts; a twin still decoding is not waited for.
///
/// Not the cache's objects: an object in the store may have been stored as a
/// plain file or as a ZIP, never decoded as an image, so it proves nothing here.
final class DecodedContents: Sendable {
    private let images = Mutex<Set<String>>([])

    func containsImage(_ sha256: String) -> Bool {
        images.withLock { $0.contains(sha256) }
    }

    func insertImage(_ sha256: String) {
        _ = images.withLock { $0.insert(sha256) }
    }
}
