import AssetCache

/// How the device is held. A message with `orientation` ANY fits both.
public enum DeviceOrientation: String, Sendable, CaseIterable {
    case portrait = "PORTRAIT"
    case landscape = "LANDSCAPE"

    public init?(name: String) {
        self.init(rawValue: name.uppercased())
    }

    func fits(_ orientation: Orientation) -> Bool {
        switch orientation {
        case .any: true
        case .portrait: self == .portrait
        case .landscape: self == .landscape
        }
    }
}
