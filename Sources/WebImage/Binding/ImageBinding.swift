import Foundation
import Synchronization

/// Binds loads to targets (SDWebImage's `sd_internalSetImageWithURL:…` and
/// `sd_cancelCurrentImageLoad`): one load per (target, operation key); a new one cancels the old
/// (unless ``WebImageOptions/avoidAutoCancelImage``); placeholder first (or only after a failure,
/// ``WebImageOptions/delayPlaceholder``); indicator while loading; the image set on completion
/// (unless ``WebImageOptions/avoidAutoSetImage``) with the target's transition when it came from
/// the network or an asynchronous disk read.
public final class ImageBinding: Sendable {
    public static let shared = ImageBinding()

    private struct Slot: Hashable {
        let target: ObjectIdentifier
        let key: String
    }

    private struct Binding {
        /// Entries are keyed by the target's address: a dead target's entry is pruned, so a new
        /// object at the same address does not inherit its URL.
        weak var target: AnyObject?
        var operation: CombinedOperation?
        var url: URL?
        var generation = 0
        let display = SlotDisplay()
    }

    public let manager: ImageManager
    private let bindings = Mutex<[Slot: Binding]>([:])

    public init(manager: ImageManager = .shared) {
        self.manager = manager
    }

    /// The default operation key: one load per target.
    public static let defaultOperationKey = "ImageBinding.image"

    /// Loads `url` into `target`. `completed` runs once per load — with ``WebImageError/cancelled``
    /// (2002) when a newer load on the slot or ``cancelCurrentLoad(on:operationKey:)`` cancels it,
    /// with ``WebImageError/invalidURL(_:)`` for a `nil` URL.
    @discardableResult
    public func setImage(
        on target: any ImageTarget, with url: URL?, placeholder: Image? = nil,
        options: WebImageOptions = [], context: WebImageContext = WebImageContext(),
        progress: ImageLoaderProgressHandler? = nil,
        completed: (@Sendable (Result<ImageResult, WebImageError>) -> Void)? = nil
    ) -> CombinedOperation? {
        let slot = Slot(target: ObjectIdentifier(target), key: context.setImageOperationKey ?? Self.defaultOperationKey)
        let context = Self.loadContext(context, for: target)
        let display = bindings.withLock { bindings -> SlotDisplay in
            if bindings.count >= 64, bindings.count.nonzeroBitCount == 1 {  // now and then, not every call
                bindings = bindings.filter { $0.value.target != nil }
            }
            if let binding = bindings[slot], binding.target === target { return binding.display }
            let binding = Binding(target: target)
            bindings[slot] = binding
            return binding.display
        }
        // The new generation and its placeholder in one step: an older load that is showing its
        // image right now finishes first, and one that comes later sees it is no longer current.
        let (previous, generation) = display.withLock {
            let started = bindings.withLock { bindings -> (CombinedOperation?, Int) in
                var binding = bindings[slot] ?? Binding(target: target)
                let previous = options.contains(.avoidAutoCancelImage) ? nil : binding.operation
                binding.generation += 1
                binding.url = url
                binding.operation = nil
                bindings[slot] = binding
                return (previous, binding.generation)
            }
            if !options.contains(.delayPlaceholder) || url == nil { target.setImage(placeholder, transition: nil, operationKey: slot.key) }
            return started
        }
        // Outside the display lock: the cancelled load answers inside cancel(), and its delivery
        // takes that lock.
        previous?.cancel()

        guard let url else {
            target.indicator?.stopAnimating()
            completed?(.failure(.invalidURL("")))
            return nil
        }

        let indicator = target.indicator
        indicator?.startAnimating()
        let operation = manager.loadImage(
            with: url, options: options, context: context,
            progress: { value in
                if value.expectedSize > 0 { indicator?.updateProgress(Double(value.receivedSize) / Double(value.expectedSize)) }
                progress?(value)
            },
            completed: { [weak self, weak target] result in
                // A newer load on the slot owns the target and its indicator: this one only
                // answers. (A refreshCached load answers twice; each answer is checked.)
                display.withLock {
                    guard self?.forget(slot, generation: generation) == true else { return }
                    indicator?.stopAnimating()
                    if let target { Self.apply(result, to: target, slot: slot.key, placeholder: placeholder, options: options) }
                }
                completed?(result)
            })
        bindings.withLock { bindings in
            // Checked under the lock: the completion's forget() takes it too, so a load that has
            // already answered is never recorded as running.
            if !operation.isFinished, bindings[slot]?.generation == generation { bindings[slot]?.operation = operation }
        }
        return operation
    }

    /// ``setImage(on:with:placeholder:options:context:progress:completed:)`` with the image the
    /// cache already holds for `url` as the placeholder, else `placeholder` (SD's
    /// `sd_setImageWithPreviousCachedImageWithURL:…`): the key this load stores under, looked up
    /// in memory and then read from disk on the caller's thread, as SD's `imageFromCacheForKey:`
    /// does — an ``ImageCache`` only; another cache gives no previous image.
    @discardableResult
    public func setImageWithPreviousCachedImage(
        on target: any ImageTarget, with url: URL?, placeholder: Image? = nil,
        options: WebImageOptions = [], context: WebImageContext = WebImageContext(),
        progress: ImageLoaderProgressHandler? = nil,
        completed: (@Sendable (Result<ImageResult, WebImageError>) -> Void)? = nil
    ) -> CombinedOperation? {
        let previous = url.flatMap { manager.cachedImageNow(for: $0, options: options, context: Self.loadContext(context, for: target)) }
        return setImage(on: target, with: url, placeholder: previous ?? placeholder, options: options, context: context,
                        progress: progress, completed: completed)
    }

    /// An animation target's loads decode frames on demand unless the context names a coder.
    private static func loadContext(_ context: WebImageContext, for target: any ImageTarget) -> WebImageContext {
        guard target is any AnimatedImageTarget, context.imageCoder == nil else { return context }
        var context = context
        context.imageCoder = OnDemandAnimationCoder()
        return context
    }

    /// Cancels the load running in `target`'s slot (SD's `sd_cancelCurrentImageLoad`); its
    /// completion answers ``WebImageError/cancelled``.
    public func cancelCurrentLoad(on target: any ImageTarget, operationKey: String = ImageBinding.defaultOperationKey) {
        let slot = Slot(target: ObjectIdentifier(target), key: operationKey)
        let operation = bindings.withLock { $0[slot]?.operation }
        operation?.cancel()
    }

    /// The URL of the latest load set on `target`'s slot (SD's `sd_imageURL`).
    public func currentURL(of target: any ImageTarget, operationKey: String = ImageBinding.defaultOperationKey) -> URL? {
        bindings.withLock { $0[Slot(target: ObjectIdentifier(target), key: operationKey)]?.url }
    }

    /// Whether a load is running in `target`'s slot.
    public func isLoading(_ target: any ImageTarget, operationKey: String = ImageBinding.defaultOperationKey) -> Bool {
        bindings.withLock { $0[Slot(target: ObjectIdentifier(target), key: operationKey)]?.operation != nil }
    }

    /// Marks the slot's load as ended; returns whether `generation` is still the slot's latest load.
    @discardableResult
    private func forget(_ slot: Slot, generation: Int) -> Bool {
        bindings.withLock { bindings in
            guard bindings[slot]?.generation == generation else { return false }
            bindings[slot]?.operation = nil
            return true
        }
    }

    /// SD's rules for what to show when a load ends, in the load's slot of the target.
    private static func apply(
        _ result: Result<ImageResult, WebImageError>, to target: any ImageTarget, slot: String, placeholder: Image?,
        options: WebImageOptions
    ) {
        switch result {
        case .success(let loaded):
            guard !options.contains(.avoidAutoSetImage) else { return }
            target.setImage(
                loaded.image, transition: shouldTransition(loaded.cacheType, options: options) ? target.transition : nil,
                operationKey: slot)
            if let animation = loaded.image.animatedImage, let player = target as? any AnimatedImageTarget {
                player.play(AnimatedImagePlayer(provider: animation), operationKey: slot)
            }
        case .failure(.cancelled):
            return
        case .failure:
            if options.contains(.delayPlaceholder) { target.setImage(placeholder, transition: nil, operationKey: slot) }
        }
    }

    /// Network loads and asynchronous disk reads animate; memory hits and synchronous disk reads
    /// do not (they are on screen before anyone could see a change) — unless forced.
    static func shouldTransition(_ cacheType: ImageCacheType, options: WebImageOptions) -> Bool {
        if options.contains(.forceTransition) { return true }
        switch cacheType {
        case .none: return true
        case .memory: return false
        case .disk, .all: return !options.contains(.queryDiskDataSync) && !options.contains(.queryMemoryDataSync)
        }
    }
}

/// Orders what one slot shows, so an older load's image and a newer load's placeholder never
/// interleave (the cell-reuse bug: the old image landing over the new placeholder). Held while
/// the target is told what to show; recursive because a target may start a load on its own slot
/// from inside `setImage`. A target that hops to another thread must hop asynchronously and in
/// order (a serial queue), or it could wait on a load that waits on it.
private final class SlotDisplay: Sendable {
    private let lock = NSRecursiveLock()

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
