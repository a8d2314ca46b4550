import Foundation
import NIOSSL

/// A throwaway key and self-signed certificate for `127.0.0.1`, made at test time with the
/// `openssl` command (installed by `scripts/bootstrap`): nothing secret is committed, and no
/// client trusts it unless told not to check (``DownloaderOptions/allowInvalidSSLCertificates``)
/// or given it as a root (``DownloaderConfig/additionalTrustedCertificateFiles``).
enum SelfSignedCertificate {
    /// A server context for a ``TestOrigin`` speaking TLS; made once per test process.
    static func serverContext() throws -> NIOSSLContext {
        let (key, certificate) = try pemFiles.get()
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        configuration.minimumTLSVersion = .tlsv12
        return try NIOSSLContext(configuration: configuration)
    }

    /// The certificate's PEM file: a client that trusts it as a root accepts the origin.
    static func certificatePath() throws -> String {
        try pemFiles.get().certificate
    }

    /// Both PEM files, for a server that is not a ``TestOrigin`` (redis-server's TLS port).
    static func pemPaths() throws -> (key: String, certificate: String) {
        try pemFiles.get()
    }

    /// Key and certificate paths in a ``TemporaryFolder`` (gone when the process exits). An EC
    /// key: generating it takes milliseconds where RSA takes a noticeable fraction of a second.
    private static let pemFiles: Result<(key: String, certificate: String), any Error> = Result {
        let directory = try TemporaryFolder.make("tls")
        let key = directory.appendingPathComponent("key.pem").path
        let certificate = directory.appendingPathComponent("cert.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw OpenSSLFailed(status: openssl.terminationStatus) }
        return (key, certificate)
    }

    struct OpenSSLFailed: Error, CustomStringConvertible {
        var status: Int32
        var description: String { "openssl req exited with \(status); is the openssl command installed (scripts/bootstrap)?" }
    }
}
