#ifndef PUSHLEDGER_H2_LOOP_H
#define PUSHLEDGER_H2_LOOP_H

/* An HTTP/2-over-TLS client event loop on libnghttp2 and OpenSSL, for the NGHTTP2 Swift module.
 *
 * One loop is one thread ("h2-driver") that alone owns its sockets, SSL objects and nghttp2 sessions. Other
 * threads only hand it work under a mutex and wake it through an eventfd. The API is batch-shaped because the
 * caller is Swift: one submission carries many requests and completions come back many per call, so the cost
 * of crossing into Swift (retains, closures, continuations) is paid per batch rather than per request.
 *
 * Lifetimes: a batch is reference-counted. Its creator holds one reference and gives it up with
 * pl_h2_batch_release; the loop holds its own from a successful submit until every request of the batch is
 * completed. A header block is reference-counted the same way; batches keep the blocks they use alive. */

#include <stddef.h>
#include <stdint.h>

typedef struct pl_h2_loop pl_h2_loop;
typedef struct pl_h2_batch pl_h2_batch;
typedef struct pl_h2_header_block pl_h2_header_block;

/* How a request ended (pl_h2_completion.outcome). */
#define PL_H2_OK 0
#define PL_H2_ERR_CONNECT 1   /* resolution, TCP, or a TLS handshake cut short or timed out */
#define PL_H2_ERR_TLS 2       /* the TLS handshake was refused or failed verification, or no h2 by ALPN */
#define PL_H2_ERR_TIMEOUT 3   /* the request's deadline passed */
#define PL_H2_ERR_RESET 4     /* the server reset the stream, or the connection was lost */
#define PL_H2_ERR_PROTOCOL 5  /* an HTTP/2 protocol error (malformed response, session error) */
#define PL_H2_ERR_CANCELLED 6 /* pl_h2_loop_cancel */
#define PL_H2_ERR_SHUTDOWN 7  /* the loop was shutting down */
#define PL_H2_ERR_INVALID 8   /* the request could not be sent (bad URL) */

/* One finished request. Pointers are valid only during the pl_h2_complete_fn call that delivers it. */
typedef struct pl_h2_completion {
    void *token;          /* the token the batch was submitted with */
    size_t index;         /* the request's index in its batch */
    int outcome;          /* PL_H2_OK or PL_H2_ERR_* */
    int status;           /* the HTTP status when outcome is PL_H2_OK */
    int response_started; /* any response byte (a HEADERS frame) had arrived */
    const char *detail;   /* a short reason for failures, "" otherwise */
    const uint8_t *header_lines; /* "name: value\n" per response header (trailers too), names in lower case */
    size_t header_lines_length;
    const uint8_t *body;
    size_t body_length;
} pl_h2_completion;

/* Called on the loop thread with the requests finished in one round. */
typedef void (*pl_h2_complete_fn)(void *context, const pl_h2_completion *completions, size_t count);
/* Called on the loop thread once, last, when the loop has closed everything after pl_h2_loop_shutdown. */
typedef void (*pl_h2_terminated_fn)(void *context);

typedef struct pl_h2_config {
    const char *ca_file;                 /* PEM bundle of trusted CAs; NULL: the system store */
    const char *client_certificate_file; /* PEM client certificate (chain); NULL: none */
    const char *client_key_file;         /* PEM key; NULL: in the certificate file */
    const char *client_key_password;     /* NULL: the key is not encrypted */
    int verify_peer;
    int verify_host;
    int max_host_connections;   /* per (host, port) */
    int max_concurrent_streams; /* our cap per connection; the server's SETTINGS may lower it */
    int max_in_flight;          /* requests on streams at once, over every connection of the loop */
    int connection_retries;     /* transparent re-runs after connection failures, per request */
    int64_t connect_timeout_ns; /* resolution + TCP connect; and again for the TLS handshake */
    int64_t ping_interval_ns;   /* PING a connection that received nothing for this long; 0: never */
    int64_t ping_timeout_ns;    /* no PING ACK within this: the connection is dead */
    int64_t drain_timeout_ns;   /* after a GOAWAY, how long the admitted streams may take */
    const char *user_agent;     /* sent unless a request has its own; NULL: none */
    pl_h2_complete_fn on_complete;
    pl_h2_terminated_fn on_terminated;
    void *context;
} pl_h2_config;

/* Counters, summed since the loop started (in_flight, queued and peak: current values). */
typedef struct pl_h2_statistics {
    int64_t requests;           /* accepted by pl_h2_loop_submit */
    int64_t responses;          /* completed with PL_H2_OK */
    int64_t failures;           /* completed otherwise */
    int64_t retries;            /* transparent re-runs: refused streams and lost or failed connections */
    int64_t connections_opened; /* connections that got as far as the server's SETTINGS */
    int64_t goaways;            /* GOAWAY frames received */
    int64_t in_flight;          /* requests on streams */
    int64_t queued;             /* requests waiting for a stream */
    int64_t resolutions;        /* host names resolved (one per connection attempt to a name) */
    int64_t ping_timeouts;      /* connections declared dead because a PING went unanswered */
    int64_t peak_streams;       /* the most streams ever open at once on one connection */
} pl_h2_statistics;

/* Starts a loop and its thread. NULL on failure, with a reason in error (TLS set-up: CA file, certificate). */
pl_h2_loop *pl_h2_loop_start(const pl_h2_config *config, char *error, size_t error_capacity);
/* Hands a batch to the loop; its completions carry token. 0, or -1 when the loop is shutting down (the batch
 * is then untouched). A batch is submitted once. */
int pl_h2_loop_submit(pl_h2_loop *loop, pl_h2_batch *batch, void *token);
/* Fails every unfinished request of a submitted batch with PL_H2_ERR_CANCELLED (streams reset with CANCEL). */
void pl_h2_loop_cancel(pl_h2_loop *loop, pl_h2_batch *batch);
/* Refuses new batches; the loop ends once every accepted request has finished, closing its connections with
 * GOAWAY(NO_ERROR), and then calls on_terminated. */
void pl_h2_loop_shutdown(pl_h2_loop *loop);
/* Waits for the loop's thread to end (after on_terminated it returns at once). */
void pl_h2_loop_join(pl_h2_loop *loop);
/* Gives up the caller's reference; also begins shutdown. The loop's memory goes when its thread has ended. */
void pl_h2_loop_release(pl_h2_loop *loop);
void pl_h2_loop_statistics(pl_h2_loop *loop, pl_h2_statistics *statistics);
/* The loop thread's Linux thread id, once it has started (0 before): for tests that watch it end. */
long pl_h2_loop_thread_id(pl_h2_loop *loop);

/* A batch of count requests, each to be described with pl_h2_batch_set before submission. */
pl_h2_batch *pl_h2_batch_create(size_t count);
/* Method and absolute https URL of request index; timeout_ns counts from submission to the last body byte.
 * Returns 0, or -1 if the URL is unusable (the request then fails with PL_H2_ERR_INVALID). */
int pl_h2_batch_set(pl_h2_batch *batch, size_t index, const uint8_t *method, size_t method_length,
                    const uint8_t *url, size_t url_length, int64_t timeout_ns);
/* A header line of request index, sent after the pseudo-headers and before the shared block's lines. */
void pl_h2_batch_add_header(pl_h2_batch *batch, size_t index, const uint8_t *name, size_t name_length,
                            const uint8_t *value, size_t value_length);
void pl_h2_batch_set_shared(pl_h2_batch *batch, size_t index, pl_h2_header_block *block);
/* The body is copied. A request without a call has no body. */
void pl_h2_batch_set_body(pl_h2_batch *batch, size_t index, const uint8_t *body, size_t length);
void pl_h2_batch_release(pl_h2_batch *batch);

pl_h2_header_block *pl_h2_header_block_create(void);
/* Only while the block is being built, before any batch uses it. */
void pl_h2_header_block_add(pl_h2_header_block *block, const uint8_t *name, size_t name_length,
                            const uint8_t *value, size_t value_length);
size_t pl_h2_header_block_count(const pl_h2_header_block *block);
void pl_h2_header_block_release(pl_h2_header_block *block);

#endif
