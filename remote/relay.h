/* SPDX-License-Identifier: MIT */
/*
 * Files between hosts over SFTP: the artifact relay and result files.
 * A host whose sshd has no SFTP subsystem is served through cat on an
 * exec channel instead ("cat < FILE" to read, "cat > PART" to write),
 * with the same checksums and rename after it.
 *
 * relay_copy() streams a file from one host to another through one fixed
 * buffer (an SFTP read on the source, an SFTP write on the destination,
 * each on its own host's connection), into DST.bisectd-part; then both
 * hosts compute `wc -c` and `sha256sum`, and only when sizes and checksums
 * agree with each other and with the bytes relayed is the part renamed to
 * DST.  relay_fetch() reads a small file (a result file) into memory, with
 * a size limit.
 *
 * Callbacks come exactly once and never from inside the starting call;
 * the relay frees itself after its callback returns.
 */
#ifndef REMOTE_RELAY_H
#define REMOTE_RELAY_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "remote/ssh.h"

#define RELAY_BUFSZ	65536

enum relay_side_id {
	RELAY_SRC = 0,
	RELAY_DST = 1,
};

/* Valid only during the callback. */
struct relay_result {
	int		 rc;		/* 0, or negative errno */
	enum relay_side_id failed;	/* which host failed, when rc != 0 */
	int		 infra;		/* the connection failed, not the file */
	uint64_t	 bytes;
	char		 sha256[65];	/* copy: the verified checksum */
	const char	*data;		/* fetch: the file's bytes */
	size_t		 len;
	/* The host that received (fetch: sent) the bytes has no SFTP: they
	 * went through cat on an exec channel. */
	int		 via_exec;
	struct bd_error	 err;
};

struct relay;
typedef void relay_done_cb(void *arg, const struct relay_result *r);

/*
 * Copies src_path on src to dst_path on dst (directories are created).
 * wait_ms is how long to retry connections.  Returns 0, or negative errno
 * with err set (cb is not called then).
 */
int	relay_copy(struct ssh_conn *src, const char *src_path,
	    struct ssh_conn *dst, const char *dst_path, uint64_t wait_ms,
	    relay_done_cb *cb, void *arg, struct relay **out,
	    struct bd_error *err);
/* Reads path on c; a file over max bytes is an error (-EFBIG). */
int	relay_fetch(struct ssh_conn *c, const char *path, size_t max,
	    uint64_t wait_ms, relay_done_cb *cb, void *arg, struct relay **out,
	    struct bd_error *err);
/* Stops; cb follows with -ECANCELED. */
void	relay_cancel(struct relay *r);

#endif
