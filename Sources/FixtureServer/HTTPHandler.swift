import NIOCore
import NIOHTTP1

/// Serves one connection: decides which response a request gets. The
/// pipelining handler in front hands over one request at a time, so at most
/// one exchange is in progress here.
final class HTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let root: RootFolder
    let log: RequestLog
    /// Behind TLS: bodies go out as bytes, never as file regions.
    let encrypted: Bool
    var exchange: Exchange?
    var stream: BodyStream?
    /// The pending delay or pacing step; cancelled when the connection closes.
    var timer: Scheduled<Void>?

    init(root: RootFolder, log: RequestLog, encrypted: Bool) {
        self.root = root
        self.log = log
        self.encrypted = encrypted
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            exchange = Exchange(head: head, log: log)
        case .body:
            break
        case .end:
            if let exchange { begin(exchange, context: context) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        stream?.close()
        exchange?.end()
        (timer, stream, exchange) = (nil, nil, nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func begin(_ exchange: Exchange, context: ChannelHandlerContext) {
        let route = FaultRoute(query: exchange.request.query, path: exchange.request.path)
        // Counted on arrival, so a delayed attempt still counts in order.
        let failing =
            route.failFirst > 0 && log.attempt(target: exchange.request.target) <= route.failFirst
        var substitution = Substitution(gzip: route.ranges.gzip && Gzip.isAccepted(by: exchange.request.headers["accept-encoding"]))
        substitution.digest = route.digest
        if let then = route.ranges.then, log.attempt(target: "then\0" + exchange.request.target) > route.ranges.after ?? 0 {
            substitution.replacement = root.filePath(for: then) ?? ""
        }
        // delay_after=N: the first N requests to the URL (counted on arrival, with a count of their own) are not delayed.
        let delayed = route.delayMilliseconds > 0
            && route.delayAfter.map { log.attempt(target: "delay\0" + exchange.request.target) > $0 } ?? true
        guard delayed else {
            return respond(exchange, route: route, failing: failing, substitution: substitution, context: context)
        }
        timer = context.eventLoop.assumeIsolated().scheduleTask(
            in: .milliseconds(Int64(route.delayMilliseconds))
        ) {
            self.timer = nil
            self.respond(exchange, route: route, failing: failing, substitution: substitution, context: context)
        }
    }

    private func respond(
        _ exchange: Exchange, route: FaultRoute, failing: Bool, substitution: Substitution, context: ChannelHandlerContext
    ) {
        let deliver = { (plan: ResponsePlan) in self.send(plan, for: exchange, route: route, context: context) }
        if !route.problems.isEmpty {
            return deliver(.page(.badRequest, detail: route.problems.joined(separator: "; ")))
        }
        if route.reset {
            return reset(exchange, context: context)
        }
        if let code = failing ? route.failStatus : route.status {
            return deliver(.page(HTTPResponseStatus(statusCode: code)))
        }
        if route.redirectLoop {
            return deliver(.redirect(to: exchange.request.target))
        }
        if let location = route.redirect {
            return deliver(.redirect(to: location))
        }
        if route.endless {
            return deliver(.endless())
        }
        guard exchange.head.method == .GET || exchange.head.method == .HEAD else {
            var plan = ResponsePlan.page(.methodNotAllowed)
            plan.headers.add(name: "Allow", value: "GET, HEAD")
            return deliver(plan)
        }
        guard let filePath = root.filePath(for: exchange.request.path) else {
            return deliver(.page(.notFound))
        }
        root.open(filePath, substitution: substitution, on: context.eventLoop).assumeIsolated().whenComplete { result in
            let opened = (try? result.get()) ?? nil
            guard self.exchange === exchange, context.channel.isActive else {
                try? opened?.handle.close()
                return
            }
            guard let opened else {
                return deliver(.page(.notFound))
            }
            let answer = FileResponder.answer(
                path: filePath, info: opened.info, request: exchange.head.headers, route: route.ranges)
            var body = BodySource.none
            if let pieces = answer.body, !pieces.isEmpty {
                body.pieces = pieces
                body.content = opened.encoded.map { .buffer($0) } ?? .file(opened.handle)
            }
            if case .file = body.content {} else {
                try? opened.handle.close()
            }
            var plan = ResponsePlan(status: answer.status, headers: answer.headers, body: body)
            if route.ranges.gzip {
                plan.headers.add(name: "Vary", value: "Accept-Encoding")
            }
            // Of the representation: the same for the whole file and any range of it.
            if let field = opened.digestField, answer.status == .ok || answer.status == .partialContent {
                plan.headers.add(name: field.name, value: field.value)
            }
            deliver(plan)
        }
    }
}

@available(*, unavailable)
extension HTTPHandler: Sendable {}
