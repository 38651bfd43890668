#include <stdlib.h>
#include <string.h>

#include "daemon/ctl.h"
#include "daemon/daemon.h"
#include "daemon/watch.h"

/* One encoding for all subscribers: events are cheap when nobody watches. */
void
watch_emit(struct daemon *d, const char *event, json_t *fields)
{
	struct ctl_conn *c;
	json_t *ev;
	char *line;
	size_t len;
	int any = 0;

	if (d->ctl_ready)
		TAILQ_FOREACH(c, &d->ctl.conns, entry)
			if ((c->subscriptions & WATCH_ALL) && !c->closing)
				any = 1;
	if (!any) {
		json_decref(fields);
		return;
	}
	ev = json_pack("{s:s, s:I}", "event", event, "time_ms",
	    (json_int_t)daemon_now_ms());
	if (fields != NULL) {
		json_object_update(ev, fields);
		json_decref(fields);
	}
	line = json_dumps(ev, JSON_COMPACT);
	json_decref(ev);
	if (line == NULL)
		return;
	len = strlen(line);
	TAILQ_FOREACH(c, &d->ctl.conns, entry)
		if ((c->subscriptions & WATCH_ALL) && !c->closing) {
			ctl_conn_send(c, line, len);
			ctl_conn_send(c, "\n", 1);
		}
	free(line);
}
