/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the graph oracle tests; see graph_oracle.h.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "bisect/graph.h"
#include "common/xmalloc.h"
#include "tests/integration/graph_oracle.h"
#include "tests/support/tst.h"

struct graph_oracle_fixture graph_oracle;

/* Runs in fini, after a failed assertion too. */
void
graph_oracle_cleanup(void)
{
	if (graph_oracle.r != NULL)
		git_repository_free(graph_oracle.r);
	if (graph_oracle.libgit2)
		git_libgit2_shutdown();
	tst_rmrf(graph_oracle.tmp);
	free(graph_oracle.tmp);
	free(graph_oracle.repo);
	free(graph_oracle.clone);
	memset(&graph_oracle, 0, sizeof(graph_oracle));
}

/* splitmix64: every round can be replayed from the seed. */
static uint64_t
rnd(void)
{
	uint64_t z = (graph_oracle.rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A uniform index below n. */
size_t
graph_oracle_rndn(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}


/* Short formatted words (shas, options) are copied. */
void
graph_oracle_av_add(struct av *a, const char *fmt, ...)
{
	va_list ap;

	cr_assert_lt(a->n, (int)(sizeof(a->v) / sizeof(a->v[0])) - 1);
	va_start(ap, fmt);
	vsnprintf(a->buf[a->n], sizeof(a->buf[0]), fmt, ap);
	va_end(ap);
	a->v[a->n] = a->buf[a->n];
	a->v[++a->n] = NULL;
}

/* Long words (paths) are kept by pointer. */
void
graph_oracle_av_word(struct av *a, const char *w)
{
	cr_assert_lt(a->n, (int)(sizeof(a->v) / sizeof(a->v[0])) - 1);
	a->v[a->n] = (char *)w;
	a->v[++a->n] = NULL;
}

/* bad, then every good (as ^good for rev-list when negate). */
void
graph_oracle_av_range(struct av *a, const struct revs *rv, int negate)
{
	size_t i;

	graph_oracle_av_add(a, "%s", rv->bad);
	for (i = 0; i < rv->ngood; i++)
		graph_oracle_av_add(a, "%s%s", negate ? "^" : "", rv->good[i]);
}

/* Every git command runs in a given repository. */
void
graph_oracle_av_git(struct av *a, const char *repo)
{
	a->n = 0;
	graph_oracle_av_word(a, "git");
	graph_oracle_av_word(a, "-C");
	graph_oracle_av_word(a, repo);
}

/*
 * Runs argv; stdout (caller frees) and the exit status.  stderr goes to
 * /dev/null: git's warnings are expected here and would bury the report.
 */
char *
graph_oracle_run_out(struct av *a, int *status)
{
	int fd[2], st, null;
	size_t len = 0, cap = 8192;
	ssize_t n;
	char *out = xmalloc(cap);
	pid_t pid;

	cr_assert_eq(pipe(fd), 0);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 2);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(a->v[0], a->v);
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], out + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			cap *= 2;
			out = xreallocarray(out, cap, 1);
		}
	}
	close(fd[0]);
	out[len] = '\0';
	cr_assert_neq(waitpid(pid, &st, 0), -1);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	cr_assert_neq(*status, 127, "cannot run %s", a->v[0]);
	return out;
}

/* Splits output into lines in place; returns the count. */
size_t
graph_oracle_lines(char *out, char ***v)
{
	size_t n = 0, cap = 16;
	char *p, *save = NULL;

	*v = xcalloc(cap, sizeof(char *));
	for (p = strtok_r(out, "\n", &save); p != NULL;
	    p = strtok_r(NULL, "\n", &save)) {
		if (n + 1 == cap) {
			cap *= 2;
			*v = xreallocarray(*v, cap, sizeof(char *));
		}
		(*v)[n++] = p;
	}
	return n;
}

/* `make test` builds repogen next to bisectctl. */
const char *
graph_oracle_repogen(void)
{
	static char path[4096];
	char *ctl = xstrdup(tst_env_path("BISECTCTL_BIN"));

	snprintf(path, sizeof(path), "%s/repogen", dirname(ctl));
	free(ctl);
	cr_assert_eq(access(path, X_OK), 0, "%s missing: run the tests "
	    "through `make test`", path);
	return path;
}

/* A fresh repository from repogen, opened with libgit2. */
void
graph_oracle_fixture(const char *kind, const char *dates, int seed, int commits)
{
	struct av a;
	int st;
	char *out;

	graph_oracle.rng = (uint64_t)seed * 7919 + 17;
	graph_oracle.tmp = tst_tmpdir("graph");
	cr_assert_not_null(graph_oracle.tmp);
	xasprintf(&graph_oracle.repo, "%s/repo", graph_oracle.tmp);
	a.n = 0;
	graph_oracle_av_word(&a, graph_oracle_repogen());
	graph_oracle_av_word(&a, "init");
	graph_oracle_av_word(&a, graph_oracle.repo);
	graph_oracle_av_add(&a, "-k");
	graph_oracle_av_add(&a, "%s", kind);
	graph_oracle_av_add(&a, "-d");
	graph_oracle_av_add(&a, "%s", dates);
	graph_oracle_av_add(&a, "-s");
	graph_oracle_av_add(&a, "%d", seed);
	graph_oracle_av_add(&a, "-n");
	graph_oracle_av_add(&a, "%d", commits);
	out = graph_oracle_run_out(&a, &st);
	free(out);
	cr_assert_eq(st, 0, "repogen failed");
	git_libgit2_init();
	graph_oracle.libgit2 = 1;
	cr_assert_eq(git_repository_open(&graph_oracle.r, graph_oracle.repo),
	    0);
}

/* Output of `git -C repo ARGS...`, which must succeed. */
char *
graph_oracle_git(const char *repo, const char *first, ...)
{
	struct av a;
	va_list ap;
	const char *w;
	char *out;
	int st;

	graph_oracle_av_git(&a, repo);
	va_start(ap, first);
	for (w = first; w != NULL; w = va_arg(ap, const char *))
		graph_oracle_av_word(&a, w);
	va_end(ap);
	out = graph_oracle_run_out(&a, &st);
	cr_assert_eq(st, 0, "git %s failed", first);
	return out;
}

/* Hex from git's output to an id for the graph API. */
void
graph_oracle_oid_of(const char *hex, git_oid *oid)
{
	cr_assert_eq(git_oid_fromstr(oid, hex), 0, "bad sha '%s'", hex);
}


/* `git rev-list ARGS...` as a list of shas. */
void
graph_oracle_commits_of(struct commits *c, const char *first, ...)
{
	struct av a;
	va_list ap;
	const char *w;
	int st;

	graph_oracle_av_git(&a, graph_oracle.repo);
	graph_oracle_av_word(&a, "rev-list");
	va_start(ap, first);
	for (w = first; w != NULL; w = va_arg(ap, const char *))
		graph_oracle_av_word(&a, w);
	va_end(ap);
	c->buf = graph_oracle_run_out(&a, &st);
	cr_assert_eq(st, 0);
	c->n = graph_oracle_lines(c->buf, &c->v);
}

/* Frees a list from commits_of or next_tags. */
void
graph_oracle_commits_free(struct commits *c)
{
	free(c->buf);
	free(c->v);
}


/* Revision lists in the tests are short. */
int
graph_oracle_in_list(char list[][HEXSZ + 1], size_t n, const char *hex)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i], hex) == 0)
			return 1;
	return 0;
}

/* The same revisions for the graph API. */
void
graph_oracle_to_graph_revs(struct revs *rv, struct repo_revs *gr,
    unsigned flags)
{
	size_t i;

	memset(gr, 0, sizeof(*gr));
	graph_oracle_oid_of(rv->bad, &gr->bad);
	for (i = 0; i < rv->ngood; i++)
		graph_oracle_oid_of(rv->good[i], &rv->goodoid[i]);
	for (i = 0; i < rv->nskip; i++)
		graph_oracle_oid_of(rv->skip[i], &rv->skipoid[i]);
	gr->good = rv->goodoid;
	gr->ngood = rv->ngood;
	gr->skip = rv->skipoid;
	gr->nskip = rv->nskip;
	gr->flags = flags | (rv->fp ? REPO_GRAPH_FIRST_PARENT : 0);
}

/*
 * Random endpoints: bad anywhere, goods mostly among its ancestors, some
 * anywhere (unrelated goods make git check merge bases); on linux-next
 * fixtures often an older next tag, as a sweep would.
 */
int
graph_oracle_pick_revs(struct revs *rv, const struct commits *all,
    const struct commits *tags)
{
	struct commits anc;
	size_t i, k;
	const char *g;
	int small;

	memset(rv, 0, sizeof(*rv));
	rv->fp = graph_oracle_rndn(3) == 0;
	if (tags != NULL && tags->n > 3 && graph_oracle_rndn(2) == 0) {
		i = 2 + graph_oracle_rndn(tags->n - 2);
		snprintf(rv->bad, sizeof(rv->bad), "%s", tags->v[i]);
		snprintf(rv->good[rv->ngood++], HEXSZ + 1, "%s",
		    tags->v[i - 1 - graph_oracle_rndn(i < 4 ? i : 4)]);
		return 0;
	}
	snprintf(rv->bad, sizeof(rv->bad), "%s",
	    all->v[graph_oracle_rndn(all->n)]);
	graph_oracle_commits_of(&anc, rv->bad, NULL);
	k = 1 + (graph_oracle_rndn(3) == 0) + (graph_oracle_rndn(6) == 0);
	/* A short range now and then: every edge case shows. */
	small = graph_oracle_rndn(4) == 0;
	for (i = 0; i < k && anc.n > 1; i++) {
		if (small)
			g = anc.v[1 + graph_oracle_rndn(anc.n - 1 < 8 ?
			    anc.n - 1 : 8)];
		else
			g = graph_oracle_rndn(10) < 7 ?
			    anc.v[1 + graph_oracle_rndn(anc.n - 1)] :
			    all->v[graph_oracle_rndn(all->n)];
		if (strcmp(g, rv->bad) != 0 &&
		    !graph_oracle_in_list(rv->good, rv->ngood, g))
			snprintf(rv->good[rv->ngood++], HEXSZ + 1, "%s", g);
	}
	graph_oracle_commits_free(&anc);
	return rv->ngood > 0 ? 0 : -1;
}

/* Tags next-* resolved to commits, oldest first (NULL when none). */
void
graph_oracle_next_tags(struct commits *t)
{
	git_object *o;
	char *names, *shas;
	size_t i;

	names = graph_oracle_git(graph_oracle.repo, "tag", "-l", "next-*",
	    NULL);
	t->n = graph_oracle_lines(names, &t->v);
	shas = xcalloc(t->n + 1, HEXSZ + 1);
	for (i = 0; i < t->n; i++) {
		cr_assert_eq(git_revparse_single(&o, graph_oracle.r, t->v[i]),
		    0, "%s", t->v[i]);
		git_oid_tostr(shas + i * (HEXSZ + 1), HEXSZ + 1,
		    git_object_id(o));
		git_object_free(o);
		t->v[i] = shas + i * (HEXSZ + 1);
	}
	free(names);
	t->buf = shas;
}

const char *const graph_oracle_step_names[] = {
	"test", "merge base", "first bad", "only skipped", "error",
};

/* git bisect writes refs and state files: never in the fixture. */
void
graph_oracle_make_clone(void)
{
	struct av a;
	char *out;
	int st;

	xasprintf(&graph_oracle.clone, "%s/clone", graph_oracle.tmp);
	a.n = 0;
	graph_oracle_av_word(&a, "git");
	graph_oracle_av_word(&a, "clone");
	graph_oracle_av_word(&a, "-q");
	graph_oracle_av_word(&a, "--bare");
	graph_oracle_av_word(&a, graph_oracle.repo);
	graph_oracle_av_word(&a, graph_oracle.clone);
	out = graph_oracle_run_out(&a, &st);
	free(out);
	cr_assert_eq(st, 0, "git clone failed");
}

/*
 * Reads git's words: the end of a bisection (first bad commit, only
 * skipped commits left) anywhere in the output, else the step's merge base
 * or commit to test from BISECT_HEAD, else an error.
 */
void
graph_oracle_parse_git_step(char *out, int status, struct step *s)
{
	char **l, *head;
	size_t i, n = graph_oracle_lines(out, &l);

	memset(s, 0, sizeof(*s));
	s->kind = SK_ERROR;
	for (i = 0; i < n && s->kind == SK_ERROR; i++) {
		if (strstr(l[i], " is the first bad commit") != NULL) {
			s->kind = SK_FOUND;
			snprintf(s->commit, sizeof(s->commit), "%.40s", l[i]);
		} else if (strcmp(l[i], "The first bad commit could be any of:")
		    == 0) {
			s->kind = SK_ONLY;
			for (i++; i < n && strncmp(l[i], "We cannot", 9) != 0;
			    i++)
				snprintf(s->cands[s->ncands++], HEXSZ + 1, "%s",
				    l[i]);
		}
	}
	for (i = 0; i < n && s->kind == SK_ERROR && status == 0; i++) {
		if (strcmp(l[i], "Bisecting: a merge base must be tested") == 0)
			s->kind = SK_MERGE_BASE;
		else if (strncmp(l[i], "Bisecting: ", 11) == 0)
			s->kind = SK_TEST;
	}
	free(l);
	if (s->kind == SK_TEST || s->kind == SK_MERGE_BASE) {
		head = graph_oracle_git(graph_oracle.clone, "rev-parse",
		    "BISECT_HEAD", NULL);
		snprintf(s->commit, sizeof(s->commit), "%.40s", head);
		free(head);
	}
}

/* repo_next_session_step's answer in the same terms. */
void
graph_oracle_session_step(struct repo_next_session *gs, struct revs *rv,
    unsigned flags, struct step *s)
{
	struct repo_revs gr;
	struct repo_next nx;
	struct bd_error err;
	int rc;

	memset(s, 0, sizeof(*s));
	graph_oracle_to_graph_revs(rv, &gr, flags);
	rc = repo_next_session_step(gs, &gr, &nx, &err);
	if (rc != 0) {
		cr_assert_not_null(strstr(err.msg, "is bad"), "%s", err.msg);
		s->kind = SK_ERROR;
		return;
	}
	s->kind = nx.kind == REPO_NEXT_TEST ? SK_TEST :
	    nx.kind == REPO_NEXT_TEST_MERGE_BASE ? SK_MERGE_BASE :
	    nx.kind == REPO_NEXT_FOUND ? SK_FOUND : SK_ONLY;
	git_oid_tostr(s->commit, sizeof(s->commit), &nx.commit);
	for (s->ncands = 0; s->ncands < nx.ncands; s->ncands++)
		git_oid_tostr(s->cands[s->ncands], HEXSZ + 1,
		    &nx.cands[s->ncands]);
	if (s->kind == SK_ONLY)
		s->commit[0] = '\0';
	repo_next_release(&nx);
}

/* A fresh repo_next (one git process) in the same terms. */
void
graph_oracle_our_step(struct revs *rv, unsigned flags, struct step *s)
{
	struct repo_next_session *gs;
	struct bd_error err;

	cr_assert_eq(repo_next_session_new(&gs, graph_oracle.r, &err), 0, "%s",
	    err.msg);
	graph_oracle_session_step(gs, rv, flags, s);
	repo_next_session_free(gs);
}

/* Kind, commit and the candidate list in git's order must agree. */
void
graph_oracle_assert_same_step(const struct step *git_s, const struct step *ours,
    const char *what, int round)
{
	size_t i;

	cr_assert_eq(ours->kind, git_s->kind, "%s %d: git says %s, we say %s",
	    what, round, graph_oracle_step_names[git_s->kind],
	    graph_oracle_step_names[ours->kind]);
	if (git_s->kind == SK_ONLY) {
		cr_assert_eq(ours->ncands, git_s->ncands, "%s %d", what, round);
		for (i = 0; i < git_s->ncands; i++)
			cr_assert_str_eq(ours->cands[i], git_s->cands[i],
			    "%s %d: candidate %zu", what, round, i);
	} else if (git_s->kind != SK_ERROR)
		cr_assert_str_eq(ours->commit, git_s->commit, "%s %d: %s",
		    what, round, graph_oracle_step_names[git_s->kind]);
}

/* `git bisect start --no-checkout [--first-parent] BAD GOOD...`. */
char *
graph_oracle_git_bisect_start(struct revs *rv, int *st)
{
	struct av a;

	graph_oracle_av_git(&a, graph_oracle.clone);
	graph_oracle_av_add(&a, "bisect");
	graph_oracle_av_add(&a, "start");
	graph_oracle_av_add(&a, "--no-checkout");
	if (rv->fp)
		graph_oracle_av_add(&a, "--first-parent");
	graph_oracle_av_range(&a, rv, 0);
	return graph_oracle_run_out(&a, st);
}

/* The clone is reused from round to round. */
void
graph_oracle_git_bisect_reset(void)
{
	free(graph_oracle_git(graph_oracle.clone, "bisect", "reset", NULL));
}

/* The sha of a revision in the fixture. */
void
graph_oracle_sha(const char *rev, char *hex)
{
	char *out = graph_oracle_git(graph_oracle.repo, "rev-parse",
	    "--verify", rev, NULL);

	snprintf(hex, HEXSZ + 1, "%.40s", out);
	free(out);
}

/* Whether git's next step skips the merge-base check. */
int
graph_oracle_ancestors_ok(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/BISECT_ANCESTORS_OK",
	    graph_oracle.clone);
	return access(path, F_OK) == 0;
}
