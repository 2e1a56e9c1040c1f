/* getaddrinfo blocks (for seconds, when a DNS server is slow), so names are resolved on a helper thread of
 * the loop, started on first need. Results go back through the loop's mailbox; the loop ignores those for a
 * connection that has been closed or reused meanwhile (its generation moved on). */

#include "h2_internal.h"

#include <netdb.h>
#include <stdlib.h>
#include <sys/prctl.h>

void h2_resolution_free(h2_resolution *resolution) {
    if (resolution->result) freeaddrinfo(resolution->result);
    free(resolution->host);
    free(resolution->port);
    free(resolution);
}

static void *resolver_main(void *arg) {
    pl_h2_loop *loop = arg;
    h2_resolver *r = &loop->resolver;
    prctl(PR_SET_NAME, "h2-resolver", 0, 0, 0);
    pthread_mutex_lock(&r->mutex);
    for (;;) {
        while (!r->stop && !r->head) pthread_cond_wait(&r->cond, &r->mutex);
        if (r->stop) break;
        h2_resolution *request = r->head;
        r->head = request->next;
        if (!r->head) r->tail = NULL;
        pthread_mutex_unlock(&r->mutex);
        /* No AI_ADDRCONFIG: on a machine with loopback only it hides ::1, and every address is tried anyway. */
        struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
        request->next = NULL;
        request->error = getaddrinfo(request->host, request->port, &hints, &request->result);
        h2_post_resolution(loop, request);
        pthread_mutex_lock(&r->mutex);
    }
    while (r->head) {
        h2_resolution *request = r->head;
        r->head = request->next;
        h2_resolution_free(request);
    }
    r->tail = NULL;
    pthread_mutex_unlock(&r->mutex);
    return NULL;
}

int h2_resolver_start(pl_h2_loop *loop) {
    h2_resolver *r = &loop->resolver;
    if (r->started) return 0;
    if (pthread_create(&r->thread, NULL, resolver_main, loop) != 0) return -1;
    r->started = 1;
    return 0;
}

void h2_resolver_submit(pl_h2_loop *loop, h2_resolution *request) {
    h2_resolver *r = &loop->resolver;
    if (h2_resolver_start(loop) != 0) {
        request->error = EAI_SYSTEM;
        h2_post_resolution(loop, request);
        return;
    }
    request->next = NULL;
    pthread_mutex_lock(&r->mutex);
    if (r->tail) r->tail->next = request;
    else r->head = request;
    r->tail = request;
    pthread_cond_signal(&r->cond);
    pthread_mutex_unlock(&r->mutex);
}

void h2_resolver_stop(pl_h2_loop *loop) {
    h2_resolver *r = &loop->resolver;
    if (!r->started) return;
    pthread_mutex_lock(&r->mutex);
    r->stop = 1;
    pthread_cond_signal(&r->cond);
    pthread_mutex_unlock(&r->mutex);
    pthread_join(r->thread, NULL);
    r->started = 0;
}
