/* https://HOST[:PORT][/PATH][?QUERY][#FRAGMENT] into the parts a request needs: the host and port to connect
 * to, :authority as written, and :path with its query (never the fragment). HOST may be a bracketed IPv6
 * address. Anything else (another scheme, user info, a bad port) makes the request invalid. */

#include "h2_internal.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static char *arena_string(pl_h2_batch *batch, const uint8_t *data, size_t length) {
    char *p = h2_arena_alloc(batch, length + 1);
    memcpy(p, data, length);
    p[length] = 0;
    return p;
}

int h2_parse_url(pl_h2_batch *batch, h2_job *job, const uint8_t *url, size_t length) {
    static const char scheme[] = "https://";
    const size_t scheme_len = sizeof scheme - 1;
    if (length < scheme_len || strncasecmp((const char *)url, scheme, scheme_len) != 0) {
        job->invalid = "not an https:// URL";
        return -1;
    }
    const uint8_t *start = url + scheme_len, *end = url + length, *p = start;
    while (p < end && *p != '/' && *p != '?' && *p != '#') p++;
    const uint8_t *authority_end = p;
    if (authority_end == start || memchr(start, '@', authority_end - start)) {
        job->invalid = "no host in the URL, or user info";
        return -1;
    }
    const uint8_t *host = start, *host_end, *colon = NULL;
    if (*start == '[') {
        const uint8_t *close = memchr(start, ']', authority_end - start);
        if (!close) {
            job->invalid = "unterminated IPv6 address in the URL";
            return -1;
        }
        host = start + 1;
        host_end = close;
        if (close + 1 < authority_end) {
            if (close[1] != ':') {
                job->invalid = "bad authority in the URL";
                return -1;
            }
            colon = close + 1;
        }
    } else {
        colon = memchr(start, ':', authority_end - start);
        host_end = colon ? colon : authority_end;
    }
    if (host_end == host) {
        job->invalid = "empty host in the URL";
        return -1;
    }
    long port = 443;
    if (colon) {
        const uint8_t *d = colon + 1;
        if (d == authority_end || authority_end - d > 5) {
            job->invalid = "bad port in the URL";
            return -1;
        }
        port = 0;
        for (; d < authority_end; d++) {
            if (*d < '0' || *d > '9') {
                job->invalid = "bad port in the URL";
                return -1;
            }
            port = port * 10 + (*d - '0');
        }
        if (port < 1 || port > 65535) {
            job->invalid = "bad port in the URL";
            return -1;
        }
    }
    char *name = arena_string(batch, host, host_end - host);
    for (char *c = name; *c; c++)
        if (*c >= 'A' && *c <= 'Z') *c += 'a' - 'A'; /* one pool per host, however it is spelled */
    job->hostname = name;
    char digits[8];
    int n = snprintf(digits, sizeof digits, "%ld", port);
    job->port = arena_string(batch, (const uint8_t *)digits, (size_t)n);
    job->authority = arena_string(batch, start, authority_end - start);
    job->authority_len = authority_end - start;
    const uint8_t *path_end = p;
    while (path_end < end && *path_end != '#') path_end++;
    if (p == path_end || *p != '/') {
        /* "https://h" or "https://h?q": the path is "/" (with the query after it). */
        char *path = h2_arena_alloc(batch, (path_end - p) + 2);
        path[0] = '/';
        memcpy(path + 1, p, path_end - p);
        path[(path_end - p) + 1] = 0;
        job->path = path;
        job->path_len = (path_end - p) + 1;
    } else {
        job->path = arena_string(batch, p, path_end - p);
        job->path_len = path_end - p;
    }
    unsigned char address[16];
    job->host_is_ip = inet_pton(AF_INET, name, address) == 1 || inet_pton(AF_INET6, name, address) == 1;
    return 0;
}
