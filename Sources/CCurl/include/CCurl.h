#ifndef CCURL_H
#define CCURL_H

// Swift cannot call C variadic functions, and curl_easy_setopt, curl_easy_getinfo
// and curl_multi_setopt are variadic. Each wrapper below fixes the argument type
// for one family of options, as swift-corelibs-foundation's CFURLSessionInterface
// does. No logic lives here: everything else is in Swift.

#include <curl/curl.h>

// MARK: - global

// CURL_GLOBAL_ALL is a macro expression Swift does not import.
static inline CURLcode ccurl_global_init_all(void) {
    return curl_global_init(CURL_GLOBAL_ALL);
}

// MARK: - curl_easy_setopt

static inline CURLcode ccurl_easy_setopt_long(CURL *_Nonnull easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(CURL *_Nonnull easy, CURLoption option, const char *_Nullable value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *_Nonnull easy, CURLoption option, void *_Nullable value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_off_t(CURL *_Nonnull easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *_Nonnull easy, CURLoption option, struct curl_slist *_Nullable value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_write_callback(CURL *_Nonnull easy, curl_write_callback _Nullable callback) {
    return curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, callback);
}

// Header callbacks have the write callback's signature.
static inline CURLcode ccurl_easy_setopt_header_callback(CURL *_Nonnull easy, curl_write_callback _Nullable callback) {
    return curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, callback);
}

static inline CURLcode ccurl_easy_setopt_sockopt_callback(CURL *_Nonnull easy, curl_sockopt_callback _Nullable callback) {
    return curl_easy_setopt(easy, CURLOPT_SOCKOPTFUNCTION, callback);
}

static inline CURLcode ccurl_easy_setopt_xferinfo_callback(CURL *_Nonnull easy, curl_xferinfo_callback _Nullable callback) {
    return curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, callback);
}

// MARK: - curl_easy_getinfo

static inline CURLcode ccurl_easy_getinfo_long(CURL *_Nonnull easy, CURLINFO info, long *_Nonnull value) {
    return curl_easy_getinfo(easy, info, value);
}

static inline CURLcode ccurl_easy_getinfo_string(CURL *_Nonnull easy, CURLINFO info, char *_Nullable *_Nonnull value) {
    return curl_easy_getinfo(easy, info, value);
}

static inline CURLcode ccurl_easy_getinfo_pointer(CURL *_Nonnull easy, CURLINFO info, void *_Nullable *_Nonnull value) {
    return curl_easy_getinfo(easy, info, value);
}

static inline CURLcode ccurl_easy_getinfo_off_t(CURL *_Nonnull easy, CURLINFO info, curl_off_t *_Nonnull value) {
    return curl_easy_getinfo(easy, info, value);
}

static inline CURLcode ccurl_easy_getinfo_double(CURL *_Nonnull easy, CURLINFO info, double *_Nonnull value) {
    return curl_easy_getinfo(easy, info, value);
}

// MARK: - curl_multi_setopt

static inline CURLMcode ccurl_multi_setopt_long(CURLM *_Nonnull multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLMcode ccurl_multi_setopt_pointer(CURLM *_Nonnull multi, CURLMoption option, void *_Nullable value) {
    return curl_multi_setopt(multi, option, value);
}

#endif
