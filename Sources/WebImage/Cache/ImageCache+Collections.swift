/// Collections on the disk cache (``DiskCache/pin(_:in:)``): pinned entries stay through age and
/// size trims, so a collection reads offline until it is unpinned.
extension ImageCache {
    /// Pins `keys` in `collection` (see ``DiskCache/pin(_:in:)``).
    public func pin(_ keys: [String], in collection: String) throws {
        try diskCache.pin(keys, in: collection)
    }

    /// Removes `collection`, optionally with its entries (see ``DiskCache/unpin(collection:deletingEntries:)``).
    @discardableResult
    public func unpin(collection: String, deletingEntries: Bool = false) throws -> Int {
        try diskCache.unpin(collection: collection, deletingEntries: deletingEntries)
    }

    /// Every collection with its counts.
    public func collections() -> [ImageCollection] { diskCache.collections() }

    /// Whether `key` is on disk and its bytes, read on the disk queue (a prefetch checks each load's entry).
    func collectionEntry(forKey key: String) async -> ImageCollectionEntry {
        await io { self.diskCache.collectionEntry(forKey: key) }
    }

    /// `collection`'s keys in order, cached or missing, with their bytes.
    public func entries(in collection: String) throws -> [ImageCollectionEntry] {
        try diskCache.entries(in: collection)
    }
}
