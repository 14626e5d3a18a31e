#ifndef CJPEG_H
#define CJPEG_H

#include <stdint.h>

/// Outcome of decoding one JPEG file completely. `ok` is 1 when every scan was
/// decoded without a single libjpeg warning and the end marker was reached;
/// otherwise `message` holds libjpeg's (or our own) reason, NUL-terminated.
typedef struct cjpeg_result {
    int32_t ok;
    uint32_t width;
    uint32_t height;
    uint8_t components;
    uint8_t progressive;
    uint8_t arithmetic;
    uint32_t scans;
    char message[240];
} cjpeg_result;

/// Decodes the JPEG at `path` one scanline at a time within the given limits.
/// `max_memory` bounds the whole-image coefficient buffer that progressive and
/// multi-scan files need; `max_scans` bounds the number of scans. Owns libjpeg's
/// setjmp/longjmp error handling, which Swift cannot express (CPNG does the same
/// for libpng).
cjpeg_result cjpeg_validate_file(const char *path, uint32_t max_side, uint64_t max_pixels,
                                 uint64_t max_memory, uint32_t max_scans);

#endif
