/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the graph oracle tests (graph_oracle_test.c,
 * graph_session_test.c): repogen fixtures, git run through argument
 * vectors, random revisions, and one bisection step seen from git and
 * from the graph module in the same terms.
 */
#ifndef TESTS_INTEGRATION_GRAPH_ORACLE_H
#define TESTS_INTEGRATION_GRAPH_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include <git2.h>

#include "bisect/graph.h"
#include "repo/graph.h"
#include "repo/next.h"
#include "repo/rev.h"

#define MAXREV	64
#define HEXSZ	GIT_OID_HEXSZ

/* The test's fixture, released in fini also after a failed assertion. */
struct graph_oracle_fixture {
	char		*tmp;
	char		*repo;
	char		*clone;
	git_repository	*r;
	int		 libgit2;
	int		 oracle_no_cg;	/* git -c core.commitGraph=false */
	uint64_t	 rng;
};

extern struct graph_oracle_fixture graph_oracle;

/* An argument vector built word by word. */
struct av {
	char	*v[4 * MAXREV + 16];
	char	 buf[4 * MAXREV + 16][HEXSZ + 2];
	int	 n;
};

/* Every commit of the repository, as hex strings (one buffer). */
struct commits {
	char	*buf;
	char	**v;
	size_t	 n;
};

/* A bisection's revisions as hex strings and ids. */
struct revs {
	char	 bad[HEXSZ + 1];
	char	 good[MAXREV][HEXSZ + 1];
	size_t	 ngood;
	char	 skip[MAXREV][HEXSZ + 1];
	size_t	 nskip;
	git_oid	 goodoid[MAXREV];
	git_oid	 skipoid[MAXREV];
	int	 fp;
};

/* What one bisection step decided, from git or from repo_next. */
enum step_kind { SK_TEST, SK_MERGE_BASE, SK_FOUND, SK_ONLY, SK_ERROR };

struct step {
	enum step_kind	 kind;
	char		 commit[HEXSZ + 1];
	char		 cands[4 * MAXREV][HEXSZ + 1];
	size_t		 ncands;
};

/* A session's tested commits and verdicts, and how it ended. */
struct session {
	char		 verdict[256];		/* 'g', 'b', 's' */
	char		 commit[256][HEXSZ + 1];
	size_t		 n;
	struct step	 end;
};

extern const char *const graph_oracle_step_names[];

void	 graph_oracle_cleanup(void);
size_t	 graph_oracle_rndn(size_t n);
void	 graph_oracle_av_add(struct av *a, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	 graph_oracle_av_word(struct av *a, const char *w);
void	 graph_oracle_av_git(struct av *a, const char *repo);
void	 graph_oracle_av_range(struct av *a, const struct revs *rv,
	    int negate);
char	*graph_oracle_run_out(struct av *a, int *status);
size_t	 graph_oracle_lines(char *out, char ***v);
const char *graph_oracle_repogen(void);
void	 graph_oracle_fixture(const char *kind, const char *dates, int seed,
	    int commits);
char	*graph_oracle_git(const char *repo, const char *first, ...);
void	 graph_oracle_oid_of(const char *hex, git_oid *oid);
void	 graph_oracle_sha(const char *rev, char *hex);
void	 graph_oracle_commits_of(struct commits *c, const char *first, ...);
void	 graph_oracle_commits_free(struct commits *c);
int	 graph_oracle_in_list(char list[][HEXSZ + 1], size_t n,
	    const char *hex);
void	 graph_oracle_to_graph_revs(struct revs *rv, struct repo_revs *gr,
	    unsigned flags);
int	 graph_oracle_pick_revs(struct revs *rv, const struct commits *all,
	    const struct commits *tags);
void	 graph_oracle_next_tags(struct commits *t);
void	 graph_oracle_make_clone(void);
char	*graph_oracle_git_bisect_start(struct revs *rv, int *st);
void	 graph_oracle_git_bisect_reset(void);
int	 graph_oracle_ancestors_ok(void);
void	 graph_oracle_parse_git_step(char *out, int status, struct step *s);
void	 graph_oracle_session_step(struct repo_next_session *gs,
	    struct revs *rv, unsigned flags, struct step *s);
void	 graph_oracle_our_step(struct revs *rv, unsigned flags,
	    struct step *s);
void	 graph_oracle_assert_same_step(const struct step *git_s,
	    const struct step *ours, const char *what, int round);

#endif
