/* SPDX-License-Identifier: MIT */
/*
 * Benchmark results: a JSON object of numbers, {"throughput": 881807.5},
 * or of arrays of numbers, one per iteration of the benchmark in the run
 * (LKP's shape: {"vm-scalability.throughput": [v1, v2, ...]}), each element
 * one stored value; the statistics see the run's aggregate (common/agg.h).
 * Metric names follow bd_metric_name_valid (common/names.h).
 *
 * The run step prints it as the last line of its stdout, or leaves it in a
 * result file.  Anything else (not JSON, not an object, a string, a boolean,
 * a duplicate key, a missing configured metric) is a clear error, never a
 * sample.
 */
#ifndef REMOTE_METRICS_H
#define REMOTE_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "config/config.h"

struct metrics_value {
	char		*name;
	double		 value;
	unsigned	 index;		/* element of an array; 0 for a number */
};

/* Owns its names; metrics_release() frees them. */
struct metrics {
	struct metrics_value	*v;
	size_t			 n;
};

void	metrics_init(struct metrics *m);
void	metrics_release(struct metrics *m);
/* Deep copy of src into dst (dst is initialised by the call). */
void	metrics_copy(struct metrics *dst, const struct metrics *src);
/*
 * Appends one sample (a copy of name), so every producer of metrics, a
 * result file's parser or a lab's test cases, fills every field.
 */
void	metrics_append(struct metrics *m, const char *name, double value,
	    unsigned index);
/*
 * 0 when name may be a metric (bd_metric_name_valid), else -EINVAL with
 * err saying why, the name introduced by what ("test case").
 */
int	metrics_name_check(const char *what, const char *name,
	    struct bd_error *err);
/* The first sample of name (index 0), or NULL. */
const struct metrics_value *metrics_find(const struct metrics *m,
	    const char *name);

/*
 * Parses a whole document (a result file).  bench may be NULL; if set, every
 * metric it configures must be present.  Returns 0 or -EINVAL with err set.
 */
int	metrics_parse(const char *text, size_t len,
	    const struct config_benchmark *bench, struct metrics *out,
	    struct bd_error *err);

/*
 * Parses the last non-empty line of text (the tail of a step's stdout).
 * truncated says text is only the end of a longer output, so a last line
 * without a newline before it may have been cut.
 */
int	metrics_parse_last_line(const char *text, size_t len, bool truncated,
	    const struct config_benchmark *bench, struct metrics *out,
	    struct bd_error *err);

#endif
