/* A connection's life: resolved (off the loop for names), connected trying each address in turn, TLS with ALPN
 * h2, then reads into nghttp2 and writes out of it; PINGs when quiet; lost (its unanswered requests re-run)
 * or closed. Connection structs are pooled and never freed before the loop, so a late resolution can always
 * be checked against the connection's generation. */

#include "h2_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define READ_CHUNK 16384
#define WRITE_BATCH 65536 /* stop collecting frames for one SSL_write past this many bytes */

static void watch(h2_conn *c, uint32_t events) {
    if (c->events == events) return;
    struct epoll_event ev = {.events = events, .data.ptr = c};
    epoll_ctl(c->loop->epfd, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &ev);
    c->events = events;
}

static void close_socket(h2_conn *c) {
    if (c->fd >= 0) close(c->fd); /* also leaves the epoll set */
    c->fd = -1;
    c->events = 0;
}

static h2_conn *conn_alloc(pl_h2_loop *loop, h2_host *host) {
    h2_conn *c = loop->free_conns;
    if (c) loop->free_conns = c->next;
    else if (!(c = calloc(1, sizeof *c))) abort();
    c->loop = loop;
    c->host = host;
    c->fd = -1;
    c->events = 0;
    c->draining = c->settings_seen = c->ping_outstanding = 0;
    c->open_streams = 0;
    c->unsent_body = 0;
    c->out_len = c->out_sent = 0;
    c->error[0] = 0;
    c->next = host->live;
    host->live = c;
    host->live_count++;
    return c;
}

static void unlink_from(h2_conn **list, h2_conn *c) {
    for (h2_conn **p = list; *p; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            return;
        }
    }
}

void h2_conn_destroy(h2_conn *c) {
    pl_h2_loop *loop = c->loop;
    h2_host *host = c->host;
    if (c->draining) {
        unlink_from(&host->draining, c);
    } else {
        unlink_from(&host->live, c);
        host->live_count--;
    }
    while (c->slots) h2_slot_release(c, c->slots);
    if (c->session) nghttp2_session_del(c->session);
    if (c->ssl) SSL_free(c->ssl);
    close_socket(c);
    c->session = NULL;
    c->ssl = NULL;
    c->state = CONN_IDLE;
    c->generation++;
    c->next = loop->free_conns;
    loop->free_conns = c;
}

void h2_conn_begin_draining(h2_conn *c) {
    if (c->draining) return;
    unlink_from(&c->host->live, c);
    c->host->live_count--;
    c->draining = 1;
    c->next = c->host->draining;
    c->host->draining = c;
    c->drain_deadline_ns = c->loop->now + c->loop->config.drain_timeout_ns;
}

/* ---- connecting ---- */

static void describe_address(h2_conn *c, int index, int error) {
    char address[INET6_ADDRSTRLEN] = "?";
    const struct sockaddr_storage *a = &c->addrs[index];
    if (a->ss_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, address, sizeof address);
    else
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, address, sizeof address);
    snprintf(c->error, sizeof c->error, "connect to %s (%s) port %s: %s", c->host->name, address, c->host->port,
             strerror(error));
}

static void start_tls(h2_conn *c);

/* Starts a TCP connect to the next address; each attempt gets its share of what is left of the deadline. */
static void try_next_address(h2_conn *c) {
    pl_h2_loop *loop = c->loop;
    while (c->next_addr < c->addr_count) {
        int i = c->next_addr++;
        int fd = socket(c->addrs[i].ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            describe_address(c, i, errno);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(fd, (struct sockaddr *)&c->addrs[i], c->addr_lens[i]) != 0 && errno != EINPROGRESS) {
            describe_address(c, i, errno);
            close(fd);
            continue;
        }
        c->fd = fd;
        c->events = 0;
        c->state = CONN_CONNECTING;
        c->attempt_deadline_ns = loop->now + (c->deadline_ns - loop->now) / (c->addr_count - i);
        watch(c, EPOLLOUT);
        return;
    }
    h2_connect_failed(c, PL_H2_ERR_CONNECT, c->error[0] ? c->error : "no address to connect to");
}

void h2_conn_resolved(h2_conn *c, h2_resolution *resolution) {
    if (resolution->error != 0) {
        char why[H2_DETAIL];
        snprintf(why, sizeof why, "cannot resolve %s: %s", c->host->name, gai_strerror(resolution->error));
        h2_connect_failed(c, PL_H2_ERR_CONNECT, why);
        return;
    }
    int count = 0;
    for (struct addrinfo *a = resolution->result; a; a = a->ai_next) count++;
    struct sockaddr_storage *addrs = realloc(c->addrs, (count ? count : 1) * sizeof *addrs);
    socklen_t *lens = realloc(c->addr_lens, (count ? count : 1) * sizeof *lens);
    if (!addrs || !lens) abort();
    c->addrs = addrs;
    c->addr_lens = lens;
    c->addr_count = 0;
    for (struct addrinfo *a = resolution->result; a; a = a->ai_next) {
        if (a->ai_addrlen > sizeof *addrs) continue;
        memcpy(&addrs[c->addr_count], a->ai_addr, a->ai_addrlen);
        lens[c->addr_count++] = a->ai_addrlen;
    }
    c->next_addr = 0;
    try_next_address(c);
}

void h2_conn_open(pl_h2_loop *loop, h2_host *host) {
    h2_conn *c = conn_alloc(loop, host);
    c->state = CONN_RESOLVING;
    c->deadline_ns = loop->now + loop->config.connect_timeout_ns;
    if (host->is_ip) {
        /* An address literal needs no lookup, and getaddrinfo does not block for one. */
        h2_resolution literal = {0};
        struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV};
        literal.error = getaddrinfo(host->name, host->port, &hints, &literal.result);
        h2_conn_resolved(c, &literal);
        if (literal.result) freeaddrinfo(literal.result);
        return;
    }
    h2_resolution *request = calloc(1, sizeof *request);
    if (!request) abort();
    request->conn = c;
    request->generation = c->generation;
    request->host = strdup(host->name);
    request->port = strdup(host->port);
    if (!request->host || !request->port) abort();
    h2_count(&loop->counters.resolutions, 1);
    h2_resolver_submit(loop, request);
}

static void ready(h2_conn *c);

static void handshake(h2_conn *c) {
    ERR_clear_error();
    int r = SSL_do_handshake(c->ssl);
    if (r == 1) {
        ready(c);
        return;
    }
    int err = SSL_get_error(c->ssl, r);
    if (err == SSL_ERROR_WANT_READ) {
        watch(c, EPOLLIN);
    } else if (err == SSL_ERROR_WANT_WRITE) {
        watch(c, EPOLLOUT);
    } else {
        char why[H2_DETAIL];
        int outcome = h2_tls_describe(c, err, why, sizeof why);
        h2_connect_failed(c, outcome, why);
    }
}

static void start_tls(h2_conn *c) {
    if (h2_tls_prepare(c) != 0) {
        ERR_clear_error();
        h2_connect_failed(c, PL_H2_ERR_TLS, "cannot set up TLS for the host name or address");
        return;
    }
    c->state = CONN_HANDSHAKING;
    c->deadline_ns = c->loop->now + c->loop->config.connect_timeout_ns;
    handshake(c);
}

static void conn_read(h2_conn *c);

static void ready(h2_conn *c) {
    pl_h2_loop *loop = c->loop;
    const unsigned char *alpn = NULL;
    unsigned alpn_len = 0;
    SSL_get0_alpn_selected(c->ssl, &alpn, &alpn_len);
    if (alpn_len != 2 || memcmp(alpn, "h2", 2) != 0) {
        char why[H2_DETAIL];
        snprintf(why, sizeof why, "%s:%s does not speak HTTP/2 (no ALPN h2)", c->host->name, c->host->port);
        h2_connect_failed(c, PL_H2_ERR_TLS, why);
        return;
    }
    if (h2_session_new(c) != 0) {
        h2_connect_failed(c, PL_H2_ERR_PROTOCOL, "cannot create an HTTP/2 session");
        return;
    }
    c->state = CONN_READY;
    c->deadline_ns = loop->now + loop->config.connect_timeout_ns; /* for the server's SETTINGS */
    c->last_recv_ns = loop->now;
    watch(c, EPOLLIN);
    /* The handshake may have left the server's first frames in OpenSSL's buffer, where epoll cannot see them. */
    uint64_t generation = c->generation;
    conn_read(c);
    if (c->generation == generation && c->state == CONN_READY) h2_conn_flush(c);
}

/* ---- reading and writing ---- */

static void conn_read(h2_conn *c) {
    uint8_t buf[READ_CHUNK];
    for (;;) {
        ERR_clear_error();
        int n = SSL_read(c->ssl, buf, sizeof buf);
        if (n > 0) {
            c->last_recv_ns = c->loop->now;
            c->ping_outstanding = 0; /* anything from the server proves it alive, as its ACK would */
            ssize_t rv = nghttp2_session_mem_recv(c->session, buf, (size_t)n);
            if (rv < 0) {
                char why[H2_DETAIL];
                snprintf(why, sizeof why, "HTTP/2 error: %s", nghttp2_strerror((int)rv));
                h2_conn_lose(c, PL_H2_ERR_PROTOCOL, why);
                return;
            }
            continue;
        }
        int err = SSL_get_error(c->ssl, n);
        if (err == SSL_ERROR_WANT_READ) return;
        if (err == SSL_ERROR_WANT_WRITE) {
            watch(c, EPOLLIN | EPOLLOUT);
            return;
        }
        int saved_errno = errno;
        char why[H2_DETAIL];
        if (!c->settings_seen) {
            /* Never usable: with TLS 1.3 a server refuses a client certificate (or its absence) only after
             * the client's side of the handshake is done, so that refusal arrives here. */
            int outcome = h2_tls_describe(c, err, why, sizeof why);
            h2_connect_failed(c, outcome, why);
            return;
        }
        if (err == SSL_ERROR_ZERO_RETURN || (err == SSL_ERROR_SYSCALL && saved_errno == 0))
            snprintf(why, sizeof why, "connection lost: closed by the server");
        else if (err == SSL_ERROR_SYSCALL)
            snprintf(why, sizeof why, "connection lost: %s", strerror(saved_errno));
        else
            snprintf(why, sizeof why, "connection lost: %s", ERR_reason_error_string(ERR_peek_last_error()));
        ERR_clear_error();
        h2_conn_lose(c, PL_H2_ERR_RESET, why);
        return;
    }
}

static int collect(h2_conn *c, const uint8_t *data, size_t n) {
    if (c->out_len + n > c->out_cap) {
        size_t cap = (c->out_len + n) * 2;
        uint8_t *grown = realloc(c->out, cap);
        if (!grown) return -1;
        c->out = grown;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_len, data, n);
    c->out_len += n;
    return 0;
}

int h2_conn_flush(h2_conn *c) {
    for (;;) {
        while (c->out_sent < c->out_len) {
            ERR_clear_error();
            int n = SSL_write(c->ssl, c->out + c->out_sent, (int)(c->out_len - c->out_sent));
            if (n > 0) {
                c->out_sent += (size_t)n;
                continue;
            }
            int err = SSL_get_error(c->ssl, n);
            if (err == SSL_ERROR_WANT_WRITE) {
                watch(c, EPOLLIN | EPOLLOUT);
                return 0;
            }
            if (err == SSL_ERROR_WANT_READ) {
                watch(c, EPOLLIN);
                return 0;
            }
            char why[H2_DETAIL];
            snprintf(why, sizeof why, "connection lost: %s",
                     err == SSL_ERROR_SYSCALL && errno ? strerror(errno) : "write failed");
            ERR_clear_error();
            h2_conn_lose(c, PL_H2_ERR_RESET, why);
            return -1;
        }
        c->out_len = c->out_sent = 0;
        const uint8_t *data;
        ssize_t n;
        while (c->out_len < WRITE_BATCH && (n = nghttp2_session_mem_send(c->session, &data)) != 0) {
            if (n < 0 || collect(c, data, (size_t)n) != 0) {
                char why[H2_DETAIL];
                snprintf(why, sizeof why, "HTTP/2 error: %s", n < 0 ? nghttp2_strerror((int)n) : "out of memory");
                h2_conn_lose(c, PL_H2_ERR_PROTOCOL, why);
                return -1;
            }
        }
        if (c->out_len == 0) break;
    }
    watch(c, EPOLLIN);
    if (!nghttp2_session_want_read(c->session) && !nghttp2_session_want_write(c->session)) {
        /* After a GOAWAY with every stream done, that is the end; otherwise nghttp2 gave up the session. */
        if (c->draining && c->open_streams == 0) h2_conn_close(c, 0);
        else h2_conn_lose(c, PL_H2_ERR_PROTOCOL, "connection lost: the HTTP/2 session ended");
        return -1;
    }
    return 0;
}

void h2_conn_event(h2_conn *c, uint32_t events) {
    switch (c->state) {
    case CONN_CONNECTING: {
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
        if (err != 0) {
            describe_address(c, c->next_addr - 1, err);
            close_socket(c);
            try_next_address(c);
        } else if (events & EPOLLOUT) {
            start_tls(c);
        }
        break;
    }
    case CONN_HANDSHAKING:
        handshake(c);
        break;
    case CONN_READY: {
        uint64_t generation = c->generation;
        if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) conn_read(c);
        if (c->generation == generation && c->state == CONN_READY && (events & EPOLLOUT)) h2_conn_flush(c);
        break;
    }
    default:
        break;
    }
}

/* ---- the end ---- */

void h2_conn_lose(h2_conn *c, int outcome, const char *why) {
    pl_h2_loop *loop = c->loop;
    char message[H2_DETAIL];
    snprintf(message, sizeof message, "%s", why);
    /* A request with no response byte yet was not answered, as far as anyone here can tell: it runs again
     * elsewhere (the server may, rarely, have acted on it; libcurl makes the same bet). */
    for (h2_slot *s = c->slots; s; s = s->next) {
        h2_job *job = s->job;
        if (!job) continue;
        if (!job->response_started && job->retries < loop->config.connection_retries) h2_job_requeue(loop, job, 1);
        else h2_job_finish(loop, job, outcome, message);
    }
    h2_conn_destroy(c);
}

/* With goodbye, a GOAWAY(NO_ERROR) first. Writes are best effort: the socket closes right after. */
void h2_conn_close(h2_conn *c, int goodbye) {
    if (c->state == CONN_READY) {
        if (goodbye) nghttp2_session_terminate_session(c->session, NGHTTP2_NO_ERROR);
        const uint8_t *data;
        ssize_t n;
        while ((n = nghttp2_session_mem_send(c->session, &data)) > 0 && collect(c, data, (size_t)n) == 0) {}
        while (c->out_sent < c->out_len) {
            int written = SSL_write(c->ssl, c->out + c->out_sent, (int)(c->out_len - c->out_sent));
            if (written <= 0) break;
            c->out_sent += (size_t)written;
        }
        SSL_shutdown(c->ssl); /* close_notify */
        ERR_clear_error();
    }
    h2_conn_lose(c, PL_H2_ERR_RESET, "connection lost: closed by the client");
}

/* ---- timers ---- */

void h2_conn_timers(h2_conn *c) {
    pl_h2_loop *loop = c->loop;
    int64_t now = loop->now;
    char why[H2_DETAIL];
    switch (c->state) {
    case CONN_RESOLVING:
        if (now >= c->deadline_ns) {
            snprintf(why, sizeof why, "resolving %s timed out", c->host->name);
            h2_connect_failed(c, PL_H2_ERR_CONNECT, why);
        }
        break;
    case CONN_CONNECTING:
        if (now >= c->deadline_ns || now >= c->attempt_deadline_ns) {
            describe_address(c, c->next_addr - 1, ETIMEDOUT);
            close_socket(c);
            if (now >= c->deadline_ns) h2_connect_failed(c, PL_H2_ERR_CONNECT, c->error);
            else try_next_address(c);
        }
        break;
    case CONN_HANDSHAKING:
        if (now >= c->deadline_ns) {
            snprintf(why, sizeof why, "TLS handshake with %s:%s timed out", c->host->name, c->host->port);
            h2_connect_failed(c, PL_H2_ERR_CONNECT, why);
        }
        break;
    case CONN_READY:
        if (!c->settings_seen) {
            if (now >= c->deadline_ns) {
                snprintf(why, sizeof why, "no HTTP/2 SETTINGS from %s:%s", c->host->name, c->host->port);
                h2_connect_failed(c, PL_H2_ERR_CONNECT, why);
            }
        } else if (c->draining && now >= c->drain_deadline_ns) {
            h2_conn_lose(c, PL_H2_ERR_RESET, "connection lost: streams still open at the GOAWAY drain deadline");
        } else if (loop->config.ping_interval_ns > 0) {
            if (c->ping_outstanding && now - c->ping_sent_ns >= loop->config.ping_timeout_ns) {
                h2_count(&loop->counters.ping_timeouts, 1);
                h2_conn_lose(c, PL_H2_ERR_RESET, "connection lost: no answer to PING");
            } else if (!c->ping_outstanding && now - c->last_recv_ns >= loop->config.ping_interval_ns) {
                nghttp2_submit_ping(c->session, NGHTTP2_FLAG_NONE, NULL);
                c->ping_outstanding = 1;
                c->ping_sent_ns = now;
            }
        }
        break;
    default:
        break;
    }
}

static int64_t earlier(int64_t a, int64_t b) { return a < b ? a : b; }

int64_t h2_conn_next_deadline(const h2_conn *c) {
    const pl_h2_config *config = &c->loop->config;
    switch (c->state) {
    case CONN_RESOLVING:
    case CONN_HANDSHAKING:
        return c->deadline_ns;
    case CONN_CONNECTING:
        return earlier(c->deadline_ns, c->attempt_deadline_ns);
    case CONN_READY: {
        if (!c->settings_seen) return c->deadline_ns;
        int64_t next = c->draining ? c->drain_deadline_ns : INT64_MAX;
        if (config->ping_interval_ns > 0)
            next = earlier(next, c->ping_outstanding ? c->ping_sent_ns + config->ping_timeout_ns
                                                     : c->last_recv_ns + config->ping_interval_ns);
        return next;
    }
    default:
        return INT64_MAX;
    }
}
