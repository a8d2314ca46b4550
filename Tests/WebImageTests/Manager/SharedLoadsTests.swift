import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Callers asking for the same image at once share one load — from cache query to memory
/// store — yet each keeps its own answer and its own cancel.
@Suite("ImageManager: shared loads")
struct SharedLoadsTests {
    @Test("a caller that cancels gets cancelled once; the one still waiting gets the image from the same request", arguments: DownloaderConfig.Transport.carriers)
    func oneCallerCancels(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            let gate = OriginGate()
            defer { gate.open() }
            origin.route("/shared.jpg", .gated(gate, .fixture("jpeg-baseline.jpg")))
            let url = origin.url("/shared.jpg")
            let leaving = ManagerAnswers()
            let staying = ManagerAnswers()
            let first = manager.loadImage(with: url) { leaving.record($0) }
            manager.loadImage(with: url) { staying.record($0) }
            #expect(await eventually { origin.inFlightRequests == 1 })
            first.cancel()
            #expect(leaving.count == 1)
            #expect(leaving.last.map { if case .failure(.cancelled) = $0 { true } else { false } } == true)
            gate.open()
            #expect(await eventually { staying.count == 1 })
            #expect(((try? staying.last?.get())?.image.width ?? 0) > 0)
            #expect(origin.requestCount("/shared.jpg") == 1)
            #expect(await eventually { !manager.isRunning && manager.sharedLoads.count == 0 && origin.inFlightRequests == 0 })
            #expect(leaving.count == 1 && staying.count == 1)
        }
    }

    @Test("when every caller has cancelled, the shared load stops its download at the origin", arguments: DownloaderConfig.Transport.carriers)
    func allCallersCancel(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, cache in
            let gate = OriginGate()
            defer { gate.open() }
            origin.route("/dropped.jpg", .gated(gate, .fixture("jpeg-baseline.jpg")))
            let url = origin.url("/dropped.jpg")
            let tasks = (0..<5).map { _ in Task { try await manager.loadImage(with: url) } }
            #expect(await eventually { origin.inFlightRequests == 1 })
            for task in tasks { task.cancel() }
            for task in tasks { await #expect(throws: WebImageError.cancelled) { try await task.value } }
            #expect(await eventually { origin.inFlightRequests == 0 })
            #expect(await eventually { !manager.isRunning && manager.sharedLoads.count == 0 })
            #expect(await cache.containsImage(forKey: url.absoluteString, cacheType: .all) == .none)
            #expect(origin.requestCount("/dropped.jpg") == 1)
        }
    }

    @Test("progress reaches every caller of a shared load", arguments: DownloaderConfig.Transport.carriers)
    func progressFansOut(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            origin.route("/drip.jpg", .drip(.fixture("jpeg-progressive.jpg"), bytesPerSecond: 40_000, chunkSize: 512))
            let url = origin.url("/drip.jpg")
            let counts = Mutex([0, 0])
            let answers = ManagerAnswers()
            for index in 0..<2 {
                manager.loadImage(with: url, progress: { _ in counts.withLock { $0[index] += 1 } }) { answers.record($0) }
            }
            #expect(await eventually { answers.count == 2 })
            #expect(counts.withLock { $0.allSatisfy { $0 > 1 } }, "\(counts.withLock { $0 })")
            #expect(origin.requestCount("/drip.jpg") == 1)
        }
    }

    @Test("cancels racing progress reports neither deadlock nor answer twice", arguments: DownloaderConfig.Transport.carriers)
    func cancelDuringProgress(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            origin.route("/busy.jpg", .drip(.fixture("jpeg-progressive.jpg"), bytesPerSecond: 60_000, chunkSize: 64))
            var all: [ManagerAnswers] = []
            for round in 0..<60 {
                let answers = ManagerAnswers()
                all.append(answers)
                let url = origin.url("/busy.jpg?round=\(round)")
                let operation = manager.loadImage(with: url, progress: { _ in }) { answers.record($0) }
                try await Task.sleep(for: .microseconds(Int.random(in: 0...20_000)))
                operation.cancel()
                #expect(answers.count == 1)
            }
            #expect(await eventually { !manager.isRunning && manager.sharedLoads.count == 0 })
            #expect(all.allSatisfy { $0.count == 1 })
        }
    }

    @Test("loads that differ in what they make do not share: a thumbnail, a refresh, another loader")
    func differentLoadsDoNotShare() throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = try fixture.file("png-rgb.png", as: "a.png")
        let manager = fixture.manager
        let plain = manager.prepare(url: url, options: [], context: WebImageContext())
        let thumbnail = manager.prepare(url: url, options: [], context: WebImageContext(thumbnailPixelSize: PixelSize(width: 8, height: 8)))
        let refresh = manager.prepare(url: url, options: .refreshCached, context: WebImageContext())
        let ownLoader = manager.prepare(url: url, options: [], context: WebImageContext(imageLoader: FileLoader()))
        #expect(plain.shareKey(wantsProgress: false) == manager.prepare(url: url, options: [], context: WebImageContext()).shareKey(wantsProgress: false))
        #expect(plain.shareKey(wantsProgress: false) != plain.shareKey(wantsProgress: true))
        #expect(plain.shareKey(wantsProgress: false) != thumbnail.shareKey(wantsProgress: false))
        #expect(refresh.shareKey(wantsProgress: false) == nil)
        #expect(ownLoader.shareKey(wantsProgress: false) == nil)
    }
}
