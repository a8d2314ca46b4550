import ArgumentParser
import Foundation
import WebImage

/// A list's cached bytes written into a folder: `collection export` and the hidden `cache export`
/// share it, so both name files, skip missing entries and sum up the same way.
struct CachedListExport {
    let disk: DiskCache
    /// The folder as the command line gave it; created when missing.
    let directory: String

    /// Writes the stored bytes of each key as its list number (``fileName(position:count:data:)``);
    /// a key with no entry is skipped and named on stderr (`missing: KEY`), its number left unused.
    /// Prints `exported N images to DIR[, M missing]`; throws exit status 2 when any is missing.
    func export(_ keys: [String]) throws(ExitCode) {
        let output = URL(fileURLWithPath: directory, isDirectory: true)
        do { try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true) } catch {
            CLIError.exit(with: "cannot create \(directory): \(error.localizedDescription)")
        }
        var (written, missing) = (0, 0)
        for (position, key) in keys.enumerated() {
            guard let data = disk.data(forKey: key) else {
                missing += 1
                FileHandle.standardError.write(Data("missing: \(key)\n".utf8))
                continue
            }
            let file = output.appendingPathComponent(Self.fileName(position: position, count: keys.count, data: data))
            do throws(CLIError) { try ImageOutput.write(data, to: file.path) } catch { CLIError.exit(with: error.message) }
            written += 1
        }
        print("exported \(written) images to \(output.path)\(missing > 0 ? ", \(missing) missing" : "")")
        if missing > 0 { throw ExitCode(2) }
    }

    /// The 1-based list number, zero-padded to at least four digits so names sort in list order,
    /// and the extension of the format the bytes sniff as (`bin` when none): `0001.jpg`, `0002.png`.
    static func fileName(position: Int, count: Int, data: Data) -> String {
        let number = String(position + 1)
        let digits = max(4, String(count).count)
        return String(repeating: "0", count: digits - number.count) + number + "." + (ImageFormat.detect(data).fileExtension ?? "bin")
    }
}
