/* Batches of requests, built by the submitting thread before submission and read-only for it afterwards.
 * A batch keeps every string of its requests in one arena, so a thousand requests cost a few allocations. */

#include "h2_internal.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE 16384
#define CHUNK_PER_REQUEST 512 /* a first guess at one request's strings: a single send needs no 16 KiB */

int h2_buf_append(h2_buf *buf, const void *data, size_t length) {
    if (buf->len + length > buf->cap) {
        size_t cap = buf->cap ? buf->cap * 2 : 256;
        while (cap < buf->len + length) cap *= 2;
        uint8_t *grown = realloc(buf->data, cap);
        if (!grown) return -1;
        buf->data = grown;
        buf->cap = cap;
    }
    memcpy(buf->data + buf->len, data, length);
    buf->len += length;
    return 0;
}

void h2_buf_free(h2_buf *buf) {
    free(buf->data);
    buf->data = NULL;
    buf->len = buf->cap = 0;
}

void *h2_arena_alloc(pl_h2_batch *batch, size_t length) {
    length = (length + 7) & ~(size_t)7;
    h2_chunk *chunk = batch->chunks;
    if (!chunk || chunk->cap - chunk->used < length) {
        size_t cap = chunk ? CHUNK_SIZE : batch->count * CHUNK_PER_REQUEST;
        if (cap > CHUNK_SIZE) cap = CHUNK_SIZE;
        if (cap < length) cap = length;
        chunk = malloc(sizeof *chunk + cap);
        if (!chunk) abort(); /* the loop has no way to report a lost request */
        chunk->used = 0;
        chunk->cap = cap;
        chunk->next = batch->chunks;
        batch->chunks = chunk;
    }
    void *p = chunk->data + chunk->used;
    chunk->used += length;
    return p;
}

static uint8_t *arena_copy(pl_h2_batch *batch, const uint8_t *data, size_t length) {
    uint8_t *p = h2_arena_alloc(batch, length + 1);
    if (length) memcpy(p, data, length);
    p[length] = 0;
    return p;
}

pl_h2_batch *pl_h2_batch_create(size_t count) {
    pl_h2_batch *batch = calloc(1, sizeof *batch + count * sizeof(h2_job));
    if (!batch) return NULL;
    atomic_init(&batch->refs, 1);
    batch->count = batch->remaining = count;
    for (size_t i = 0; i < count; i++) {
        batch->jobs[i].batch = batch;
        batch->jobs[i].index = i;
        batch->jobs[i].invalid = "no URL";
    }
    return batch;
}

int pl_h2_batch_set(pl_h2_batch *batch, size_t index, const uint8_t *method, size_t method_length,
                    const uint8_t *url, size_t url_length, int64_t timeout_ns) {
    h2_job *job = &batch->jobs[index];
    job->method = arena_copy(batch, method, method_length);
    job->method_len = method_length;
    job->timeout_ns = timeout_ns;
    job->invalid = method_length == 0 ? "empty method" : NULL;
    if (h2_parse_url(batch, job, url, url_length) != 0) return -1;
    return job->invalid ? -1 : 0;
}

/* Connection-specific lines are not allowed in HTTP/2 (RFC 9113, 8.2.2), and Host travels as :authority; a
 * server would reset a stream carrying them, so they are dropped. Expect too: we never wait for a 100. */
static int is_dropped(const uint8_t *name, size_t length) {
    static const char *const dropped[] = {"connection", "keep-alive", "proxy-connection", "transfer-encoding",
                                          "upgrade", "host", "expect", NULL};
    for (const char *const *d = dropped; *d; d++)
        if (strlen(*d) == length && memcmp(*d, name, length) == 0) return 1;
    return 0;
}

static void lower(uint8_t *name, size_t length) {
    for (size_t i = 0; i < length; i++)
        if (name[i] >= 'A' && name[i] <= 'Z') name[i] += 'a' - 'A';
}

static int is_named(const uint8_t *name, size_t length, const char *wanted) {
    return strlen(wanted) == length && memcmp(name, wanted, length) == 0;
}

void pl_h2_batch_add_header(pl_h2_batch *batch, size_t index, const uint8_t *name, size_t name_length,
                            const uint8_t *value, size_t value_length) {
    h2_job *job = &batch->jobs[index];
    uint8_t *lowered = arena_copy(batch, name, name_length);
    lower(lowered, name_length);
    if (name_length == 0 || is_dropped(lowered, name_length)) return;
    h2_header *header = h2_arena_alloc(batch, sizeof *header);
    header->next = NULL;
    header->name = lowered;
    header->name_len = name_length;
    header->value = arena_copy(batch, value, value_length);
    header->value_len = value_length;
    if (job->headers_tail) job->headers_tail->next = header;
    else job->headers = header;
    job->headers_tail = header;
    job->header_count++;
    if (is_named(lowered, name_length, "user-agent")) job->has_user_agent = 1;
    if (is_named(lowered, name_length, "content-length")) job->has_content_length = 1;
}

void pl_h2_batch_set_shared(pl_h2_batch *batch, size_t index, pl_h2_header_block *block) {
    h2_job *job = &batch->jobs[index];
    job->shared = block;
    if (!block) return;
    /* Requests of a batch nearly always share one block: retain each distinct one once, not per request. */
    for (size_t i = batch->block_count; i > 0; i--)
        if (batch->blocks[i - 1] == block) return;
    if (batch->block_count == batch->block_cap) {
        size_t cap = batch->block_cap ? batch->block_cap * 2 : 4;
        pl_h2_header_block **grown = realloc(batch->blocks, cap * sizeof *grown);
        if (!grown) abort();
        batch->blocks = grown;
        batch->block_cap = cap;
    }
    atomic_fetch_add_explicit(&block->refs, 1, memory_order_relaxed);
    batch->blocks[batch->block_count++] = block;
}

void pl_h2_batch_set_body(pl_h2_batch *batch, size_t index, const uint8_t *body, size_t length) {
    h2_job *job = &batch->jobs[index];
    job->body = arena_copy(batch, body, length);
    job->body_len = length;
    job->has_body = 1;
}

void h2_batch_retain(pl_h2_batch *batch) {
    atomic_fetch_add_explicit(&batch->refs, 1, memory_order_relaxed);
}

void pl_h2_batch_release(pl_h2_batch *batch) {
    if (!batch || atomic_fetch_sub_explicit(&batch->refs, 1, memory_order_acq_rel) != 1) return;
    for (size_t i = 0; i < batch->count; i++) {
        h2_buf_free(&batch->jobs[i].header_lines);
        h2_buf_free(&batch->jobs[i].response_body);
    }
    for (size_t i = 0; i < batch->block_count; i++) pl_h2_header_block_release(batch->blocks[i]);
    free(batch->blocks);
    for (h2_chunk *chunk = batch->chunks, *next; chunk; chunk = next) {
        next = chunk->next;
        free(chunk);
    }
    free(batch);
}

/* ---- header blocks ---- */

pl_h2_header_block *pl_h2_header_block_create(void) {
    pl_h2_header_block *block = calloc(1, sizeof *block);
    if (block) atomic_init(&block->refs, 1);
    return block;
}

void pl_h2_header_block_add(pl_h2_header_block *block, const uint8_t *name, size_t name_length,
                            const uint8_t *value, size_t value_length) {
    uint8_t *lowered = malloc(name_length + 1), *copy = malloc(value_length + 1);
    if (!lowered || !copy) abort();
    memcpy(lowered, name, name_length);
    lower(lowered, name_length);
    if (value_length) memcpy(copy, value, value_length);
    if (name_length == 0 || is_dropped(lowered, name_length)) {
        free(lowered);
        free(copy);
        return;
    }
    if (block->count == block->cap) {
        size_t cap = block->cap ? block->cap * 2 : 8;
        nghttp2_nv *grown = realloc(block->nv, cap * sizeof *grown);
        if (!grown) abort();
        block->nv = grown;
        block->cap = cap;
    }
    /* Lines shared by many requests are what HPACK's dynamic table is for: indexed (no flags). */
    block->nv[block->count++] = (nghttp2_nv){lowered, copy, name_length, value_length, NGHTTP2_NV_FLAG_NONE};
    if (is_named(lowered, name_length, "user-agent")) block->has_user_agent = 1;
    if (is_named(lowered, name_length, "content-length")) block->has_content_length = 1;
}

size_t pl_h2_header_block_count(const pl_h2_header_block *block) { return block->count; }

void pl_h2_header_block_release(pl_h2_header_block *block) {
    if (!block || atomic_fetch_sub_explicit(&block->refs, 1, memory_order_acq_rel) != 1) return;
    for (size_t i = 0; i < block->count; i++) {
        free(block->nv[i].name);
        free(block->nv[i].value);
    }
    free(block->nv);
    free(block);
}
