#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread of its own for work that blocks (libcurl's poll, fsync, decoding),
/// made with pthreads: Foundation's `Thread` would bring Foundation, and ICU's
/// data with it, into every binary that links the library.
package enum DetachedThread {
    /// Starts `body` on a new detached thread named `name` (cut to the 15 bytes
    /// Linux keeps), so that `top -H` and gdb tell the threads apart.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
            start.nameThisThread()
            start.body()
            return nil
        }, start)
        // Only resource exhaustion fails here, where Foundation's Thread would not have started either.
        precondition(result == 0, "cannot start thread '\(name)': \(String(cString: strerror(result)))")
    }

    private final class Start {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = String(decoding: name.utf8.prefix(15), as: UTF8.self)
            self.body = body
        }

        /// Through the kernel's file: glibc declares pthread_setname_np only for
        /// _GNU_SOURCE, which Swift's Glibc module is not built with. Without
        /// /proc (a bare chroot) the thread simply keeps the process's name.
        func nameThisThread() {
            let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            _ = Array(name.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
    }
}
