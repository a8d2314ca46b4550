import ArgumentParser
import WebImageServer

/// `webimage serve --print-nginx-config --upstream HOST:PORT …`: the nginx site for a fleet of
/// instances, printed instead of serving.
struct NginxConfigOptions: ParsableArguments {
    @Flag(name: .customLong("print-nginx-config"), help: "Print an nginx site routing each request by its source to the --upstream instances, then exit.")
    var printNginxConfig = false
    @Option(name: .customLong("upstream"), help: ArgumentHelp("An instance for --print-nginx-config; repeatable.", valueName: "HOST:PORT"))
    var upstreams: [String] = []
    @Option(name: .customLong("listen"), help: ArgumentHelp("nginx's listen for --print-nginx-config (default 8080).", valueName: "[ADDRESS:]PORT"))
    var listen = "8080"
    @Option(name: .customLong("edge-cache"), help: ArgumentHelp("Let nginx cache variants in DIR too (--print-nginx-config).", valueName: "DIR"))
    var edgeCache: String?

    /// The site these options ask for; nil when --print-nginx-config is not given.
    func config(commandLine: [String]) throws -> NginxConfig? {
        guard printNginxConfig else {
            guard upstreams.isEmpty, edgeCache == nil else { throw ValidationError("--upstream and --edge-cache go with --print-nginx-config") }
            return nil
        }
        do {
            var config = try NginxConfig(upstreams: upstreams, listen: listen, edgeCacheDirectory: edgeCache)
            config.commandLine = (["webimage"] + commandLine).joined(separator: " ")
            return config
        } catch {
            throw ValidationError(error.description)
        }
    }
}
