import Foundation
import Testing

/// deploy/: the systemd unit passes systemd's own check (deploy/redis/redis.conf is the one scripts/fleet check starts Redis on).
@Suite("deploy files")
struct DeployFilesTests {
    static let analyze = URL(fileURLWithPath: "/usr/bin/systemd-analyze")

    @Test("systemd-analyze verify accepts the unit (its binary swapped for /bin/true), with its sandboxing in place",
          .enabled(if: FileManager.default.isExecutableFile(atPath: analyze.path)))
    func systemdUnit() async throws {
        let unit = try String(contentsOf: NginxConfigTests.repository.appendingPathComponent("deploy/systemd/webimage.service"), encoding: .utf8)
        for line in ["DynamicUser=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes",
                     "CapabilityBoundingSet=\n", "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", "SystemCallFilter=@system-service",
                     "CacheDirectory=webimage", "StateDirectory=webimage", "MemoryMax=", "KillSignal=SIGTERM", "EnvironmentFile="] {
            #expect(unit.contains(line), "missing \(line)")
        }
        // The stop timeout outlasts the drain grace plus the request deadline (30 s).
        let grace = try #require(unit.firstMatch(of: /--drain-grace (\d+)/).flatMap { Int($0.1) })
        let stop = try #require(unit.firstMatch(of: /TimeoutStopSec=(\d+)/).flatMap { Int($0.1) })
        #expect(stop > grace + 30)
        let directory = try TemporaryFolder.make("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("webimage.service")
        try unit.replacingOccurrences(of: "/usr/local/bin/webimage", with: "/bin/true").write(to: copy, atomically: true, encoding: .utf8)
        let result = try await onOwnThread { try CLIRunner.run(Self.analyze, ["verify", copy.path]) }
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
    }
}
