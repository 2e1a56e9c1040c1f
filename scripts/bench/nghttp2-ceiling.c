// libnghttp2's ceiling for scripts/bench-fanout, next to libcurl's (curl-ceiling.c) with the same arguments and
// the same output: THREADS threads, each running its own epoll loop over CONNS non-blocking TLS connections
// (OpenSSL, ALPN h2, the server's certificate verified against CA_FILE and the URL's host name or address), POST
// the same body over HTTP/2 through libnghttp2's client session API directly, with no HTTP library above it.
// Each thread keeps INFLIGHT streams in flight over its connections (an even share each), never more on one
// connection than the server's SETTINGS_MAX_CONCURRENT_STREAMS, and sends a finished stream's successor in the
// same round. A round reads every ready connection (SSL_read into nghttp2_session_mem_recv), starts new streams,
// then writes each connection's frames in one buffer (nghttp2_session_mem_send, one SSL_write). Nothing else
// runs: no targeting, no events, no payload building. Prints one line: requests, 200s, seconds, requests/s and
// the program's CPU time (user and system) per request in microseconds.
// The request is the one libcurl sends for curl-ceiling: the pseudo-headers, the HEADER lines in order (names in
// lower case, lines with an empty value left out, as libcurl drops "Expect:"), "accept: */*" unless given, and
// content-length. A HEADER given as "apns-id: *" becomes a fresh UUID per request, sent first, as curl-ceiling
// links it in front of the shared lines; a URL ending in "/*" gets a fresh 64-hex device token in place of the
// "*" for every request. Both per-request values are sent as not-indexed HPACK literals.
// With CORK=1 in the environment each thread corks its connections (TCP_CORK) while a round runs and uncorks
// them after its writes (moot here: a round already writes once per connection). With PAUSE_US=N each thread
// sleeps N microseconds before a round while at least 100 streams are in flight, as curl-ceiling does.
// After a GOAWAY the connection takes no new streams; once the streams it admitted are answered it is replaced
// (the host name resolved again) and the refused ones are sent again there. A connection that fails is opened
// again and the streams it had in flight count as failures (not 200s). There are no per-request timeouts: a
// thread that makes no progress for 30 seconds prints its connections' state and gives up.
//
// Usage: nghttp2-ceiling URL TOTAL THREADS INFLIGHT CONNS BODY_FILE CA_FILE [HEADER ...]
// Build: gcc -O2 -o nghttp2-ceiling nghttp2-ceiling.c -lnghttp2 -lssl -lcrypto -lpthread
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_HEADERS 40
#define READ_CHUNK 16384
#define WRITE_BATCH 65536 /* stop collecting frames for one SSL_write past this many bytes */

static int cork_enabled;
static long pause_us;

/* What every request shares, set up once by main and read-only afterwards. */
static struct {
    char host[256], port[8], authority[300];
    int host_is_ip;
    const char *url_path; /* the URL's path; a device token replaces a final "*" */
    size_t path_prefix;   /* > 0: the path ends in "*", replaced per request by a device token */
    int per_request_id;
    nghttp2_nv shared[MAX_HEADERS]; /* the header lines after the pseudo-headers and the apns-id */
    size_t nshared;
    const char *body;
    size_t body_len;
    char content_length[24];
    SSL_CTX *tls;
} req;

struct conn;

/* One request in flight: the values its HEADERS frame points at (sent as NO_COPY) and how far its body went. */
struct slot {
    struct conn *conn;
    struct slot *next_free;
    int status;
    size_t body_sent;
    char path[512];
    char id[40];
};

enum conn_state { CLOSED, CONNECTING, HANDSHAKING, READY };

struct conn {
    struct worker *w;
    enum conn_state state;
    int fd, failures, goaway, settings_seen;
    uint32_t events; /* registered with epoll */
    SSL *ssl;
    nghttp2_session *session;
    long share, active, max_streams;
    unsigned char *out;
    size_t out_len, out_sent, out_cap;
};

struct worker {
    long total, ok, started, done;
    int inflight, conns, epfd;
    struct conn *c;
    struct slot *slots, *free_slots;
    unsigned long long state;
};

static void die(const char *what) {
    fprintf(stderr, "nghttp2-ceiling: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

/* A fresh "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" as curl-ceiling's apns-id, from the thread's state. */
static void next_id(struct worker *w, char *out) {
    unsigned long long a = w->state += 0x9E3779B97F4A7C15ULL, b = a * 0xBF58476D1CE4E5B9ULL;
    snprintf(out, 40, "%08llX-%04llX-4%03llX-%04llX-%012llX", a >> 32, (a >> 16) & 0xFFFF, a & 0xFFF,
             0x8000 | ((b >> 48) & 0x3FFF), b & 0xFFFFFFFFFFFFULL);
}

/* The path with the next device token: the prefix, then 64 hex digits from the thread's state. */
static void next_path(struct worker *w, char *out) {
    unsigned long long a = (w->state += 0x632BE59BD9B4E019ULL) * 0xD6E8FEB86659FD93ULL, b = a ^ (a >> 29);
    memcpy(out, req.url_path, req.path_prefix);
    snprintf(out + req.path_prefix, 512 - req.path_prefix, "%016llx%016llx%016llx%016llx", a, b, a ^ b, b * 31);
}

static void watch(struct conn *c, uint32_t events) {
    if (c->events == events) return;
    struct epoll_event ev = {.events = events, .data.ptr = c};
    if (epoll_ctl(c->w->epfd, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &ev) != 0) die("epoll_ctl");
    c->events = events;
}

static void cork(struct worker *w, int on) {
    for (int i = 0; cork_enabled && i < w->conns; i++)
        if (w->c[i].state == READY) setsockopt(w->c[i].fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
}

/* ---- nghttp2 callbacks ---- */

static ssize_t read_body(nghttp2_session *s, int32_t stream_id, uint8_t *buf, size_t length, uint32_t *flags,
                         nghttp2_data_source *source, void *user) {
    struct slot *slot = source->ptr;
    size_t n = req.body_len - slot->body_sent;
    (void)s; (void)stream_id; (void)user;
    if (n > length) n = length;
    memcpy(buf, req.body + slot->body_sent, n);
    slot->body_sent += n;
    if (slot->body_sent == req.body_len) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user) {
    (void)flags; (void)user;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_RESPONSE) return 0;
    if (namelen == 7 && memcmp(name, ":status", 7) == 0 && valuelen == 3) {
        struct slot *slot = nghttp2_session_get_stream_user_data(s, frame->hd.stream_id);
        if (slot) slot->status = (value[0] - '0') * 100 + (value[1] - '0') * 10 + (value[2] - '0');
    }
    return 0;
}

static int on_frame_recv(nghttp2_session *s, const nghttp2_frame *frame, void *user) {
    struct conn *c = user;
    if (frame->hd.type == NGHTTP2_SETTINGS && !(frame->hd.flags & NGHTTP2_FLAG_ACK)) {
        c->settings_seen = 1;
        c->max_streams = nghttp2_session_get_remote_settings(s, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
    } else if (frame->hd.type == NGHTTP2_GOAWAY) {
        c->goaway = 1; /* no new streams here; nghttp2 closes those past last_stream_id as REFUSED_STREAM */
    }
    return 0;
}

static int on_stream_close(nghttp2_session *s, int32_t stream_id, uint32_t error_code, void *user) {
    struct conn *c = user;
    struct worker *w = c->w;
    struct slot *slot = nghttp2_session_get_stream_user_data(s, stream_id);
    if (!slot) return 0;
    c->active--;
    if (error_code == NGHTTP2_REFUSED_STREAM && slot->status == 0) {
        w->started--; /* never processed by the server: sent again */
    } else {
        w->done++;
        if (error_code == NGHTTP2_NO_ERROR && slot->status == 200) w->ok++;
    }
    slot->conn = NULL;
    slot->next_free = w->free_slots;
    w->free_slots = slot;
    return 0;
}

/* ---- connections ---- */

static void conn_open(struct conn *c);

/* Drops the connection; its streams still in flight count as done and failed. Opens it again while requests
 * remain, up to five failures in a row. */
static void conn_close(struct conn *c, const char *why) {
    struct worker *w = c->w;
    if (why) {
        fprintf(stderr, "nghttp2-ceiling: connection closed: %s\n", why);
        ERR_print_errors_fp(stderr);
        c->failures++;
    }
    if (c->session) nghttp2_session_del(c->session);
    for (int i = 0; i < w->inflight; i++) {
        struct slot *slot = &w->slots[i];
        if (slot->conn != c) continue;
        slot->conn = NULL;
        slot->next_free = w->free_slots;
        w->free_slots = slot;
        w->done++;
    }
    c->active = 0;
    if (!why && c->state == READY) SSL_shutdown(c->ssl); /* close_notify, best effort */
    if (c->ssl) SSL_free(c->ssl);
    if (c->fd >= 0) close(c->fd); /* also leaves the epoll set */
    c->session = NULL;
    c->ssl = NULL;
    c->fd = -1;
    c->events = 0;
    c->state = CLOSED;
    if (c->failures > 5) die("giving up after 5 failed connections in a row");
    if (w->done < w->total) conn_open(c);
}

/* Resolves the host anew, starts a non-blocking connect and prepares the TLS client. */
static void conn_open(struct conn *c) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai, *p;
    int rc = getaddrinfo(req.host, req.port, &hints, &ai);
    if (rc != 0) { fprintf(stderr, "nghttp2-ceiling: %s: %s\n", req.host, gai_strerror(rc)); exit(1); }
    c->fd = -1;
    for (p = ai; p && c->fd < 0; p = p->ai_next) {
        c->fd = socket(p->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (c->fd < 0) continue;
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(c->fd, p->ai_addr, p->ai_addrlen) != 0 && errno != EINPROGRESS) {
            close(c->fd);
            c->fd = -1;
        }
    }
    freeaddrinfo(ai);
    if (c->fd < 0) die("connect failed");
    c->ssl = SSL_new(req.tls);
    if (!c->ssl || !SSL_set_fd(c->ssl, c->fd)) die("SSL_new");
    SSL_set_connect_state(c->ssl);
    if (req.host_is_ip) {
        if (!X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->ssl), req.host)) die("bad IP address");
    } else if (!SSL_set_tlsext_host_name(c->ssl, req.host) || !SSL_set1_host(c->ssl, req.host)) {
        die("bad host name");
    }
    c->goaway = c->settings_seen = 0;
    c->max_streams = 0;
    c->out_len = c->out_sent = 0;
    c->state = CONNECTING;
    watch(c, EPOLLOUT);
}

static void conn_ready(struct conn *c) {
    const unsigned char *alpn = NULL;
    unsigned alpn_len = 0;
    SSL_get0_alpn_selected(c->ssl, &alpn, &alpn_len);
    if (alpn_len != 2 || memcmp(alpn, "h2", 2) != 0) die("the server did not negotiate h2 (ALPN)");
    nghttp2_session_callbacks *cb;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    if (nghttp2_session_client_new(&c->session, cb, c) != 0) die("nghttp2_session_client_new");
    nghttp2_session_callbacks_del(cb);
    nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0}};
    nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings, 1);
    c->failures = 0;
    c->state = READY;
    watch(c, EPOLLIN);
}

/* Writes what nghttp2 has queued, in batches of up to WRITE_BATCH bytes per SSL_write. Returns -1 if the
 * connection was closed. */
static int conn_flush(struct conn *c) {
    for (;;) {
        while (c->out_sent < c->out_len) {
            int n = SSL_write(c->ssl, c->out + c->out_sent, (int)(c->out_len - c->out_sent));
            if (n > 0) { c->out_sent += n; continue; }
            if (SSL_get_error(c->ssl, n) == SSL_ERROR_WANT_WRITE) { watch(c, EPOLLIN | EPOLLOUT); return 0; }
            conn_close(c, "SSL_write failed");
            return -1;
        }
        c->out_len = c->out_sent = 0;
        const uint8_t *data;
        ssize_t n;
        while (c->out_len < WRITE_BATCH && (n = nghttp2_session_mem_send(c->session, &data)) != 0) {
            if (n < 0) { conn_close(c, nghttp2_strerror((int)n)); return -1; }
            if (c->out_len + n > c->out_cap) {
                c->out_cap = (c->out_len + n) * 2;
                c->out = realloc(c->out, c->out_cap);
                if (!c->out) die("out of memory");
            }
            memcpy(c->out + c->out_len, data, n);
            c->out_len += n;
        }
        if (c->out_len == 0) break;
    }
    watch(c, EPOLLIN);
    if (!nghttp2_session_want_read(c->session) && !nghttp2_session_want_write(c->session)) {
        conn_close(c, c->goaway ? NULL : "session ended"); /* after a GOAWAY: a new connection */
        return -1;
    }
    return 0;
}

static void conn_read(struct conn *c) {
    unsigned char buf[READ_CHUNK];
    for (;;) {
        int n = SSL_read(c->ssl, buf, sizeof buf);
        if (n > 0) {
            ssize_t rv = nghttp2_session_mem_recv(c->session, buf, n);
            if (rv < 0) { conn_close(c, nghttp2_strerror((int)rv)); return; }
            continue;
        }
        int err = SSL_get_error(c->ssl, n);
        if (err == SSL_ERROR_WANT_READ) return;
        if (err == SSL_ERROR_WANT_WRITE) { watch(c, EPOLLIN | EPOLLOUT); return; }
        conn_close(c, err == SSL_ERROR_ZERO_RETURN ? "closed by the server" : "SSL_read failed");
        return;
    }
}

static void conn_event(struct conn *c, uint32_t events) {
    if (c->state == CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0) { conn_close(c, strerror(err)); return; }
        c->state = HANDSHAKING;
    }
    if (c->state == HANDSHAKING) {
        int r = SSL_do_handshake(c->ssl);
        if (r == 1) { conn_ready(c); return; }
        int err = SSL_get_error(c->ssl, r);
        if (err == SSL_ERROR_WANT_READ) watch(c, EPOLLIN);
        else if (err == SSL_ERROR_WANT_WRITE) watch(c, EPOLLOUT);
        else {
            long v = SSL_get_verify_result(c->ssl);
            fprintf(stderr, "nghttp2-ceiling: TLS handshake failed: %s\n", X509_verify_cert_error_string(v));
            die("TLS handshake failed");
        }
        return;
    }
    if (c->state != READY) return;
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) conn_read(c);
    if (c->state == READY && (events & EPOLLOUT)) conn_flush(c);
}

/* Starts streams on the connection up to its share of the thread's in-flight requests and the server's limit. */
static void conn_fill(struct conn *c) {
    struct worker *w = c->w;
    if (c->state != READY || !c->settings_seen || c->goaway) return;
    long limit = c->share < c->max_streams ? c->share : c->max_streams;
    nghttp2_nv nv[MAX_HEADERS + 8];
    const uint8_t nc = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
#define NV(n, v, len, f) ((nghttp2_nv){(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, (len), (f)})
    size_t k = 0;
    nv[k++] = NV(":method", "POST", 4, nc);
    size_t path_at = k;
    nv[k++] = NV(":path", req.url_path, strlen(req.url_path), nc);
    nv[k++] = NV(":scheme", "https", 5, nc);
    nv[k++] = NV(":authority", req.authority, strlen(req.authority), nc);
    size_t id_at = k;
    if (req.per_request_id) nv[k++] = NV("apns-id", "", 36, nc | NGHTTP2_NV_FLAG_NO_INDEX);
    memcpy(nv + k, req.shared, req.nshared * sizeof *nv);
    k += req.nshared;
    while (c->active < limit && w->started < w->total) {
        struct slot *slot = w->free_slots;
        w->free_slots = slot->next_free;
        slot->conn = c;
        slot->status = 0;
        slot->body_sent = 0;
        if (req.path_prefix) {
            next_path(w, slot->path);
            nv[path_at].value = (uint8_t *)slot->path;
            nv[path_at].valuelen = strlen(slot->path);
            nv[path_at].flags = nc | NGHTTP2_NV_FLAG_NO_INDEX;
        }
        if (req.per_request_id) {
            next_id(w, slot->id);
            nv[id_at].value = (uint8_t *)slot->id;
        }
        nghttp2_data_provider body = {.source.ptr = slot, .read_callback = read_body};
        int32_t id = nghttp2_submit_request(c->session, NULL, nv, k, &body, slot);
        if (id < 0) die(nghttp2_strerror(id));
        c->active++;
        w->started++;
    }
#undef NV
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *run(void *arg) {
    struct worker *w = arg;
    w->epfd = epoll_create1(EPOLL_CLOEXEC);
    w->slots = calloc(w->inflight, sizeof *w->slots);
    for (int i = 0; i < w->inflight; i++) {
        w->slots[i].next_free = w->free_slots;
        w->free_slots = &w->slots[i];
    }
    w->c = calloc(w->conns, sizeof *w->c);
    for (int i = 0; i < w->conns; i++) {
        w->c[i].w = w;
        w->c[i].share = w->inflight / w->conns + (i < w->inflight % w->conns);
        conn_open(&w->c[i]);
    }
    long last_done = -1;
    double last_progress = now();
    struct epoll_event ev[64];
    while (w->done < w->total) {
        int n = epoll_wait(w->epfd, ev, 64, 100);
        if (n < 0 && errno != EINTR) die("epoll_wait");
        long inflight = w->started - w->done;
        if (pause_us > 0 && inflight >= 100) usleep(pause_us);
        cork(w, 1);
        for (int i = 0; i < n; i++) conn_event(ev[i].data.ptr, ev[i].events);
        for (int i = 0; i < w->conns; i++) {
            struct conn *c = &w->c[i];
            conn_fill(c);
            if (c->state == READY && c->out_sent == c->out_len) conn_flush(c);
        }
        cork(w, 0);
        if (w->done != last_done) {
            last_done = w->done;
            last_progress = now();
        } else if (now() - last_progress > 30) {
            for (int i = 0; i < w->conns; i++) {
                struct conn *c = &w->c[i];
                fprintf(stderr, "nghttp2-ceiling: connection %d: state %d, %ld streams, goaway %d, settings %d, "
                        "want read %d write %d, %zu bytes unsent, send window %d\n", i, c->state, c->active, c->goaway,
                        c->settings_seen, c->session ? nghttp2_session_want_read(c->session) : -1,
                        c->session ? nghttp2_session_want_write(c->session) : -1, c->out_len - c->out_sent,
                        c->session ? nghttp2_session_get_remote_window_size(c->session) : -1);
            }
            fprintf(stderr, "nghttp2-ceiling: %ld of %ld started, %ld done\n", w->started, w->total, w->done);
            die("no progress for 30 seconds");
        }
    }
    /* Done: a GOAWAY(NO_ERROR) on each connection, then close. */
    for (int i = 0; i < w->conns; i++) {
        struct conn *c = &w->c[i];
        if (c->state != READY) continue;
        c->goaway = 1; /* not an error when the session ends */
        nghttp2_session_terminate_session(c->session, NGHTTP2_NO_ERROR);
        if (conn_flush(c) == 0) conn_close(c, NULL);
    }
    for (int i = 0; i < w->conns; i++) free(w->c[i].out);
    free(w->c);
    free(w->slots);
    close(w->epfd);
    return NULL;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc(n + 1);
    if (fread(s, 1, n, f) != (size_t)n) { perror(path); exit(2); }
    s[n] = 0;
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = 0;
    fclose(f);
    return s;
}

/* https://HOST[:PORT]/PATH, HOST possibly a bracketed IPv6 address. */
static void parse_url(const char *url) {
    if (strncmp(url, "https://", 8) != 0) { fprintf(stderr, "only https:// URLs\n"); exit(2); }
    const char *h = url + 8, *path = strchr(h, '/');
    if (!path) path = h + strlen(h);
    size_t hl = path - h;
    if (hl == 0 || hl >= sizeof req.authority) { fprintf(stderr, "bad URL\n"); exit(2); }
    memcpy(req.authority, h, hl);
    req.authority[hl] = 0;
    const char *colon = h[0] == '[' ? memchr(h, ']', hl) : memchr(h, ':', hl);
    const char *host_end = colon ? colon : path;
    if (h[0] == '[') {
        h++;
        colon = colon && colon + 1 < path && colon[1] == ':' ? colon + 1 : NULL;
    }
    snprintf(req.host, sizeof req.host, "%.*s", (int)(host_end - h), h);
    if (colon && colon < path) snprintf(req.port, sizeof req.port, "%.*s", (int)(path - colon - 1), colon + 1);
    else strcpy(req.port, "443");
    req.url_path = *path ? path : "/";
    size_t pl = strlen(req.url_path);
    req.path_prefix = pl >= 2 && strcmp(req.url_path + pl - 2, "/*") == 0 ? pl - 1 : 0;
    if (req.path_prefix + 65 > sizeof ((struct slot *)0)->path) { fprintf(stderr, "URL too long\n"); exit(2); }
    unsigned char addr[16];
    req.host_is_ip = inet_pton(AF_INET, req.host, addr) == 1 || inet_pton(AF_INET6, req.host, addr) == 1;
}

static void add_shared(const char *name, size_t namelen, const char *value) {
    if (req.nshared == MAX_HEADERS) { fprintf(stderr, "too many headers\n"); exit(2); }
    req.shared[req.nshared++] = (nghttp2_nv){(uint8_t *)name, (uint8_t *)value, namelen, strlen(value),
                                             NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
}

int main(int argc, char **argv) {
    if (argc < 8) {
        fprintf(stderr, "usage: %s URL TOTAL THREADS INFLIGHT CONNS BODY_FILE CA_FILE [HEADER ...]\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    cork_enabled = getenv("CORK") != NULL && strcmp(getenv("CORK"), "1") == 0;
    pause_us = getenv("PAUSE_US") != NULL ? atol(getenv("PAUSE_US")) : 0;
    parse_url(argv[1]);
    long total = atol(argv[2]);
    int threads = atoi(argv[3]), inflight = atoi(argv[4]), conns = atoi(argv[5]);
    if (total < 1 || threads < 1 || inflight < 1 || conns < 1) { fprintf(stderr, "bad numbers\n"); return 2; }
    req.body = slurp(argv[6]);
    req.body_len = strlen(req.body);
    snprintf(req.content_length, sizeof req.content_length, "%zu", req.body_len);
    int has_accept = 0;
    for (int i = 8; i < argc; i++) {
        if (strcmp(argv[i], "apns-id: *") == 0) { req.per_request_id = 1; continue; }
        char *colon = strchr(argv[i], ':');
        if (!colon || colon == argv[i]) { fprintf(stderr, "bad header: %s\n", argv[i]); return 2; }
        char *value = colon + 1;
        while (*value == ' ' || *value == '\t') value++;
        if (!*value) continue; /* "Name:" removes a header in libcurl; nothing to send */
        for (char *p = argv[i]; p < colon; p++) *p = (char)tolower((unsigned char)*p);
        if (colon - argv[i] == 6 && memcmp(argv[i], "accept", 6) == 0) has_accept = 1;
        add_shared(argv[i], colon - argv[i], value);
    }
    if (!has_accept) add_shared("accept", 6, "*/*");
    add_shared("content-length", 14, req.content_length);

    req.tls = SSL_CTX_new(TLS_client_method());
    if (!req.tls) die("SSL_CTX_new");
    SSL_CTX_set_min_proto_version(req.tls, TLS1_2_VERSION);
    SSL_CTX_set_options(req.tls, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_mode(req.tls, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (SSL_CTX_load_verify_locations(req.tls, argv[7], NULL) != 1) die("cannot load CA_FILE");
    SSL_CTX_set_verify(req.tls, SSL_VERIFY_PEER, NULL);
    if (SSL_CTX_set_alpn_protos(req.tls, (const unsigned char *)"\x02h2", 3) != 0) die("ALPN");

    struct worker *w = calloc(threads, sizeof *w);
    pthread_t *t = calloc(threads, sizeof *t);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < threads; i++) {
        w[i] = (struct worker){.total = total / threads + (i < total % threads), .inflight = inflight,
                               .conns = conns, .state = (unsigned long long)(i + 1) * 7919};
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    long ok = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        ok += w[i].ok;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double cpu = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec
                 + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    printf("%ld %ld %.3f %.0f %.1f\n", total, ok, seconds, total / seconds, cpu * 1e6 / total);
    return 0;
}
