/// What keeps a ref, and the object and tree it names, from eviction: the
/// roots of the cache's garbage collection, as containerd's GC has them
/// (docs/cache-format.md#what-keeps-an-object has the table). A ref that is
/// not a root is evicted least recently used first while the cache is over
/// its budget; an object or tree that no ref and no root names is removed.
///
/// The fourth root, a display app's lease, is not listed here: it is
/// file-system state that an app takes and drops at any moment, so it is asked
/// of the lease file when it matters (``EvictionPlan``'s `isLeased`, and the
/// sweep's ``LeaseRemovalLock``).
package struct CacheRoots: Sendable, Equatable {
    /// Ref file names the manifest of the last run (or of the run that ends
    /// now) needs: `needed.json`.
    package var neededRefs: Set<String>
    /// Ref file names of the stored manifests runs used, with their `.sig`:
    /// ``CacheState/manifests``, at most ``CacheState/pinnedManifestRefs``.
    package var storedManifests: Set<String>
    /// Objects (and trees) a run's index still names though no ref may: the
    /// assets that run found, and those of messages a stopped run did not
    /// decide. Only a run's own eviction has any; `gc` has none.
    package var objectsInUse: Set<String>

    package init(neededRefs: Set<String> = [], storedManifests: Set<String> = [], objectsInUse: Set<String> = []) {
        self.neededRefs = neededRefs
        self.storedManifests = storedManifests
        self.objectsInUse = objectsInUse
    }

    /// Whether the ref file `name` is never evicted.
    package func keeps(ref name: String) -> Bool {
        neededRefs.contains(name) || storedManifests.contains(name)
    }
}

extension CacheState {
    /// The roots of a run's own eviction: the refs `neededRefs` of the run that
    /// ends now (the last run's no longer count), the stored manifests, and
    /// the objects its index still names.
    package func roots(needing neededRefs: [String], objectsInUse: Set<String> = []) -> CacheRoots {
        CacheRoots(neededRefs: Set(neededRefs), storedManifests: Set(manifests), objectsInUse: objectsInUse)
    }
}
