#ifndef CCURL_H
#define CCURL_H

// libcurl is opened with dlopen at its first use, not linked. Linking it made
// every start of prefetch load and relocate it and the ~30 libraries it needs
// (TLS, Kerberos, LDAP, SSH, IDN): ~10 ms before main, paid by plan, status,
// verify and gc, which never transfer anything. systemd opens its optional
// libraries the same way.
//
// Each call goes through a table of function pointers that ccurl_load fills
// once. Swift cannot call C variadic functions either (curl_easy_setopt,
// curl_easy_getinfo, curl_multi_setopt): each wrapper below fixes the argument
// type for one family of options, as swift-corelibs-foundation's
// CFURLSessionInterface does. No other logic lives here.

#include <curl/curl.h>

struct ccurl_functions {
    CURLcode (*_Nullable global_init)(long flags);
    CURL *_Nullable (*_Nullable easy_init)(void);
    void (*_Nullable easy_cleanup)(CURL *_Nonnull easy);
    CURLcode (*_Nullable easy_setopt)(CURL *_Nonnull easy, CURLoption option, ...);
    CURLcode (*_Nullable easy_getinfo)(CURL *_Nonnull easy, CURLINFO info, ...);
    CURLcode (*_Nullable easy_pause)(CURL *_Nonnull easy, int bitmask);
    const char *_Nonnull (*_Nullable easy_strerror)(CURLcode code);
    time_t (*_Nullable getdate)(const char *_Nonnull text, const time_t *_Nullable unused);
    CURLM *_Nullable (*_Nullable multi_init)(void);
    CURLMcode (*_Nullable multi_cleanup)(CURLM *_Nonnull multi);
    CURLMcode (*_Nullable multi_setopt)(CURLM *_Nonnull multi, CURLMoption option, ...);
    CURLMcode (*_Nullable multi_add_handle)(CURLM *_Nonnull multi, CURL *_Nullable easy);
    CURLMcode (*_Nullable multi_remove_handle)(CURLM *_Nonnull multi, CURL *_Nonnull easy);
    CURLMcode (*_Nullable multi_perform)(CURLM *_Nonnull multi, int *_Nonnull running);
    CURLMcode (*_Nullable multi_poll)(CURLM *_Nonnull multi, struct curl_waitfd *_Nullable extra, unsigned int count,
                                      int timeout_ms, int *_Nullable ready);
    CURLMcode (*_Nullable multi_wakeup)(CURLM *_Nonnull multi);
    CURLMsg *_Nullable (*_Nullable multi_info_read)(CURLM *_Nonnull multi, int *_Nonnull remaining);
    struct curl_slist *_Nullable (*_Nullable slist_append)(struct curl_slist *_Nullable list, const char *_Nonnull line);
    void (*_Nullable slist_free_all)(struct curl_slist *_Nullable list);
};

// Filled by the first ccurl_load; read only after it returned NULL.
extern struct ccurl_functions ccurl_fn;

// Opens libcurl.so.4 and looks up every function above, once for the process
// (later calls return the first one's result): NULL when all were found, else
// what dlopen or dlsym said.
const char *_Nullable ccurl_load(void);

// MARK: - global

// CURL_GLOBAL_ALL is a macro expression Swift does not import.
static inline CURLcode ccurl_global_init_all(void) {
    return ccurl_fn.global_init(CURL_GLOBAL_ALL);
}

// MARK: - curl_easy_setopt

static inline CURLcode ccurl_easy_setopt_long(CURL *_Nonnull easy, CURLoption option, long value) {
    return ccurl_fn.easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(CURL *_Nonnull easy, CURLoption option, const char *_Nullable value) {
    return ccurl_fn.easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *_Nonnull easy, CURLoption option, void *_Nullable value) {
    return ccurl_fn.easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_off_t(CURL *_Nonnull easy, CURLoption option, curl_off_t value) {
    return ccurl_fn.easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *_Nonnull easy, CURLoption option, struct curl_slist *_Nullable value) {
    return ccurl_fn.easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_write_callback(CURL *_Nonnull easy, curl_write_callback _Nullable callback) {
    return ccurl_fn.easy_setopt(easy, CURLOPT_WRITEFUNCTION, callback);
}

// Header callbacks have the write callback's signature.
static inline CURLcode ccurl_easy_setopt_header_callback(CURL *_Nonnull easy, curl_write_callback _Nullable callback) {
    return ccurl_fn.easy_setopt(easy, CURLOPT_HEADERFUNCTION, callback);
}

static inline CURLcode ccurl_easy_setopt_sockopt_callback(CURL *_Nonnull easy, curl_sockopt_callback _Nullable callback) {
    return ccurl_fn.easy_setopt(easy, CURLOPT_SOCKOPTFUNCTION, callback);
}

static inline CURLcode ccurl_easy_setopt_xferinfo_callback(CURL *_Nonnull easy, curl_xferinfo_callback _Nullable callback) {
    return ccurl_fn.easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, callback);
}

// MARK: - curl_easy_getinfo

static inline CURLcode ccurl_easy_getinfo_long(CURL *_Nonnull easy, CURLINFO info, long *_Nonnull value) {
    return ccurl_fn.easy_getinfo(easy, info, value);
}

static inline CURLcode ccurl_easy_getinfo_string(CURL *_Nonnull easy, CURLINFO info, char *_Nullable *_Nonnull value) {
    return ccurl_fn.easy_getinfo(easy, info, value);
}

static inline CURLcode ccurl_easy_getinfo_pointer(CURL *_Nonnull easy, CURLINFO info, void *_Nullable *_Nonnull value) {
    return ccurl_fn.easy_getinfo(easy, info, value);
}

static inline CURLcode ccurl_easy_getinfo_off_t(CURL *_Nonnull easy, CURLINFO info, curl_off_t *_Nonnull value) {
    return ccurl_fn.easy_getinfo(easy, info, value);
}

static inline CURLcode ccurl_easy_getinfo_double(CURL *_Nonnull easy, CURLINFO info, double *_Nonnull value) {
    return ccurl_fn.easy_getinfo(easy, info, value);
}

// MARK: - curl_multi_setopt

static inline CURLMcode ccurl_multi_setopt_long(CURLM *_Nonnull multi, CURLMoption option, long value) {
    return ccurl_fn.multi_setopt(multi, option, value);
}

static inline CURLMcode ccurl_multi_setopt_pointer(CURLM *_Nonnull multi, CURLMoption option, void *_Nullable value) {
    return ccurl_fn.multi_setopt(multi, option, value);
}

// MARK: - the rest, one wrapper each

static inline CURL *_Nullable ccurl_easy_init(void) { return ccurl_fn.easy_init(); }
static inline void ccurl_easy_cleanup(CURL *_Nonnull easy) { ccurl_fn.easy_cleanup(easy); }
static inline CURLcode ccurl_easy_pause(CURL *_Nonnull easy, int bitmask) { return ccurl_fn.easy_pause(easy, bitmask); }
static inline const char *_Nonnull ccurl_easy_strerror(CURLcode code) { return ccurl_fn.easy_strerror(code); }
static inline time_t ccurl_getdate(const char *_Nonnull text) { return ccurl_fn.getdate(text, NULL); }
static inline CURLM *_Nullable ccurl_multi_init(void) { return ccurl_fn.multi_init(); }
static inline CURLMcode ccurl_multi_cleanup(CURLM *_Nonnull multi) { return ccurl_fn.multi_cleanup(multi); }
// libcurl answers a NULL handle with CURLM_BAD_EASY_HANDLE.
static inline CURLMcode ccurl_multi_add_handle(CURLM *_Nonnull multi, CURL *_Nullable easy) {
    return ccurl_fn.multi_add_handle(multi, easy);
}
static inline CURLMcode ccurl_multi_remove_handle(CURLM *_Nonnull multi, CURL *_Nonnull easy) {
    return ccurl_fn.multi_remove_handle(multi, easy);
}
static inline CURLMcode ccurl_multi_perform(CURLM *_Nonnull multi, int *_Nonnull running) {
    return ccurl_fn.multi_perform(multi, running);
}
static inline CURLMcode ccurl_multi_poll(CURLM *_Nonnull multi, int timeout_ms) {
    return ccurl_fn.multi_poll(multi, NULL, 0, timeout_ms, NULL);
}
static inline CURLMcode ccurl_multi_wakeup(CURLM *_Nonnull multi) { return ccurl_fn.multi_wakeup(multi); }
static inline CURLMsg *_Nullable ccurl_multi_info_read(CURLM *_Nonnull multi, int *_Nonnull remaining) {
    return ccurl_fn.multi_info_read(multi, remaining);
}
static inline struct curl_slist *_Nullable ccurl_slist_append(struct curl_slist *_Nullable list, const char *_Nonnull line) {
    return ccurl_fn.slist_append(list, line);
}
static inline void ccurl_slist_free_all(struct curl_slist *_Nullable list) { ccurl_fn.slist_free_all(list); }

#endif
