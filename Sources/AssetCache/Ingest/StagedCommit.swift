/// A ``PendingCommit`` made ready for its batch, as each asset arrives and
/// beside the others: its download read-only, the shards it goes into made,
/// its ref's bytes written (not flushed) to a file in `tmp/`. What is left for
/// the batch is one flush, renames, one flush and the refs' renames: creating
/// files is the slow part of a commit, and done here it overlaps the other
/// assets' downloads and decoding instead of holding the whole batch.
struct StagedCommit: Sendable {
    var entry: PendingCommit
    /// Where the object goes, when the entry has a download.
    var objectShard: Directory?
    /// Where the tree goes, when the entry has one.
    var treeShard: Directory?
    /// The ref's bytes, by name in `tmp/`.
    var refTemporary: String?
    /// Why the entry cannot be committed; its files are removed with the batch.
    var failure: StoreError?
}
