import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Counts jobs inside a section at once, and the most ever seen.
private final class Overlap: Sendable {
    private let state = Mutex((now: 0, peak: 0))
    func enter() { state.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) } }
    func leave() { state.withLock { $0.now -= 1 } }
    var peak: Int { state.withLock { $0.peak } }
    var now: Int { state.withLock { $0.now } }
}

/// Decodes with the PNG coder, counting how many decodes overlap (each holds its slot briefly so
/// overlaps would show).
private struct OverlapCountingCoder: ImageCoder {
    let overlap: Overlap
    func canDecode(_ data: Data) -> Bool { PNGCoder().canDecode(data) }
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        overlap.enter()
        defer { overlap.leave() }
        Thread.sleep(forTimeInterval: 0.01)
        return try PNGCoder().decode(data, options: options)
    }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImageCoderError.encodingFailed(format, reason: "decode only")
    }
}

/// Encodes PNG only after the test lets it.
private struct GatedEncoder: ImageCoder {
    let gate: DispatchSemaphore
    let entered: Flag
    func canDecode(_ data: Data) -> Bool { PNGCoder().canDecode(data) }
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image { try PNGCoder().decode(data, options: options) }
    func canEncode(to format: ImageFormat) -> Bool { format == .png }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        entered.raise()
        gate.wait()
        return try PNGCoder().encode(image, as: format, options: options)
    }
}

@Suite("Bounded decode and processing")
struct ImageWorkQueueTests {
    @Test("a queue runs at most maxConcurrentCount jobs, in the order they came; raising the width starts waiting ones")
    func width() async throws {
        let queue = ImageWorkQueue(label: "test", maxConcurrentCount: 2)
        let overlap = Overlap()
        let order = Mutex<[Int]>([])
        let hold = DispatchSemaphore(value: 0)
        for index in 0..<6 {
            queue.async {
                overlap.enter()
                order.withLock { $0.append(index) }
                hold.wait()
                overlap.leave()
            }
        }
        #expect(await eventually { overlap.now == 2 && queue.counts == (running: 2, waiting: 4) })
        queue.maxConcurrentCount = 3
        #expect(await eventually { overlap.now == 3 && queue.counts == (running: 3, waiting: 3) })
        // One place frees at a time, so the waiting jobs start one by one and their order shows
        // (three let go at once start on three threads, which may append in any order).
        for started in 4...6 {
            hold.signal()
            #expect(await eventually { order.withLock { $0.count } == started })
        }
        for _ in 0..<3 { hold.signal() }
        #expect(await eventually { queue.counts == (running: 0, waiting: 0) })
        #expect(overlap.peak == 3)
        // The first two start together, on two threads: either may append first.
        let started = order.withLock { $0 }
        #expect(Set(started.prefix(2)) == [0, 1] && Array(started.dropFirst(2)) == Array(2..<6))
        #expect(await queue.run { 41 + 1 } == 42)
    }

    @Test("16 downloads finishing at once decode at most ImageWorkQueue.decoding.maxConcurrentCount at a time", arguments: DownloaderConfig.Transport.carriers)
    func downloadsDecodeBounded(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier, { $0.maxConcurrentDownloads = 16 }) { origin, downloader in
            let overlap = Overlap()
            let context = ImageLoaderContext(coder: OverlapCountingCoder(overlap: overlap))
            let gate = OriginGate()
            for index in 0..<16 { origin.route("/d\(index).png", .gated(gate, .fixture("png-rgb.png"))) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<16 {
                    group.addTask { _ = try await downloader.loadImage(with: origin.url("/d\(index).png"), context: context) }
                }
                #expect(await eventually { origin.inFlightRequests == 16 })
                gate.open()
                try await group.waitForAll()
            }
            #expect(overlap.peak >= 1)
            #expect(overlap.peak <= ImageWorkQueue.decoding.maxConcurrentCount)
        }
    }

    @Test("an image stored without bytes is encoded before its write is queued: a slow encode holds up no disk read")
    func encodeOutsideTheDiskQueue() async throws {
        let directory = TemporaryFolder.url("encode")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gate = DispatchSemaphore(value: 0)
        let entered = Flag()
        let cache = ImageCache(directory: directory, coders: ImageCodersManager(coders: [GatedEncoder(gate: gate, entered: entered)]))
        let png = try Fixtures.data("png-rgb.png")
        try await cache.storeImageDataToDisk(png, forKey: "ready")
        let image = try PNGCoder().decode(png, options: .default).with(originalData: .some(nil))  // must be encoded

        let stored = Mutex<(any Error)??>(nil)
        cache.store(image, data: nil, forKey: "slow", cacheType: .disk) { error in stored.withLock { $0 = .some(error) } }
        #expect(await eventually { entered.isRaised })
        // The encode is stuck; reads of other keys go on.
        let read = Mutex<Data?>(nil)
        Task {
            let data = await cache.diskImageData(forKey: "ready")
            read.withLock { $0 = data }
        }
        // The gate stays shut until this returns, so any time limit proves the point; a short one
        // (5 s) ran out on a fresh-clone CI run whose whole suite kept the read's task waiting for a thread.
        let readWhileEncoding = await eventually { read.withLock { $0 } != nil }
        gate.signal()
        #expect(readWhileEncoding)
        #expect(await eventually { stored.withLock { $0 } != nil })
        #expect(await cache.diskImageData(forKey: "slow") != nil)
    }

    @Test("waitForPendingDiskWork returns once a write still encoding has landed")
    func waitForPendingDiskWork() async throws {
        let directory = TemporaryFolder.url("pending")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gate = DispatchSemaphore(value: 0)
        let entered = Flag()
        let cache = ImageCache(directory: directory, coders: ImageCodersManager(coders: [GatedEncoder(gate: gate, entered: entered)]))
        let image = try PNGCoder().decode(try Fixtures.data("png-rgb.png"), options: .default).with(originalData: .some(nil))
        cache.store(image, data: nil, forKey: "slow", cacheType: .disk, completion: nil)
        #expect(await eventually { entered.isRaised })
        let waited = Flag()
        let waiter = Task {
            await cache.waitForPendingDiskWork()
            waited.raise()
        }
        #expect(!(await eventually(timeout: .milliseconds(200)) { waited.isRaised }), "returned while the encode was held")
        gate.signal()
        await waiter.value
        #expect(DiskCache(directory: directory).containsData(forKey: "slow"))
    }

    @Test("writes land in the order asked for although encodes finish later: a later store or a clear wins")
    func writeOrder() async throws {
        let directory = TemporaryFolder.url("order")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gate = DispatchSemaphore(value: 0)
        let entered = Flag()
        let cache = ImageCache(directory: directory, coders: ImageCodersManager(coders: [GatedEncoder(gate: gate, entered: entered)]))
        let png = try Fixtures.data("png-rgb.png")
        let image = try PNGCoder().decode(png, options: .default).with(originalData: .some(nil))  // must be encoded
        let marker = Data("later bytes".utf8)

        let first = Mutex(false)
        cache.store(image, data: nil, forKey: "k", cacheType: .disk) { _ in first.withLock { $0 = true } }
        #expect(await eventually { entered.isRaised })
        try await cache.storeImageDataToDisk(marker, forKey: "k")  // asked for later, lands first
        gate.signal()
        #expect(await eventually { first.withLock { $0 } })
        #expect(await cache.diskImageData(forKey: "k") == marker)

        entered.lower()
        let second = Mutex(false)
        cache.store(image, data: nil, forKey: "c", cacheType: .disk) { _ in second.withLock { $0 = true } }
        #expect(await eventually { entered.isRaised })
        await cache.clear(.disk)
        gate.signal()
        #expect(await eventually { second.withLock { $0 } })
        #expect(await cache.diskImageData(forKey: "c") == nil)
    }
}
