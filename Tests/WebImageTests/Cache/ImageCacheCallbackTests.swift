import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Counts completions and remembers what they answered.
private final class Answers: Sendable {
    let results = Mutex<[ImageCacheResult?]>([])
    func record(_ result: ImageCacheResult?) { results.withLock { $0.append(result) } }
    var count: Int { results.withLock { $0.count } }
}

@Suite("ImageCache callbacks and concurrency")
struct ImageCacheCallbackTests {
    private func makeCache(_ directory: borrowing TemporaryCacheDirectory) -> ImageCache {
        ImageCache(directory: directory.url, config: ImageCacheConfig(memory: MemoryCacheConfig(costLimit: 64 << 20)))
    }

    @Test("a memory hit answers before queryImage returns (SD's synchronous memory path)")
    func memoryHitIsSynchronous() throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        cache.storeImageToMemory(Image(bitmap: Fixtures.testCard(width: 4, height: 4)), forKey: "m")
        let answers = Answers()
        let token = cache.queryImage(forKey: "m") { answers.record($0) }
        #expect(answers.count == 1)
        #expect(answers.results.withLock { $0[0]?.cacheType } == .memory)
        token.cancel()
        #expect(answers.count == 1)
    }

    @Test("through `any ImageCaching` the memory hit is still synchronous (the callback form is a requirement)")
    func memoryHitIsSynchronousThroughTheProtocol() throws {
        let directory = try TemporaryCacheDirectory()
        let cache: any ImageCaching = makeCache(directory)
        (cache as? ImageCache)?.storeImageToMemory(Image(bitmap: Fixtures.testCard(width: 4, height: 4)), forKey: "m")
        let answers = Answers()
        cache.queryImage(forKey: "m", options: [], decodeOptions: .default, cacheType: .all) { answers.record($0) }
        #expect(answers.count == 1)
        cache.queryImage(forKey: "m") { answers.record($0) }  // the defaults, through the protocol
        #expect(answers.count == 2)
    }

    @Test("a cache without its own callback form gets the default: one answer, from the async query")
    func defaultCallbackFormAnswersOnce() async throws {
        let directory = try TemporaryCacheDirectory()
        let inner = makeCache(directory)
        inner.storeImageToMemory(Image(bitmap: Fixtures.testCard(width: 4, height: 4)), forKey: "m")
        let caches: any ImageCaching = ImageCachesManager(caches: [inner])
        let result: ImageCacheResult? = await withCheckedContinuation { continuation in
            caches.queryImage(forKey: "m", options: [], decodeOptions: .default, cacheType: .all) {
                continuation.resume(returning: $0)
            }
        }
        #expect(result?.cacheType == .memory)
    }

    @Test("queryDiskDataSync answers a disk hit before queryImage returns")
    func diskSync() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        try await cache.store(nil, data: try Fixtures.data("png-rgb.png"), forKey: "d", cacheType: .disk)
        let answers = Answers()
        cache.queryImage(forKey: "d", options: .queryDiskDataSync) { answers.record($0) }
        #expect(answers.count == 1)
        #expect(answers.results.withLock { $0[0]?.cacheType } == .disk)
    }

    @Test("a disk query answers once, later, on another thread")
    func diskAsync() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        try await cache.store(nil, data: try Fixtures.data("png-rgb.png"), forKey: "d", cacheType: .disk)
        let result: ImageCacheResult? = await withCheckedContinuation { continuation in
            cache.queryImage(forKey: "d") { continuation.resume(returning: $0) }
        }
        #expect(result?.cacheType == .disk && result?.image != nil)
    }

    @Test("cancel fires the completion once, synchronously, with nil — and the query never answers again")
    func cancelFiresOnce() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let data = try Fixtures.data("jpeg-progressive.jpg")
        for index in 0..<50 { try await cache.store(nil, data: data, forKey: "k\(index)", cacheType: .disk) }
        var all: [(ImageCacheToken, Answers)] = []
        for index in 0..<50 {
            let answers = Answers()
            let token = cache.queryImage(forKey: "k\(index)") { answers.record($0) }
            token.cancel()
            // Answered by the time cancel() returns: by cancel, or by the query if it won the race
            // (a cancel that lost waits for that answer to be delivered).
            #expect(answers.count == 1)
            all.append((token, answers))
        }
        // A query cancelled before it read the disk is answered inside cancel(), with nil. (Which
        // ones lose the race depends on scheduling; a busy machine can let the first few finish.)
        #expect(all.contains { $0.1.results.withLock { $0[0] } == nil })
        try await Task.sleep(for: .milliseconds(200))  // room for any stray late completion
        for (token, answers) in all {
            #expect(answers.count == 1)
            #expect(token.isCancelled)
        }
    }

    @Test("many tasks storing and querying one key: every read is one whole payload, the last store wins")
    func concurrentSameKey() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let payloads = (0..<32).map { index -> Data in
            var bytes = try! Fixtures.data("png-rgb.png")
            bytes.append(contentsOf: [UInt8](repeating: UInt8(index), count: 1000 + index * 97))  // trailing bytes after IEND: still a PNG
            return bytes
        }
        let torn = Answers()
        await withTaskGroup(of: Void.self) { group in
            for payload in payloads {
                group.addTask { try? await cache.store(nil, data: payload, forKey: "same.png", cacheType: .all) }
                group.addTask {
                    let result = await cache.queryImage(
                        forKey: "same.png", options: .avoidDecodeImage, decodeOptions: .default, cacheType: .disk)
                    if let data = result?.data, !payloads.contains(data) { torn.record(result) }
                }
            }
        }
        #expect(torn.count == 0)
        let settled = try #require(await cache.diskImageData(forKey: "same.png"))
        #expect(payloads.contains(settled))
        try await cache.store(nil, data: payloads[7], forKey: "same.png", cacheType: .disk)
        #expect(await cache.diskImageData(forKey: "same.png") == payloads[7])
        #expect(await cache.totalDiskCount() == 1)
    }

    @Test("an awaited store asked for after callback stores still in flight wins on disk (it is written on the caller's thread)")
    func awaitedAfterCallbackStores() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let base = try Fixtures.data("png-rgb.png")
        for round in 0..<20 {
            let key = "mixed-\(round).png"
            for index in 0..<8 {
                cache.store(nil, data: base + Data(repeating: UInt8(index), count: 64), forKey: key, cacheType: .disk, completion: nil)
            }
            let last = base + Data(repeating: 0xEE, count: 64)
            try await cache.store(nil, data: last, forKey: key, cacheType: .disk)
            #expect(cache.diskCache.data(forKey: key) == last)
        }
        await cache.waitForPendingDiskWork()
        #expect(await cache.totalDiskCount() == 20)
    }

    @Test("a store dropped for a later store of its key reports done only once that later one is on disk")
    func supersededStoreWaitsForTheKey() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        // The first image encodes at once, the second takes a while: the first write is ready
        // first and dropped, as the second was asked for after it. The disk queue is held until
        // both were asked for — else a slow machine may land the first before the second is asked.
        let small = Image(bitmap: Fixtures.testCard(width: 8, height: 8))
        let large = Image(bitmap: Fixtures.testCard(width: 1_200, height: 900))
        for round in 0..<5 {
            let key = "superseded-\(round)"
            let widthOnDisk: Int? = await withCheckedContinuation { continuation in
                cache.ioQueue.suspend()
                cache.store(small, data: nil, forKey: key, cacheType: .disk) { _ in
                    let data = cache.diskCache.data(forKey: key)
                    continuation.resume(returning: data.flatMap { try? ImageCodersManager.shared.decode($0) }?.width)
                }
                cache.store(large, data: nil, forKey: key, cacheType: .disk, completion: nil)
                cache.ioQueue.resume()
            }
            #expect(widthOnDisk == 1_200)
        }
        await cache.waitForPendingDiskWork()
    }

    @Test("a disk query asked for right after a callback store of bytes finds them (read after write, as SD's serial disk queue gives)")
    func queryAfterCallbackStore() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let base = try Fixtures.data("png-rgb.png")
        for round in 0..<50 {
            let bytes = base + Data(repeating: UInt8(round), count: 64)
            cache.store(nil, data: bytes, forKey: "raw-\(round).png", cacheType: .disk, completion: nil)
            #expect(await cache.diskImageData(forKey: "raw-\(round).png") == bytes)
        }
    }

    @Test("the callback store updates memory before returning and reports the disk write once")
    func callbackStore() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let image = Image(bitmap: Fixtures.testCard(width: 8, height: 8))
        let inMemoryOnReturn = Mutex(false)
        let error: (any Error)? = await withCheckedContinuation { continuation in
            cache.store(image, data: nil, forKey: "cb", completion: { continuation.resume(returning: $0) })
            inMemoryOnReturn.withLock { $0 = cache.imageFromMemoryCache(forKey: "cb") === image }
        }
        #expect(inMemoryOnReturn.withLock { $0 })
        #expect(error == nil)
        #expect(await cache.diskImageDataExists(forKey: "cb"))
    }

    @Test("a store the disk cannot take throws, and memory still has the image")
    func diskErrorSurfaces() async throws {
        let directory = try TemporaryCacheDirectory()
        let config = ImageCacheConfig(memory: MemoryCacheConfig(costLimit: 1 << 20), disk: DiskCacheConfig(maxDiskSize: 100))
        let cache = ImageCache(directory: directory.url, config: config)
        let image = Image(bitmap: Fixtures.testCard(width: 64, height: 64))
        await #expect(throws: DiskCacheError.self) {
            try await cache.store(image, data: nil, forKey: "big", cacheType: .all)
        }
        #expect(cache.imageFromMemoryCache(forKey: "big") === image)
        #expect(await cache.diskImageDataExists(forKey: "big") == false)
    }
}
