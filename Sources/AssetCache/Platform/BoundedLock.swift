import CFileSync
#if canImport(Glibc)
import Glibc
#endif

/// `flock(2)` with a bound on the wait, which flock has not. The thread sleeps
/// in the kernel until the lock is free or the bound passes, with no polling: a
/// POSIX timer aimed at this thread alone (`SIGEV_THREAD_ID`) raises SIGALRM
/// when the bound passes, and SIGALRM's handler, installed without
/// `SA_RESTART`, does nothing but make the waiting flock return `EINTR`.
///
/// The handler is installed once and stays: restoring the one before would
/// race with another thread's wait, and a SIGALRM that came after the wait
/// would then end the process. prefetch has no other use for SIGALRM; exec
/// gives a child the default again.
package enum BoundedLock {
    package enum Outcome: Equatable, Sendable {
        case locked
        /// Someone else held a conflicting lock for the whole bound.
        case timedOut
        /// flock, or the timer, failed with this errno.
        case failed(Int32)
    }

    /// Takes `operation` (`LOCK_SH` or `LOCK_EX`) on `fd`, waiting at most
    /// `seconds` for a conflicting lock to go; 0 does not wait. `waiting` is
    /// called when the lock is not free at once and the wait begins.
    package static func lock(
        _ fd: Int32, _ operation: Int32, within seconds: Double, waiting: () -> Void = {}
    ) -> Outcome {
        switch attempt(fd, operation | LOCK_NB) {
        case 0: return .locked
        case EWOULDBLOCK where seconds > 0: waiting()
        case EWOULDBLOCK: return .timedOut
        case let code: return .failed(code)
        }
        _ = handlerInstalled
        var alarm = sigset_t()
        sigemptyset(&alarm)
        sigaddset(&alarm, SIGALRM)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &alarm, &previousMask)
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }

        var event = sigevent()
        event.sigev_notify = Int32(SIGEV_THREAD_ID)
        event.sigev_signo = SIGALRM
        event._sigev_un._tid = assetcache_thread_id()
        var timer: timer_t? = nil
        guard timer_create(CLOCK_MONOTONIC, &event, &timer) == 0 else { return .failed(errno) }
        defer { timer_delete(timer) }
        var bound = itimerspec(it_interval: timespec(), it_value: timespec(seconds))
        guard timer_settime(timer, 0, &bound, nil) == 0 else { return .failed(errno) }

        while flock(fd, operation) != 0 {
            let code = errno
            guard code == EINTR else { return .failed(code) }
            // Another signal may have interrupted the wait: only the timer's end ends it.
            var left = itimerspec()
            if timer_gettime(timer, &left) != 0 { return .failed(errno) }
            if left.it_value.tv_sec == 0 && left.it_value.tv_nsec == 0 { return .timedOut }
        }
        return .locked
    }

    /// 0, or the errno of a failed flock; `EINTR` is retried.
    private static func attempt(_ fd: Int32, _ operation: Int32) -> Int32 {
        while flock(fd, operation) != 0 {
            if errno != EINTR { return errno }
        }
        return 0
    }

    private static let handlerInstalled: Void = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: the waiting flock must return
        sigaction(SIGALRM, &action, nil)
    }()
}

private extension timespec {
    /// A positive number of seconds, at least a nanosecond: a zero
    /// `it_value` would disarm the timer, and the wait would have no end.
    init(_ seconds: Double) {
        let clamped = min(max(seconds, 0), CheckedNumber.maxSeconds)
        let whole = clamped.rounded(.down)
        self.init(tv_sec: Int(whole), tv_nsec: max(Int((clamped - whole) * 1e9), whole == 0 ? 1 : 0))
    }
}
