/* OpenSSL for the loop: one client context per loop (trust, client certificate, ALPN h2), one SSL per
 * connection (SNI, host name or address check), and the words for a failed handshake, which also decide
 * whether repeating it could help. */

#include "h2_internal.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>

static const char *reason(void) {
    unsigned long e = ERR_peek_last_error();
    const char *text = e ? ERR_reason_error_string(e) : NULL;
    return text ? text : "unknown error";
}

static SSL_CTX *fail(SSL_CTX *ctx, char *error, size_t capacity, const char *what, const char *path) {
    snprintf(error, capacity, "%s%s%s: %s", what, path ? " " : "", path ? path : "", reason());
    ERR_clear_error();
    SSL_CTX_free(ctx);
    return NULL;
}

/* The configured password, or none: OpenSSL's own default callback would prompt on the terminal for an
 * encrypted key, and a server must never wait there. */
static int key_password(char *buf, int size, int rwflag, void *userdata) {
    (void)rwflag;
    const char *password = userdata;
    if (!password || size <= 0) return 0;
    int length = (int)strnlen(password, (size_t)size);
    memcpy(buf, password, (size_t)length);
    return length;
}

SSL_CTX *h2_tls_context(const pl_h2_config *config, char *error, size_t capacity) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) return fail(NULL, error, capacity, "cannot create a TLS context", NULL);
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    /* A peer that closes without close_notify (the simulator after its GOAWAY) is an ordinary end of stream. */
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (config->verify_peer) {
        if (config->ca_file) {
            if (SSL_CTX_load_verify_locations(ctx, config->ca_file, NULL) != 1)
                return fail(ctx, error, capacity, "cannot load the CA file", config->ca_file);
        } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
            return fail(ctx, error, capacity, "cannot load the system's CA store", NULL);
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    }
    if (SSL_CTX_set_alpn_protos(ctx, (const unsigned char *)"\x02h2", 3) != 0)
        return fail(ctx, error, capacity, "cannot offer ALPN h2", NULL);
    if (config->client_certificate_file) {
        const char *certificate = config->client_certificate_file;
        const char *key = config->client_key_file ? config->client_key_file : certificate;
        SSL_CTX_set_default_passwd_cb(ctx, key_password);
        SSL_CTX_set_default_passwd_cb_userdata(ctx, (void *)config->client_key_password);
        if (SSL_CTX_use_certificate_chain_file(ctx, certificate) != 1)
            return fail(ctx, error, capacity, "cannot load the client certificate", certificate);
        if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1)
            return fail(ctx, error, capacity, "cannot load the client key", key);
        if (SSL_CTX_check_private_key(ctx) != 1)
            return fail(ctx, error, capacity, "the client key does not match the certificate", key);
        SSL_CTX_set_default_passwd_cb_userdata(ctx, NULL);
    }
    return ctx;
}

int h2_tls_prepare(h2_conn *conn) {
    pl_h2_loop *loop = conn->loop;
    h2_host *host = conn->host;
    conn->ssl = SSL_new(loop->tls);
    if (!conn->ssl || SSL_set_fd(conn->ssl, conn->fd) != 1) return -1;
    SSL_set_connect_state(conn->ssl);
    /* SNI carries names only (RFC 6066, 3). */
    if (!host->is_ip && SSL_set_tlsext_host_name(conn->ssl, host->name) != 1) return -1;
    if (loop->config.verify_peer && loop->config.verify_host) {
        if (host->is_ip) {
            if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(conn->ssl), host->name) != 1) return -1;
        } else if (SSL_set1_host(conn->ssl, host->name) != 1) {
            return -1;
        }
    }
    return 0;
}

/* A certificate that fails verification, or a handshake the server refused (an alert, such as a missing
 * client certificate), would fail the same way again: PL_H2_ERR_TLS. A handshake cut short by the network is
 * PL_H2_ERR_CONNECT, which is retried. */
int h2_tls_describe(h2_conn *conn, int ssl_error, char *out, size_t capacity) {
    int saved_errno = errno;
    h2_host *host = conn->host;
    long verify = SSL_get_verify_result(conn->ssl);
    int outcome = PL_H2_ERR_CONNECT;
    if (conn->loop->config.verify_peer && verify != X509_V_OK) {
        snprintf(out, capacity, "certificate of %s not accepted: %s", host->name,
                 X509_verify_cert_error_string(verify));
        outcome = PL_H2_ERR_TLS;
    } else if (ssl_error == SSL_ERROR_SSL) {
        snprintf(out, capacity, "TLS with %s:%s failed: %s", host->name, host->port, reason());
        outcome = PL_H2_ERR_TLS;
    } else if (ssl_error == SSL_ERROR_SYSCALL && saved_errno != 0) {
        snprintf(out, capacity, "TLS with %s:%s failed: %s", host->name, host->port, strerror(saved_errno));
    } else {
        snprintf(out, capacity, "%s:%s closed the connection during TLS set-up", host->name, host->port);
    }
    ERR_clear_error();
    return outcome;
}
