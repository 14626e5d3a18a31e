/// How ``BatchFlush`` makes a step of a batch durable.
package enum FlushMethod: Sendable {
    /// syncfs(2) once per step, whatever the batch holds.
    case filesystem
    /// fsync(2) of each file and directory the step names.
    case perFile
}
