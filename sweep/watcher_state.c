/* SPDX-License-Identifier: MIT */
/*
 * The watcher's bookkeeping: comparing the mirror's refs with the stored
 * snapshot, what `repo` shows, and the events `watch` and the listeners
 * get.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "sweep/watcher_int.h"
#include "repo/mirror.h"

static const char *const watcher_change_names[] = {
	[REF_APPEARED] = "appeared",
	[REF_MOVED] = "moved",
	[REF_DISAPPEARED] = "disappeared",
};

void
watcher_globs(const char *list, char ***globsp, size_t *np)
{
	const char *p = list != NULL ? list : "refs/heads/* refs/tags/*";
	char **g = NULL;
	size_t n = 0, len;

	for (;;) {
		p += strspn(p, " \t,");
		if (*p == '\0')
			break;
		len = strcspn(p, " \t,");
		g = xreallocarray(g, n + 1, sizeof(*g));
		g[n++] = xstrndup(p, len);
		p += len;
	}
	*globsp = g;
	*np = n;
}

struct watcher_snap {
	struct mirror_ref	*refs;
	size_t			 n;
};

/* Collects one stored ref; the store's strings die with the row. */
static int
watcher_snap_row(void *arg, const struct store_ref *r)
{
	struct watcher_snap *s = arg;

	s->refs = xreallocarray(s->refs, s->n + 1, sizeof(*s->refs));
	s->refs[s->n].name = xstrdup(r->ref);
	snprintf(s->refs[s->n].id, sizeof(s->refs[s->n].id), "%s", r->id);
	s->n++;
	return 0;
}

int
watcher_snapshot(struct watcher *w, struct watcher_job *j,
    struct bd_error *err)
{
	struct watcher_snap s = { NULL, 0 };
	int rc;

	rc = store_ref_list(w->env.store, watcher_snap_row, &s, err);
	if (rc < 0) {
		mirror_refs_free(s.refs, s.n);
		return rc;
	}
	j->old = s.refs;
	j->nold = s.n;
	return 0;
}

/* Appends one event whose strings point into the job's two lists. */
static void
watcher_add_event(struct watcher_job *j, const char *ref, const char *old,
    const char *new, enum ref_change change)
{
	struct store_ref_event *e;

	j->ev = xreallocarray(j->ev, j->nev + 1, sizeof(*j->ev));
	e = &j->ev[j->nev++];
	memset(e, 0, sizeof(*e));
	e->ref = ref;
	e->old_id = old;
	e->new_id = new;
	e->change = (int)change;
}

/*
 * Both lists are sorted by name (the store's ORDER BY ref and
 * mirror_refs' qsort both use byte order), so one merge finds every
 * change.  A ref the globs no longer match counts as disappeared.
 */
void
watcher_diff(struct watcher_job *j)
{
	size_t a = 0, b = 0, i, k;
	int c;

	while (a < j->nold || b < j->nnow) {
		c = a == j->nold ? 1 : b == j->nnow ? -1 :
		    strcmp(j->old[a].name, j->now[b].name);
		if (c < 0) {
			watcher_add_event(j, j->old[a].name, j->old[a].id,
			    NULL, REF_DISAPPEARED);
			a++;
		} else if (c > 0) {
			watcher_add_event(j, j->now[b].name, NULL,
			    j->now[b].id, REF_APPEARED);
			b++;
		} else {
			if (strcmp(j->old[a].id, j->now[b].id) != 0)
				watcher_add_event(j, j->now[b].name,
				    j->old[a].id, j->now[b].id, REF_MOVED);
			a++;
			b++;
		}
	}
	j->matches = xcalloc(j->nglobs + 1, sizeof(*j->matches));
	for (i = 0; i < j->nnow; i++)
		for (k = 0; k < j->nglobs; k++)
			if (fnmatch(j->globs[k], j->now[i].name, 0) == 0)
				j->matches[k]++;
}

void
watcher_record(struct watcher *w, struct watcher_job *j)
{
	size_t i;

	w->finished_ms = w->env.now_ms();
	w->last_rc = j->rc;
	free(w->last_url);
	w->last_url = xstrdup(j->shown);
	for (i = 0; i < j->nskipped; i++)
		log_warnx("fetch from %s: ref left out: %s", j->shown,
		    j->skipped[i]);
	if (j->rc < 0) {
		w->failures++;
		snprintf(w->last_error, sizeof(w->last_error), "%s",
		    j->err.msg);
		log_warnx("fetch from %s failed (%u in a row): %s",
		    j->shown, w->failures, j->err.msg);
		return;
	}
	for (i = 0; i < w->nskipped; i++)
		free(w->skipped[i]);
	free(w->skipped);
	w->skipped = j->skipped;
	w->nskipped = j->nskipped;
	j->skipped = NULL;
	j->nskipped = 0;
	w->failures = 0;
	w->last_error[0] = '\0';
	w->last_ok_ms = w->finished_ms;
	w->last_events = j->nev;
	for (i = 0; i < w->nglobs; i++)
		free(w->globs[i]);
	free(w->globs);
	free(w->matches);
	w->globs = j->globs;
	w->matches = j->matches;
	w->nglobs = j->nglobs;
	j->globs = NULL;
	j->matches = NULL;
	j->nglobs = 0;
	for (i = 0; i < w->nglobs; i++)
		if (w->matches[i] == 0)
			log_warnx("watch_refs: %s matches no ref of %s",
			    w->globs[i], j->shown);
	/* A fetch every interval that changed nothing is not news. */
	if (j->nev > 0)
		log_info("fetched %s: %zu ref change(s)", j->shown, j->nev);
	else
		log_debug("fetched %s: no ref changed", j->shown);
}

/* The repo/refs.h view of a stored event. */
static void
watcher_to_ref_event(const struct store_ref_event *s, struct ref_event *e)
{
	e->seq = s->seq;
	e->ref = s->ref;
	e->old_id = s->old_id;
	e->new_id = s->new_id;
	e->change = (enum ref_change)s->change;
	e->seen_ms = s->seen_ms;
}

/* One event as JSON, for `watch` and `repo`. */
static json_t *
watcher_event_json(const struct store_ref_event *e)
{
	return json_pack("{s:I,s:o,s:s,s:s?,s:s?,s:I}", "seq",
	    (json_int_t)e->seq, "ref", mirror_ref_json(e->ref), "change",
	    watcher_change_names[e->change], "old", e->old_id, "new",
	    e->new_id, "seen_ms", (json_int_t)e->seen_ms);
}

/* The progress counters as JSON. */
static json_t *
watcher_progress_json(struct watcher *w)
{
	struct mirror_progress p;

	pthread_mutex_lock(&w->lock);
	p = w->progress;
	pthread_mutex_unlock(&w->lock);
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}",
	    "received_objects", (json_int_t)p.received_objects,
	    "total_objects", (json_int_t)p.total_objects,
	    "indexed_objects", (json_int_t)p.indexed_objects,
	    "indexed_deltas", (json_int_t)p.indexed_deltas,
	    "total_deltas", (json_int_t)p.total_deltas,
	    "received_bytes", (json_int_t)p.received_bytes);
}

void
watcher_emit_progress(struct watcher *w)
{
	uint64_t seq;

	if (w->env.emit == NULL)
		return;
	pthread_mutex_lock(&w->lock);
	seq = w->progress_seq;
	pthread_mutex_unlock(&w->lock);
	if (seq == w->last_emitted_seq)
		return;
	w->last_emitted_seq = seq;
	w->env.emit(w->env.emit_arg, "repo", json_pack("{s:s,s:o}",
	    "phase", "fetching", "progress", watcher_progress_json(w)));
}

void
watcher_announce(struct watcher *w, struct watcher_job *j)
{
	struct ref_event e;
	json_t *changes;
	size_t i, k;

	if (w->env.emit != NULL) {
		changes = json_array();
		for (i = 0; j->rc == 0 && i < j->nev; i++)
			json_array_append_new(changes,
			    watcher_event_json(&j->ev[i]));
		w->env.emit(w->env.emit_arg, "repo", json_pack(
		    "{s:s,s:s?,s:o,s:I}", "phase", j->rc == 0 ? "fetched" :
		    "failed", "error", j->rc < 0 ? j->err.msg : NULL,
		    "changes", changes, "next_fetch_ms",
		    (json_int_t)w->next_ms));
	}
	for (i = 0; j->rc == 0 && i < j->nev; i++) {
		watcher_to_ref_event(&j->ev[i], &e);
		for (k = 0; k < w->nlisteners; k++)
			w->listeners[k].fn(w->listeners[k].arg, &e);
	}
}

struct watcher_replay {
	ref_event_fn	*fn;
	void		*arg;
};

/* One stored event to a replaying consumer. */
static int
watcher_replay_row(void *arg, const struct store_ref_event *s)
{
	struct watcher_replay *r = arg;
	struct ref_event e;

	watcher_to_ref_event(s, &e);
	r->fn(r->arg, &e);
	return 0;
}

int
watcher_replay(struct watcher *w, int64_t seq, ref_event_fn *fn, void *arg,
    struct bd_error *err)
{
	struct watcher_replay r = { fn, arg };

	return store_ref_event_list_since(w->env.store, seq,
	    watcher_replay_row, &r, err);
}

/* One stored event into a JSON array. */
static int
watcher_event_row(void *arg, const struct store_ref_event *e)
{
	json_array_append_new(arg, watcher_event_json(e));
	return 0;
}

json_t *
watcher_events(struct watcher *w, int64_t seq)
{
	json_t *a = json_array();
	struct bd_error err;

	if (store_ref_event_list_since(w->env.store, seq, watcher_event_row,
	    a, &err) < 0)
		log_warnx("ref events: %s", err.msg);
	return a;
}

/* One stored ref for `repo`. */
static int
watcher_ref_json(void *arg, const struct store_ref *r)
{
	json_array_append_new(arg, json_pack("{s:o,s:s}", "ref",
	    mirror_ref_json(r->ref), "id", r->id));
	return 0;
}

json_t *
watcher_state(struct watcher *w)
{
	const struct config *cfg = w->env.config(w->env.config_arg);
	json_t *o, *cj, *refs = json_array(), *globs = json_array(), *skipped;
	struct bd_error err;
	int64_t last = 0;
	size_t i;

	cj = config_to_json(cfg);
	o = json_pack("{s:O?,s:s?,s:b,s:I,s:I}",
	    "url", json_object_get(json_object_get(cj, "repo"), "url"),
	    "path", cfg->repo.path, "fetching", w->job != NULL,
	    "fetch_interval_ms", (json_int_t)cfg->repo.fetch_interval_ms,
	    "failures", (json_int_t)w->failures);
	json_decref(cj);
	if (w->job != NULL)
		json_object_set_new(o, "progress", watcher_progress_json(w));
	if (w->finished_ms > 0)
		json_object_set_new(o, "last_fetch", json_pack(
		    "{s:I,s:I,s:b,s:s?,s:I}", "started_ms",
		    (json_int_t)w->started_ms, "finished_ms",
		    (json_int_t)w->finished_ms, "ok", w->last_rc == 0,
		    "error", w->last_rc < 0 ? w->last_error : NULL,
		    "changes", (json_int_t)(w->last_rc == 0 ?
		    w->last_events : 0)));
	else
		json_object_set_new(o, "last_fetch", json_null());
	json_object_set_new(o, "last_ok_ms", w->last_ok_ms ?
	    json_integer(w->last_ok_ms) : json_null());
	json_object_set_new(o, "next_fetch_ms", w->next_ms ?
	    json_integer(w->next_ms) : json_null());
	for (i = 0; i < w->nglobs; i++)
		json_array_append_new(globs, json_pack("{s:s,s:I}", "glob",
		    w->globs[i], "matches", (json_int_t)w->matches[i]));
	json_object_set_new(o, "watch_refs", globs);
	skipped = json_array();
	for (i = 0; i < w->nskipped; i++)
		json_array_append_new(skipped, json_string(w->skipped[i]));
	json_object_set_new(o, "skipped_refs", skipped);
	if (store_ref_list(w->env.store, watcher_ref_json, refs, &err) < 0)
		json_array_clear(refs);
	json_object_set_new(o, "refs", refs);
	if (store_ref_event_last(w->env.store, &last, &err) == 0)
		json_object_set_new(o, "last_event_seq", json_integer(last));
	return o;
}
