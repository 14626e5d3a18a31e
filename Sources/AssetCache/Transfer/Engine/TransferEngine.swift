import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Synchronization

/// Downloads assets with libcurl's multi interface.
///
/// One dedicated thread owns the multi handle and blocks in `curl_multi_poll`;
/// blocking there would starve Swift's cooperative pool, so it is a thread of
/// its own. `fetch` hands work over through a mutex-guarded inbox and
/// `curl_multi_wakeup`, and suspends on a continuation the thread resumes.
package final class TransferEngine: Sendable {
    private let inbox: TransferInbox
    private let nextID = Atomic<UInt64>(0)
    private let connections = ConnectionTally()
    private let linkTally = LinkTally()
    /// Signalled by the multi thread as it ends, after its last libcurl call.
    private let threadEnded = DispatchSemaphore(value: 0)
    private let joined = Atomic<Bool>(false)

    package init(limits: TransferLimits = .init()) throws {
        try CurlGlobal.initialize()
        guard let raw = ccurl_multi_init() else {
            throw TransferEngineError("libcurl could not create a multi handle")
        }
        // Also capped in Swift; this keeps libcurl's connection pool to the same bound.
        ccurl_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, limits.perHost))
        let multi = MultiHandle(raw: raw)
        let inbox = TransferInbox(multi: multi)
        self.inbox = inbox
        DetachedThread.start(name: "transfers") { [connections, linkTally, threadEnded] in
            TransferLoop(multi: multi, inbox: inbox, limits: limits, connections: connections, linkTally: linkTally).run()
            threadEnded.signal()
        }
    }

    deinit {
        inbox.close()
    }

    /// Suspends until the transfer, with its retries, ends. Cancelling the task
    /// cancels the transfer: the result fails with kind `.network`, and a
    /// partial file is left in place.
    package func fetch(_ request: TransferRequest) async -> TransferResult {
        let ticket = TransferTicket(id: nextID.wrappingAdd(1, ordering: .relaxed).newValue)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let submission = TransferSubmission(request: request, ticket: ticket, continuation: continuation)
                if !inbox.post(.start(submission)) {
                    continuation.resume(returning: Self.refused(request))
                }
            }
        } onCancel: {
            ticket.cancel()
            _ = inbox.post(.cancel(ticket.id))
        }
    }

    /// Connections opened so far for this engine's requests, retries included.
    package var connectionsOpened: Int { connections.total }

    /// How long the link was down so far, as the transfers saw it.
    package var linkOutages: LinkOutages { linkTally.current }

    /// Ends every fetch in flight, queued or waiting to retry, promptly: each
    /// completes with a `.network` failure whose message ends with `reason`
    /// (say, "interrupted by SIGINT" or "--max-run-time 600 s reached"), its
    /// partial file closed and left in place with `resumable` set when it can
    /// be resumed. Fetches made afterwards fail the same way at once: this is
    /// for ending a run. Returns without waiting; the awaiting tasks resume
    /// from the engine's thread. Safe from any thread, including a signal
    /// handling task.
    package func cancelAll(reason: String) {
        _ = inbox.post(.cancelAll(reason: reason))
    }

    /// Stops the multi thread; transfers still pending end with a failure, and
    /// later fetches fail at once. Idempotent. The first call waits for the
    /// thread's end (a few milliseconds): a process that exits right after, say
    /// on a refused manifest, must not run OpenSSL's exit handlers while that
    /// thread still frees its connections (a double free, seen in the
    /// documentation's tests).
    package func shutdown() {
        inbox.close()
        if !joined.exchange(true, ordering: .acquiringAndReleasing) { threadEnded.wait() }
    }

    private static func refused(_ request: TransferRequest) -> TransferResult {
        TransferResult(
            url: request.url, effectiveURL: request.url, status: 0, bytes: 0,
            sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            headers: ResponseHeaders(), attempts: 0,
            failure: AssetFailure(.network, "transfer engine shut down before \(request.url) started")
        )
    }
}

/// The engine itself could not be set up; no transfer was attempted.
struct TransferEngineError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
