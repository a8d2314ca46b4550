import NIOSSL

extension DownloaderConfig {
    /// The TLS setup both clients start from for a certificate-checking connection: the system's
    /// roots plus ``additionalTrustedCertificateFiles``; `nil` when there are none to add (the
    /// clients' own default).
    var clientTLSConfiguration: TLSConfiguration? {
        guard !additionalTrustedCertificateFiles.isEmpty else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.additionalTrustRoots = additionalTrustedCertificateFiles.map { .file($0) }
        return configuration
    }
}
