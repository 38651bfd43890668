/* SPDX-License-Identifier: MIT */
/*
 * libcurl multi on libuv: curl tells us which sockets to watch (socket
 * callback) and when to call it back (timer callback); we tell curl what
 * happened with curl_multi_socket_action and collect finished transfers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "common/queue.h"
#include "common/xmalloc.h"
#include "remote/http.h"

struct http_req {
	struct http	*h;
	CURL		*easy;
	struct curl_slist *hdrs;
	char		*post;
	char		*body;
	size_t		 len, cap;
	int		 too_big;
	http_done_cb	*cb;
	void		*arg;
	char		 errbuf[CURL_ERROR_SIZE];
	TAILQ_ENTRY(http_req) entry;
};
TAILQ_HEAD(http_req_list, http_req);

struct http {
	uv_loop_t	*loop;
	CURLM		*multi;
	uv_timer_t	 timer;
	struct http_req_list reqs;
	size_t		 npending;
	int		 in_check;
};

/* One socket curl asked us to watch. */
struct http_sock {
	uv_poll_t	 poll;
	curl_socket_t	 fd;
	struct http	*h;
};

static void	http_check(struct http *h);

static void
http_sock_closed(uv_handle_t *hd)
{
	free(hd->data);
}

/* Readiness of a socket goes back to curl. */
static void
http_poll_cb(uv_poll_t *p, int status, int events)
{
	struct http_sock *hs = p->data;
	struct http *h = hs->h;
	int flags = 0, running;

	/* An error on the socket is curl's to find when it reads. */
	if (status < 0)
		events = UV_READABLE | UV_WRITABLE;
	if (events & UV_READABLE)
		flags |= CURL_CSELECT_IN;
	if (events & UV_WRITABLE)
		flags |= CURL_CSELECT_OUT;
	curl_multi_socket_action(h->multi, hs->fd, flags, &running);
	http_check(h);
}

static int
http_socket_cb(CURL *e, curl_socket_t fd, int what, void *userp,
    void *socketp)
{
	struct http *h = userp;
	struct http_sock *hs = socketp;
	int events = 0;

	(void)e;
	if (what == CURL_POLL_REMOVE) {
		if (hs != NULL) {
			uv_poll_stop(&hs->poll);
			uv_close((uv_handle_t *)&hs->poll, http_sock_closed);
			curl_multi_assign(h->multi, fd, NULL);
		}
		return 0;
	}
	if (hs == NULL) {
		hs = xcalloc(1, sizeof(*hs));
		hs->fd = fd;
		hs->h = h;
		if (uv_poll_init_socket(h->loop, &hs->poll, fd) != 0) {
			free(hs);
			return -1;
		}
		hs->poll.data = hs;
		curl_multi_assign(h->multi, fd, hs);
	}
	if (what & CURL_POLL_IN)
		events |= UV_READABLE;
	if (what & CURL_POLL_OUT)
		events |= UV_WRITABLE;
	uv_poll_start(&hs->poll, events, http_poll_cb);
	return 0;
}

static void
http_timer_cb(uv_timer_t *t)
{
	struct http *h = t->data;
	int running;

	curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	http_check(h);
}

/* curl's timeout: -1 stops the timer, 0 means call back soon. */
static int
http_timer_fn(CURLM *m, long ms, void *userp)
{
	struct http *h = userp;

	(void)m;
	if (ms < 0)
		uv_timer_stop(&h->timer);
	else
		uv_timer_start(&h->timer, http_timer_cb, (uint64_t)ms, 0);
	return 0;
}

static size_t
http_write_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct http_req *r = arg;
	size_t n = size * nmemb;

	if (r->len + n > HTTP_BODY_MAX) {
		r->too_big = 1;
		return 0;
	}
	if (r->len + n + 1 > r->cap) {
		r->cap = (r->len + n + 1) * 2;
		r->body = xreallocarray(r->body, r->cap, 1);
	}
	memcpy(r->body + r->len, data, n);
	r->len += n;
	r->body[r->len] = '\0';
	return n;
}

static void
http_req_free(struct http_req *r)
{
	struct http *h = r->h;

	TAILQ_REMOVE(&h->reqs, r, entry);
	h->npending--;
	curl_multi_remove_handle(h->multi, r->easy);
	curl_easy_cleanup(r->easy);
	curl_slist_free_all(r->hdrs);
	free(r->post);
	free(r->body);
	free(r);
}

/* Finished transfers: one callback each, after the request is freed. */
static void
http_check(struct http *h)
{
	struct http_req *r;
	struct bd_error err;
	CURLMsg *msg;
	long status = 0;
	int left;
	char *body;
	size_t len;
	http_done_cb *cb;
	void *arg;

	while ((msg = curl_multi_info_read(h->multi, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &r);
		bd_error_clear(&err);
		if (r->too_big)
			bd_error_set(&err, -EFBIG, "reply larger than %d bytes",
			    HTTP_BODY_MAX);
		else if (msg->data.result != CURLE_OK)
			bd_error_set(&err, -EIO, "%s", r->errbuf[0] ?
			    r->errbuf : curl_easy_strerror(msg->data.result));
		else
			curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE,
			    &status);
		body = r->body ? r->body : xstrdup("");
		len = r->len;
		r->body = NULL;
		cb = r->cb;
		arg = r->arg;
		http_req_free(r);
		cb(arg, err.code < 0 ? 0 : status, body, len, &err);
		free(body);
	}
}

int
http_new(uv_loop_t *loop, struct http **out, struct bd_error *err)
{
	static int inited;
	struct http *h;

	if (!inited) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return bd_error_set(err, -EIO, "cannot start libcurl");
		inited = 1;
	}
	h = xcalloc(1, sizeof(*h));
	h->loop = loop;
	TAILQ_INIT(&h->reqs);
	if ((h->multi = curl_multi_init()) == NULL) {
		free(h);
		return bd_error_set(err, -ENOMEM, "cannot make a curl handle");
	}
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, http_socket_cb);
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, http_timer_fn);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);
	uv_timer_init(loop, &h->timer);
	h->timer.data = h;
	*out = h;
	return 0;
}

static void
http_timer_closed(uv_handle_t *hd)
{
	free(hd->data);
}

void
http_free(struct http *h)
{
	struct http_req *r;

	if (h == NULL)
		return;
	while ((r = TAILQ_FIRST(&h->reqs)) != NULL)
		http_req_free(r);
	curl_multi_cleanup(h->multi);
	uv_timer_stop(&h->timer);
	uv_close((uv_handle_t *)&h->timer, http_timer_closed);
}

int
http_request(struct http *h, const char *method, const char *url,
    const char *token, const char *json, long timeout_ms, http_done_cb *cb,
    void *arg, struct http_req **out, struct bd_error *err)
{
	struct http_req *r = xcalloc(1, sizeof(*r));
	char *auth;

	r->h = h;
	r->cb = cb;
	r->arg = arg;
	if ((r->easy = curl_easy_init()) == NULL) {
		free(r);
		return bd_error_set(err, -ENOMEM, "cannot make a curl request");
	}
	curl_easy_setopt(r->easy, CURLOPT_URL, url);
	curl_easy_setopt(r->easy, CURLOPT_PRIVATE, r);
	curl_easy_setopt(r->easy, CURLOPT_WRITEFUNCTION, http_write_cb);
	curl_easy_setopt(r->easy, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(r->easy, CURLOPT_ERRORBUFFER, r->errbuf);
	curl_easy_setopt(r->easy, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(r->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(r->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	r->hdrs = curl_slist_append(r->hdrs, "Accept: application/json");
	if (token != NULL) {
		xasprintf(&auth, "Authorization: Token %s", token);
		r->hdrs = curl_slist_append(r->hdrs, auth);
		free(auth);
	}
	if (json != NULL) {
		r->post = xstrdup(json);
		r->hdrs = curl_slist_append(r->hdrs,
		    "Content-Type: application/json");
		curl_easy_setopt(r->easy, CURLOPT_POSTFIELDS, r->post);
	}
	if (strcmp(method, "GET") != 0 && json == NULL)
		curl_easy_setopt(r->easy, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(r->easy, CURLOPT_HTTPHEADER, r->hdrs);
	TAILQ_INSERT_TAIL(&h->reqs, r, entry);
	h->npending++;
	if (curl_multi_add_handle(h->multi, r->easy) != CURLM_OK) {
		http_req_free(r);
		return bd_error_set(err, -EIO, "cannot start a request");
	}
	if (out != NULL)
		*out = r;
	return 0;
}

void
http_cancel(struct http_req *r)
{
	if (r != NULL)
		http_req_free(r);
}

size_t
http_pending(const struct http *h)
{
	return h->npending;
}
