/* The nghttp2 side of a connection: the session's settings, starting a request's stream, and the callbacks
 * through which nghttp2 reports responses, resets, SETTINGS, PING ACKs and GOAWAY. Callbacks never close the
 * connection they run for; they only record and finish requests. */

#include "h2_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Responses are small (APNs answers in a few hundred bytes), but many streams share the connection: a large
 * connection window keeps one slow reader of a big body from stalling the rest. */
#define STREAM_WINDOW (256 * 1024)
#define CONNECTION_WINDOW (1024 * 1024)

static h2_slot *slot_alloc(pl_h2_loop *loop) {
    h2_slot *slot = loop->free_slots;
    if (slot) loop->free_slots = slot->next;
    else if (!(slot = calloc(1, sizeof *slot))) abort();
    return slot;
}

void h2_slot_release(h2_conn *conn, h2_slot *slot) {
    if (slot->prev) slot->prev->next = slot->next;
    else conn->slots = slot->next;
    if (slot->next) slot->next->prev = slot->prev;
    if (slot->job) slot->job->slot = NULL;
    slot->job = NULL;
    slot->prev = NULL;
    slot->next = conn->loop->free_slots;
    conn->loop->free_slots = slot;
}

static h2_slot *slot_of(nghttp2_session *session, int32_t stream_id) {
    return nghttp2_session_get_stream_user_data(session, stream_id);
}

static h2_job *job_of(nghttp2_session *session, int32_t stream_id) {
    h2_slot *slot = slot_of(session, stream_id);
    return slot ? slot->job : NULL;
}

static ssize_t read_body(nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
                         uint32_t *flags, nghttp2_data_source *source, void *user) {
    (void)session;
    (void)stream_id;
    (void)user;
    h2_slot *slot = source->ptr;
    h2_job *job = slot->job;
    /* Finished elsewhere (timeout, cancel): its RST_STREAM is queued; a truncated body must never end the
     * stream as if complete, so this fails the stream instead. */
    if (!job) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    size_t n = job->body_len - job->body_sent;
    if (n > length) n = length;
    memcpy(buf, job->body + job->body_sent, n);
    job->body_sent += n;
    slot->unsent -= n;
    slot->conn->unsent_body -= n;
    if (job->body_sent == job->body_len) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame, void *user) {
    (void)user;
    h2_job *job = job_of(session, frame->hd.stream_id);
    if (job) job->response_started = 1;
    return 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user) {
    (void)flags;
    (void)user;
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    h2_job *job = job_of(session, frame->hd.stream_id);
    if (!job) return 0;
    if (namelen == 7 && memcmp(name, ":status", 7) == 0) {
        int status = 0;
        for (size_t i = 0; i < valuelen && i < 3; i++) status = status * 10 + (value[i] - '0');
        job->status = valuelen == 3 ? status : 0;
        job->header_lines.len = 0; /* the lines of an earlier informational (1xx) response go */
        return 0;
    }
    if (namelen > 0 && name[0] == ':') return 0;
    if (job->header_lines.len + namelen + valuelen + 3 > H2_MAX_BODY) return 0;
    if (h2_buf_append(&job->header_lines, name, namelen) || h2_buf_append(&job->header_lines, ": ", 2) ||
        h2_buf_append(&job->header_lines, value, valuelen) || h2_buf_append(&job->header_lines, "\n", 1))
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    return 0;
}

static int on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data,
                         size_t len, void *user) {
    (void)flags;
    h2_conn *conn = user;
    h2_job *job = job_of(session, stream_id);
    if (!job) return 0;
    if (job->response_body.len + len > H2_MAX_BODY) {
        h2_job_reset_stream(conn->loop, job, NGHTTP2_CANCEL);
        h2_job_finish(conn->loop, job, PL_H2_ERR_PROTOCOL, "response body larger than 64 MiB");
        return 0;
    }
    if (h2_buf_append(&job->response_body, data, len)) return NGHTTP2_ERR_CALLBACK_FAILURE;
    return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user) {
    h2_conn *conn = user;
    pl_h2_loop *loop = conn->loop;
    switch (frame->hd.type) {
    case NGHTTP2_DATA:
    case NGHTTP2_HEADERS:
        if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) {
            h2_job *job = job_of(session, frame->hd.stream_id);
            if (job) job->response_complete = 1;
        }
        break;
    case NGHTTP2_RST_STREAM: {
        h2_slot *slot = slot_of(session, frame->hd.stream_id);
        if (slot) slot->peer_reset = 1;
        break;
    }
    case NGHTTP2_SETTINGS:
        if (!(frame->hd.flags & NGHTTP2_FLAG_ACK)) {
            uint32_t limit = nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
            long cap = loop->config.max_concurrent_streams;
            conn->stream_cap = (long)limit < cap ? (long)limit : cap;
            if (!conn->settings_seen) {
                /* Only now is the connection known to work: the host's failure count starts again. */
                conn->settings_seen = 1;
                h2_count(&loop->counters.connections_opened, 1);
                conn->host->failures = 0;
                conn->host->next_connect_ns = 0;
            }
        }
        break;
    case NGHTTP2_PING:
        if (frame->hd.flags & NGHTTP2_FLAG_ACK) conn->ping_outstanding = 0;
        break;
    case NGHTTP2_GOAWAY:
        /* nghttp2 closes the streams above last_stream_id with REFUSED_STREAM (re-run in on_stream_close);
         * the rest finish here while a successor takes the new ones. */
        h2_count(&loop->counters.goaways, 1);
        h2_conn_begin_draining(conn);
        break;
    default:
        break;
    }
    return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user) {
    h2_conn *conn = user;
    pl_h2_loop *loop = conn->loop;
    h2_slot *slot = slot_of(session, stream_id);
    if (!slot) return 0;
    conn->open_streams--;
    conn->unsent_body -= slot->unsent;
    h2_job *job = slot->job;
    int peer_reset = slot->peer_reset;
    h2_slot_release(conn, slot);
    if (!job) return 0;
    if (job->response_complete && job->status >= 200) {
        /* Complete, even if the server then reset the stream (it may, to stop an upload it did not need). */
        h2_job_finish(loop, job, PL_H2_OK, NULL);
    } else if (error_code == NGHTTP2_REFUSED_STREAM && !job->response_started) {
        /* Never processed (RFC 9113, 8.7): above a GOAWAY's last stream id, or refused by the server. */
        h2_job_requeue(loop, job, 0);
    } else if (peer_reset) {
        h2_job_finish(loop, job, PL_H2_ERR_RESET, nghttp2_http2_strerror(error_code));
    } else if (error_code == NGHTTP2_NO_ERROR) {
        h2_job_finish(loop, job, PL_H2_ERR_PROTOCOL, "the stream ended before its response did");
    } else {
        char why[H2_DETAIL];
        snprintf(why, sizeof why, "stream closed with %s", nghttp2_http2_strerror(error_code));
        h2_job_finish(loop, job, PL_H2_ERR_PROTOCOL, why);
    }
    return 0;
}

nghttp2_session_callbacks *h2_session_callbacks(void) {
    nghttp2_session_callbacks *callbacks;
    if (nghttp2_session_callbacks_new(&callbacks) != 0) return NULL;
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);
    return callbacks;
}

int h2_session_new(h2_conn *conn) {
    pl_h2_loop *loop = conn->loop;
    if (nghttp2_session_client_new2(&conn->session, loop->callbacks, conn, loop->option) != 0) return -1;
    nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW},
    };
    if (nghttp2_submit_settings(conn->session, NGHTTP2_FLAG_NONE, settings, 2) != 0 ||
        nghttp2_session_set_local_window_size(conn->session, NGHTTP2_FLAG_NONE, 0, CONNECTION_WINDOW) != 0) {
        nghttp2_session_del(conn->session);
        conn->session = NULL;
        return -1;
    }
    conn->stream_cap = loop->config.max_concurrent_streams;
    return 0;
}

static nghttp2_nv line(const char *name, size_t name_len, const void *value, size_t value_len, uint8_t flags) {
    return (nghttp2_nv){(uint8_t *)name, (uint8_t *)value, name_len, value_len, flags};
}

#define LITERAL(name) name, sizeof(name) - 1

/* Pseudo-headers, then the request's own lines, then its shared block's, then user-agent and content-length
 * if neither gave them. The request's own lines are sent as never-indexed literals: they are the ones that
 * differ per request (apns-id, expiration), and indexing them would push the shared lines (the provider's
 * token above all) out of HPACK's dynamic table. */
int h2_stream_start(h2_conn *conn, h2_job *job) {
    pl_h2_loop *loop = conn->loop;
    size_t shared = job->shared ? job->shared->count : 0;
    size_t need = 6 + job->header_count + shared;
    if (need > loop->nv_cap) {
        nghttp2_nv *grown = realloc(loop->nv, need * 2 * sizeof *grown);
        if (!grown) abort();
        loop->nv = grown;
        loop->nv_cap = need * 2;
    }
    nghttp2_nv *nv = loop->nv;
    size_t k = 0;
    /* Names that are literals need no copy; values are copied by nghttp2, since a request can be finished
     * (and its batch freed) before its HEADERS leave. */
    const uint8_t literal = NGHTTP2_NV_FLAG_NO_COPY_NAME;
    nv[k++] = line(LITERAL(":method"), job->method, job->method_len, literal);
    nv[k++] = line(LITERAL(":scheme"), "https", 5, literal | NGHTTP2_NV_FLAG_NO_COPY_VALUE);
    nv[k++] = line(LITERAL(":authority"), job->authority, job->authority_len, literal);
    nv[k++] = line(LITERAL(":path"), job->path, job->path_len, literal);
    for (h2_header *h = job->headers; h; h = h->next)
        nv[k++] = line((const char *)h->name, h->name_len, h->value, h->value_len, NGHTTP2_NV_FLAG_NO_INDEX);
    for (size_t i = 0; i < shared; i++) nv[k++] = job->shared->nv[i];
    int shared_ua = job->shared && job->shared->has_user_agent;
    int shared_length = job->shared && job->shared->has_content_length;
    if (loop->config.user_agent && !job->has_user_agent && !shared_ua) {
        /* The loop's own string outlives every session, so nghttp2 need not copy it either. */
        const char *ua = loop->config.user_agent;
        nv[k++] = line(LITERAL("user-agent"), ua, strlen(ua), literal | NGHTTP2_NV_FLAG_NO_COPY_VALUE);
    }
    char digits[24];
    if (job->has_body && !job->has_content_length && !shared_length) {
        /* By hand: snprintf per request shows in profiles. */
        char *end = digits + sizeof digits, *p = end;
        size_t v = job->body_len;
        do *--p = (char)('0' + v % 10);
        while (v /= 10);
        nv[k++] = line(LITERAL("content-length"), p, (size_t)(end - p), literal);
    }
    h2_slot *slot = slot_alloc(loop);
    slot->job = NULL;
    slot->conn = conn;
    slot->peer_reset = 0;
    slot->unsent = job->body_len;
    nghttp2_data_provider provider = {.source.ptr = slot, .read_callback = read_body};
    int32_t id = nghttp2_submit_request(conn->session, NULL, nv, k, job->body_len > 0 ? &provider : NULL, slot);
    if (id < 0) {
        slot->next = loop->free_slots;
        loop->free_slots = slot;
        return -1;
    }
    slot->stream_id = id;
    slot->job = job;
    slot->prev = NULL;
    slot->next = conn->slots;
    if (conn->slots) conn->slots->prev = slot;
    conn->slots = slot;
    conn->open_streams++;
    conn->unsent_body += job->body_len;
    job->slot = slot;
    job->state = JOB_ACTIVE;
    job->body_sent = 0;
    loop->in_flight++;
    if (conn->open_streams > atomic_load_explicit(&loop->counters.peak_streams, memory_order_relaxed))
        atomic_store_explicit(&loop->counters.peak_streams, conn->open_streams, memory_order_relaxed);
    return 0;
}
