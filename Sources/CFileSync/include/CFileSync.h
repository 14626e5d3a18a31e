#ifndef ASSETCACHE_CFILESYNC_H
#define ASSETCACHE_CFILESYNC_H

#include <fcntl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

// syncfs(2) is a GNU extension, which Swift's Glibc module does not show; the
// declaration is glibc's own.
int syncfs(int fd);
// gettid(2) is one too (glibc 2.30).
pid_t gettid(void);

/// Writes and flushes every dirty file and directory entry of the filesystem
/// holding `fd`; -1 with errno on failure (a writeback error since `fd` was opened).
static inline int assetcache_syncfs(int fd) {
    return syncfs(fd);
}

/// O_NOATIME, which the Glibc module does not show (a GNU flag); glibc's
/// `__O_NOATIME` is its value on every architecture, 0 where it is unknown.
static inline int assetcache_o_noatime(void) {
#ifdef __O_NOATIME
    return __O_NOATIME;
#else
    return 0;
#endif
}

/// The filesystem type (statfs(2) f_type) holding `fd`, or -1 with errno.
static inline long assetcache_filesystem_type(int fd) {
    struct statfs info;
    return fstatfs(fd, &info) == 0 ? (long)info.f_type : -1;
}

/// A descriptor that polls readable once process `pid` has ended (pidfd_open(2),
/// Linux 5.3; no glibc wrapper before 2.36, and variadic syscall(2) is not
/// callable from Swift); -1 with errno. It needs no permission over the process:
/// `prefetch ready --wait` learns so that a run it waits on died without a word.
static inline int assetcache_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    return -1;
#endif
}

/// The calling thread's id, for a timer aimed at it alone (SIGEV_THREAD_ID):
/// a bounded flock(2) is ended by a signal to the thread that waits in it.
static inline pid_t assetcache_thread_id(void) {
    return gettid();
}

#endif
