#ifndef PUSHLEDGER_H2_INTERNAL_H
#define PUSHLEDGER_H2_INTERNAL_H

/* The loop's own types. Everything below the mailbox belongs to the loop thread alone. */

#include "h2_loop.h"

#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>

#define H2_DETAIL 160
#define H2_MAX_BODY (64u << 20) /* a response body beyond this is refused rather than buffered */

typedef struct h2_buf {
    uint8_t *data;
    size_t len, cap;
} h2_buf;

int h2_buf_append(h2_buf *buf, const void *data, size_t length);
void h2_buf_free(h2_buf *buf);

/* ---- requests ---- */

typedef struct h2_header {
    struct h2_header *next;
    const uint8_t *name, *value;
    size_t name_len, value_len;
} h2_header;

struct pl_h2_header_block {
    atomic_long refs;
    nghttp2_nv *nv;
    size_t count, cap;
    int has_user_agent, has_content_length;
};

enum job_state { JOB_NEW, JOB_QUEUED, JOB_ACTIVE, JOB_DONE };

struct h2_host;
struct h2_conn;
struct h2_slot;

typedef struct h2_job {
    pl_h2_batch *batch;
    size_t index;
    /* The request, in the batch's arena. */
    const uint8_t *method;
    size_t method_len;
    const char *hostname, *port, *authority, *path; /* NUL-terminated */
    size_t authority_len, path_len;
    int host_is_ip;
    h2_header *headers, *headers_tail;
    size_t header_count;
    pl_h2_header_block *shared;
    const uint8_t *body;
    size_t body_len;
    int has_body, has_user_agent, has_content_length;
    int64_t timeout_ns, deadline_ns;
    const char *invalid; /* non-NULL: fails at admission with this reason */
    /* The loop's state. */
    int state;
    int retries;           /* re-runs after connection failures, bounded by connection_retries */
    int response_started;  /* a HEADERS frame began */
    int response_complete; /* END_STREAM arrived */
    int status;
    struct h2_host *host;
    struct h2_slot *slot; /* while ACTIVE */
    struct h2_job *prev, *next; /* in the host's queue while QUEUED */
    size_t heap_index;
    size_t body_sent;
    h2_buf header_lines, response_body;
} h2_job;

typedef struct h2_chunk {
    struct h2_chunk *next;
    size_t used, cap;
    uint8_t data[];
} h2_chunk;

struct pl_h2_batch {
    atomic_long refs;
    void *token;
    size_t count, remaining;
    pl_h2_header_block **blocks; /* each retained once */
    size_t block_count, block_cap;
    h2_chunk *chunks;
    int64_t submitted_ns;
    h2_job jobs[];
};

void h2_batch_retain(pl_h2_batch *batch);
int h2_parse_url(pl_h2_batch *batch, h2_job *job, const uint8_t *url, size_t length);
void *h2_arena_alloc(pl_h2_batch *batch, size_t length);

/* ---- connections ---- */

/* One nghttp2 stream of ours. Owned by its connection from submission until nghttp2 closes the stream, so a
 * request can be finished (timeout, cancel) and freed while its stream is still being reset. */
typedef struct h2_slot {
    h2_job *job; /* NULL once the request was finished or moved elsewhere */
    struct h2_conn *conn;
    struct h2_slot *prev, *next; /* the connection's open streams, or the loop's free list */
    int32_t stream_id;
    int peer_reset; /* the server sent RST_STREAM */
    size_t unsent;  /* body bytes not yet given to nghttp2 */
} h2_slot;

enum conn_state { CONN_IDLE, CONN_RESOLVING, CONN_CONNECTING, CONN_HANDSHAKING, CONN_READY };

typedef struct h2_conn {
    pl_h2_loop *loop;
    struct h2_host *host;
    struct h2_conn *next; /* in its host's live or draining list, or the loop's free list */
    uint64_t generation;  /* bumped at every close, so a late resolution for an earlier use is ignored */
    int state;
    int draining; /* GOAWAY received (or stream ids used up): no new streams */
    int fd;
    uint32_t events;
    SSL *ssl;
    nghttp2_session *session;
    struct sockaddr_storage *addrs;
    socklen_t *addr_lens;
    int addr_count, next_addr;
    int64_t deadline_ns;         /* of the connect phase, the handshake, or the server's first SETTINGS */
    int64_t attempt_deadline_ns; /* of the current address's TCP connect */
    char error[H2_DETAIL];       /* the last connect error, for the message when every address failed */
    int settings_seen;
    long stream_cap; /* min(our cap, the server's SETTINGS_MAX_CONCURRENT_STREAMS) */
    long open_streams;
    h2_slot *slots;
    size_t unsent_body;
    int64_t last_recv_ns, ping_sent_ns;
    int ping_outstanding;
    int64_t drain_deadline_ns;
    uint8_t *out;
    size_t out_len, out_sent, out_cap;
} h2_conn;

typedef struct h2_host {
    struct h2_host *next;
    char *name, *port, *authority;
    int is_ip;
    h2_conn *live; /* connecting or ready, taking new streams: at most max_host_connections */
    int live_count;
    h2_conn *draining;
    h2_job *queue_head, *queue_tail;
    int failures; /* connection attempts failed in a row */
    int64_t next_connect_ns;
} h2_host;

/* ---- the resolver thread ---- */

typedef struct h2_resolution {
    struct h2_resolution *next;
    h2_conn *conn;
    uint64_t generation;
    char *host, *port;
    struct addrinfo *result;
    int error;
} h2_resolution;

typedef struct h2_resolver {
    pthread_t thread;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    h2_resolution *head, *tail;
    int stop, started;
} h2_resolver;

int h2_resolver_start(pl_h2_loop *loop);
void h2_resolver_submit(pl_h2_loop *loop, h2_resolution *request);
void h2_resolver_stop(pl_h2_loop *loop);
void h2_resolution_free(h2_resolution *resolution);

/* ---- the loop ---- */

typedef struct h2_counters {
    atomic_llong requests, responses, failures, retries, connections_opened, goaways, in_flight, queued,
        resolutions, ping_timeouts, peak_streams;
} h2_counters;

struct pl_h2_loop {
    pl_h2_config config; /* strings owned by the loop */
    SSL_CTX *tls;
    int epfd, wakefd;
    pthread_t thread;
    h2_counters counters;
    atomic_long thread_id;
    h2_resolver resolver;

    /* The mailbox, under mutex. */
    pthread_mutex_t mutex;
    pl_h2_batch **incoming, **cancels;
    size_t incoming_len, incoming_cap, cancels_len, cancels_cap;
    h2_resolution *resolved;
    int sleeping; /* inside epoll_wait: the first to post wakes it */
    int shutting_down, thread_done, exiting, released, joined;

    /* The loop thread's. */
    int64_t now;
    h2_host *hosts, *last_host;
    h2_conn *free_conns;
    h2_slot *free_slots;
    h2_job **heap; /* requests by deadline */
    size_t heap_len, heap_cap;
    long in_flight, queued;
    long round_responses, round_failures; /* added to the counters once per round, not once per request */
    nghttp2_session_callbacks *callbacks;
    nghttp2_option *option;
    nghttp2_nv *nv;
    size_t nv_cap;
    pl_h2_completion *done;
    char (*details)[H2_DETAIL];
    size_t done_len, done_cap;
    pl_h2_batch **finished; /* batches whose last request completed this round, released after delivery */
    size_t finished_len, finished_cap;
};

int64_t h2_now(void);
void h2_count(atomic_llong *counter, long n);
void h2_post_resolution(pl_h2_loop *loop, h2_resolution *resolution);

/* Requests (h2_jobs.c). */
void h2_job_finish(pl_h2_loop *loop, h2_job *job, int outcome, const char *detail);
void h2_job_requeue(pl_h2_loop *loop, h2_job *job, int counts_as_retry);
void h2_job_reset_stream(pl_h2_loop *loop, h2_job *job, uint32_t error_code);
void h2_deliver(pl_h2_loop *loop);

/* The deadline heap (h2_timers.c). */
int h2_heap_push(pl_h2_loop *loop, h2_job *job);
void h2_heap_remove(pl_h2_loop *loop, h2_job *job);

/* Hosts and their pools (h2_pool.c). */
h2_host *h2_host_for(pl_h2_loop *loop, const h2_job *job);
void h2_queue_push(h2_host *host, h2_job *job, int front);
void h2_queue_unlink(h2_host *host, h2_job *job);
void h2_dispatch(pl_h2_loop *loop, h2_host *host);
void h2_connect_failed(h2_conn *conn, int outcome, const char *detail);
void h2_host_free(h2_host *host);

/* Connections (h2_conn.c). */
void h2_conn_open(pl_h2_loop *loop, h2_host *host);
void h2_conn_resolved(h2_conn *conn, h2_resolution *resolution);
void h2_conn_event(h2_conn *conn, uint32_t events);
int h2_conn_flush(h2_conn *conn);
void h2_conn_timers(h2_conn *conn);
int64_t h2_conn_next_deadline(const h2_conn *conn);
void h2_conn_lose(h2_conn *conn, int outcome, const char *why);
void h2_conn_close(h2_conn *conn, int goodbye);
void h2_conn_destroy(h2_conn *conn);
void h2_conn_begin_draining(h2_conn *conn);

/* Sessions and streams (h2_session.c). */
int h2_session_new(h2_conn *conn);
int h2_stream_start(h2_conn *conn, h2_job *job);
void h2_slot_release(h2_conn *conn, h2_slot *slot);
nghttp2_session_callbacks *h2_session_callbacks(void);

/* TLS (h2_tls.c). */
SSL_CTX *h2_tls_context(const pl_h2_config *config, char *error, size_t capacity);
int h2_tls_prepare(h2_conn *conn);
int h2_tls_describe(h2_conn *conn, int ssl_error, char *out, size_t capacity);

#endif
