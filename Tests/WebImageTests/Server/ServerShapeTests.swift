import Foundation
import Hummingbird
import Logging
import Synchronization
import Testing
import WebImage
@testable import WebImageServer

/// Log lines kept in memory, for specs that read what the server logged.
final class CapturedLog: Sendable {
    private let lines = Mutex<[(message: String, metadata: Logger.Metadata)]>([])

    var logger: Logger {
        var logger = Logger(label: "spec") { _ in CapturingHandler(log: self) }
        logger.logLevel = .info
        return logger
    }

    func append(_ message: String, _ metadata: Logger.Metadata) { lines.withLock { $0.append((message, metadata)) } }
    var entries: [(message: String, metadata: Logger.Metadata)] { lines.withLock { $0 } }

    private struct CapturingHandler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
            log.append(message.description, self.metadata.merging(metadata ?? [:]) { $1 })
        }
    }
}

@Suite("webimage serve: the server's shape (middleware, typed failures, validated settings)")
struct ServerShapeTests {
    @Test("a bad signature is refused by the signature middleware, and the access log and the metrics, outside it, see the 403")
    func refusalIsLoggedAndCounted() async throws {
        let log = CapturedLog()
        try await withImageServer({ configuration in
            configuration.allowUnsafe = false
            configuration.securityKeys = ["secret"]
            configuration.accessLog = true
        }, logger: log.logger) { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            let refused = try await harness.get("/AAAAAAAAAAAAAAAAAAAAAAAAAAA=/10x10/ORIGIN/a.png")
            #expect(refused.status == 403)
            #expect(String(decoding: refused.body, as: UTF8.self) == "403 Forbidden: bad or missing URL signature\n")
            #expect(refused.header("cache-control") == "no-store")
            let line = try #require(log.entries.first { $0.message == "request" })
            #expect(line.metadata["status"] == "403")
            #expect(line.metadata["bytes"] == "\(refused.body.count)")
            #expect(line.metadata["path"] == "/AAAAAAAAAAAAAAAAAAAAAAAAAAA=/10x10/127.0.0.1:\(harness.origin.port)/a.png")
            let metrics = try await harness.get("/metrics")
            #expect(String(decoding: metrics.body, as: UTF8.self).contains("webimage_status_codes_total{status=\"403\"} 1"))
            #expect(harness.origin.requestCount("/a.png") == 0, "refused before any work")
        }
    }

    @Test("failures are typed values: each is an HTTPResponseError whose status and body the router writes")
    func typedFailures() throws {
        let failures: [(ServerFailure, Int)] = [(.forbiddenSignature, 403), (.pathTooLong, 414), (.overMemoryBudget, 413),
                                                (.busy, 429), (.loopDetected, 508), (.badCallback, 400), (.purgeDisabled, 404)]
        for (failure, status) in failures {
            let error: any HTTPResponseError = failure
            #expect(Int(error.status.code) == status)
        }
        let answer = Answer(failure: .busy)
        #expect(answer.headers[.retryAfter] == "1")
        #expect(String(buffer: answer.body) == "429 Too Many Requests: too many requests in progress, try again shortly\n")
        // Source failures are classified by their type, whatever their sentences say.
        #expect(ServerFailure(WebImageError.invalidDownloadStatusCode(404)) == .notFound)
        #expect(ServerFailure(WebImageError.refusedByHopPolicy(reason: "any words")) == .forbiddenSource)
        #expect(ServerFailure(WebImageError.invalidDownloadOperation(reason: SourceLoader.refusalPrefix + "x")) == .badGateway)
        #expect(ServerFailure(WebImageError.overDecodeLimit(.tooLarge(width: 9000, height: 9000, limit: 1))) == .tooLarge)
        #expect(ServerFailure(WebImageError.overDecodeLimit(.decodeBudgetExceeded(planned: 2, limit: 1))) == .overMemoryBudget)
        #expect(ServerFailure(WebImageError.badImageData(reason: "over the decode limit")) == .notAnImage)
    }

    @Test("validated() passes the defaults with a key, and names the first setting that cannot work")
    func validation() throws {
        var configuration = ImageServerConfiguration()
        #expect(throws: ImageServerConfiguration.Invalid.self) { try configuration.validated() }
        configuration.securityKeys = ["k"]
        _ = try configuration.validated()
        func invalid(_ change: (inout ImageServerConfiguration) -> Void) -> ImageServerConfiguration.Invalid? {
            var changed = configuration
            change(&changed)
            do {
                _ = try changed.validated()
                return nil
            } catch {
                return error
            }
        }
        #expect(invalid { $0.maxOutputPixels = 0 } == .init(setting: "maxOutputPixels", requirement: "must be greater than 0"))
        #expect(invalid { $0.requestDeadline = .zero }?.setting == "requestDeadline")
        #expect(invalid { $0.maxHeaderBytes = 100 }?.setting == "maxHeaderBytes")
        #expect(invalid { $0.output.webpQuality = 101 }?.setting == "output.webpQuality")
        #expect(invalid { $0.maxRedirects = -1 }?.description == "maxRedirects cannot be negative")
    }
}
