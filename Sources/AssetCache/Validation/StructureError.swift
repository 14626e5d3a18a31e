/// Why a structural check stopped: the bytes are wrong, or the file could not be read.
/// Kept apart from `AssetFailure` so each format's parser can stay ignorant of error
/// kinds and report wording.
enum StructureError: Error, Equatable {
    case malformed(String)
    case unreadable(String)
}
