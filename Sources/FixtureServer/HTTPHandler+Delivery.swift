#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOHTTP1

/// How a response's body ends.
enum Ending {
    /// With the end of the message; then the connection is kept or closed.
    case complete(keepAlive: Bool)
    /// With a close of the connection after a cut.
    case truncate
    /// Never: after a cut, nothing more is sent while the connection lives.
    case stall
}

/// Delivery: writes a planned response, applying the faults that shape how
/// it goes out (extra headers, chunking, cuts, pacing, abrupt close).
extension HTTPHandler {
    func send(_ plan: ResponsePlan, for exchange: Exchange, route: FaultRoute, context: ChannelHandlerContext) {
        var plan = plan
        let request = exchange.head
        for (name, value) in route.extraHeaders {
            plan.headers.replaceOrAdd(name: name, value: value)
        }
        plan.headers.replaceOrAdd(name: "Date", value: HTTPDate.format(time(nil)))

        let bodyAllowed = request.method != .HEAD && plan.status.mayHaveResponseBody
        if !bodyAllowed {
            plan.body.close()
            plan.body = .none
        }
        // A chunked route stands for a body of unknown length (generated as it
        // goes): a HEAD of it cannot name a length either.
        if route.chunked {
            plan.headers.remove(name: "Content-Length")
        }
        // HTTP/1.0 has no chunking: a body without a length ends with the connection.
        let isHTTP10 = request.version.major == 1 && request.version.minor == 0
        let closeDelimited = bodyAllowed && !plan.headers.contains(name: "Content-Length") && isHTTP10
        let keepAlive = request.isKeepAlive && !closeDelimited
        if !keepAlive {
            plan.headers.replaceOrAdd(name: "Connection", value: "close")
        } else if isHTTP10 {
            plan.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }

        let cut = bodyAllowed ? route.bodyCut : nil
        let ending: Ending =
            switch cut {
            case .truncate: .truncate
            case .stall: .stall
            case nil: .complete(keepAlive: keepAlive)
            }
        exchange.respond(status: Int(plan.status.code))
        let head = HTTPResponseHead(version: request.version, status: plan.status, headers: plan.headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let stream = BodyStream(source: plan.body, cut: cut, copiesFiles: encrypted)
        self.stream = stream
        pump(stream, exchange, ending: ending, rate: route.rate, context: context)
    }

    private func pump(
        _ stream: BodyStream, _ exchange: Exchange, ending: Ending, rate: Int?, context: ChannelHandlerContext
    ) {
        guard self.stream === stream else { return }
        var size = min(stream.remaining ?? .max, stream.maxChunk)
        if let rate {
            // Small steps (1/20 s worth) so that the pace is even, not bursts.
            size = min(size, max(1, rate / 20))
            let due = stream.startedAt + .nanoseconds(Int64(Double(stream.sent) / Double(rate) * 1e9))
            if due > .now() {
                timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) {
                    self.timer = nil
                    self.pump(stream, exchange, ending: ending, rate: rate, context: context)
                }
                return
            }
        }
        if size == stream.remaining {
            return finish(stream, exchange, lastChunk: size, ending: ending, context: context)
        }
        context.writeAndFlush(wrapOutboundOut(.body(stream.chunk(size: size)))).assumeIsolated().whenComplete {
            switch $0 {
            case .success:
                stream.didSend(size)
                exchange.didSend(size)
                self.pump(stream, exchange, ending: ending, rate: rate, context: context)
            case .failure:
                // The connection is going away; channelInactive logs the exchange.
                stream.close()
            }
        }
    }

    /// Writes the last `lastChunk` bytes and ends the response as `ending` says.
    private func finish(
        _ stream: BodyStream, _ exchange: Exchange, lastChunk: Int, ending: Ending, context: ChannelHandlerContext
    ) {
        if case .stall = ending {
            // Logged only when the connection closes: until then it is in flight.
            self.stream = nil
        } else {
            // Logged before the last write: a client that has read the whole
            // response must find it in the log.
            exchange.finish(pendingBytes: lastChunk)
            (self.exchange, self.stream) = (nil, nil)
        }
        // Even an empty last write is made for a truncation, so that the
        // close waits for the head to be written.
        var lastWrite = context.eventLoop.makeSucceededVoidFuture()
        if lastChunk > 0 {
            lastWrite = context.write(wrapOutboundOut(.body(stream.chunk(size: lastChunk))))
            lastWrite.assumeIsolated().whenSuccess {
                stream.didSend(lastChunk)
                exchange.didSend(lastChunk)
            }
        } else if case .truncate = ending {
            lastWrite = context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer()))))
        }
        switch ending {
        case .complete(let keepAlive):
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { result in
                stream.close()
                switch result {
                case .success: if !keepAlive { context.close(promise: nil) }
                case .failure: exchange.lastWriteFailed()
                }
                exchange.end()
            }
        case .truncate:
            context.flush()
            lastWrite.assumeIsolated().whenComplete { result in
                stream.close()
                if case .failure = result { exchange.lastWriteFailed() }
                exchange.end()
                context.close(promise: nil)
            }
        case .stall:
            context.flush()
            lastWrite.assumeIsolated().whenComplete { _ in stream.close() }
        }
    }

    /// Ends the connection without a response; with SO_LINGER 0 the close is
    /// an RST, which is what a crashed or hostile server looks like.
    func reset(_ exchange: Exchange, context: ChannelHandlerContext) {
        exchange.end()
        self.exchange = nil
        guard let socket = context.channel as? any SocketOptionProvider else {
            return context.close(promise: nil)
        }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
