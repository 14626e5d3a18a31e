/* A display app's lease on what it shows (docs/cache-format.md#leases).
 *
 *   cc -o lease lease.c
 *   ./lease LEASE_FILE PATH [LEASE_FILE PATH ...]
 *
 * For each asset, LEASE_FILE is its "lease" from readiness.json and PATH the
 * file or folder to show. Prints "leased" once it holds every lease and has
 * every PATH open, then shows them until it is killed: the kernel drops the
 * leases with the process, however it ends. Exits 3 when a PATH is gone (it
 * was removed before the lease was taken: read readiness.json again). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        /* 1. The lease first. Read access is all it needs (the file is 0444),
         *    and the descriptor stays open for as long as the asset is shown. */
        int lease = open(argv[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct stat info;
        if (lease < 0 || flock(lease, LOCK_SH) != 0 || fstat(lease, &info) != 0) {
            fprintf(stderr, "lease %s: %s; read readiness.json again\n", argv[i], strerror(errno));
            return 3;
        }
        if (info.st_nlink == 0) {  /* unlinked by a writer while we waited for it */
            fprintf(stderr, "lease %s: removed; read readiness.json again\n", argv[i]);
            return 3;
        }
        /* 2. Then the files. One that is missing went before the lease was
         *    taken: the index names a newer copy, or none. */
        int shown = open(argv[i + 1], O_RDONLY | O_CLOEXEC);
        if (shown < 0) {
            fprintf(stderr, "%s: %s; read readiness.json again\n", argv[i + 1], strerror(errno));
            return 3;
        }
    }
    puts("leased");
    fflush(stdout);
    /* 3. Show. Closing the lease descriptors, or exiting, releases them. */
    for (;;) pause();
}
