import Foundation
import Synchronization

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate to write, and the two obsolete forms to read.
enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",   // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
        "EEEE, dd-MMM-yy HH:mm:ss zzz",    // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
        "EEE MMM d HH:mm:ss yyyy",         // asctime: Sun Nov  6 08:49:37 1994
        "EEE, dd-MMM-yyyy HH:mm:ss zzz",   // common in Set-Cookie Expires
    ]

    /// One formatter per form, made once (a DateFormatter costs tens of microseconds to build,
    /// and every response with validators or cookies parses dates). DateFormatter is not
    /// Sendable, so they are used only under this lock.
    private static let formatters = Mutex(formats.map { format -> DateFormatter in
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    })

    /// The date in `string`, or `nil` when it is in none of the HTTP forms.
    static func parse(_ string: String) -> Date? {
        let trimmed = string.trimmingCharacters(in: .whitespaces)
            .replacingOccurrences(of: "  ", with: " ")
        return formatters.withLock { formatters in
            formatters.lazy.compactMap { $0.date(from: trimmed) }.first
        }
    }

    /// `date` as an IMF-fixdate.
    static func format(_ date: Date) -> String {
        formatters.withLock { $0[0].string(from: date) }
    }
}
