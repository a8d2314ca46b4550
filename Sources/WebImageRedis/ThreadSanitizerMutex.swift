#if WEBIMAGE_TSAN
import WebImage

/// ThreadSanitizer builds only: the pthread-backed stand-in WebImage declares (see its file for why).
typealias Mutex<Value: ~Copyable> = WebImage.Mutex<Value>
#endif
