/* A display app's lease on what it shows (docs/cache-format.md#leases).
 *
 *   cc -o lease lease.c
 *   [LEASE_WAIT=SECONDS] ./lease LEASE_FILE PATH [LEASE_FILE PATH ...]
 *
 * For each asset, LEASE_FILE is its "lease" from readiness.json and PATH the
 * file or folder to show. Prints "leased" once it holds every lease and has
 * every PATH open, then shows them until it is killed: the kernel drops the
 * leases with the process, however it ends. Exits 3 when a PATH is gone (it
 * was removed before the lease was taken: read readiness.json again), 4 when
 * another process held a LEASE_FILE exclusively for all of LEASE_WAIT seconds
 * (10 by default; 0 does not wait): a writer holds one only while it removes
 * that asset, so try again later. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Does nothing: SIGALRM only has to end a flock that waits too long. */
static void on_alarm(int number) { (void)number; }

int main(int argc, char **argv) {
    const char *bound = getenv("LEASE_WAIT");
    unsigned wait = bound ? (unsigned)strtoul(bound, NULL, 10) : 10;
    /* No SA_RESTART: the waiting flock returns EINTR when the alarm rings.
     * And unblocked: a parent may have blocked SIGALRM, and children inherit that. */
    struct sigaction action = {.sa_handler = on_alarm};
    sigaction(SIGALRM, &action, NULL);
    sigset_t alarm_only;
    sigemptyset(&alarm_only);
    sigaddset(&alarm_only, SIGALRM);
    sigprocmask(SIG_UNBLOCK, &alarm_only, NULL);
    for (int i = 1; i + 1 < argc; i += 2) {
        /* 1. The lease first. Read access is all it needs (the file is 0444),
         *    and the descriptor stays open for as long as the asset is shown. */
        int lease = open(argv[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (lease < 0) {
            fprintf(stderr, "lease %s: %s; read readiness.json again\n", argv[i], strerror(errno));
            return 3;
        }
        alarm(wait);
        int locked = flock(lease, wait ? LOCK_SH : LOCK_SH | LOCK_NB);
        int error = errno;
        alarm(0);
        if (locked != 0 && (error == EINTR || error == EWOULDBLOCK)) {
            fprintf(stderr, "lease %s: held exclusively by another process for %u s; try again later\n", argv[i], wait);
            return 4;
        }
        struct stat info;
        if (locked != 0 || fstat(lease, &info) != 0) {
            fprintf(stderr, "lease %s: %s; read readiness.json again\n", argv[i], strerror(locked ? error : errno));
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
