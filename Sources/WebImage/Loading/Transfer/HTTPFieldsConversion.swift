import HTTPTypes
import NIOHTTP1

extension HTTPFields {
    /// Replaces each name `other` has with `other`'s fields of that name, keeping the rest: how
    /// config headers go over the defaults and a modifier's over the request's.
    mutating func overlay(_ other: HTTPFields) {
        for name in Set(other.map(\.name)) { self[fields: name] = other[fields: name] }
    }

    /// What the subscript gives for `name` — its fields' values joined with ", " — without the
    /// array and joined copy the subscript builds even for one field.
    func joinedValue(_ name: HTTPField.Name) -> String? {
        var value: String?
        for field in self where field.name == name { Self.join(field.value, to: &value) }
        return value
    }

    /// Adds a repeated field's `value` to what came before it, as the subscript joins them.
    static func join(_ value: String, to joined: inout String?) {
        joined = joined.map { $0 + ", " + value } ?? value
    }

    /// A request's fields as HTTP/1.1 sends them, the one rule for every carrier: `HTTPFields` keeps
    /// each cookie as its own `Cookie` field (as HTTP/2 sends them), HTTP/1.1 allows one `Cookie`
    /// line (RFC 6265 §5.4), so they are joined with "; "; and no framing field: a download has no
    /// body, and framing is the carrier's to say (a modifier's `Transfer-Encoding` would frame a body nobody sends).
    func forEachHTTP1RequestField(_ body: (_ name: String, _ value: String) -> Void) {
        var cookies: [String] = []
        for field in self {
            switch field.name {
            case .cookie: cookies.append(field.value)
            case .contentLength, .transferEncoding: continue
            default: body(field.name.rawName, field.value)
            }
        }
        if !cookies.isEmpty { body(HTTPField.Name.cookie.rawName, cookies.joined(separator: "; ")) }
    }

    /// The fields of a response head AsyncHTTPClient parsed. NIO's parser accepts only token
    /// names, so none is dropped in practice; a name HTTPTypes would refuse is left out.
    init(_ headers: HTTPHeaders) {
        self.init(headers.compactMap { field in
            HTTPField.Name(field.name).map { HTTPField(name: $0, value: field.value) }
        })
    }
}

extension HTTPHeaders {
    /// A request's fields for AsyncHTTPClient (``HTTPFields/forEachHTTP1RequestField(_:)``).
    init(requestFields fields: HTTPFields) {
        self.init()
        reserveCapacity(fields.count)
        fields.forEachHTTP1RequestField { add(name: $0, value: $1) }
    }
}
