import Foundation

/// The memory this process may use: the tightest cgroup v2 `memory.max` on the path from its own
/// cgroup to the root (a systemd unit's `MemoryMax=`, a container's limit), else the machine's RAM.
enum MemoryLimit {
    static let current: Int = {
        let ram = Int(clamping: ProcessInfo.processInfo.physicalMemory)
        return min(ram, cgroupLimit() ?? .max)
    }()

    /// The share of ``current`` the server's work may plan to hold at once: the rest is the
    /// process itself, its caches, and what the allocator keeps.
    static var defaultWorkBudget: Int { current / 2 }

    /// One request's cap: half the work budget, at most 1 GiB (a 25-megapixel blur fits).
    static func defaultRequestCap(workBudget: Int) -> Int { min(workBudget / 2, 1 << 30) }

    /// cgroup v2 (`0::/path`, `memory.max`) or v1 (`N:memory:/path`, `memory.limit_in_bytes`),
    /// whichever the process's memory controller is in; "max" and v1's huge "no limit" read as none.
    private static func cgroupLimit() -> Int? {
        guard let membership = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return nil }
        var tightest: Int?
        for line in membership.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let controllers = fields[1].split(separator: ",")
            if fields[0] == "0", fields[1].isEmpty {
                tightest = min(tightest ?? .max, limit(along: String(fields[2]), root: "/sys/fs/cgroup", file: "memory.max") ?? .max)
            } else if controllers.contains("memory") {
                tightest = min(tightest ?? .max, limit(along: String(fields[2]), root: "/sys/fs/cgroup/memory", file: "memory.limit_in_bytes") ?? .max)
            }
        }
        return tightest == .max ? nil : tightest
    }

    /// The smallest limit in `file` from `path`'s group up to the root of the hierarchy at `root`.
    private static func limit(along path: String, root: String, file: String) -> Int? {
        var path = path
        var tightest: Int?
        while true {
            let name = root + (path == "/" ? "" : path) + "/" + file
            if let text = try? String(contentsOfFile: name, encoding: .utf8),
               let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), value < 1 << 60 {
                tightest = min(tightest ?? .max, value)
            }
            guard path != "/", !path.isEmpty else { return tightest }
            path = (path as NSString).deletingLastPathComponent
        }
    }
}
