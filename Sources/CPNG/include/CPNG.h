#ifndef CPNG_H
#define CPNG_H

#include <stdint.h>

/// Outcome of decoding one PNG file completely. `ok` is 1 when every chunk's CRC,
/// every row and the IEND chunk were read without error; otherwise `message` holds
/// libpng's (or our own) reason as a NUL-terminated string.
typedef struct cpng_result {
    int32_t ok;
    uint32_t width;
    uint32_t height;
    uint8_t bit_depth;
    uint8_t color_type;
    uint8_t interlace;
    char message[240];
} cpng_result;

/// Decodes the PNG at `path` one row at a time (never the whole image) within the
/// given limits. One of the two places in the package that use setjmp/longjmp
/// (CJPEG is the other).
cpng_result cpng_validate_file(const char *path, uint32_t max_side, uint64_t max_pixels,
                               uint64_t max_chunk_bytes);

#endif
