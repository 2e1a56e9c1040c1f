/* Per (host, port): the queue of requests waiting for a stream, the pool of up to max_host_connections
 * connections, which connection takes the next request, when another connection is opened, and what a failed
 * connection attempt does to the requests that were waiting for it. */

#include "h2_internal.h"

#include <stdlib.h>
#include <string.h>

#define BACKOFF_FIRST_NS 50000000LL /* after a failed attempt; doubled per failure in a row */
#define BACKOFF_MAX_NS 1000000000LL
#define LARGE_BODY 16384 /* a body this big may split anyway: it need not wait for a whole window */
#define SPREAD_STREAMS 100

h2_host *h2_host_for(pl_h2_loop *loop, const h2_job *job) {
    h2_host *h = loop->last_host;
    if (h && strcmp(h->name, job->hostname) == 0 && strcmp(h->port, job->port) == 0) return h;
    for (h = loop->hosts; h; h = h->next) {
        if (strcmp(h->name, job->hostname) == 0 && strcmp(h->port, job->port) == 0) return loop->last_host = h;
    }
    h = calloc(1, sizeof *h);
    if (!h) abort();
    h->name = strdup(job->hostname);
    h->port = strdup(job->port);
    h->authority = strdup(job->authority);
    if (!h->name || !h->port || !h->authority) abort();
    h->is_ip = job->host_is_ip;
    h->next = loop->hosts;
    loop->hosts = h;
    return loop->last_host = h;
}

void h2_host_free(h2_host *host) {
    free(host->name);
    free(host->port);
    free(host->authority);
    free(host);
}

void h2_queue_push(h2_host *host, h2_job *job, int front) {
    job->host = host;
    if (front) {
        job->prev = NULL;
        job->next = host->queue_head;
        if (host->queue_head) host->queue_head->prev = job;
        else host->queue_tail = job;
        host->queue_head = job;
    } else {
        job->next = NULL;
        job->prev = host->queue_tail;
        if (host->queue_tail) host->queue_tail->next = job;
        else host->queue_head = job;
        host->queue_tail = job;
    }
}

void h2_queue_unlink(h2_host *host, h2_job *job) {
    if (job->prev) job->prev->next = job->next;
    else host->queue_head = job->next;
    if (job->next) job->next->prev = job->prev;
    else host->queue_tail = job->prev;
    job->prev = job->next = NULL;
}

/* Whether the request's body fits the connection's send window beside the bodies still unsent. A body split
 * by flow control is legal, but the simulator has been seen to never answer one whose tail came after its
 * GOAWAY, and whole bodies are cheaper anyway. Something must always be able to start, though. */
static int body_fits(const h2_conn *c, const h2_job *job) {
    if (job->body_len == 0 || (c->unsent_body == 0 && (c->open_streams == 0 || job->body_len > LARGE_BODY)))
        return 1;
    int32_t window = nghttp2_session_get_remote_window_size(c->session);
    return window > 0 && c->unsent_body + job->body_len <= (size_t)window;
}

/* The least busy connection that can take the request now. */
static h2_conn *pick(h2_host *host, const h2_job *job) {
    h2_conn *best = NULL;
    for (h2_conn *c = host->live; c; c = c->next) {
        if (c->state != CONN_READY || !c->settings_seen || c->draining || c->open_streams >= c->stream_cap)
            continue;
        if (!body_fits(c, job)) continue;
        if (!best || c->open_streams < best->open_streams) best = c;
    }
    return best;
}

/* Another connection, one attempt at a time, when requests are left waiting or every connection is already
 * busy (SPREAD_STREAMS, or half its stream cap): load spreads over the pool under pressure, while a quiet
 * client keeps one connection. */
static void maybe_open(pl_h2_loop *loop, h2_host *host) {
    if (host->live_count >= loop->config.max_host_connections || loop->now < host->next_connect_ns) return;
    for (h2_conn *c = host->live; c; c = c->next) {
        if (c->state != CONN_READY || !c->settings_seen) return;
        long busy = c->stream_cap / 2 < SPREAD_STREAMS ? c->stream_cap / 2 : SPREAD_STREAMS;
        if (!host->queue_head && c->open_streams < (busy > 0 ? busy : 1)) return;
    }
    h2_conn_open(loop, host);
}

void h2_dispatch(pl_h2_loop *loop, h2_host *host) {
    if (!host->queue_head) return;
    while (host->queue_head && loop->in_flight < loop->config.max_in_flight) {
        h2_job *job = host->queue_head;
        h2_conn *c = pick(host, job);
        if (!c) break;
        h2_queue_unlink(host, job);
        loop->queued--;
        if (h2_stream_start(c, job) != 0) {
            /* The session takes no new streams (its stream ids are used up): a successor takes over. */
            h2_conn_begin_draining(c);
            h2_queue_push(host, job, 1);
            loop->queued++;
        }
    }
    maybe_open(loop, host);
}

void h2_connect_failed(h2_conn *conn, int outcome, const char *detail) {
    pl_h2_loop *loop = conn->loop;
    h2_host *host = conn->host;
    char message[H2_DETAIL];
    strncpy(message, detail, sizeof message - 1);
    message[sizeof message - 1] = 0;
    int shift = host->failures < 5 ? host->failures : 5;
    host->failures++;
    int64_t backoff = BACKOFF_FIRST_NS << shift;
    host->next_connect_ns = loop->now + (backoff < BACKOFF_MAX_NS ? backoff : BACKOFF_MAX_NS);
    h2_conn_destroy(conn);
    /* While another connection of the host works, the queue is served there and nobody pays for this one. */
    for (h2_conn *c = host->live; c; c = c->next)
        if (c->state == CONN_READY && c->settings_seen) return;
    h2_job *next;
    for (h2_job *job = host->queue_head; job; job = next) {
        next = job->next;
        /* A refused handshake or certificate will be refused again: only the other failures are retried. */
        if (outcome == PL_H2_ERR_TLS || job->retries >= loop->config.connection_retries) {
            h2_job_finish(loop, job, outcome, message);
        } else {
            job->retries++;
            h2_count(&loop->counters.retries, 1);
        }
    }
}
