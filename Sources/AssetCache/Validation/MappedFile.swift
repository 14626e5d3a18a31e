#if canImport(Glibc)
import Glibc
#endif

/// A file mapped read-only, for libwebp, which parses a whole container in
/// memory. Pages are read in only as they are touched, and `release` drops those
/// of a frame once it is decoded, so the mapping costs resident memory for one
/// frame's compressed data at a time, not for the file.
final class MappedFile {
    let bytes: UnsafeRawPointer
    let size: Int

    init(path: String) throws(StructureError) {
        let file: (descriptor: Int32, size: Int64)
        switch ReadOnlyFile.open(path) {
        case .success(let opened): file = opened
        case .failure(let error): throw .unreadable(error.message)
        }
        defer { close(file.descriptor) }
        guard file.size > 0, let address = mmap(nil, Int(file.size), PROT_READ, MAP_PRIVATE, file.descriptor, 0),
              address != MAP_FAILED
        else { throw .unreadable("cannot map '\(path)': \(String(cString: strerror(errno)))") }
        bytes = UnsafeRawPointer(address)
        size = Int(file.size)
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: bytes), size) }

    /// Gives back the pages under `start..<start + count` (they are read again if touched).
    func release(_ start: UnsafeRawPointer, count: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let offset = bytes.distance(to: start)
        let first = offset / page * page
        let end = min(size, offset + count)
        guard end > first else { return }
        madvise(UnsafeMutableRawPointer(mutating: bytes + first), end - first, MADV_DONTNEED)
    }
}
