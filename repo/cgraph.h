/* SPDX-License-Identifier: MIT */
/*
 * A reader for git's commit-graph file ($GIT_DIR/objects/info/commit-graph,
 * gitformat-commit-graph(5)), mapped read-only.  Used by repo/commits.c;
 * not for other modules.
 *
 * Ownership: a struct repo_cgraph owns its mapping until
 * repo_cgraph_close(); the pointers it hands out point into the mapping.
 */
#ifndef REPO_CGRAPH_H
#define REPO_CGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include <git2.h>

struct repo_cgraph {
	const uint8_t	*map;
	size_t		 len;
	uint32_t	 n;
	const uint8_t	*fanout;
	const uint8_t	*oidl;
	const uint8_t	*cdat;
	const uint8_t	*edge;
	uint32_t	 nedge;
};

/* 0 when a usable file was mapped, -ENOENT when there is none. */
int	repo_cgraph_open(struct repo_cgraph *cg, const char *objdir);
void	repo_cgraph_close(struct repo_cgraph *cg);
/* 0 and *pos, -ENOENT when oid is not in the file, -EIO when it lies. */
int	repo_cgraph_find(const struct repo_cgraph *cg, const git_oid *oid,
	    uint32_t *pos);
/* The raw id of entry pos (a pointer into the mapping). */
const uint8_t *repo_cgraph_oid(const struct repo_cgraph *cg, uint32_t pos);
/*
 * Date and parent positions of entry pos; *par is the caller's scratch
 * buffer of *cap entries, grown as needed.  -EIO when the file lies.
 */
int	repo_cgraph_commit(const struct repo_cgraph *cg, uint32_t pos,
	    int64_t *date, uint32_t **par, uint32_t *npar, uint32_t *cap);

#endif
