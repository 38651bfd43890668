/* SPDX-License-Identifier: MIT */
/*
 * make bench-graph: the graph module against git on one generated
 * linux-next-like repository (tests/fixtures/repogen, 100,000 commits).
 *
 * For a range of about 20,000 candidates it times, side by side in one
 * run, git's next-commit choice (`git rev-list --bisect`, a process) and
 * ours (repo_graph_load + graph_git_choice in process, and `bisectctl
 * next` as a process, which also runs the merge-base check), first
 * without and then with a commit-graph file, and checks that both pick
 * the same commit.  Then the per-sample update graph_prob_bad against the naive
 * per-merge ancestor walk it replaced.  It prints ratios, not bare times.
 *
 *   graph_bench --repogen PATH --bisectctl PATH --dir DIR
 *	[--commits N] [--range N] [--runs R] [--seed S]
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "bisect/graph.h"
#include "repo/graph.h"
#include "common/xmalloc.h"

struct bench {
	const char	*repogen;
	const char	*bisectctl;
	const char	*dir;
	char		*repo;
	long		 commits;
	long		 range;
	int		 runs;
	long		 seed;
	git_repository	*r;
	git_oid		 bad;
	git_oid		*good;
	size_t		 ngood;
	char		 badhex[GIT_OID_HEXSZ + 1];
	char		 goodtag[64];
};

/* Wall clock: git runs as a process, we compare what a user waits. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* For the median. */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Medians resist the noise of a shared machine. */
static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return v[n / 2];
}

/* A benchmark that cannot run must not print ratios. */
static void __attribute__((noreturn))
fail(const char *what)
{
	const git_error *e = git_error_last();

	fprintf(stderr, "graph_bench: %s%s%s\n", what, e ? ": " : "",
	    e ? e->message : "");
	exit(1);
}

/* Runs argv; its first output line goes to line (if not NULL). */
static int
run(char *const argv[], char *line, size_t len)
{
	int fd[2], st, devnull;
	ssize_t n;
	size_t got = 0;
	char buf[4096];
	pid_t pid;

	if (pipe(fd) == -1)
		fail("pipe");
	if ((pid = fork()) == -1)
		fail("fork");
	if (pid == 0) {
		devnull = open("/dev/null", O_RDWR);
		dup2(devnull, 0);
		dup2(devnull, 2);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf, sizeof(buf))) > 0)
		if (line != NULL && got + 1 < len) {
			size_t k = (size_t)n < len - 1 - got ? (size_t)n :
			    len - 1 - got;

			memcpy(line + got, buf, k);
			got += k;
		}
	close(fd[0]);
	if (line != NULL) {
		line[got] = '\0';
		line[strcspn(line, "\n")] = '\0';
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Generates the repository once; later runs reuse it. */
static void
make_repo(struct bench *b)
{
	char seed[32], n[32], *argv[12];
	struct stat sb;
	double t;

	mkdir(b->dir, 0755);
	xasprintf(&b->repo, "%s/next-%ld-%ld", b->dir, b->commits, b->seed);
	if (stat(b->repo, &sb) == 0)
		return;
	snprintf(seed, sizeof(seed), "%ld", b->seed);
	snprintf(n, sizeof(n), "%ld", b->commits);
	argv[0] = (char *)b->repogen;
	argv[1] = "init";
	argv[2] = b->repo;
	argv[3] = "-k";
	argv[4] = "next";
	argv[5] = "-s";
	argv[6] = seed;
	argv[7] = "-n";
	argv[8] = n;
	argv[9] = NULL;
	t = now();
	if (run(argv, NULL, 0) != 0)
		fail("repogen failed");
	printf("generated %s (%ld commits) in %.1f s\n", b->repo, b->commits,
	    now() - t);
}

/* next-YYYYMMDD names sort by date. */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Goods for tag index k: the tag and its merge bases with bad. */
static void
set_goods(struct bench *b, const char *tag)
{
	git_object *o;
	git_oidarray mb;
	size_t i;

	if (git_revparse_single(&o, b->r, tag) != 0)
		fail("revparse");
	free(b->good);
	b->good = xcalloc(64, sizeof(git_oid));
	git_oid_cpy(&b->good[0], git_object_id(o));
	b->ngood = 1;
	if (git_merge_bases(&mb, b->r, &b->bad, git_object_id(o)) == 0) {
		for (i = 0; i < mb.count && b->ngood < 64; i++)
			git_oid_cpy(&b->good[b->ngood++], &mb.ids[i]);
		git_oidarray_dispose(&mb);
	}
	git_object_free(o);
	snprintf(b->goodtag, sizeof(b->goodtag), "%s", tag);
}

/* Our own load counts candidates without a git process. */
static size_t
range_size(struct bench *b)
{
	struct graph g;
	struct bd_error err;
	size_t n;

	if (repo_graph_load(&g, b->r, &b->bad, b->good, b->ngood, 0, &err) != 0)
		return 0;
	n = g.n;
	graph_release(&g);
	return n;
}

/* bad = the newest next tag; good = the newest older tag giving >= range. */
static void
pick_range(struct bench *b)
{
	git_strarray tags;
	git_object *o;
	char **v;
	size_t lo, hi, mid;

	if (git_tag_list_match(&tags, "next-*", b->r) != 0 || tags.count < 2)
		fail("no next-* tags");
	v = xcalloc(tags.count, sizeof(char *));
	memcpy(v, tags.strings, tags.count * sizeof(char *));
	qsort(v, tags.count, sizeof(char *), cmp_str);
	if (git_revparse_single(&o, b->r, v[tags.count - 1]) != 0)
		fail("revparse");
	git_oid_cpy(&b->bad, git_object_id(o));
	git_oid_tostr(b->badhex, sizeof(b->badhex), &b->bad);
	git_object_free(o);
	lo = 0;
	hi = tags.count - 2;
	while (lo < hi) {	/* the latest tag whose range is big enough */
		mid = lo + (hi - lo + 1) / 2;
		set_goods(b, v[mid]);
		if (range_size(b) >= (size_t)b->range)
			lo = mid;
		else
			hi = mid - 1;
	}
	set_goods(b, v[lo]);
	printf("range: bad %s, good %s and its %zu merge base(s) with bad\n",
	    v[tags.count - 1], b->goodtag, b->ngood - 1);
	free(v);
	git_strarray_dispose(&tags);
}

/* `git rev-list --bisect BAD ^GOOD...`, the oracle. */
static char **
git_argv(struct bench *b, char hex[][GIT_OID_HEXSZ + 2])
{
	char **argv = xcalloc(b->ngood + 8, sizeof(char *));
	size_t i, k = 0;

	argv[k++] = "git";
	argv[k++] = "-C";
	argv[k++] = b->repo;
	argv[k++] = "rev-list";
	argv[k++] = "--bisect";
	argv[k++] = b->badhex;
	for (i = 0; i < b->ngood; i++) {
		hex[i][0] = '^';
		git_oid_tostr(hex[i] + 1, GIT_OID_HEXSZ + 1, &b->good[i]);
		argv[k++] = hex[i];
	}
	return argv;
}

/* The same revisions for `bisectctl next`. */
static char **
ctl_argv(struct bench *b, char hex[][GIT_OID_HEXSZ + 2])
{
	char **argv = xcalloc(2 * b->ngood + 10, sizeof(char *));
	size_t i, k = 0;

	argv[k++] = (char *)b->bisectctl;
	argv[k++] = "next";
	argv[k++] = "--repo";
	argv[k++] = b->repo;
	argv[k++] = "--bad";
	argv[k++] = b->badhex;
	for (i = 0; i < b->ngood; i++) {
		argv[k++] = "--good";
		argv[k++] = hex[i] + 1;
	}
	return argv;
}

/*
 * Our choice in process: open the repository afresh (no warm object
 * cache), load the range and pick, as the daemon would.
 */
static void
ours(struct bench *b, char *hex, size_t *n, size_t *merges)
{
	git_repository *r;
	struct graph g;
	struct graph_choice c;
	struct bd_error err;
	size_t i;

	if (git_repository_open(&r, b->repo) != 0)
		fail("cannot open the repository");
	if (repo_graph_load(&g, r, &b->bad, b->good, b->ngood, 0, &err) != 0 ||
	    graph_git_choice(&g, NULL, 0, &c, &err) != 0) {
		fprintf(stderr, "graph_bench: %s\n", err.msg);
		exit(1);
	}
	graph_oid_tostr(hex, GIT_OID_HEXSZ + 1, &g.oids[c.commit]);
	*n = g.n;
	*merges = 0;
	for (i = 0; i < g.n; i++)
		*merges += g.par_off[i + 1] - g.par_off[i] >= 2;
	graph_choice_release(&c);
	graph_release(&g);
	git_repository_free(r);
}

/* All three timed in the same loop, so load affects them alike. */
static void
compare_choice(struct bench *b, const char *label)
{
	char (*hex)[GIT_OID_HEXSZ + 2] = xcalloc(b->ngood, sizeof(*hex));
	char gitline[128], ourhex[GIT_OID_HEXSZ + 1], ctlline[128];
	char **gargv = git_argv(b, hex), **cargv = ctl_argv(b, hex);
	double *tg = xcalloc((size_t)b->runs, sizeof(double));
	double *to = xcalloc((size_t)b->runs, sizeof(double));
	double *tc = xcalloc((size_t)b->runs, sizeof(double));
	size_t n = 0, merges = 0;
	double t, mg, mo, mc;
	int i;

	for (i = 0; i < b->runs; i++) {
		t = now();
		if (run(gargv, gitline, sizeof(gitline)) != 0)
			fail("git rev-list --bisect failed");
		tg[i] = now() - t;
		t = now();
		ours(b, ourhex, &n, &merges);
		to[i] = now() - t;
		t = now();
		if (run(cargv, ctlline, sizeof(ctlline)) != 0)
			fail("bisectctl next failed");
		tc[i] = now() - t;
	}
	mg = median(tg, b->runs);
	mo = median(to, b->runs);
	mc = median(tc, b->runs);
	printf("%-18s %6zu candidates, %5zu merges | git %7.1f ms | ours "
	    "%7.1f ms (x%.2f faster) | bisectctl next %7.1f ms (x%.2f) | "
	    "same commit: %s\n", label, n, merges, mg * 1e3, mo * 1e3, mg / mo,
	    mc * 1e3, mg / mc, strcmp(gitline, ourhex) == 0 &&
	    strcmp(ctlline, ourhex) == 0 ? "yes" : "NO");
	free(hex);
	free(gargv);
	free(cargv);
	free(tg);
	free(to);
	free(tc);
}

/* The implementation graph_prob_bad replaced: walk every merge's ancestors. */
static void
naive_prob_bad(const struct graph *g, const double *mass, double *p,
    uint32_t *stamp, uint32_t *stack)
{
	size_t x, sp;
	uint32_t j, y, q;
	double sum;

	memset(stamp, 0, g->n * sizeof(uint32_t));
	for (x = 0; x < g->n; x++) {
		uint32_t np = g->par_off[x + 1] - g->par_off[x];

		if (np <= 1) {
			p[x] = mass[x] + (np ? p[g->par[g->par_off[x]]] : 0);
			continue;
		}
		sum = 0;
		sp = 0;
		stamp[x] = (uint32_t)x + 1;
		stack[sp++] = (uint32_t)x;
		while (sp > 0) {
			y = stack[--sp];
			sum += mass[y];
			for (j = g->par_off[y]; j < g->par_off[y + 1]; j++) {
				q = g->par[j];
				if (stamp[q] != x + 1) {
					stamp[q] = (uint32_t)x + 1;
					stack[sp++] = q;
				}
			}
		}
		p[x] = sum;
	}
}

/* The per-sample update the engine runs after every sample. */
static void
bench_prob(struct bench *b)
{
	struct graph g, copy;
	struct bd_error err;
	double *mass, *p1, *p2, t, tf, tn, tp, diff = 0;
	uint32_t *stamp, *stack;
	size_t i, merges = 0;
	int k, reps = 200;

	if (repo_graph_load(&g, b->r, &b->bad, b->good, b->ngood, 0, &err) != 0)
		fail(err.msg);
	mass = xcalloc(g.n, sizeof(double));
	p1 = xcalloc(g.n, sizeof(double));
	p2 = xcalloc(g.n, sizeof(double));
	stamp = xcalloc(g.n, sizeof(uint32_t));
	stack = xcalloc(g.n, sizeof(uint32_t));
	srand(1);
	for (i = 0; i < g.n; i++) {
		mass[i] = (double)rand() / RAND_MAX / (double)g.n;
		merges += g.par_off[i + 1] - g.par_off[i] >= 2;
	}
	t = now();
	if (graph_init_parents(&copy, g.n, g.par_off, g.par, &err) != 0)
		fail(err.msg);
	tp = now() - t;
	graph_release(&copy);
	t = now();
	for (k = 0; k < reps; k++)
		graph_prob_bad(&g, mass, p1);
	tf = (now() - t) / reps;
	t = now();
	for (k = 0; k < 3; k++)
		naive_prob_bad(&g, mass, p2, stamp, stack);
	tn = (now() - t) / 3;
	for (i = 0; i < g.n; i++)
		diff = fmax(diff, fabs(p1[i] - p2[i]));
	printf("graph_prob_bad     %6zu candidates, %5zu merges | per sample "
	    "%.3f ms | naive per-merge walk %.1f ms (x%.0f faster) | one-time "
	    "preparation %.1f ms | max difference %.1e\n", g.n, merges,
	    tf * 1e3, tn * 1e3, tn / tf, tp * 1e3, diff);
	free(mass);
	free(p1);
	free(p2);
	free(stamp);
	free(stack);
	graph_release(&g);
}

/* Writes or removes the commit-graph file between the two rounds. */
static void
commit_graph(struct bench *b, int on)
{
	char *argv[] = { "git", "-C", b->repo, "commit-graph", "write",
	    "--reachable", NULL };
	char *path;

	if (on) {
		if (run(argv, NULL, 0) != 0)
			fail("git commit-graph write failed");
		return;
	}
	xasprintf(&path, "%s/.git/objects/info/commit-graph", b->repo);
	unlink(path);
	free(path);
}

/* Generates (once), picks the range, then measures. */
int
main(int argc, char **argv)
{
	struct bench b;
	int i;

	memset(&b, 0, sizeof(b));
	b.commits = 100000;
	b.range = 20000;
	b.runs = 7;
	b.seed = 1;
	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--repogen") == 0)
			b.repogen = argv[i + 1];
		else if (strcmp(argv[i], "--bisectctl") == 0)
			b.bisectctl = argv[i + 1];
		else if (strcmp(argv[i], "--dir") == 0)
			b.dir = argv[i + 1];
		else if (strcmp(argv[i], "--commits") == 0)
			b.commits = atol(argv[i + 1]);
		else if (strcmp(argv[i], "--range") == 0)
			b.range = atol(argv[i + 1]);
		else if (strcmp(argv[i], "--runs") == 0)
			b.runs = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--seed") == 0)
			b.seed = atol(argv[i + 1]);
	}
	if (b.repogen == NULL || b.bisectctl == NULL || b.dir == NULL ||
	    b.runs < 1) {
		fprintf(stderr, "usage: graph_bench --repogen PATH --bisectctl "
		    "PATH --dir DIR [--commits N] [--range N] [--runs R] "
		    "[--seed S]\n");
		return 2;
	}
	make_repo(&b);
	git_libgit2_init();
	if (git_repository_open(&b.r, b.repo) != 0)
		fail("cannot open the repository");
	commit_graph(&b, 0);
	pick_range(&b);
	printf("next-commit choice, median of %d runs (git = `git rev-list "
	    "--bisect`, ours = repo_graph_load + graph_git_choice):\n", b.runs);
	compare_choice(&b, "no commit-graph");
	commit_graph(&b, 1);
	git_repository_free(b.r);	/* reopen: libgit2 caches the odb */
	if (git_repository_open(&b.r, b.repo) != 0)
		fail("cannot open the repository");
	compare_choice(&b, "with commit-graph");
	bench_prob(&b);
	commit_graph(&b, 0);
	git_repository_free(b.r);
	free(b.good);
	free(b.repo);
	git_libgit2_shutdown();
	return 0;
}
