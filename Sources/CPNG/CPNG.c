#include "CPNG.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ancillary chunks kept in memory (text, sPLT, unknown) at most; libpng's own
   build default, made explicit so a crafted file cannot raise it. With every
   metadata chunk skipped (below) none should be kept at all. */
#define CPNG_CHUNK_CACHE_MAX 1000

typedef struct cpng_state {
    cpng_result *result;
    FILE *file;
    /* The specific reason libpng gives only as a warning before a generic error
       ("Invalid IHDR data" follows "Image width exceeds user limit"). */
    char warning[120];
    png_uint_32 warning_chunk;
} cpng_state;

static void cpng_on_error(png_structp png, png_const_charp text) {
    cpng_state *state = png_get_error_ptr(png);
    if (state->warning[0] != '\0' && state->warning_chunk == png_get_io_chunk_type(png)) {
        snprintf(state->result->message, sizeof state->result->message, "%s (%s)", text, state->warning);
    } else {
        snprintf(state->result->message, sizeof state->result->message, "%s", text);
    }
    /* Returning would let libpng print to stderr and abort: leave through setjmp. */
    png_longjmp(png, 1);
}

static void cpng_on_warning(png_structp png, png_const_charp text) {
    cpng_state *state = png_get_error_ptr(png);
    if (state->warning[0] == '\0') {
        snprintf(state->warning, sizeof state->warning, "%s", text);
        state->warning_chunk = png_get_io_chunk_type(png);
    }
}

/* libpng's default reader says only "Read Error"; a truncated download deserves
   a name of its own. */
static void cpng_read(png_structp png, png_bytep data, size_t length) {
    cpng_state *state = png_get_io_ptr(png);
    size_t got = fread(data, 1, length, state->file);
    if (got == length) return;
    if (ferror(state->file)) {
        char text[96];
        snprintf(text, sizeof text, "read error: %s", strerror(errno));
        png_error(png, text);
    }
    png_error(png, "file is truncated");
}

static cpng_result cpng_fail(const char *text) {
    cpng_result result;
    memset(&result, 0, sizeof result);
    snprintf(result.message, sizeof result.message, "%s", text);
    return result;
}

cpng_result cpng_validate_file(const char *path, uint32_t max_side, uint64_t max_pixels,
                               uint64_t max_chunk_bytes) {
    cpng_result result;
    memset(&result, 0, sizeof result);

    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        char text[200];
        snprintf(text, sizeof text, "cannot open: %s", strerror(errno));
        return cpng_fail(text);
    }
    /* stdio's 4 KiB buffer made ~38,000 read calls for the bench's 460 images. */
    setvbuf(file, NULL, _IOFBF, 256 * 1024);

    cpng_state state;
    memset(&state, 0, sizeof state);
    state.result = &result;
    state.file = file;

    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, cpng_on_error, cpng_on_warning);
    if (png == NULL) {
        fclose(file);
        return cpng_fail("libpng could not be initialised");
    }
    png_infop info = png_create_info_struct(png);
    /* Assigned after setjmp and needed after longjmp: must be volatile. */
    png_bytep volatile row = NULL;

    if (info == NULL || setjmp(png_jmpbuf(png))) {
        png_free(png, row);
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        fclose(file);
        result.ok = 0;
        if (result.message[0] == '\0') snprintf(result.message, sizeof result.message, "libpng failed");
        return result;
    }

    png_set_read_fn(png, &state, cpng_read);
    /* Corrupt ancillary chunks must fail too, not be skipped with a warning. */
    png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
    png_set_user_limits(png, max_side, max_side);
    png_set_chunk_cache_max(png, CPNG_CHUNK_CACHE_MAX);
    png_set_chunk_malloc_max(png, (png_alloc_size_t)(max_chunk_bytes > (uint64_t)PNG_SIZE_MAX ? PNG_SIZE_MAX : max_chunk_bytes));
    /* Metadata is never shown, so it is never inflated or kept: a negative count
       makes libpng treat every ancillary chunk but tRNS as unknown, and NEVER
       skips unknown chunks (unknown critical ones are still an error). Skipped
       chunks are read in small pieces with their CRCs checked, so a zTXt or iCCP
       bomb (40 chunks of 7.5 MiB each stay under the per-chunk cap and would be
       kept, 300 MiB) costs read time only. */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);

    png_read_info(png, info);

    png_uint_32 width = png_get_image_width(png, info);
    png_uint_32 height = png_get_image_height(png, info);
    uint64_t pixels = (uint64_t)width * (uint64_t)height;
    if (width > max_side || height > max_side) {
        snprintf(result.message, sizeof result.message, "image is %ux%u, over the limit of %u px a side",
                 (unsigned)width, (unsigned)height, (unsigned)max_side);
        png_longjmp(png, 1);
    }
    if (pixels > max_pixels) {
        snprintf(result.message, sizeof result.message, "image is %ux%u = %llu pixels, over the limit of %llu",
                 (unsigned)width, (unsigned)height, (unsigned long long)pixels, (unsigned long long)max_pixels);
        png_longjmp(png, 1);
    }

    /* libpng combines each Adam7 pass into a full-width row, so one row buffer
       serves interlaced images too. */
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    size_t row_bytes = png_get_rowbytes(png, info);
    row = png_malloc(png, row_bytes);

    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(png, row, NULL);
        }
    }
    /* Reaching IEND checks the CRCs of the chunks after the image data. */
    png_read_end(png, info);

    result.ok = 1;
    result.width = width;
    result.height = height;
    result.bit_depth = png_get_bit_depth(png, info);
    result.color_type = png_get_color_type(png, info);
    result.interlace = png_get_interlace_type(png, info);

    png_free(png, row);
    row = NULL;
    png_destroy_read_struct(&png, &info, NULL);
    fclose(file);
    return result;
}
