// ServerFailure reads the loader's refusal prefix only; the real loader pulls in the fetch, DNS and the address policy.
enum SourceLoader {
    static let refusalPrefix = "source refused: "
}
