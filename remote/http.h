/* SPDX-License-Identifier: MIT */
/*
 * HTTP on the event loop: libcurl's multi interface driven by
 * curl_multi_socket_action from uv_poll_t (one per socket curl opens) and
 * one uv_timer_t (curl's timeout).  Nothing blocks the loop; TLS comes
 * through libcurl.
 *
 * A request's callback runs exactly once, from the loop, unless the
 * request is cancelled first (then never).  The body is borrowed for the
 * callback only.
 */
#ifndef REMOTE_HTTP_H
#define REMOTE_HTTP_H

#include <stddef.h>

#include <uv.h>

#include "common/error.h"

#define HTTP_BODY_MAX	(8 * 1024 * 1024)

struct http;
struct http_req;

/* status is the HTTP status, 0 with err set when no reply came. */
typedef void http_done_cb(void *arg, long status, const char *body,
    size_t len, const struct bd_error *err);

int	 http_new(uv_loop_t *loop, struct http **out, struct bd_error *err);
/* Drops every request without its callback; handles close on the loop. */
void	 http_free(struct http *h);

/*
 * Starts method (GET or POST) on url.  token, when not NULL, goes in
 * "Authorization: Token"; json, when not NULL, is the request body
 * (copied).  timeout_ms bounds the whole exchange.
 */
int	 http_request(struct http *h, const char *method, const char *url,
	    const char *token, const char *json, long timeout_ms,
	    http_done_cb *cb, void *arg, struct http_req **out,
	    struct bd_error *err);
void	 http_cancel(struct http_req *r);
/* Requests started and not yet called back or cancelled. */
size_t	 http_pending(const struct http *h);

#endif
