/* The loop thread and its mailbox. A round: wait in epoll (until the next deadline, or an eventfd wake-up);
 * serve ready sockets; take new batches, cancellations and resolutions from the mailbox; expire requests and
 * connection timers; start streams; write every connection's frames once; close drained connections; hand
 * the round's finished requests to the caller in one call. */

#include "h2_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define THREAD_NAME "h2-driver" /* scripts/bench-fanout tells the loops' CPU time from the rest by this */
#define MAX_WAIT_NS 1000000000LL

int64_t h2_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void h2_count(atomic_llong *counter, long n) { atomic_fetch_add_explicit(counter, n, memory_order_relaxed); }

/* Under the mutex: only the first poster after the loop went to sleep pays for the eventfd write. */
static void wake_locked(pl_h2_loop *loop) {
    if (!loop->sleeping) return;
    loop->sleeping = 0;
    uint64_t one = 1;
    ssize_t written = write(loop->wakefd, &one, sizeof one);
    (void)written; /* a full counter still wakes the loop */
}

static int append(pl_h2_batch ***array, size_t *len, size_t *cap, pl_h2_batch *batch) {
    if (*len == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 64;
        pl_h2_batch **grown = realloc(*array, grown_cap * sizeof *grown);
        if (!grown) return -1;
        *array = grown;
        *cap = grown_cap;
    }
    (*array)[(*len)++] = batch;
    return 0;
}

void h2_post_resolution(pl_h2_loop *loop, h2_resolution *resolution) {
    pthread_mutex_lock(&loop->mutex);
    resolution->next = loop->resolved;
    loop->resolved = resolution;
    wake_locked(loop);
    pthread_mutex_unlock(&loop->mutex);
}

/* ---- the round ---- */

static void admit(pl_h2_loop *loop, pl_h2_batch *batch) {
    for (size_t i = 0; i < batch->count; i++) {
        h2_job *job = &batch->jobs[i];
        if (job->invalid) {
            h2_job_finish(loop, job, PL_H2_ERR_INVALID, job->invalid);
            continue;
        }
        job->deadline_ns = batch->submitted_ns + (job->timeout_ns > 0 ? job->timeout_ns : 1);
        if (h2_heap_push(loop, job) != 0) abort();
        job->state = JOB_QUEUED;
        h2_queue_push(h2_host_for(loop, job), job, 0);
        loop->queued++;
    }
}

static void cancel(pl_h2_loop *loop, pl_h2_batch *batch) {
    for (size_t i = 0; i < batch->count; i++) {
        h2_job *job = &batch->jobs[i];
        if (job->state != JOB_QUEUED && job->state != JOB_ACTIVE) continue;
        h2_job_reset_stream(loop, job, NGHTTP2_CANCEL);
        h2_job_finish(loop, job, PL_H2_ERR_CANCELLED, "cancelled");
    }
    pl_h2_batch_release(batch); /* the reference pl_h2_loop_cancel took */
}

/* Takes the mailbox's contents; returns whether shutdown has begun. */
static int take_mail(pl_h2_loop *loop, pl_h2_batch ***spare_incoming, size_t *spare_incoming_cap,
                     pl_h2_batch ***spare_cancels, size_t *spare_cancels_cap) {
    pthread_mutex_lock(&loop->mutex);
    loop->sleeping = 0;
    pl_h2_batch **incoming = loop->incoming, **cancels = loop->cancels;
    size_t incoming_len = loop->incoming_len, cancels_len = loop->cancels_len;
    size_t incoming_cap = loop->incoming_cap, cancels_cap = loop->cancels_cap;
    loop->incoming = *spare_incoming;
    loop->incoming_cap = *spare_incoming_cap;
    loop->incoming_len = 0;
    loop->cancels = *spare_cancels;
    loop->cancels_cap = *spare_cancels_cap;
    loop->cancels_len = 0;
    h2_resolution *resolved = loop->resolved;
    loop->resolved = NULL;
    int shutting_down = loop->shutting_down;
    pthread_mutex_unlock(&loop->mutex);

    for (size_t i = 0; i < incoming_len; i++) admit(loop, incoming[i]);
    for (size_t i = 0; i < cancels_len; i++) cancel(loop, cancels[i]);
    *spare_incoming = incoming;
    *spare_incoming_cap = incoming_cap;
    *spare_cancels = cancels;
    *spare_cancels_cap = cancels_cap;
    while (resolved) {
        h2_resolution *next = resolved->next;
        h2_conn *conn = resolved->conn;
        if (conn->generation == resolved->generation && conn->state == CONN_RESOLVING)
            h2_conn_resolved(conn, resolved);
        h2_resolution_free(resolved);
        resolved = next;
    }
    return shutting_down;
}

static void expire(pl_h2_loop *loop) {
    while (loop->heap_len > 0 && loop->heap[0]->deadline_ns <= loop->now) {
        h2_job *job = loop->heap[0];
        h2_job_reset_stream(loop, job, NGHTTP2_CANCEL);
        h2_job_finish(loop, job, PL_H2_ERR_TIMEOUT, "timeout");
    }
}

/* Runs f on every connection of every host; f may close the connection it is given. */
static void each_conn(pl_h2_loop *loop, void (*f)(h2_conn *)) {
    for (h2_host *host = loop->hosts; host; host = host->next) {
        h2_conn *next;
        for (h2_conn *c = host->live; c; c = next) {
            next = c->next;
            f(c);
        }
        for (h2_conn *c = host->draining; c; c = next) {
            next = c->next;
            f(c);
        }
    }
}

static void flush_if_needed(h2_conn *c) {
    if (c->state != CONN_READY) return;
    if (c->out_sent < c->out_len && (c->events & EPOLLOUT)) return; /* waiting for the socket */
    if (c->out_sent < c->out_len || nghttp2_session_want_write(c->session)) h2_conn_flush(c);
}

static void close_if_drained(h2_conn *c) {
    if (c->draining && c->state == CONN_READY && c->open_streams == 0) h2_conn_close(c, 0);
}

static void say_goodbye(h2_conn *c) { h2_conn_close(c, 1); }

static int wait_ms(pl_h2_loop *loop) {
    int64_t next = loop->now + MAX_WAIT_NS;
    if (loop->heap_len > 0 && loop->heap[0]->deadline_ns < next) next = loop->heap[0]->deadline_ns;
    for (h2_host *host = loop->hosts; host; host = host->next) {
        if (host->queue_head && host->next_connect_ns > loop->now && host->next_connect_ns < next)
            next = host->next_connect_ns;
        for (h2_conn *c = host->live; c; c = c->next) {
            int64_t d = h2_conn_next_deadline(c);
            if (d < next) next = d;
        }
        for (h2_conn *c = host->draining; c; c = c->next) {
            int64_t d = h2_conn_next_deadline(c);
            if (d < next) next = d;
        }
    }
    if (next <= loop->now) return 0;
    return (int)((next - loop->now + 999999) / 1000000);
}

static void publish(pl_h2_loop *loop) {
    h2_count(&loop->counters.responses, loop->round_responses);
    h2_count(&loop->counters.failures, loop->round_failures);
    loop->round_responses = loop->round_failures = 0;
    atomic_store_explicit(&loop->counters.in_flight, loop->in_flight, memory_order_relaxed);
    atomic_store_explicit(&loop->counters.queued, loop->queued, memory_order_relaxed);
}

static void loop_free(pl_h2_loop *loop);

static void *loop_main(void *arg) {
    pl_h2_loop *loop = arg;
    prctl(PR_SET_NAME, THREAD_NAME, 0, 0, 0);
    atomic_store(&loop->thread_id, (long)gettid());
    /* SSL_write to a socket the server closed would raise SIGPIPE and kill the process; blocked here, it
     * stays pending on this thread and the write fails with EPIPE instead. */
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, NULL);

    pl_h2_batch **spare_incoming = NULL, **spare_cancels = NULL;
    size_t spare_incoming_cap = 0, spare_cancels_cap = 0;
    struct epoll_event events[64];
    loop->now = h2_now();
    for (;;) {
        int timeout = wait_ms(loop);
        if (timeout != 0) {
            pthread_mutex_lock(&loop->mutex);
            if (loop->incoming_len || loop->cancels_len || loop->resolved || loop->shutting_down) timeout = 0;
            else loop->sleeping = 1;
            pthread_mutex_unlock(&loop->mutex);
        }
        int n = epoll_wait(loop->epfd, events, 64, timeout);
        loop->now = h2_now();
        for (int i = 0; i < n; i++) {
            if (events[i].data.ptr == NULL) {
                uint64_t count;
                ssize_t got = read(loop->wakefd, &count, sizeof count);
                (void)got;
            } else {
                h2_conn_event(events[i].data.ptr, events[i].events);
            }
        }
        int shutting_down =
            take_mail(loop, &spare_incoming, &spare_incoming_cap, &spare_cancels, &spare_cancels_cap);
        expire(loop);
        each_conn(loop, h2_conn_timers);
        for (h2_host *host = loop->hosts; host; host = host->next) h2_dispatch(loop, host);
        each_conn(loop, flush_if_needed);
        each_conn(loop, close_if_drained);
        publish(loop); /* first: a caller resumed by this round's completions reads the counters at once */
        h2_deliver(loop);
        if (shutting_down && loop->in_flight == 0 && loop->queued == 0) break;
    }

    each_conn(loop, say_goodbye);
    publish(loop);
    h2_deliver(loop);
    h2_resolver_stop(loop);
    free(spare_incoming);
    free(spare_cancels);

    pthread_mutex_lock(&loop->mutex);
    /* No more mail: cancellations still queued only give back their references. */
    loop->thread_done = 1;
    for (size_t i = 0; i < loop->cancels_len; i++) pl_h2_batch_release(loop->cancels[i]);
    loop->cancels_len = 0;
    while (loop->resolved) {
        h2_resolution *next = loop->resolved->next;
        h2_resolution_free(loop->resolved);
        loop->resolved = next;
    }
    pthread_mutex_unlock(&loop->mutex);

    loop->config.on_terminated(loop->config.context);

    pthread_mutex_lock(&loop->mutex);
    loop->exiting = 1;
    int released = loop->released;
    pthread_mutex_unlock(&loop->mutex);
    if (released) loop_free(loop); /* the owner let go first and detached this thread */
    return NULL;
}

/* ---- the API ---- */

static char *copy(const char *s) { return s ? strdup(s) : NULL; }

static int positive(int n) { return n > 0 ? n : 1; }

pl_h2_loop *pl_h2_loop_start(const pl_h2_config *config, char *error, size_t error_capacity) {
    pl_h2_loop *loop = calloc(1, sizeof *loop);
    if (!loop) {
        snprintf(error, error_capacity, "out of memory");
        return NULL;
    }
    loop->config = *config;
    loop->config.ca_file = copy(config->ca_file);
    loop->config.client_certificate_file = copy(config->client_certificate_file);
    loop->config.client_key_file = copy(config->client_key_file);
    loop->config.client_key_password = copy(config->client_key_password);
    loop->config.user_agent = copy(config->user_agent);
    loop->config.max_host_connections = positive(config->max_host_connections);
    loop->config.max_concurrent_streams = positive(config->max_concurrent_streams);
    loop->config.max_in_flight = positive(config->max_in_flight);
    if (loop->config.connection_retries < 0) loop->config.connection_retries = 0;
    loop->epfd = loop->wakefd = -1;
    pthread_mutex_init(&loop->mutex, NULL);
    pthread_mutex_init(&loop->resolver.mutex, NULL);
    pthread_cond_init(&loop->resolver.cond, NULL);

    loop->tls = h2_tls_context(&loop->config, error, error_capacity);
    if (!loop->tls) goto fail;
    loop->epfd = epoll_create1(EPOLL_CLOEXEC);
    loop->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event wake = {.events = EPOLLIN, .data.ptr = NULL};
    if (loop->epfd < 0 || loop->wakefd < 0 || epoll_ctl(loop->epfd, EPOLL_CTL_ADD, loop->wakefd, &wake) != 0) {
        snprintf(error, error_capacity, "cannot create the loop's epoll set or eventfd");
        goto fail;
    }
    loop->callbacks = h2_session_callbacks();
    if (!loop->callbacks || nghttp2_option_new(&loop->option) != 0) {
        snprintf(error, error_capacity, "cannot set up nghttp2");
        goto fail;
    }
    /* Closed streams are kept only for RFC 7540 priorities, which a client that sends none does not need. */
    nghttp2_option_set_no_closed_streams(loop->option, 1);
    if (pthread_create(&loop->thread, NULL, loop_main, loop) != 0) {
        snprintf(error, error_capacity, "cannot start the loop's thread");
        goto fail;
    }
    return loop;
fail:
    loop_free(loop);
    return NULL;
}

int pl_h2_loop_submit(pl_h2_loop *loop, pl_h2_batch *batch, void *token) {
    pthread_mutex_lock(&loop->mutex);
    if (loop->shutting_down || append(&loop->incoming, &loop->incoming_len, &loop->incoming_cap, batch) != 0) {
        pthread_mutex_unlock(&loop->mutex);
        return -1;
    }
    h2_batch_retain(batch);
    batch->token = token;
    batch->submitted_ns = h2_now();
    wake_locked(loop);
    pthread_mutex_unlock(&loop->mutex);
    h2_count(&loop->counters.requests, (long)batch->count);
    return 0;
}

void pl_h2_loop_cancel(pl_h2_loop *loop, pl_h2_batch *batch) {
    pthread_mutex_lock(&loop->mutex);
    if (!loop->thread_done && append(&loop->cancels, &loop->cancels_len, &loop->cancels_cap, batch) == 0) {
        h2_batch_retain(batch);
        wake_locked(loop);
    }
    pthread_mutex_unlock(&loop->mutex);
}

void pl_h2_loop_shutdown(pl_h2_loop *loop) {
    pthread_mutex_lock(&loop->mutex);
    loop->shutting_down = 1;
    wake_locked(loop);
    pthread_mutex_unlock(&loop->mutex);
}

void pl_h2_loop_join(pl_h2_loop *loop) {
    pthread_mutex_lock(&loop->mutex);
    int joined = loop->joined;
    loop->joined = 1;
    pthread_t thread = loop->thread;
    pthread_mutex_unlock(&loop->mutex);
    if (!joined) pthread_join(thread, NULL);
}

void pl_h2_loop_release(pl_h2_loop *loop) {
    pl_h2_loop_shutdown(loop);
    pthread_mutex_lock(&loop->mutex);
    loop->released = 1;
    int exiting = loop->exiting, joined = loop->joined;
    pthread_t thread = loop->thread;
    pthread_mutex_unlock(&loop->mutex);
    if (!exiting) {
        /* Still running: it frees the loop itself when it ends. */
        if (!joined) pthread_detach(thread);
        return;
    }
    if (!joined) pthread_join(thread, NULL);
    loop_free(loop);
}

void pl_h2_loop_statistics(pl_h2_loop *loop, pl_h2_statistics *s) {
    h2_counters *c = &loop->counters;
    s->requests = atomic_load_explicit(&c->requests, memory_order_relaxed);
    s->responses = atomic_load_explicit(&c->responses, memory_order_relaxed);
    s->failures = atomic_load_explicit(&c->failures, memory_order_relaxed);
    s->retries = atomic_load_explicit(&c->retries, memory_order_relaxed);
    s->connections_opened = atomic_load_explicit(&c->connections_opened, memory_order_relaxed);
    s->goaways = atomic_load_explicit(&c->goaways, memory_order_relaxed);
    s->in_flight = atomic_load_explicit(&c->in_flight, memory_order_relaxed);
    s->queued = atomic_load_explicit(&c->queued, memory_order_relaxed);
    s->resolutions = atomic_load_explicit(&c->resolutions, memory_order_relaxed);
    s->ping_timeouts = atomic_load_explicit(&c->ping_timeouts, memory_order_relaxed);
    s->peak_streams = atomic_load_explicit(&c->peak_streams, memory_order_relaxed);
}

long pl_h2_loop_thread_id(pl_h2_loop *loop) { return atomic_load(&loop->thread_id); }

static void loop_free(pl_h2_loop *loop) {
    for (h2_host *host = loop->hosts, *next; host; host = next) {
        next = host->next;
        h2_host_free(host);
    }
    for (h2_conn *c = loop->free_conns, *next; c; c = next) {
        next = c->next;
        free(c->out);
        free(c->addrs);
        free(c->addr_lens);
        free(c);
    }
    for (h2_slot *s = loop->free_slots, *next; s; s = next) {
        next = s->next;
        free(s);
    }
    free(loop->heap);
    free(loop->nv);
    free(loop->done);
    free(loop->details);
    free(loop->finished);
    free(loop->incoming);
    free(loop->cancels);
    if (loop->tls) SSL_CTX_free(loop->tls);
    if (loop->epfd >= 0) close(loop->epfd);
    if (loop->wakefd >= 0) close(loop->wakefd);
    if (loop->callbacks) nghttp2_session_callbacks_del(loop->callbacks);
    if (loop->option) nghttp2_option_del(loop->option);
    free((void *)loop->config.ca_file);
    free((void *)loop->config.client_certificate_file);
    free((void *)loop->config.client_key_file);
    free((void *)loop->config.client_key_password);
    free((void *)loop->config.user_agent);
    pthread_mutex_destroy(&loop->mutex);
    pthread_mutex_destroy(&loop->resolver.mutex);
    pthread_cond_destroy(&loop->resolver.cond);
    free(loop);
}
