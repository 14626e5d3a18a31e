/// A validated asset waiting in `tmp/` for its batch: the download that becomes an
/// object, for a ZIP its unpacked tree, and the ref to publish once both are
/// durable. A ref alone (after a 304) names an object already in the store.
struct PendingCommit: Sendable {
    var url: AssetURL
    var download: FileLocation? = nil
    var sha256: String
    var tree: FileLocation? = nil
    /// The tree's digest list, renamed into its shard just before the tree.
    var treeDigests: FileLocation? = nil
    /// nil for a `no-store` response: its bytes serve this run only.
    var ref: AssetRef?
}
