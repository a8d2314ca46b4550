import WebImage

extension ImageCodersManager {
    /// Coders for files named on the command line: the defaults plus ``HEIFCoder``. HEIF is
    /// opt-in in the library because a hostile HEIC can cost libde265 gigabytes before its size
    /// can be checked — a risk for a server, a cost (not a crash) for a file a user chose to open.
    static let localFiles: ImageCodersManager = {
        let manager = ImageCodersManager()
        manager.addCoder(HEIFCoder())
        return manager
    }()
}
