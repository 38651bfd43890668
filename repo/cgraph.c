/* SPDX-License-Identifier: MIT */
/*
 * A reader for git's commit-graph file (gitformat-commit-graph(5)).
 *
 * libgit2 1.5 has no public call that returns a commit's parents and date
 * from the commit-graph, and its object database inflates every commit,
 * which makes a bisection walk several times slower than git's.  The file
 * is a plain table, so we map it read-only and look entries up by oid.
 * Only a single SHA-1 file without base graphs is used; anything else
 * (split chains, SHA-256, a file that fails a bounds check) makes the
 * commit cache (repo/commits.c) fall back to the object database, which
 * gives the same answers.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "repo/cgraph.h"

#define CG_HASHSZ	20
#define CG_NO_PARENT	0x70000000u
#define CG_OCTOPUS	0x80000000u
#define CG_DATSZ	(CG_HASHSZ + 16)

/* The file is big-endian whatever the host. */
static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/* Chunk offsets are 64-bit. */
static uint64_t
be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* Checks the header and chunk table, recording where each chunk lives. */
static int
cg_parse(struct repo_cgraph *cg)
{
	const uint8_t *m = cg->map, *t;
	uint64_t off, next;
	uint32_t id, i, nchunks;

	if (cg->len < 8 + 12 || memcmp(m, "CGPH", 4) != 0 || m[4] != 1 ||
	    m[5] != 1 || m[7] != 0)
		return -EINVAL;
	nchunks = m[6];
	if (cg->len < 8 + 12 * ((size_t)nchunks + 1))
		return -EINVAL;
	for (i = 0; i < nchunks; i++) {
		t = m + 8 + 12 * i;
		id = be32(t);
		off = be64(t + 4);
		next = be64(t + 16);
		if (off > cg->len || next > cg->len || next < off)
			return -EINVAL;
		if (id == 0x4f494446 && next - off >= 256 * 4)	/* OIDF */
			cg->fanout = m + off;
		else if (id == 0x4f49444c)			/* OIDL */
			cg->oidl = m + off;
		else if (id == 0x43444154)			/* CDAT */
			cg->cdat = m + off;
		else if (id == 0x45444745) {			/* EDGE */
			cg->edge = m + off;
			cg->nedge = (uint32_t)((next - off) / 4);
		}
	}
	if (cg->fanout == NULL || cg->oidl == NULL || cg->cdat == NULL)
		return -EINVAL;
	cg->n = be32(cg->fanout + 255 * 4);
	if ((size_t)(cg->oidl - m) + (size_t)cg->n * CG_HASHSZ > cg->len ||
	    (size_t)(cg->cdat - m) + (size_t)cg->n * CG_DATSZ > cg->len)
		return -EINVAL;
	return 0;
}

/* Maps objdir/info/commit-graph; -ENOENT when absent or unusable. */
int
repo_cgraph_open(struct repo_cgraph *cg, const char *objdir)
{
	struct stat sb;
	char *path;
	void *map;
	int fd;

	memset(cg, 0, sizeof(*cg));
	xasprintf(&path, "%s/info/commit-graph", objdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd == -1)
		return -ENOENT;
	if (fstat(fd, &sb) == -1 || sb.st_size <= 0) {
		close(fd);
		return -ENOENT;
	}
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -ENOENT;
	cg->map = map;
	cg->len = (size_t)sb.st_size;
	if (cg_parse(cg) != 0) {
		repo_cgraph_close(cg);
		return -ENOENT;
	}
	return 0;
}

/* Unmaps; safe on a struct that was never opened. */
void
repo_cgraph_close(struct repo_cgraph *cg)
{
	if (cg->map != NULL)
		munmap((void *)(uintptr_t)cg->map, cg->len);
	memset(cg, 0, sizeof(*cg));
}

/* The fanout narrows the binary search to oids with the same first byte. */
int
repo_cgraph_find(const struct repo_cgraph *cg, const git_oid *oid,
    uint32_t *pos)
{
	uint32_t lo, hi, mid;
	int c;

	lo = oid->id[0] ? be32(cg->fanout + 4 * (oid->id[0] - 1)) : 0;
	hi = be32(cg->fanout + 4 * oid->id[0]);
	if (hi > cg->n || lo > hi)
		return -EIO;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = memcmp(cg->oidl + (size_t)mid * CG_HASHSZ, oid->id,
		    CG_HASHSZ);
		if (c == 0) {
			*pos = mid;
			return 0;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/* Parents are positions; records need their oids. */
const uint8_t *
repo_cgraph_oid(const struct repo_cgraph *cg, uint32_t pos)
{
	return cg->oidl + (size_t)pos * CG_HASHSZ;
}

/* Octopus merges have any number of parents. */
static void
push_parent(uint32_t **par, uint32_t *npar, uint32_t *cap, uint32_t p)
{
	if (*npar == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		*par = xreallocarray(*par, *cap, sizeof(uint32_t));
	}
	(*par)[(*npar)++] = p;
}

/*
 * Reads entry pos: the commit time (34 bits) and the parent positions,
 * following the extra edge list for octopus merges.  The parent array is
 * the caller's scratch buffer, grown as needed.
 */
int
repo_cgraph_commit(const struct repo_cgraph *cg, uint32_t pos,
    int64_t *date, uint32_t **par, uint32_t *npar, uint32_t *cap)
{
	const uint8_t *d = cg->cdat + (size_t)pos * CG_DATSZ + CG_HASHSZ;
	uint32_t p1 = be32(d), p2 = be32(d + 4), e;

	*npar = 0;
	*date = (int64_t)(((uint64_t)(be32(d + 8) & 3) << 32) | be32(d + 12));
	if (p1 == CG_NO_PARENT)
		return 0;
	if (p1 >= cg->n)
		return -EIO;
	push_parent(par, npar, cap, p1);
	if (p2 == CG_NO_PARENT)
		return 0;
	if (!(p2 & CG_OCTOPUS)) {
		if (p2 >= cg->n)
			return -EIO;
		push_parent(par, npar, cap, p2);
		return 0;
	}
	for (e = p2 & ~CG_OCTOPUS;; e++) {
		if (cg->edge == NULL || e >= cg->nedge)
			return -EIO;
		p2 = be32(cg->edge + 4 * (size_t)e);
		if ((p2 & ~CG_OCTOPUS) >= cg->n)
			return -EIO;
		push_parent(par, npar, cap, p2 & ~CG_OCTOPUS);
		if (p2 & CG_OCTOPUS)
			return 0;
	}
}
