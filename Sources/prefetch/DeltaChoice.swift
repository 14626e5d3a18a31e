import ArgumentParser

/// The configuration file's `delta = yes|no` (docs/cli.md): whether a changed
/// ZIP is fetched by delta when `--no-delta` is not given.
enum DeltaChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case yes, no

    /// Any of the words ``YesNo`` takes, so `delta = true` means what it says.
    init?(argument: String) {
        guard let value = YesNo.value(of: argument) else { return nil }
        self = value ? .yes : .no
    }
}
