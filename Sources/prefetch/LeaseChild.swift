import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// COMMAND of `prefetch lease`, run with the lease descriptors: posix_spawnp
/// gives them to the child (a dup2 onto themselves clears close-on-exec there
/// only), so a lease lasts as long as either process holds it. If prefetch
/// alone is killed, COMMAND still shows the assets and still holds their
/// leases; they end when COMMAND, and whatever it handed them to, exits.
/// SIGINT and SIGTERM sent to prefetch are passed on to COMMAND, whose end
/// prefetch waits for.
enum LeaseChild {
    /// COMMAND's exit status, or 128 + N when signal N ended it; 127 when it
    /// is not found, 126 when it cannot be run.
    static func run(_ command: [String], keeping leases: [Int32]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in leases { posix_spawn_file_actions_adddup2(&actions, fd, fd) }
        // The child starts with the default dispositions, whatever prefetch does with these.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // And with no signal blocked, whatever the spawning thread blocks (a
        // dispatch thread blocks most): SIGTERM passed on must reach COMMAND.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        // Listening before the child exists: a signal that comes first is
        // passed on as soon as it does.
        let child = Forwarding()
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                child.state.withLock { child in
                    if child.pid > 0 { kill(child.pid, number) } else { child.pending.append(number) }
                }
            }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }

        let arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let failure = posix_spawnp(&pid, command[0], &actions, &attributes, arguments, environ)
        guard failure == 0 else {
            CommandFailure(message: "cannot run '\(command[0])': \(String(cString: strerror(failure)))", status: 0).write()
            return failure == ENOENT ? 127 : 126
        }
        child.state.withLock { child in
            child.pid = pid
            for number in child.pending { kill(pid, number) }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return 126 }
        }
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS, which Swift does not import.
        let signalNumber = status & 0x7f
        return signalNumber == 0 ? (status >> 8) & 0xff : 128 + signalNumber
    }

    /// The child, once spawned, and the signals that came before it.
    private final class Forwarding: Sendable {
        let state = Mutex<(pid: pid_t, pending: [Int32])>((0, []))
    }
}
