import ArgumentParser
import AssetCache
import InAppDelivery
import Logging

/// What `run` and `plan` say of a manifest that loads but will not work as
/// written (docs/manifest.md, "Warnings"): the library's warnings of its keys,
/// and the delivery engine's of its trigger conditions, which these commands
/// otherwise never compile. `--strict` refuses such a manifest, for CI.
struct ManifestCheckOptions: ParsableArguments {
    @Flag(help: "Refuse (exit 2) a manifest with a mistake that loads with a warning: an unknown trigger type, a key its message's type does not take, a filter that never passes.")
    var strict = false

    /// Adds the conditions' warnings to the manifest's, then refuses it under
    /// `--strict` when one is a mistake, naming each: before the cache is touched.
    func check(_ manifest: inout Manifest, argument: String, logger: Logger) throws(CommandFailure) {
        Self.addConditionWarnings(to: &manifest)
        guard strict else { return }
        let mistakes = manifest.warnings.filter(\.isMistake)
        guard !mistakes.isEmpty else { return }
        for mistake in mistakes { logger.error("\(mistake)") }
        let count = mistakes.count == 1 ? "a mistake" : "\(mistakes.count) mistakes"
        throw CommandFailure(
            message: "\(argument): --strict: the manifest has \(count) (above); correct \(mistakes.count == 1 ? "it" : "them"), or run without --strict to load it with warnings",
            status: ExitStatus.usage)
    }

    /// The delivery engine's warnings of the trigger conditions, among the library's.
    static func addConditionWarnings(to manifest: inout Manifest) {
        manifest.warnings = ManifestWarning.inManifestOrder(manifest.warnings + TriggerTable.warnings(for: manifest))
    }
}
