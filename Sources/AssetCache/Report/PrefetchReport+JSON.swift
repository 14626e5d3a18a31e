/// The report as pretty-printed JSON, written directly: JSONEncoder took a third
/// of `prefetch plan`'s time on a 10,000-message report (bench/, C). The keys and
/// values are those of the Encodable conformance (a test compares the two), in
/// that conformance's order, with "/" left unescaped.
extension PrefetchReport {
    public func prettyJSON() -> [UInt8] {
        var bytes: [UInt8] = []
        writePrettyJSON { bytes += $0 }
        return bytes
    }

    /// The same text handed to `write` in pieces of about 64 KiB, so that the
    /// report of a manifest of 100,000 assets is never held whole in memory.
    public func writePrettyJSON(_ write: ([UInt8]) -> Void) {
        withoutActuallyEscaping(write) { write in
            var json = PrettyJSON(flush: write)
            writeReport(to: &json)
            json.flushNow()
        }
    }

    private func writeReport(to json: inout PrettyJSON) {
        json.object { json in
            json.key("version"); json.string(Self.formatVersion)
            json.key("cache_dir"); json.string(cacheDirectory)
            json.key("duration_ms"); json.integer(durationMs)
            json.key("messages")
            json.array(messages) { json, message in message.write(to: &json) }
            json.key("assets")
            json.array(assets) { json, asset in asset.write(to: &json) }
            let totals = totals
            json.key("totals")
            json.object { json in
                json.key("messages"); json.integer(totals.messages)
                json.key("ready"); json.integer(totals.ready)
                json.key("discarded"); json.integer(totals.discarded)
                json.key("deferred"); json.integer(totals.deferred)
                json.key("expired"); json.integer(totals.expired)
                json.key("assets"); json.integer(totals.assets)
                json.key("downloaded_bytes"); json.integer(totals.downloadedBytes)
                json.key("connections"); json.integer(totals.connections)
            }
            if let link {
                json.key("link")
                json.object { json in
                    json.key("down_seconds"); json.number(link.roundedDownSeconds)
                    json.key("outages"); json.integer(link.outages)
                }
            }
            if let origin = manifestOrigin {
                json.key("manifest")
                json.object { json in
                    json.key("url"); json.string(origin.url)
                    json.key("source"); json.string(origin.source.rawValue)
                    json.key("fetched_at"); json.number(origin.fetchedAt)
                }
            }
            if !warnings.isEmpty {
                json.key("warnings")
                json.array(warnings) { json, warning in
                    json.object { json in
                        json.key("kind"); json.string(warning.kind.rawValue)
                        json.key("path"); json.string(warning.path)
                        json.key("message"); json.string(warning.message)
                        if let suggestion = warning.suggestion { json.key("suggestion"); json.string(suggestion) }
                    }
                }
            }
            if let scrub {
                json.key("scrub")
                json.object { json in
                    json.key("objects"); json.integer(scrub.objects)
                    json.key("trees"); json.integer(scrub.trees)
                    json.key("bytes_read"); json.integer(scrub.bytesRead)
                    json.key("cache_bytes"); json.integer(scrub.cacheBytes)
                    json.key("damaged")
                    json.array(scrub.damaged) { json, problem in
                        json.object { json in
                            json.key("kind"); json.string(problem.kind.rawValue)
                            json.key("path"); json.string(problem.path)
                            json.key("problem"); json.string(problem.problem)
                            json.key("removed"); json.bool(!problem.leased)
                        }
                    }
                }
            }
            if let eviction = garbageCollection {
                json.key("eviction")
                json.object { json in eviction.writeRemovals(to: &json) }
            }
            writeLimits(to: &json)
            writeFreeSpace(to: &json)
        }
    }
}

extension MessageReport {
    fileprivate func write(to json: inout PrettyJSON) {
        json.object { json in
            json.key("id"); json.string(id)
            json.key("status"); json.string(verdict.status.rawValue)
            if let reason = verdict.reason { json.key("reason"); json.string(reason.rawValue) }
            if let detail = verdict.detail { json.key("detail"); json.string(detail) }
            if let readyMs { json.key("ready_ms"); json.integer(readyMs) }
            json.key("assets")
            json.array(verdict.assets) { json, asset in
                json.object { json in
                    json.key("url"); json.string(asset.url.redacted)
                    json.key("kind"); json.string(asset.kind.rawValue)
                    json.key("path"); json.string(asset.path)
                }
            }
        }
    }
}

extension AssetRecord {
    fileprivate func write(to json: inout PrettyJSON) {
        json.object { json in
            json.key("url"); json.string(url.redacted)
            json.key("kind"); json.string(kind.rawValue)
            json.key("outcome"); json.string(outcome.rawValue)
            if let sha256 { json.key("sha256"); json.string(sha256) }
            if let bytes { json.key("bytes"); json.integer(bytes) }
            if let path { json.key("path"); json.string(path) }
            json.key("attempts"); json.integer(attempts)
            if let deferral { json.key("reason"); json.string(deferral.rawValue) }
            if let unpack {
                json.key("unpack")
                json.object { json in
                    json.key("files"); json.integer(unpack.files)
                    json.key("bytes"); json.integer(unpack.bytes)
                    json.key("linked_files"); json.integer(unpack.linkedFiles)
                    json.key("linked_bytes"); json.integer(unpack.linkedBytes)
                }
            }
            if let delta {
                json.key("delta")
                json.object { json in
                    json.key("fetched_bytes"); json.integer(delta.fetchedBytes)
                    json.key("reused_bytes"); json.integer(delta.reusedBytes)
                    json.key("requests"); json.integer(delta.requests)
                }
            }
            if let deltaEvidence { json.key("delta_evidence"); json.string(deltaEvidence.rawValue) }
            if let deltaFallback { json.key("delta_fallback"); json.string(deltaFallback.rawValue) }
            json.key("error")
            if let failure {
                json.object { json in
                    json.key("kind"); json.string(failure.kind.rawValue)
                    json.key("message"); json.string(failure.message)
                }
            } else {
                json.null()
            }
        }
    }
}

extension GarbageCollection {
    /// What was evicted, removed and kept for leases: the report's `eviction`,
    /// and the same keys of `gc --json`.
    package func writeRemovals(to json: inout PrettyJSON) {
        json.key("evicted_refs"); json.integer(evictedRefs)
        json.key("removed_objects"); json.integer(removedObjects)
        json.key("removed_trees"); json.integer(removedTrees)
        // Would have been removed, but a display app leases them.
        json.key("kept_leased"); json.integer(keptLeased)
        json.key("kept_leased_bytes"); json.integer(keptLeasedBytes)
    }
}
