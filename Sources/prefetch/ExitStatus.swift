import AssetCache

/// The exit codes of docs/cli.md, and the one place an error becomes one.
enum ExitStatus {
    static let ok: Int32 = 0
    static let someDiscarded: Int32 = 1
    /// Every message got its verdict, but some server could not be reached and
    /// cached copies stand in (`stale`): a fact about the network, not the
    /// manifest, so not 1; not a sysexits code, since the run succeeded.
    static let staleCopies: Int32 = 3
    /// Usage errors, the argument parser's included (not its 64), and every
    /// refusal that changed nothing.
    static let usage: Int32 = 2
    static let manifestUnavailable: Int32 = 69
    /// The disk failed (full, read-only, I/O); never a permission problem.
    static let storage: Int32 = 74
    static let locked: Int32 = 75
    /// EX_NOPERM: the cache belongs to another user, or its modes keep the caller out.
    static let noPermission: Int32 = 77

    static func of(_ error: StoreError) -> Int32 {
        switch error {
        case .refused, .insecure: usage
        case .locked: locked
        case .denied: noPermission
        case .io, .noSpace: storage
        }
    }
}
