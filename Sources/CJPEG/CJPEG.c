#include "CJPEG.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

/* Room for libjpeg's own bookkeeping and row buffers beyond the coefficient
   buffer checked below, so that its memory manager refuses only what that
   check missed. */
#define CJPEG_MEMORY_SLACK (8u * 1024u * 1024u)

typedef struct cjpeg_error {
    struct jpeg_error_mgr base; /* first: libjpeg only knows this part */
    jmp_buf jump;
    cjpeg_result *result;
} cjpeg_error;

typedef struct cjpeg_progress {
    struct jpeg_progress_mgr base; /* first, likewise */
    uint32_t max_scans;
    uint32_t components_seen; /* bit i: component i appeared in some scan */
} cjpeg_progress;

static void cjpeg_leave(j_common_ptr cinfo) {
    cjpeg_error *error = (cjpeg_error *)cinfo->err;
    longjmp(error->jump, 1);
}

static void cjpeg_on_error(j_common_ptr cinfo) {
    cjpeg_error *error = (cjpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->result->message);
    /* Returning would make libjpeg exit the process. */
    cjpeg_leave(cinfo);
}

/* libjpeg only warns about corrupt entropy data, a missing end marker or a
   scan cut short, then shows grey blocks: here every warning is fatal, except
   an unknown JFIF version, which is metadata. */
static void cjpeg_on_message(j_common_ptr cinfo, int level) {
    if (level >= 0 || cinfo->err->msg_code == JWRN_JFIF_MAJOR) return;
    cjpeg_on_error(cinfo);
}

static void cjpeg_fail(j_decompress_ptr cinfo, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void cjpeg_fail(j_decompress_ptr cinfo, const char *format, ...) {
    cjpeg_error *error = (cjpeg_error *)cinfo->err;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error->result->message, sizeof error->result->message, format, arguments);
    va_end(arguments);
    cjpeg_leave((j_common_ptr)cinfo);
}

/* Called between the iMCU rows of every scan: the scan count is known here
   before the scan is decoded, and so are the components it carries. */
static void cjpeg_on_progress(j_common_ptr common) {
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    cjpeg_progress *progress = (cjpeg_progress *)cinfo->progress;
    if ((uint32_t)cinfo->input_scan_number > progress->max_scans) {
        cjpeg_fail(cinfo, "more than %u scans", (unsigned)progress->max_scans);
    }
    for (int i = 0; i < cinfo->comps_in_scan; i++) {
        progress->components_seen |= 1u << cinfo->cur_comp_info[i]->component_index;
    }
}

/* The whole-image buffer of quantised coefficients (64 of 2 bytes per 8x8
   block, blocks padded to whole MCUs) that libjpeg holds for a file of several
   scans. */
static uint64_t cjpeg_coefficient_bytes(j_decompress_ptr cinfo) {
    uint64_t blocks = 0;
    for (int i = 0; i < cinfo->num_components; i++) {
        const jpeg_component_info *component = &cinfo->comp_info[i];
        uint64_t h = component->h_samp_factor, v = component->v_samp_factor;
        uint64_t wide = (component->width_in_blocks + h - 1) / h * h;
        uint64_t high = (component->height_in_blocks + v - 1) / v * v;
        blocks += wide * high;
    }
    return blocks * DCTSIZE2 * sizeof(JCOEF);
}

/* A progressive file may legally end after any scan, with libjpeg silently
   showing what it has: a blurred picture. Every coefficient of every component
   must have reached full precision (Al = 0). */
static void cjpeg_check_progression(j_decompress_ptr cinfo) {
    for (int c = 0; c < cinfo->num_components; c++) {
        for (int k = 0; k < DCTSIZE2; k++) {
            if (cinfo->coef_bits[c][k] != 0) {
                cjpeg_fail(cinfo, "progressive scans end before coefficient %d of component %d is complete", k,
                           c + 1);
            }
        }
    }
}

static void cjpeg_check_header(j_decompress_ptr cinfo, uint32_t max_side, uint64_t max_pixels,
                               uint64_t max_memory) {
    uint32_t width = cinfo->image_width, height = cinfo->image_height;
    uint64_t pixels = (uint64_t)width * height;
    if (width > max_side || height > max_side) {
        cjpeg_fail(cinfo, "image is %ux%u, over the limit of %u px a side", (unsigned)width, (unsigned)height,
                   (unsigned)max_side);
    }
    if (pixels > max_pixels) {
        cjpeg_fail(cinfo, "image is %ux%u = %llu pixels, over the limit of %llu", (unsigned)width,
                   (unsigned)height, (unsigned long long)pixels, (unsigned long long)max_pixels);
    }
    if (jpeg_has_multiple_scans(cinfo)) {
        uint64_t need = cjpeg_coefficient_bytes(cinfo);
        if (need > max_memory) {
            cjpeg_fail(cinfo, "a %ux%u %s JPEG needs %llu KiB to decode, over the limit of %llu KiB",
                       (unsigned)width, (unsigned)height, cinfo->progressive_mode ? "progressive" : "multi-scan",
                       (unsigned long long)(need >> 10), (unsigned long long)(max_memory >> 10));
        }
    }
}

cjpeg_result cjpeg_validate_file(const char *path, uint32_t max_side, uint64_t max_pixels,
                                 uint64_t max_memory, uint32_t max_scans) {
    cjpeg_result result;
    memset(&result, 0, sizeof result);

    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        snprintf(result.message, sizeof result.message, "cannot open: %s", strerror(errno));
        return result;
    }
    /* stdio's 4 KiB buffer made ~38,000 read calls for the bench's 460 images. */
    setvbuf(file, NULL, _IOFBF, 256 * 1024);

    struct jpeg_decompress_struct cinfo;
    cjpeg_error error;
    cjpeg_progress progress;
    memset(&progress, 0, sizeof progress);
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = cjpeg_on_error;
    error.base.emit_message = cjpeg_on_message;
    error.result = &result;
    progress.base.progress_monitor = cjpeg_on_progress;
    progress.max_scans = max_scans;

    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        fclose(file);
        result.ok = 0;
        if (result.message[0] == '\0') snprintf(result.message, sizeof result.message, "libjpeg failed");
        return result;
    }

    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = (long)(max_memory + CJPEG_MEMORY_SLACK);
    cinfo.progress = &progress.base;
    /* jpeg_stdio_src warns "Premature end of JPEG file" at EOF: fatal here. */
    jpeg_stdio_src(&cinfo, file);
    /* Markers other than the tables are skipped, never kept in memory. */
    jpeg_read_header(&cinfo, TRUE);
    cjpeg_check_header(&cinfo, max_side, max_pixels, max_memory);

    /* What is checked is the entropy-coded data, not the look: the fastest
       inverse DCT and plain upsampling still decode every coefficient. */
    cinfo.dct_method = JDCT_IFAST;
    cinfo.do_fancy_upsampling = FALSE;
    cinfo.do_block_smoothing = FALSE;
    jpeg_start_decompress(&cinfo);
    JSAMPARRAY row = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE,
                                                cinfo.output_width * cinfo.output_components, 1);
    while (cinfo.output_scanline < cinfo.output_height) {
        jpeg_read_scanlines(&cinfo, row, 1);
    }
    /* Before jpeg_finish_decompress, which frees the progression state. */
    if (cinfo.progressive_mode) cjpeg_check_progression(&cinfo);
    uint32_t all_components = (1u << cinfo.num_components) - 1;
    if ((progress.components_seen & all_components) != all_components) {
        cjpeg_fail(&cinfo, "a component of the image is in none of its scans");
    }
    /* Reads on to the end marker, which must be there. */
    jpeg_finish_decompress(&cinfo);

    result.ok = 1;
    result.width = cinfo.image_width;
    result.height = cinfo.image_height;
    result.components = (uint8_t)cinfo.num_components;
    result.progressive = (uint8_t)cinfo.progressive_mode;
    result.arithmetic = (uint8_t)cinfo.arith_code;
    result.scans = (uint32_t)cinfo.input_scan_number;

    jpeg_destroy_decompress(&cinfo);
    fclose(file);
    return result;
}
