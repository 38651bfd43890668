/* SPDX-License-Identifier: MIT */
/*
 * make bench-sim: the engine against planted culprits, beside the staged
 * engine of before issue 15 and the 0-day, Pinpoint and naive baselines on
 * the same cases and seeds.  --strategy infogain runs the reference policy
 * of tests/bench/sim_infogain.c instead (slow; not in "all").
 *
 * With no case option it prints the standard table; with any of --dag,
 * --n, --noise, --d, --pg, --pb, --skip, --null it runs that one row.
 * Every row prints the command line that reruns it.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/engine.h"
#include "bisect/stats.h"
#include "common/xmalloc.h"
#include "tests/bench/sim.h"
#include "tests/bench/sim_goals.h"
#include "tests/bench/sim_infogain.h"
#include "tests/bench/sim_stats.h"
#include "tests/bench/sim_multi.h"

enum { ST_ENGINE, ST_STAGED, ST_ZERODAY, ST_PINPOINT, ST_NAIVE, ST_INFOGAIN,
	ST_N };

static const char *st_names[ST_N] = { "engine", "staged", "0-day", "pinpoint",
	"naive", "infogain" };
/* What --strategy calls each. */
static const char *st_opts[ST_N] = { "engine", "staged", "0day", "pinpoint",
	"naive", "infogain" };

struct opts {
	struct engine_params ep;
	struct engine_params staged;	/* ep in the staged mode: the engine
					   before issue 15, on the same seeds */
	unsigned	 zd_runs;
	unsigned	 pp_attempts, pp_cap;
	int		 strategies[ST_N];
	int		 host_runs;	/* also run the engine with 4 and 8 hosts */
	unsigned	 trials;	/* per row of the standard table */
	int		 verbose;
	int		 trace;		/* --trace: every sample of the 1-host
					   engine on stderr */
};

struct agg {
	unsigned	 trials, exact, set, named, notrep, incon, failed;
	unsigned	 exact8, drift;
	double		 samples, bisect, builds, endpoint;
	double		 rounds[3];
	unsigned	*slist;
};

/*
 * Reliability of the engine's claims over every row run: verdicts binned
 * by the confidence they state, with the rate at which they were right.
 */
struct calib_bin {
	const char	*name;
	double		 lo, hi;
	unsigned	 n, exact;
	double		 claimed;
};

static struct calib_bin calib[] = {
	{ .name = "0.99-0.995", .lo = 0.99, .hi = 0.995 },
	{ .name = "0.995-0.999", .lo = 0.995, .hi = 0.999 },
	{ .name = "> 0.999", .lo = 0.999, .hi = 2 },
};

#define NCALIB (sizeof(calib) / sizeof(calib[0]))

/* Files one DONE verdict under its claimed confidence; others are not claims. */
static void
calib_add(const struct sim_world *w, const struct sim_result *r)
{
	size_t i;

	if (r->verdict != SIM_DONE)
		return;
	for (i = 0; i < NCALIB; i++)
		if (r->confidence >= calib[i].lo && r->confidence < calib[i].hi)
			break;
	if (i == NCALIB)
		i = 0;	/* below the lowest bin: counted with it */
	calib[i].n++;
	calib[i].claimed += r->confidence;
	calib[i].exact += r->culprit == w->culprit;
}

/*
 * The reliability table: observed exact rate beside the mean claim per
 * bin.  "met" is the goal as written (observed >= claimed); an engine
 * whose claims are exact fails it in about half the bins of any one run,
 * so the table also prints the wrong verdicts against the number the
 * claims expect (the sum of 1 - claim) and how often that many or more
 * would come by chance (p; small means the claims are too high).
 */
static void
calib_print(void)
{
	unsigned tn = 0, tw = 0, wrong;
	double te = 0, expect;
	size_t i;

	printf("\n== calibration over all rows (engine, 1 host, DONE verdicts)\n");
	printf("   %-12s %8s %10s %9s %5s %6s %8s %6s\n", "claimed", "verdicts",
	    "mean claim", "exact%", "met", "wrong", "expected", "p");
	for (i = 0; i < NCALIB; i++) {
		wrong = calib[i].n - calib[i].exact;
		expect = calib[i].n - calib[i].claimed;
		printf("   %-12s %8u %10.4f %9.2f %5s %6u %8.1f %6.3f\n",
		    calib[i].name, calib[i].n,
		    calib[i].n ? calib[i].claimed / calib[i].n : NAN,
		    calib[i].n ? 100.0 * calib[i].exact / calib[i].n : NAN,
		    calib[i].n == 0 ? "-" : calib[i].exact >= calib[i].claimed ?
		    "yes" : "no", wrong, expect,
		    sim_stats_poisson_tail(wrong, expect));
		tn += calib[i].n;
		tw += wrong;
		te += expect;
	}
	printf("   %-12s %8u %10s %9.2f %5s %6u %8.1f %6.3f\n", "all", tn, "",
	    tn ? 100.0 * (tn - tw) / tn : NAN, "", tw, te,
	    sim_stats_poisson_tail(tw, te));
}

/* Adds one trial's outcome to the row. */
static void
agg_add(struct agg *g, const struct sim_world *w, const struct sim_result *r)
{
	int exact = r->verdict == SIM_DONE && r->culprit == w->culprit;

	g->slist = xreallocarray(g->slist, g->trials + 1, sizeof(unsigned));
	g->slist[g->trials++] = r->samples;
	g->exact += exact;
	g->set += exact || (r->verdict == SIM_AMONG && r->set_has &&
	    r->set_size <= 8);
	g->named += r->verdict == SIM_DONE || r->verdict == SIM_AMONG;
	g->notrep += r->verdict == SIM_NOT_REPRODUCED;
	g->incon += r->verdict == SIM_INCONCLUSIVE;
	g->failed += r->verdict == SIM_FAILED;
	g->drift += r->drift;
	g->samples += r->samples;
	g->endpoint += r->endpoint_samples;
	g->bisect += r->samples - r->endpoint_samples;
	g->builds += r->builds;
	g->rounds[0] += r->rounds[0];
}

/* qsort order for sample counts. */
static int
cmp_uns(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* log2(N) / C: no strategy can need fewer samples on average. */
static double
lower_bound(const struct sim_case *cs)
{
	struct stats_gh gh;
	double c;

	if (cs->null)
		return NAN;
	if (strcmp(cs->noise, "passfail") == 0)
		c = sim_stats_capacity_binary(cs->pg, cs->pb);
	else {
		stats_gh_init(&gh);
		c = sim_stats_capacity(&gh, cs->d);
	}
	return log2((double)cs->n) / c;
}

/* Row title, the command that reruns it, and the column names. */
static void
print_case_header(const struct sim_case *cs, const struct opts *o)
{
	printf("\n== dag=%s n=%zu noise=%s", cs->dag, cs->n, cs->noise);
	if (strcmp(cs->noise, "passfail") == 0)
		printf(" pg=%g pb=%g", cs->pg, cs->pb);
	else
		printf(" d=%g", cs->d);
	if (cs->drift != NULL)
		printf(" drift=%s:%g/%u", cs->drift, cs->drift_sd, cs->drift_len);
	if (cs->base > 0)
		printf(" base=%g", cs->base);
	printf(" skip=%g%s trials=%u seed=%llu  lower bound %.1f samples\n",
	    cs->skip, cs->null ? " NULL" : "", cs->trials,
	    (unsigned long long)cs->seed, lower_bound(cs));
	printf("   rerun: sim --dag %s --n %zu --noise %s --d %g --pg %g --pb %g"
	    " --skip %g%s --trials %u --seed %llu", cs->dag, cs->n, cs->noise,
	    cs->d, cs->pg, cs->pb, cs->skip, cs->null ? " --null" : "",
	    cs->trials, (unsigned long long)cs->seed);
	if (cs->drift != NULL)
		printf(" --drift %s --drift-sd %g --drift-len %u", cs->drift,
		    cs->drift_sd, cs->drift_len);
	if (cs->base > 0)
		printf(" --base %g", cs->base);
	printf("\n");
	printf("     --conf %g --max-samples %u --repro-min %u --repro-max %u"
	    " --repro-growth %g"
	    " --repro-alpha %g --repro-beta %g --repro-effect %g --repro-gap %g"
	    " --exist-alpha %g --min-change %g --build-cost %g --run-cost %g --dof %g"
	    " --contamination %g --level-p %g --level-samples %g"
	    " --stop-margin %g --drift-z %g --drift-check %u"
	    " --zeroday-runs %u --pinpoint-attempts %u --pinpoint-cap %u\n",
	    o->ep.confidence, o->ep.max_samples, o->ep.repro_min,
	    o->ep.repro_max, o->ep.repro_growth, o->ep.repro_alpha,
	    o->ep.repro_beta,
	    o->ep.repro_effect, o->ep.repro_gap, o->ep.exist_alpha,
	    o->ep.min_change,
	    o->ep.build_cost, o->ep.run_cost, o->ep.t_dof, o->ep.contamination,
	    o->ep.level_p, o->ep.level_samples, o->ep.stop_margin,
	    o->ep.drift_z, o->ep.drift_check,
	    o->zd_runs, o->pp_attempts,
	    o->pp_cap);
	printf("   %-9s %6s %6s %6s %6s %6s %8s %6s %7s %7s %7s %7s %7s %6s %6s\n",
	    "strategy", "exact%", "set%", "named%", "norep%", "incon%",
	    "samples", "p95", "bisect", "builds", "rnd@1", "rnd@4", "rnd@8",
	    "r8/r1", "b/LB");
}

/* One line per strategy. */
static void
print_agg(const struct sim_case *cs, int st, struct agg *g, int have_k)
{
	double t = g->trials ? g->trials : 1, lb = lower_bound(cs);
	unsigned p95;

	qsort(g->slist, g->trials, sizeof(unsigned), cmp_uns);
	p95 = g->trials ? g->slist[(size_t)(0.95 * (g->trials - 1) + 0.5)] : 0;
	printf("   %-9s %6.1f %6.1f %6.1f %6.1f %6.1f %8.1f %6u %7.1f %7.1f"
	    " %7.1f", st_names[st], 100 * g->exact / t, 100 * g->set / t,
	    100 * g->named / t, 100 * g->notrep / t, 100 * g->incon / t,
	    g->samples / t, p95, g->bisect / t, g->builds / t,
	    g->rounds[0] / t);
	if (have_k)
		printf(" %7.1f %7.1f %6.2f", g->rounds[1] / t, g->rounds[2] / t,
		    g->rounds[0] > 0 ? g->rounds[2] / g->rounds[0] : 0);
	else
		printf(" %7s %7s %6s", "-", "-", "-");
	printf(" %6.2f", cs->null ? NAN : (g->bisect / t) / lb);
	if (st == ST_ENGINE && have_k)
		printf("  (exact%% with 8 hosts %.1f)", 100 * g->exact8 / t);
	if (st == ST_ENGINE || st == ST_STAGED)
		printf("  drift found %.1f%%", 100 * g->drift / t);
	printf("\n");
	fflush(stdout);
}

/* Hands a row's shared and staged figures to the goals table. */
static void
target_add(const struct sim_case *cs, const struct agg *g)
{
	struct sim_goal_stat st[2];
	const struct agg *a;
	int i;

	for (i = 0; i < 2; i++) {
		a = &g[i == 0 ? ST_ENGINE : ST_STAGED];
		if (a->trials == 0)
			return;
		st[i].exact = 100.0 * a->exact / a->trials;
		st[i].wrong = 100.0 * (a->named - a->set) / a->trials;
		st[i].samples = a->samples / a->trials;
	}
	sim_goals_add(cs, &st[0], &st[1]);
}

/* Every strategy on the same worlds, trial by trial. */
static void
run_case(const struct sim_case *cs, const struct opts *o)
{
	struct agg g[ST_N];
	struct sim_world w;
	struct sim_result r, rk;
	unsigned t;
	int st;

	memset(g, 0, sizeof(g));
	print_case_header(cs, o);
	for (t = 0; t < cs->trials; t++) {
		sim_world_init(&w, cs, t);
		for (st = 0; st < ST_N; st++) {
			if (!o->strategies[st])
				continue;
			sim_world_reseed(&w, (unsigned)st);
			switch (st) {
			case ST_ENGINE:
				sim_run_engine(&w, &o->ep, 1, o->trace, &r);
				break;
			case ST_STAGED:
				sim_run_engine(&w, &o->staged, 1, 0, &r);
				break;
			case ST_ZERODAY:
				sim_zeroday(&w, o->zd_runs, &r);
				break;
			case ST_PINPOINT:
				sim_pinpoint(&w, o->pp_attempts, o->pp_cap, &r);
				break;
			case ST_INFOGAIN:
				sim_infogain(&w, engine_stop_mass(&o->ep),
				    o->ep.exist_alpha, o->ep.max_samples, &r);
				break;
			default:
				sim_naive(&w, &r);
			}
			agg_add(&g[st], &w, &r);
			if (st == ST_ENGINE)
				calib_add(&w, &r);
			if (st == ST_STAGED) {
				;	/* one host only: the old engine's cost */
			} else if (st != ST_ENGINE) {
				g[st].rounds[1] += r.rounds[1];
				g[st].rounds[2] += r.rounds[2];
			} else if (o->host_runs) {
				sim_world_reseed(&w, 100);
				sim_run_engine(&w, &o->ep, 4, 0, &rk);
				g[st].rounds[1] += rk.rounds[0];
				sim_world_reseed(&w, 101);
				sim_run_engine(&w, &o->ep, 8, 0, &rk);
				g[st].rounds[2] += rk.rounds[0];
				g[st].exact8 += rk.verdict == SIM_DONE &&
				    rk.culprit == w.culprit;
			}
			if (o->verbose && st == ST_ENGINE)
				fprintf(stderr, "trial %u culprit %u verdict %d"
				    " got %u samples %u drift %d conf %.5f\n", t,
				    w.culprit, r.verdict, r.culprit, r.samples,
				    r.drift, r.confidence);
		}
		sim_world_release(&w);
	}
	for (st = 0; st < ST_N; st++) {
		if (!o->strategies[st])
			continue;
		print_agg(cs, st, &g[st], st != ST_STAGED &&
		    (st != ST_ENGINE || o->host_runs));
	}
	target_add(cs, g);
	for (st = 0; st < ST_N; st++)
		free(g[st].slist);
}

/*
 * The reproduction check alone on a one-commit range, many times: the
 * false "reproduced" rate on nulls and the power at small effects.
 */
static void
calibrate(const struct opts *o, unsigned trials, uint64_t seed)
{
	static const char *noises[] = { "normal", "t3", "outlier", "bimodal",
	    "arrays" };
	static const double ds[] = { 0, 1, 2 };
	struct sim_case cs = { "linear", 1, "normal", 0, 0, 0, 0, 0, 1, seed,
		    NULL, 0, 0, 0 };
	struct sim_result r;
	struct sim_world w;
	unsigned t, rep, ni, di;
	double samples;

	printf("reproduction check: rate of \"reproduced\" and mean endpoint"
	    " samples, %u trials each\n", trials);
	for (ni = 0; ni < 7; ni++) {
		for (di = 0; di < 3; di++) {
			if (ni < 5) {
				cs.noise = noises[ni];
				cs.d = ds[di];
				cs.null = di == 0;
			} else {
				cs.noise = "passfail";
				cs.pg = ni == 5 ? 0.05 : 0.3;
				cs.pb = di == 0 ? cs.pg : di == 1 ? cs.pg + 0.3 : 1;
				cs.null = di == 0;
			}
			rep = 0;
			samples = 0;
			for (t = 0; t < trials; t++) {
				sim_world_init(&w, &cs, t);
				sim_run_engine(&w, &o->ep, 1, 0, &r);
				rep += r.verdict != SIM_NOT_REPRODUCED;
				samples += r.endpoint_samples;
				sim_world_release(&w);
			}
			if (ni < 5)
				printf("  %-8s d=%g", cs.noise, cs.d);
			else
				printf("  %-8s pg=%.2f pb=%.2f", cs.noise, cs.pg,
				    cs.pb);
			printf("  reproduced %6.2f%%  samples %.1f\n",
			    100.0 * rep / trials, samples / trials);
		}
	}
}

/* Drifting test machines: ramps and steps of 0.5 to 2 sd over 80 samples. */
static const struct {
	double		 d, sd;
	const char	*kind;
} drifts[] = {
	{ .d = 2, .sd = 0.5, .kind = "linear" },
	{ .d = 2, .sd = 2, .kind = "linear" },
	{ .d = 2, .sd = 1, .kind = "step" },
	{ .d = 2, .sd = 2, .kind = "step" },
	{ .d = 4, .sd = 2, .kind = "linear" },
	{ .d = 4, .sd = 2, .kind = "step" },
	{ .d = 0, .sd = 2, .kind = "linear" },
};

#define NDRIFT (sizeof(drifts) / sizeof(drifts[0]))

/* The rows the issue asks for, with fewer trials for N = 10,000. */
static void
standard_table(const struct opts *o, uint64_t seed)
{
	static const char *noises[] = { "normal", "t3", "outlier", "bimodal",
	    "arrays" };
	static const double ds[] = { 1, 2, 4, 8 };
	unsigned s = o->trials, big = (s + 3) / 4, nul = s * 5 / 2;
	struct sim_case cs;
	size_t i, j;

	for (i = 0; i < 5; i++)
		for (j = 0; j < 4; j++) {
			cs = (struct sim_case){ "linear", 1000, noises[i], ds[j],
			    0, 0, 0, 0, s, seed,
		    NULL, 0, 0, 0 };
			run_case(&cs, o);
		}
	cs = (struct sim_case){ "merge", 1000, "normal", 2, 0, 0, 0, 0, s, seed,
		    NULL, 0, 0, 0 };
	run_case(&cs, o);
	cs.d = 4;
	run_case(&cs, o);
	cs = (struct sim_case){ "linear", 100, "normal", 2, 0, 0, 0, 0, s, seed,
		    NULL, 0, 0, 0 };
	run_case(&cs, o);
	cs.n = 10000;
	cs.trials = big;
	run_case(&cs, o);
	cs = (struct sim_case){ "merge", 10000, "normal", 4, 0, 0, 0, 0, big, seed,
		    NULL, 0, 0, 0 };
	run_case(&cs, o);
	cs = (struct sim_case){ "linear", 1000, "normal", 2, 0, 0, 0.05, 0, s, seed,
		    NULL, 0, 0, 0 };
	run_case(&cs, o);
	cs.d = 4;
	run_case(&cs, o);
	cs.dag = "merge";
	run_case(&cs, o);
	for (i = 0; i < 4; i++) {
		cs = (struct sim_case){ "linear", 1000, "passfail", 0,
		    i % 2 ? 0.3 : 0.05, i < 2 ? 1 : 0.8, 0, 0, s, seed,
		    NULL, 0, 0, 0 };
		run_case(&cs, o);
	}
	for (i = 0; i < NDRIFT; i++) {
		cs = (struct sim_case){ "linear", 1000, "normal", drifts[i].d,
		    0, 0, 0, drifts[i].d == 0, s, seed, drifts[i].kind, drifts[i].sd, 80, 0 };
		run_case(&cs, o);
	}
	/* A quiet metric: noise 0.5% of the level, so 1% is 2 sd. */
	for (i = 0; i < 2; i++) {
		cs = (struct sim_case){ "linear", 1000, "normal", i ? 0 : 4, 0, 0,
		    0, i, i ? nul : s, seed, NULL, 0, 0, 200 };
		run_case(&cs, o);
	}
	for (i = 0; i < 6; i++) {
		cs = (struct sim_case){ "linear", 1000, i < 5 ? noises[i] :
		    "passfail", 0, 0.3, 0.3, 0, 1, nul, seed,
		    NULL, 0, 0, 0 };
		run_case(&cs, o);
	}
}

/* Every knob is an option, so any row can be rerun alone. */
static void
usage(void)
{
	fprintf(stderr,
	    "usage: sim [--dag linear|merge] [--n N] [--noise normal|t3|outlier|arrays|"
	    "bimodal|passfail]\n"
	    "           [--d D] [--pg P] [--pb P] [--skip F] [--null] [--trials T]"
	    " [--seed S]\n"
	    "           [--strategy all|engine|staged|0day|pinpoint|naive|infogain]"
	    " [--no-hosts]"
	    " [--full]\n"
	    "           [--conf C] [--max-samples N] [--repro-min N]"
	    " [--repro-max N] [--repro-growth F]\n"
	    "           [--repro-alpha A] [--repro-beta B] [--repro-effect D]"
	    " [--repro-gap G] [--exist-alpha A]\n"
	    "           [--null-min-change 0|1]\n"
	    "           [--min-change F] [--build-cost C] [--run-cost C]"
	    " [--dof NU]\n"
	    "           [--contamination E] [--level-p P] [--level-samples K]\n"
	    "           [--stop-margin M]\n"
	    "           [--drift linear|step] [--drift-sd A] [--drift-len T]\n"
	    "           [--drift-z Z] [--drift-check K] [--base LEVEL]\n"
	    "           [--zeroday-runs N] [--pinpoint-attempts N]"
	    " [--pinpoint-cap N]\n"
	    "           [--mode shared|staged] [--calibrate[=TRIALS]] [-v]"
	    " [--trace]\n");
	exit(2);
}

/*
 * The staged engine beside ep: its own defaults where they differ from the
 * shared mode's (first look, look growth, endpoint alpha) unless ep
 * changed them, no factor over all samples and no priced null; every
 * other knob as in ep.
 */
static void
staged_params(const struct engine_params *ep, struct engine_params *out)
{
	struct engine_params sd, dd;

	engine_params_staged(&sd);
	engine_params_default(&dd);
	*out = *ep;
	out->mode = ENGINE_MODE_STAGED;
	out->exist_alpha = sd.exist_alpha;
	out->null_min_change = sd.null_min_change;
	if (ep->repro_min == dd.repro_min)
		out->repro_min = sd.repro_min;
	if (ep->repro_alpha == dd.repro_alpha)
		out->repro_alpha = sd.repro_alpha;
	if (ep->repro_growth == dd.repro_growth)
		out->repro_growth = sd.repro_growth;
}

/* Parses the options and runs one row, the table or the calibration. */
int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dag", 1, 0, 'D' }, { "n", 1, 0, 'n' }, { "noise", 1, 0, 'N' },
		{ "d", 1, 0, 'd' }, { "pg", 1, 0, 'g' }, { "pb", 1, 0, 'b' },
		{ "skip", 1, 0, 'k' }, { "null", 0, 0, 'z' },
		{ "trials", 1, 0, 't' }, { "seed", 1, 0, 's' },
		{ "strategy", 1, 0, 'S' }, { "no-hosts", 0, 0, 'H' },
		{ "full", 0, 0, 'F' }, { "conf", 1, 0, 'c' },
		{ "max-samples", 1, 0, 'm' }, { "repro-min", 1, 0, 'r' },
		{ "repro-max", 1, 0, 'R' }, { "repro-alpha", 1, 0, 'a' },
		{ "min-change", 1, 0, 'M' }, { "build-cost", 1, 0, 'B' },
		{ "run-cost", 1, 0, 'U' }, { "dof", 1, 0, 'f' },
		{ "contamination", 1, 0, 'e' }, { "zeroday-runs", 1, 0, 'Z' },
		{ "pinpoint-attempts", 1, 0, 'P' }, { "pinpoint-cap", 1, 0, 'C' },
		{ "calibrate", 2, 0, 'K' }, { "level-p", 1, 0, 'L' },
		{ "level-samples", 1, 0, 'l' }, { "repro-beta", 1, 0, 'x' },
		{ "repro-effect", 1, 0, 'y' }, { "repro-gap", 1, 0, 'w' },
		{ "exist-alpha", 1, 0, 'E' }, { "null-min-change", 1, 0, 'J' },
		{ "stop-margin", 1, 0, 'Q' }, { "drift", 1, 0, 'T' },
		{ "drift-sd", 1, 0, 'A' }, { "drift-len", 1, 0, 'W' },
		{ "drift-z", 1, 0, 'X' }, { "drift-check", 1, 0, 'Y' },
		{ "base", 1, 0, 'G' }, { "mode", 1, 0, 'O' },
		{ "repro-growth", 1, 0, 'j' }, { "trace", 0, 0, 'V' },

		{ 0, 0, 0, 0 },
	};
	struct sim_case cs = { "linear", 1000, "normal", 2, 0.1, 1, 0, 0, 0, 1,
	    NULL, 1, 80, 0 };
	struct opts o;
	int ch, single = 0, cal = 0, i, k;
	unsigned cal_trials = 20000;

	memset(&o, 0, sizeof(o));
	engine_params_default(&o.ep);
	o.zd_runs = 6;
	o.pp_attempts = 10;
	o.pp_cap = 30;
	o.host_runs = 1;
	o.trials = 30;
	for (i = 0; i < ST_N; i++)
		o.strategies[i] = i != ST_INFOGAIN;
	while ((ch = getopt_long(argc, argv, "v", lo, NULL)) != -1) {
		switch (ch) {
		case 'D': cs.dag = optarg; single = 1; break;
		case 'n': cs.n = strtoul(optarg, NULL, 10); single = 1; break;
		case 'N': cs.noise = optarg; single = 1; break;
		case 'd': cs.d = atof(optarg); single = 1; break;
		case 'g': cs.pg = atof(optarg); single = 1; break;
		case 'b': cs.pb = atof(optarg); single = 1; break;
		case 'k': cs.skip = atof(optarg); single = 1; break;
		case 'z': cs.null = 1; single = 1; break;
		case 't': cs.trials = (unsigned)strtoul(optarg, NULL, 10); break;
		case 's': cs.seed = strtoull(optarg, NULL, 10); break;
		case 'S':
			/* "all": the baselines; the reference is slow. */
			for (k = 0, i = 0; i < ST_N; i++) {
				o.strategies[i] = strcmp(optarg, st_opts[i]) == 0 ||
				    (strcmp(optarg, "all") == 0 && i != ST_INFOGAIN);
				k += o.strategies[i];
			}
			if (k == 0)
				usage();
			break;
		case 'H': o.host_runs = 0; break;
		case 'F': cs.trials = 500; break;
		case 'c': o.ep.confidence = atof(optarg); break;
		case 'm': o.ep.max_samples = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'r': o.ep.repro_min = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'R': o.ep.repro_max = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'a': o.ep.repro_alpha = atof(optarg); break;
		case 'j': o.ep.repro_growth = atof(optarg); break;
		case 'M': o.ep.min_change = atof(optarg); break;
		case 'B': o.ep.build_cost = atof(optarg); break;
		case 'U': o.ep.run_cost = atof(optarg); break;
		case 'f': o.ep.t_dof = atof(optarg); break;
		case 'e': o.ep.contamination = atof(optarg); break;
		case 'Z': o.zd_runs = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'P': o.pp_attempts = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'C': o.pp_cap = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'K':
			cal = 1;
			if (optarg)
				cal_trials = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'L': o.ep.level_p = atof(optarg); break;
		case 'l': o.ep.level_samples = atof(optarg); break;
		case 'Q': o.ep.stop_margin = atof(optarg); break;
		case 'x': o.ep.repro_beta = atof(optarg); break;
		case 'y': o.ep.repro_effect = atof(optarg); break;
		case 'w': o.ep.repro_gap = atof(optarg); break;
		case 'E': o.ep.exist_alpha = atof(optarg); break;
		case 'J': o.ep.null_min_change = atoi(optarg); break;
		case 'T': cs.drift = optarg; single = 1; break;
		case 'A': cs.drift_sd = atof(optarg); break;
		case 'W': cs.drift_len = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'G': cs.base = atof(optarg); single = 1; break;
		case 'X': o.ep.drift_z = atof(optarg); break;
		case 'Y': o.ep.drift_check = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'O':
			if (strcmp(optarg, "shared") == 0)
				o.ep.mode = ENGINE_MODE_SHARED;
			else if (strcmp(optarg, "staged") == 0)
				o.ep.mode = ENGINE_MODE_STAGED;
			else
				usage();
			break;
		case 'v': o.verbose = 1; break;
		case 'V': o.trace = 1; break;
		default: usage();
		}
	}
	if (optind != argc || cs.n == 0)
		usage();
	staged_params(&o.ep, &o.staged);
	if (cal) {
		calibrate(&o, cal_trials, cs.seed);
		return 0;
	}
	if (single) {
		if (cs.trials == 0)
			cs.trials = 100;
		run_case(&cs, &o);
		calib_print();
		return 0;
	}
	if (cs.trials != 0)
		o.trials = cs.trials;
	standard_table(&o, cs.seed);
	sim_goals_print();
	calib_print();
	sim_multi_row(&o.ep, o.trials, cs.seed);
	return 0;
}
