import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// A refusal with a message for stderr and the exit code that goes with it.
/// Every error the program prints has this shape (docs/cli.md "Errors"):
///
///     prefetch: error: what is wrong
///     prefetch: hint: what to do about it        (at most one, when there is one)
struct CommandFailure: Error {
    var message: String
    var status: Int32
    /// One line; the message itself often ends with the fix after "; ".
    var hint: String?

    init(message: String, status: Int32, hint: String? = nil) {
        self.message = message
        self.status = status
        self.hint = hint
    }

    func report() -> ExitCode {
        write()
        return ExitCode(status)
    }

    /// "error" in red on a terminal. The message and the hint may quote a
    /// manifest, a server, the cache or the command line: they are escaped.
    func write() {
        let style = TextStyle.forDescriptor(STDERR_FILENO)
        // The run is over: its progress line must not be drawn again below the error.
        Console.standardError.clearStatus()
        var text = "prefetch: \(style.red("error")): \(TerminalText.safe(message))"
        if let hint { text += "\nprefetch: hint: \(TerminalText.safe(hint))" }
        Console.standardError.writeLine(text)
    }
}
