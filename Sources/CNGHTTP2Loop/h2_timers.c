/* Requests by deadline: a binary min-heap whose entries know their index, because nearly every request is
 * removed long before its deadline (when it completes) and must leave in O(log n), not by a scan. */

#include "h2_internal.h"

#include <stdlib.h>

static void place(pl_h2_loop *loop, size_t i, h2_job *job) {
    loop->heap[i] = job;
    job->heap_index = i;
}

static void sift_up(pl_h2_loop *loop, size_t i) {
    h2_job *job = loop->heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (loop->heap[parent]->deadline_ns <= job->deadline_ns) break;
        place(loop, i, loop->heap[parent]);
        i = parent;
    }
    place(loop, i, job);
}

static void sift_down(pl_h2_loop *loop, size_t i) {
    h2_job *job = loop->heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= loop->heap_len) break;
        if (child + 1 < loop->heap_len && loop->heap[child + 1]->deadline_ns < loop->heap[child]->deadline_ns)
            child++;
        if (job->deadline_ns <= loop->heap[child]->deadline_ns) break;
        place(loop, i, loop->heap[child]);
        i = child;
    }
    place(loop, i, job);
}

int h2_heap_push(pl_h2_loop *loop, h2_job *job) {
    if (loop->heap_len == loop->heap_cap) {
        size_t cap = loop->heap_cap ? loop->heap_cap * 2 : 1024;
        h2_job **grown = realloc(loop->heap, cap * sizeof *grown);
        if (!grown) return -1;
        loop->heap = grown;
        loop->heap_cap = cap;
    }
    place(loop, loop->heap_len++, job);
    sift_up(loop, job->heap_index);
    return 0;
}

void h2_heap_remove(pl_h2_loop *loop, h2_job *job) {
    size_t i = job->heap_index;
    if (i >= loop->heap_len || loop->heap[i] != job) return;
    h2_job *last = loop->heap[--loop->heap_len];
    job->heap_index = (size_t)-1;
    if (last == job) return;
    place(loop, i, last);
    if (i > 0 && loop->heap[(i - 1) / 2]->deadline_ns > last->deadline_ns) sift_up(loop, i);
    else sift_down(loop, i);
}
