#if WEBIMAGE_TSAN
import Glibc

/// Stands in for `Synchronization.Mutex` in ThreadSanitizer builds only (`scripts/tsan` defines
/// `WEBIMAGE_TSAN`); normal builds never compile this and use the standard library's `Mutex`.
///
/// Why: on Linux the standard library's `Mutex` locks with a futex and atomics in the
/// uninstrumented runtime, so TSan never sees the acquire/release and reports every pair of
/// critical sections as a race. A `pthread_mutex_t` is intercepted by TSan, so with this stand-in the run checks
/// WebImage's own lock discipline — every critical section stays exactly where it is — and any
/// report left is a real race. Declared in this module, it shadows the imported `Mutex`; the CLI
/// and the tests alias it the same way.
public struct Mutex<Value: ~Copyable>: ~Copyable {
    private final class Storage {
        let lock: UnsafeMutablePointer<pthread_mutex_t>
        let value: UnsafeMutablePointer<Value>

        init(_ initialValue: consuming Value) {
            lock = .allocate(capacity: 1)
            pthread_mutex_init(lock, nil)
            value = .allocate(capacity: 1)
            value.initialize(to: initialValue)
        }

        deinit {
            value.deinitialize(count: 1)
            value.deallocate()
            pthread_mutex_destroy(lock)
            lock.deallocate()
        }
    }

    private let storage: Storage

    public init(_ initialValue: consuming sending Value) {
        storage = Storage(initialValue)
    }

    /// Same contract as `Synchronization.Mutex.withLock`.
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(storage.lock)
        defer { pthread_mutex_unlock(storage.lock) }
        return try body(&storage.value.pointee)
    }

    /// Same contract as `Synchronization.Mutex.withLockIfAvailable`.
    public borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard pthread_mutex_trylock(storage.lock) == 0 else { return nil }
        defer { pthread_mutex_unlock(storage.lock) }
        return try body(&storage.value.pointee)
    }
}

extension Mutex: @unchecked Sendable where Value: ~Copyable {}  // guarded by the pthread mutex `storage.lock`
#endif
