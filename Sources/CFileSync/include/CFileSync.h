#ifndef ASSETCACHE_CFILESYNC_H
#define ASSETCACHE_CFILESYNC_H

#include <sys/statfs.h>
#include <unistd.h>

// syncfs(2) is a GNU extension, which Swift's Glibc module does not show; the
// declaration is glibc's own.
int syncfs(int fd);

/// Writes and flushes every dirty file and directory entry of the filesystem
/// holding `fd`; -1 with errno on failure (a writeback error since `fd` was opened).
static inline int assetcache_syncfs(int fd) {
    return syncfs(fd);
}

/// The filesystem type (statfs(2) f_type) holding `fd`, or -1 with errno.
static inline long assetcache_filesystem_type(int fd) {
    struct statfs info;
    return fstatfs(fd, &info) == 0 ? (long)info.f_type : -1;
}

#endif
