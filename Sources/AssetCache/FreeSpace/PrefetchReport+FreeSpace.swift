import Logging

/// The report's `free_space` (format 1.6.0): the run's free-space floor, what
/// the file system had, and what the floor left for a later run.
extension PrefetchReport {
    public struct FreeSpaceUse: Sendable, Equatable {
        /// `--min-free` in bytes on the cache's file system.
        public var minFreeBytes: Int64
        /// Free space once the run had fetched and committed everything
        /// (before its eviction down to the budget).
        public var freeBytes: Int64
        /// The least free space a check of the floor saw during the run.
        public var lowestFreeBytes: Int64
        /// Refs the run evicted to make room above the floor.
        public var evictedRefs: Int

        public init(minFreeBytes: Int64, freeBytes: Int64, lowestFreeBytes: Int64, evictedRefs: Int) {
            self.minFreeBytes = minFreeBytes
            self.freeBytes = freeBytes
            self.lowestFreeBytes = min(lowestFreeBytes, freeBytes)
            self.evictedRefs = evictedRefs
        }
    }

    func writeFreeSpace(to json: inout PrettyJSON) {
        guard let body = freeSpaceBody else { return }
        json.key("free_space")
        json.object { json in
            json.key("min_free_bytes"); json.integer(body.min_free_bytes)
            json.key("free_bytes"); json.integer(body.free_bytes)
            json.key("lowest_free_bytes"); json.integer(body.lowest_free_bytes)
            json.key("evicted_refs"); json.integer(body.evicted_refs)
            json.key("deferred_messages"); json.integer(body.deferred_messages)
        }
    }

    struct FreeSpaceBody: Encodable {
        var min_free_bytes, free_bytes, lowest_free_bytes: Int64
        var evicted_refs, deferred_messages: Int
    }

    var freeSpaceBody: FreeSpaceBody? {
        freeSpace.map {
            FreeSpaceBody(
                min_free_bytes: $0.minFreeBytes, free_bytes: $0.freeBytes, lowest_free_bytes: $0.lowestFreeBytes,
                evicted_refs: $0.evictedRefs, deferred_messages: deferredMessages(.storageLow))
        }
    }
}

extension PrefetchReport {
    /// At the default level: a disk too full to fetch into is the operator's
    /// to know, even though nothing was discarded.
    func logStorageLow(to logger: Logger) {
        guard let freeSpace else { return }
        let deferred = deferredMessages(.storageLow)
        guard deferred > 0 else { return }
        logger.warning(
            "\(deferred) message\(deferred == 1 ? "" : "s") deferred for want of room: the cache's file system has \(freeSpace.freeBytes) bytes free and the run keeps \(freeSpace.minFreeBytes) free (--min-free); a later run fetches them once there is room")
    }
}
