// libcurl's own ceiling for scripts/bench-fanout: THREADS threads, each owning a multi handle as
// PushLedger's driver does, POST the same body over HTTP/2 (TLS, ALPN h2) as fast as libcurl allows, with
// INFLIGHT easy handles per thread reused and at most CONNS connections per thread. Nothing else runs:
// no targeting, no events, no payload building. Prints one line: requests, 200s, seconds, requests/s and
// the program's CPU time (user and system) per request in microseconds.
// A HEADER given as "apns-id: *" becomes a fresh UUID per request, linked in front of the shared header
// list (as PushLedger's driver links a request's own lines to its batch's shared block), so the ceiling
// can send what an APNs request carries: the provider token, topic, type, priority, collapse id and an id.
// A URL ending in "/*" gets a fresh 64-hex device token in place of the "*" for every request, set on the
// handle before each one, as PushLedger's requests each name their device (libcurl parses every URL anew).
// With CORK=1 in the environment each thread corks its connections (TCP_CORK) while curl_multi_perform
// runs and uncorks them after it, as PushLedger's driver does (Sources/Curl/CurlSocketCork.swift).
// With PAUSE_US=N each thread sleeps N microseconds before a round of curl_multi_perform while at least 100
// transfers are in flight, as PushLedger's driver does (Sources/Curl/CurlRoundPause.swift).
//
// Usage: curl-ceiling URL TOTAL THREADS INFLIGHT CONNS BODY_FILE CA_FILE [HEADER ...]
#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>

static int cork_enabled;
static long pause_us;

/* The sockets one thread's libcurl opened. The connections stay up for the whole run; should one close,
 * corking its number is at worst a failed call (this program opens no other sockets or files meanwhile). */
struct sockets { int fd[16]; int n; };

static int remember_socket(void *u, curl_socket_t fd, curlsocktype purpose) {
    struct sockets *s = u;
    (void)purpose;
    if (s->n < 16) s->fd[s->n++] = fd;
    return CURL_SOCKOPT_OK;
}

static void cork(const struct sockets *s, int on) {
    for (int i = 0; cork_enabled && i < s->n; i++) setsockopt(s->fd[i], IPPROTO_TCP, TCP_CORK, &on, sizeof on);
}

struct worker {
    const char *url, *body, *ca;
    struct curl_slist *headers;
    long total, ok;
    int inflight, conns, per_request_id;
    size_t url_prefix; /* > 0: the URL ends in "*", replaced per request by a device token */
};

/* A handle's own first header line: "apns-id: <uuid>", rewritten before each request. */
struct own_id {
    struct curl_slist node;
    char line[64];
    unsigned long long state;
    char url[512];
};

static void next_id(struct own_id *id) {
    unsigned long long a = id->state += 0x9E3779B97F4A7C15ULL, b = a * 0xBF58476D1CE4E5B9ULL;
    snprintf(id->line, sizeof id->line, "apns-id: %08llX-%04llX-4%03llX-%04llX-%012llX", a >> 32, (a >> 16) & 0xFFFF,
             a & 0xFFF, 0x8000 | ((b >> 48) & 0x3FFF), b & 0xFFFFFFFFFFFFULL);
}

/* The handle's URL with the next device token: the prefix, then 64 hex digits from the id's state. */
static void next_url(struct own_id *id, const struct worker *w, CURL *e) {
    unsigned long long a = (id->state += 0x632BE59BD9B4E019ULL) * 0xD6E8FEB86659FD93ULL, b = a ^ (a >> 29);
    memcpy(id->url, w->url, w->url_prefix);
    snprintf(id->url + w->url_prefix, sizeof id->url - w->url_prefix, "%016llx%016llx%016llx%016llx", a, b, a ^ b,
             b * 31);
    curl_easy_setopt(e, CURLOPT_URL, id->url);
}

static size_t discard(char *p, size_t s, size_t n, void *u) { (void)p; (void)u; return s * n; }

static void *run(void *arg) {
    struct worker *w = arg;
    CURLM *m = curl_multi_init();
    curl_multi_setopt(m, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, (long)w->conns);
    curl_multi_setopt(m, CURLMOPT_MAX_CONCURRENT_STREAMS, 1000L);
    long started = 0, done = 0;
    struct sockets sockets = {0};
    struct own_id *ids = calloc(w->inflight, sizeof *ids);
    for (int i = 0; i < w->inflight && started < w->total; i++, started++) {
        CURL *e = curl_easy_init();
        ids[i].node.data = ids[i].line;
        ids[i].node.next = w->headers;
        ids[i].state = (unsigned long long)(i + 1) * 7919;
        curl_easy_setopt(e, CURLOPT_PRIVATE, &ids[i]);
        if (w->per_request_id) next_id(&ids[i]);
        if (w->url_prefix) next_url(&ids[i], w, e);
        else curl_easy_setopt(e, CURLOPT_URL, w->url);
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_CAINFO, w->ca);
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, w->per_request_id ? &ids[i].node : w->headers);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, w->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(w->body));
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(e, CURLOPT_SOCKOPTFUNCTION, remember_socket);
        curl_easy_setopt(e, CURLOPT_SOCKOPTDATA, &sockets);
        curl_multi_add_handle(m, e);
    }
    int running = 0;
    while (done < w->total) {
        cork(&sockets, 1);
        curl_multi_perform(m, &running);
        cork(&sockets, 0);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            CURL *e = msg->easy_handle;
            long code = 0;
            curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
            if (msg->data.result == CURLE_OK && code == 200) w->ok++;
            done++;
            curl_multi_remove_handle(m, e);
            if (started < w->total) {
                struct own_id *id;
                curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&id);
                if (w->per_request_id) next_id(id);
                if (w->url_prefix) next_url(id, w, e);
                curl_multi_add_handle(m, e);
                started++;
            } else {
                curl_easy_cleanup(e);
            }
        }
        if (done < w->total) {
            curl_multi_poll(m, NULL, 0, 100, NULL);
            if (pause_us > 0 && running >= 100) usleep(pause_us);
        }
    }
    curl_multi_cleanup(m);
    free(ids);
    return NULL;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc(n + 1);
    if (fread(s, 1, n, f) != (size_t)n) { perror(path); exit(2); }
    s[n] = 0;
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = 0;
    fclose(f);
    return s;
}

int main(int argc, char **argv) {
    if (argc < 8) {
        fprintf(stderr, "usage: %s URL TOTAL THREADS INFLIGHT CONNS BODY_FILE CA_FILE [HEADER ...]\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    cork_enabled = getenv("CORK") != NULL && strcmp(getenv("CORK"), "1") == 0;
    pause_us = getenv("PAUSE_US") != NULL ? atol(getenv("PAUSE_US")) : 0;
    curl_global_init(CURL_GLOBAL_ALL);
    long total = atol(argv[2]);
    int threads = atoi(argv[3]);
    struct curl_slist *headers = NULL;
    int per_request_id = 0;
    for (int i = 8; i < argc; i++) {
        if (strcmp(argv[i], "apns-id: *") == 0) per_request_id = 1;
        else headers = curl_slist_append(headers, argv[i]);
    }
    char *body = slurp(argv[6]);
    size_t url_length = strlen(argv[1]);
    size_t url_prefix = url_length >= 2 && strcmp(argv[1] + url_length - 2, "/*") == 0 ? url_length - 1 : 0;
    if (url_prefix + 65 > sizeof ((struct own_id *)0)->url) { fprintf(stderr, "URL too long\n"); return 2; }
    struct worker *w = calloc(threads, sizeof *w);
    pthread_t *t = calloc(threads, sizeof *t);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < threads; i++) {
        w[i] = (struct worker){argv[1], body, argv[7], headers, total / threads + (i < total % threads), 0,
                               atoi(argv[4]), atoi(argv[5]), per_request_id, url_prefix};
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    long ok = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        ok += w[i].ok;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double cpu = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec
                 + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    printf("%ld %ld %.3f %.0f %.1f\n", total, ok, seconds, total / seconds, cpu * 1e6 / total);
    return 0;
}
