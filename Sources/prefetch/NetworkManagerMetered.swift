import Dispatch
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// NetworkManager's `Metered` property of the primary connection, asked over
/// the system bus by systemd's busctl rather than by linking libdbus: one
/// short-lived child, its output parsed exactly (`u N`, NMMetered), its
/// time bounded. nil whenever it cannot say: no busctl, no system bus, no
/// NetworkManager (the usual case on devices without it, logged at trace),
/// NM_METERED_UNKNOWN, or anything unexpected (logged at debug).
enum NetworkManagerMetered {
    static let busctl = "/usr/bin/busctl"
    static let arguments = [
        busctl, "--system", "--timeout=1", "get-property",
        "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager", "org.freedesktop.NetworkManager", "Metered",
    ]
    /// busctl's own D-Bus timeout is 1 s; this bounds the child however it hangs.
    static let deadlineMilliseconds: Int32 = 2000

    static func ask(logger: Logger) -> Bool? {
        guard access(busctl, X_OK) == 0 else {
            logger.trace("--metered auto: no \(busctl), so NetworkManager is not asked")
            return nil
        }
        guard let output = run(logger: logger) else { return nil }
        return parse(output, logger: logger)
    }

    /// NMMetered: 0 unknown, 1 yes, 2 no, 3 guess-yes, 4 guess-no.
    static func parse(_ output: String, logger: Logger) -> Bool? {
        switch output {
        case "u 1\n", "u 3\n": return true
        case "u 2\n", "u 4\n": return false
        case "u 0\n":
            logger.debug("--metered auto: NetworkManager does not know whether the link is metered")
            return nil
        default:
            logger.debug("--metered auto: unexpected answer from busctl: \(TerminalText.safe(String(output.prefix(80))))")
            return nil
        }
    }

    /// busctl's standard output, or nil when it failed, was killed at the deadline, or said too much.
    private static func run(logger: Logger) -> String? {
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else { return nil }
        defer { close(pipe[0]) }
        // Not inherited by anything else this process may spawn meanwhile.
        _ = fcntl(pipe[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipe[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // No user bus, no pager, no colours: the output is the value alone.
        let variables: [String] = ["PATH=/usr/bin:/bin", "SYSTEMD_PAGER=", "SYSTEMD_COLORS=0", "LC_ALL=C"]
        let environment = variables.map { strdup($0) } + [nil]
        defer { environment.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, busctl, &actions, nil, argv, environment)
        close(pipe[1])
        guard spawned == 0 else {
            logger.debug("--metered auto: cannot run \(busctl): \(String(cString: strerror(spawned)))")
            return nil
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(deadlineMilliseconds) * 1_000_000
        var timedOut = false
        while output.count <= 256 {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { timedOut = true; break }
            var poller = pollfd(fd: pipe[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32((deadline - now) / 1_000_000) + 1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = read(pipe[0], &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            output += buffer[..<count]
        }
        if timedOut || output.count > 256 { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        if timedOut {
            logger.debug("--metered auto: busctl gave no answer within \(deadlineMilliseconds) ms; killed")
            return nil
        }
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            logger.trace("--metered auto: busctl could not read NetworkManager's Metered (no NetworkManager or no system bus)")
            return nil
        }
        return String(decoding: output, as: UTF8.self)
    }
}
