import Foundation

/// The authorise step: parses a thumbor path and checks its signature (or `unsafe/`, when the
/// server allows it). One rule, used by ``SignatureMiddleware`` and ``VariantPipeline`` alike.
struct RequestAuthorizer: Sendable {
    let signer: URLSigner
    let allowsUnsafe: Bool

    /// The parsed path when its signature holds; 403 for a bad one, 400 for a path that is not thumbor's.
    func authorize(_ path: String) throws(ServerFailure) -> ThumborPath {
        let request: ThumborPath
        do {
            request = try ThumborPath(parsing: path)
        } catch .unsigned {
            throw .forbiddenSignature
        } catch {
            throw .badRequest(error.description)
        }
        switch request.authorization {
        case .unsafe:
            guard allowsUnsafe else { throw .forbiddenUnsafe }
        case .signature(let signature):
            if signer.isValid(signature, for: request.signedPart) { return request }
            // libthumbor signs the path before a client percent-encodes it: then the decoded text
            // is what was signed, and it is what is parsed — never the raw segments.
            guard let decoded = request.signedPart.removingPercentEncoding, decoded != request.signedPart,
                  signer.isValid(signature, for: decoded) else { throw .forbiddenSignature }
            do {
                return try ThumborPath(parsing: signature + "/" + decoded, decodingSource: false)
            } catch {
                throw .badRequest(error.description)
            }
        }
        return request
    }
}
