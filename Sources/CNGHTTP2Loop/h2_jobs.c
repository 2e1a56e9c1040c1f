/* A request's end (finish), its second chance (requeue), and the hand-over of finished requests to the
 * caller, a round's worth per call. */

#include "h2_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void grow_done(pl_h2_loop *loop) {
    size_t cap = loop->done_cap ? loop->done_cap * 2 : 256;
    pl_h2_completion *done = realloc(loop->done, cap * sizeof *done);
    char(*details)[H2_DETAIL] = realloc(loop->details, cap * sizeof *details);
    if (!done || !details) abort();
    loop->done = done;
    loop->details = details;
    loop->done_cap = cap;
}

static void batch_finished(pl_h2_loop *loop, pl_h2_batch *batch) {
    if (loop->finished_len == loop->finished_cap) {
        size_t cap = loop->finished_cap ? loop->finished_cap * 2 : 64;
        pl_h2_batch **grown = realloc(loop->finished, cap * sizeof *grown);
        if (!grown) abort();
        loop->finished = grown;
        loop->finished_cap = cap;
    }
    loop->finished[loop->finished_len++] = batch;
}

/* Takes the request off its queue or stream (a stream's slot stays with the connection until nghttp2 closes
 * it) and out of the deadline heap. */
static void detach(pl_h2_loop *loop, h2_job *job) {
    if (job->state == JOB_QUEUED) {
        h2_queue_unlink(job->host, job);
        loop->queued--;
    } else if (job->state == JOB_ACTIVE) {
        if (job->slot) job->slot->job = NULL;
        job->slot = NULL;
        loop->in_flight--;
    }
}

void h2_job_finish(pl_h2_loop *loop, h2_job *job, int outcome, const char *detail) {
    if (job->state == JOB_DONE) return;
    detach(loop, job);
    h2_heap_remove(loop, job);
    job->state = JOB_DONE;
    if (loop->done_len == loop->done_cap) grow_done(loop);
    size_t i = loop->done_len++;
    pl_h2_completion *c = &loop->done[i];
    c->token = job->batch->token;
    c->index = job->index;
    c->outcome = outcome;
    c->status = outcome == PL_H2_OK ? job->status : 0;
    c->response_started = job->response_started;
    size_t length = detail ? strnlen(detail, H2_DETAIL - 1) : 0;
    if (length) memcpy(loop->details[i], detail, length); /* not snprintf: this runs for every request */
    loop->details[i][length] = 0;
    if (outcome != PL_H2_OK) {
        h2_buf_free(&job->header_lines);
        h2_buf_free(&job->response_body);
    }
    /* The buffers move to the completion and are freed once it has been delivered. */
    c->header_lines = job->header_lines.data;
    c->header_lines_length = job->header_lines.len;
    c->body = job->response_body.data;
    c->body_length = job->response_body.len;
    job->header_lines = (h2_buf){0};
    job->response_body = (h2_buf){0};
    if (outcome == PL_H2_OK) loop->round_responses++;
    else loop->round_failures++;
    if (--job->batch->remaining == 0) batch_finished(loop, job->batch);
}

void h2_job_requeue(pl_h2_loop *loop, h2_job *job, int counts_as_retry) {
    detach(loop, job);
    job->status = 0;
    job->response_started = job->response_complete = 0;
    job->body_sent = 0;
    job->header_lines.len = 0;
    job->response_body.len = 0;
    if (counts_as_retry) job->retries++;
    h2_count(&loop->counters.retries, 1);
    job->state = JOB_QUEUED;
    h2_queue_push(job->host, job, 1); /* older than anything still queued */
    loop->queued++;
}

void h2_job_reset_stream(pl_h2_loop *loop, h2_job *job, uint32_t error_code) {
    (void)loop;
    if (job->state != JOB_ACTIVE || !job->slot) return;
    h2_slot *slot = job->slot;
    nghttp2_submit_rst_stream(slot->conn->session, NGHTTP2_FLAG_NONE, slot->stream_id, error_code);
}

void h2_deliver(pl_h2_loop *loop) {
    if (loop->done_len > 0) {
        for (size_t i = 0; i < loop->done_len; i++) loop->done[i].detail = loop->details[i];
        loop->config.on_complete(loop->config.context, loop->done, loop->done_len);
        for (size_t i = 0; i < loop->done_len; i++) {
            free((void *)loop->done[i].header_lines);
            free((void *)loop->done[i].body);
        }
        loop->done_len = 0;
    }
    for (size_t i = 0; i < loop->finished_len; i++) pl_h2_batch_release(loop->finished[i]);
    loop->finished_len = 0;
}
