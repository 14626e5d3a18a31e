/// How one asset fared in a run (docs/report.md). Raw values are the report's `outcome`.
public enum AssetOutcome: String, Sendable, Codable, CaseIterable {
    case downloaded, revalidated, fresh, cached, stale, failed, skipped, deferred
}

/// One asset URL's result in a run as one kind: the row of the report's `assets`
/// array. A URL used as two kinds has two, which share its requests.
public struct AssetRecord: Sendable, Equatable {
    public var url: AssetURL
    public var kind: AssetKind
    public var outcome: AssetOutcome
    public var sha256: String?
    public var bytes: Int64?
    /// The object file, or the unpacked directory of a ZIP.
    public var path: String?
    public var attempts: Int
    public var failure: AssetFailure?
    /// Why the run left the asset for a later one (`deferred` outcome).
    public var deferral: DiscardReason?
    /// Milliseconds from the start of the run until this asset was usable or failed.
    public var finishedMs: Int
    /// When the cached copy in use was stored, for a `stale` one: the age the
    /// run's warning about an unreachable host gives (not in the report).
    public var staleSince: Double?
    /// ``ArchiveNotes``, when there are any: boxed, because only a ZIP this run
    /// refreshed or unpacked has them and a run holds a record per asset (a
    /// run over 100,000 assets peaked 27 MiB higher with them inline; bench row I).
    var archiveNotes: ArchiveNotes.Box?

    /// What a delta refresh of a changed ZIP fetched and reused (issue 30); nil
    /// when none was made.
    public var delta: DeltaStats? {
        get { archiveNotes?.notes.delta }
        set { editArchiveNotes { $0.delta = newValue } }
    }
    /// Why a delta refresh gave way to a full download; nil when it did not.
    public var deltaFallback: DeltaFallback? {
        get { archiveNotes?.notes.deltaFallback }
        set { editArchiveNotes { $0.deltaFallback = newValue } }
    }
    /// What the bytes of a ZIP rebuilt by delta were checked against (issue
    /// 37); nil when none was rebuilt.
    public var deltaEvidence: DeltaEvidence? {
        get { archiveNotes?.notes.deltaEvidence }
        set { editArchiveNotes { $0.deltaEvidence = newValue } }
    }
    /// An archive this run unpacked: its files, and those linked from the
    /// tree of the version it replaced (format 1.4.0).
    public var unpack: UnpackTally? {
        get { archiveNotes?.notes.unpack }
        set { editArchiveNotes { $0.unpack = newValue } }
    }

    private mutating func editArchiveNotes(_ change: (inout ArchiveNotes) -> Void) {
        var notes = archiveNotes?.notes ?? ArchiveNotes()
        change(&notes)
        archiveNotes = notes == ArchiveNotes() ? nil : ArchiveNotes.Box(notes)
    }

    public var state: AssetState {
        if let path { return .available(path: path) }
        if let failure { return .failed(failure) }
        if let deferral { return .deferred(deferral) }
        return .skipped
    }

    static func deferred(_ url: AssetURL, _ kind: AssetKind, _ reason: DiscardReason, attempts: Int, finishedMs: Int) -> AssetRecord {
        AssetRecord(url: url, kind: kind, outcome: .deferred, attempts: attempts, deferral: reason, finishedMs: finishedMs)
    }

    static func failed(_ url: AssetURL, _ kind: AssetKind, _ failure: AssetFailure, attempts: Int, finishedMs: Int) -> AssetRecord {
        AssetRecord(url: url, kind: kind, outcome: .failed, attempts: attempts, failure: failure, finishedMs: finishedMs)
    }
}

/// What only an archive's record has: a delta refresh's figures and an unpack's
/// tally (format 1.4.0).
struct ArchiveNotes: Sendable, Equatable {
    var delta: DeltaStats?
    var deltaFallback: DeltaFallback?
    var deltaEvidence: DeltaEvidence?
    var unpack: UnpackTally?

    /// Immutable, so records that share one stay values.
    final class Box: Sendable, Equatable {
        let notes: ArchiveNotes

        init(_ notes: ArchiveNotes) {
            self.notes = notes
        }

        static func == (left: Box, right: Box) -> Bool {
            left.notes == right.notes
        }
    }
}
