import Hummingbird

extension ImageServer {
    /// The public face as a Hummingbird `RouteCollection`: `GET /healthz`, `GET /readyz` and
    /// thumbor's image paths (every other GET). Image requests pass, in order, the access log (when
    /// on), the metrics, the loop guard and the signature check, then the `VariantPipeline`.
    public func routes<Context: RequestContext>(context: Context.Type = Context.self) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get("/healthz") { _, _ in Self.plain(.ok, "ok\n") }
        routes.get("/readyz") { [admission] _, _ in
            admission.isReady ? Self.plain(.ok, "ready\n") : Self.plain(.serviceUnavailable, "draining\n")
        }
        // Middleware of a collection wraps the routes added after it: the image route only.
        if configuration.accessLog { routes.add(middleware: AccessLogMiddleware(logger: logger)) }
        routes.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        routes.add(middleware: SourceLoopMiddleware())
        routes.add(middleware: SignatureMiddleware(pipeline: pipeline))
        routes.get("**") { [self] request, _ in
            try await image(for: request.thumborPath, accept: request.headers[.accept],
                            ifNoneMatch: request.headers[.ifNoneMatch], callback: request.metaCallback)
        }
        return routes
    }

    /// The operator's routes as a `RouteCollection`: `GET /metrics` (Prometheus text: counters,
    /// timings, the shared tier's calls) and `DELETE /purge?url=SOURCE` (with the purge token).
    public func adminRoutes<Context: RequestContext>(context: Context.Type = Context.self) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get("/metrics") { [self] _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text + (sharedTier?.metricsText ?? ""))))
        }
        routes.delete("/purge") { [self] request, _ in
            try await purge(source: request.uri.queryParameters["url"].map(String.init),
                            authorization: request.headers[.authorization]).response
        }
        return routes
    }

    /// The public face on `router` (``routes(context:)``). The operator's routes are
    /// ``addAdminRoutes(to:)``'s, for a router on a private listener.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.addRoutes(routes(context: Context.self))
    }

    /// The operator's routes on `router` (``adminRoutes(context:)``). Put them on a router that only
    /// the operator reaches (`webimage serve --admin-host/--admin-port`), not on the public one.
    public func addAdminRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.addRoutes(adminRoutes(context: Context.self))
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
