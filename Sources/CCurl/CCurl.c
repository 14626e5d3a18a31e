#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

struct ccurl_functions ccurl_fn;

static pthread_once_t ccurl_once = PTHREAD_ONCE_INIT;
static const char *ccurl_error;
static char ccurl_error_text[512];

// dlerror's text lives in a buffer the next dl call reuses: keep a copy.
static void ccurl_fail(const char *what) {
    const char *detail = dlerror();
    snprintf(ccurl_error_text, sizeof ccurl_error_text, "%s: %s", what, detail ? detail : "unknown error");
    ccurl_error = ccurl_error_text;
}

#define CCURL_LOOK_UP(field, symbol)                                  \
    do {                                                              \
        *(void **)&ccurl_fn.field = dlsym(library, symbol);           \
        if (ccurl_fn.field == NULL) { ccurl_fail(symbol); return; }   \
    } while (0)

// An absolute path, fixed when the package is built: a bare name is searched
// for along the binary's RUNPATH and LD_LIBRARY_PATH, so a libcurl.so.4
// planted beside the binary would run its constructor as the service. Debian's
// multiarch directory for the target; another layout builds with
// -Xcc -DCCURL_LIBRARY='"/usr/lib64/libcurl.so.4"'.
#ifndef CCURL_LIBRARY
#  if defined(__x86_64__)
#    define CCURL_LIBRARY "/usr/lib/x86_64-linux-gnu/libcurl.so.4"
#  elif defined(__aarch64__)
#    define CCURL_LIBRARY "/usr/lib/aarch64-linux-gnu/libcurl.so.4"
#  elif defined(__arm__)
#    define CCURL_LIBRARY "/usr/lib/arm-linux-gnueabihf/libcurl.so.4"
#  elif defined(__i386__)
#    define CCURL_LIBRARY "/usr/lib/i386-linux-gnu/libcurl.so.4"
#  elif defined(__riscv) && __riscv_xlen == 64
#    define CCURL_LIBRARY "/usr/lib/riscv64-linux-gnu/libcurl.so.4"
#  else
#    error "no libcurl path for this architecture: build with -Xcc -DCCURL_LIBRARY='\"/path/to/libcurl.so.4\"'"
#  endif
#endif

static void ccurl_open(void) {
    // RTLD_LOCAL: libcurl's symbols stay out of the global scope, where a later
    // dlopen could bind to them by accident.
    void *library = dlopen(CCURL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) { ccurl_fail(CCURL_LIBRARY); return; }
    CCURL_LOOK_UP(global_init, "curl_global_init");
    CCURL_LOOK_UP(easy_init, "curl_easy_init");
    CCURL_LOOK_UP(easy_cleanup, "curl_easy_cleanup");
    CCURL_LOOK_UP(easy_setopt, "curl_easy_setopt");
    CCURL_LOOK_UP(easy_getinfo, "curl_easy_getinfo");
    CCURL_LOOK_UP(easy_pause, "curl_easy_pause");
    CCURL_LOOK_UP(easy_strerror, "curl_easy_strerror");
    CCURL_LOOK_UP(getdate, "curl_getdate");
    CCURL_LOOK_UP(multi_init, "curl_multi_init");
    CCURL_LOOK_UP(multi_cleanup, "curl_multi_cleanup");
    CCURL_LOOK_UP(multi_setopt, "curl_multi_setopt");
    CCURL_LOOK_UP(multi_add_handle, "curl_multi_add_handle");
    CCURL_LOOK_UP(multi_remove_handle, "curl_multi_remove_handle");
    CCURL_LOOK_UP(multi_perform, "curl_multi_perform");
    CCURL_LOOK_UP(multi_poll, "curl_multi_poll");
    CCURL_LOOK_UP(multi_wakeup, "curl_multi_wakeup");
    CCURL_LOOK_UP(multi_info_read, "curl_multi_info_read");
    CCURL_LOOK_UP(slist_append, "curl_slist_append");
    CCURL_LOOK_UP(slist_free_all, "curl_slist_free_all");
}

const char *ccurl_load(void) {
    pthread_once(&ccurl_once, ccurl_open);
    return ccurl_error;
}
