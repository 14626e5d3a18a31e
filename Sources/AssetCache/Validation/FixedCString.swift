/// The NUL-terminated text in a fixed-size C array (which Swift imports as a
/// tuple): the reasons CPNG and CJPEG write.
func fixedCString<T>(_ array: T) -> String {
    withUnsafeBytes(of: array) { raw in String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self) }
}
