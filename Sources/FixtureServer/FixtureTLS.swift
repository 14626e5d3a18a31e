import NIOSSL

/// A certificate chain and its private key, both PEM files: with them the
/// server speaks HTTPS, so that clients can be tested against a private CA
/// over real TLS.
public struct FixtureTLS: Sendable, Equatable {
    /// The server's certificate first, then any intermediates.
    public var certificateChainPath: String
    public var privateKeyPath: String

    public init(certificateChainPath: String, privateKeyPath: String) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
    }

    func makeContext() throws(FixtureServerError) -> NIOSSLContext {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificateChainPath)
            guard !chain.isEmpty else {
                throw FixtureServerError.tls("'\(certificateChainPath)' holds no PEM certificate")
            }
            let key = try NIOSSLPrivateKey(file: privateKeyPath, format: .pem)
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            return try NIOSSLContext(configuration: configuration)
        } catch let error as FixtureServerError {
            throw error
        } catch {
            throw .tls("cannot serve with certificate '\(certificateChainPath)' and key '\(privateKeyPath)': \(error)")
        }
    }
}
